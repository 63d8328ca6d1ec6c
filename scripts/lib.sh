# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Helpers shared by the demo, the testbed and the tests. Source it.

ACIS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ACIS_BUILD=${ACIS_BUILD:-$ACIS_ROOT/build}
ACIS_HUGEPAGES=${ACIS_HUGEPAGES:-512}

acis_log() { printf '\033[1m==> %s\033[0m\n' "$*"; }
acis_warn() { printf 'warning: %s\n' "$*" >&2; }

# Reserve and mount 2 MiB hugepages. Prints the EAL memory options to use:
# none on hugepages (the EAL keeps its files under the --file-prefix, so
# dpdk-dumpcap and dpdk-proc-info can attach; acis-switch removes them when
# it stops), --in-memory with ACIS_IN_MEMORY=1 (no files, no secondary
# process), or --no-huge with a warning where hugepages cannot be had.
acis_eal_mem_args() {
	if acis_have_hugepages; then
		if [ "${ACIS_IN_MEMORY:-0}" = 1 ]; then echo "--in-memory"; fi
	else
		acis_warn "no hugepages (free: $(awk '/HugePages_Free/ {print $2}' /proc/meminfo)); running with --no-huge (slower, fine for testing)"
		echo "--no-huge -m 1024 --no-shconf"
	fi
}

# Reserve and mount 2 MiB hugepages (ACIS_HUGEPAGES of them); succeeds when
# at least 128 are free on a hugetlbfs mount.
acis_have_hugepages() {
	local want=$ACIS_HUGEPAGES have free
	if [ -w /proc/sys/vm/nr_hugepages ]; then
		have=$(cat /proc/sys/vm/nr_hugepages)
		if [ "$have" -lt "$want" ]; then
			echo "$want" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
		fi
		if ! grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts; then
			mkdir -p /dev/hugepages
			mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
		fi
	fi
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	grep -qs ' hugetlbfs ' /proc/mounts && [ "${free:-0}" -ge 128 ]
}

# Quiet the kernel's own chatter and offloads that would hand a switch
# frames larger than the MTU or with checksums left for hardware:
#   acis_tame NAMESPACE DEVICE
acis_tame() {
	local ns=$1 dev=$2
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip netns exec "$ns" ethtool -K "$dev" tx off tso off gso off gro off \
		>/dev/null 2>&1 || true
}

# acis_host_veth NS IF MAC IP MTU TMPNAME PEER PEERNS: interface IF of
# namespace NS (MAC, IP/24, MTU), a veth made as TMPNAME whose other end
# PEER is in namespace PEERNS, both ends up.
acis_host_veth() {
	local ns=$1 ifc=$2 mac=$3 ip=$4 mtu=$5 tmp=$6 peer=$7 peerns=$8
	ip link add "$tmp" mtu "$mtu" type veth peer name "$peer" \
		mtu "$mtu" netns "$peerns"
	ip link set "$tmp" netns "$ns"
	ip -n "$ns" link set "$tmp" name "$ifc"
	ip -n "$ns" link set "$ifc" address "$mac"
	ip -n "$ns" addr add "$ip/24" dev "$ifc"
	ip -n "$ns" link set "$ifc" up
	ip -n "$peerns" link set "$peer" up
}

# The hosts' second network, beside the switch's (testbed.sh -b,
# fabric.sh -b): host I's eth1, MAC 02:a0:00:00:02:(10+I), IPv4
# 10.77.2.(10+I)/24, a veth whose peer br-hI is a port of the Linux
# bridge br0 in namespace PREFIX-br: the hosts joined by the kernel's own
# bridge, as a user would join them without acis-switch (the benchmarks'
# baseline). The kernel's defaults stay (segmentation and receive
# offloads on): it is the path a user would give MPI, and nothing of
# ours reads its frames.
acis_bridge_ip() { echo "10.77.2.$((10 + $1))"; }

# acis_bridge_up PREFIX MTU: namespace PREFIX-br and its br0, which only
# forwards: no address, no STP (its listening delay would hold every
# port back).
acis_bridge_up() {
	local br="$1-br"
	ip netns add "$br"
	ip -n "$br" link set lo up
	ip netns exec "$br" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$br" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip -n "$br" link add br0 mtu "$2" type bridge stp_state 0 forward_delay 0
	ip -n "$br" link set br0 up
}

# acis_bridge_host PREFIX NS I MTU: host I, namespace NS, on br0 (eth1)
acis_bridge_host() {
	acis_host_veth "$2" eth1 "$(printf '02:a0:00:00:02:%02x' $((10 + $3)))" \
		"$(acis_bridge_ip "$3")" "$4" "$1-b$3" "br-h$3" "$1-br"
	ip -n "$1-br" link set "br-h$3" master br0
}

# acis_netns_remove NS...: each namespace gone, and first what runs in
# it (started by the testbed's users: switches, host programs)
acis_netns_remove() {
	local ns pid
	for ns; do
		ip netns list | grep -q "^$ns\b" || continue
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$pid" 2>/dev/null || true
		done
		ip netns delete "$ns" 2>/dev/null || true
	done
}

# Open MPI across a testbed's host namespaces PREFIX-h0..: one rank per
# host, mpirun in h0, the other hosts' daemons started in their
# namespaces by scripts/bench/mpi-netns-agent.sh, Open MPI's own traffic
# (launch, point to point) on subnet NET: 10.77.0 (the switch's) or
# 10.77.2 (the Linux bridge's, testbed.sh or fabric.sh -b). Each host's
# session directory is under $BENCH_OMPI_TMP (default
# /tmp/acis-ompi-PREFIX; the caller removes it). Ranks yield when idle:
# more ranks than cores share them.
#   acis_ompi_hosts PREFIX NET NP MPIRUN-ARGS... (options, program, its args)
acis_ompi_hosts() {
	local prefix=$1 net=$2 np=$3 r hosts=''
	local tmp=${BENCH_OMPI_TMP:-/tmp/acis-ompi-$prefix}
	shift 3
	for ((r = 0; r < np; r++)); do
		hosts+=${hosts:+,}$net.$((10 + r))
	done
	mkdir -p "$tmp/h0"
	BENCH_NETNS_PREFIX=$prefix BENCH_OMPI_TMP=$tmp TMPDIR=$tmp/h0 \
	ip netns exec "$prefix-h0" mpirun.openmpi --allow-run-as-root \
		-np "$np" --host "$hosts" --map-by node --bind-to none \
		--mca plm_rsh_agent "$ACIS_ROOT/scripts/bench/mpi-netns-agent.sh" \
		--mca btl self,tcp --mca btl_tcp_if_include "$net.0/24" \
		--mca oob_tcp_if_include "$net.0/24" --mca mpi_yield_when_idle 1 \
		"$@"
}

# Wait until a command succeeds, up to $1 tenths of a second.
acis_wait_for() {
	local tries=$1; shift
	while [ "$tries" -gt 0 ]; do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# Start acis-switch in a testbed's switch namespace, in the background.
#   acis_switch_start PREFIX PIPELINE LOGFILE [extra app options...]
# Sets ACIS_SW_PID and waits until the switch answers telemetry.
acis_switch_start() {
	local prefix=$1 pipeline=$2 log=$3; shift 3
	local lcore mem
	# ACIS_SW_LCORES: the EAL lcore list (default: the last core);
	# ACIS_SW_IDLE_SLEEP: --idle-sleep's microseconds (default 50, 0:
	# poll without sleeping)
	lcore=${ACIS_SW_LCORES:-$(( $(nproc) > 1 ? $(nproc) - 1 : 0 ))}
	mem=$(acis_eal_mem_args)
	# shellcheck disable=SC2086
	ip netns exec "$prefix-sw" "$ACIS_BUILD/app/acis-switch/acis-switch" \
		-l "$lcore" $mem --file-prefix "$prefix" --no-pci \
		--log-level=warning -- --pipeline "$pipeline" \
		--idle-sleep "${ACIS_SW_IDLE_SLEEP:-50}" "$@" >"$log" 2>&1 &
	ACIS_SW_PID=$!
	ACIS_SW_PREFIX=$prefix
	if ! acis_wait_for 150 "$ACIS_BUILD/app/acisctl/acisctl" -f "$prefix" info; then
		echo "acis-switch did not come up; its log:" >&2
		cat "$log" >&2
		return 1
	fi
}

# Stop the switch started by acis_switch_start (SIGINT: it prints its
# counters on the way out) and wait for it.
acis_switch_stop() {
	[ -n "${ACIS_SW_PID:-}" ] || return 0
	acis_switch_stop_pid "$ACIS_SW_PID" "${ACIS_SW_PREFIX:-}"
	ACIS_SW_PID=
	ACIS_SW_PREFIX=
}

# Stop the acis-switch of PID on EAL file prefix PREFIX (SIGINT, SIGKILL
# after 10 s) and remove what it left of its files:
#   acis_switch_stop_pid PID PREFIX
acis_switch_stop_pid() {
	local pid=$1 prefix=$2
	# a switch paused with SIGSTOP (e2e.sh) hears SIGINT once continued
	kill -CONT "$pid" 2>/dev/null || true
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	# a switch this shell did not start is no child to wait for: see it
	# go before its files do (a second switch may take the prefix next)
	if ! acis_wait_for 100 bash -c "! kill -0 $pid 2>/dev/null"; then
		acis_warn "acis-switch $pid did not stop in 10 s: killed"
		kill -KILL "$pid" 2>/dev/null || true
		acis_wait_for 50 bash -c "! kill -0 $pid 2>/dev/null" || true
	fi
	acis_eal_files_remove "$prefix"
}

# End (SIGKILL) every process in the testbed's host namespaces: the ranks
# a test started, when it ends early. acis_kill_hosts PREFIX
acis_kill_hosts() {
	local ns p
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^$1-h[0-9]+$" || true); do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$p" 2>/dev/null || true
		done
	done
}

# What a DPDK process on --file-prefix PREFIX left when it did not stop
# cleanly (acis-switch removes its own on the way out): hugepage files and
# the runtime directory. Only for a prefix no running process uses.
acis_eal_files_remove() {
	local prefix=$1 dir
	[ -n "$prefix" ] || return 0
	# a process that still maps them (its hugepages, its runtime config)
	# is using the prefix: leave them
	if grep -qsE "/${prefix}map_[0-9]+|/dpdk/${prefix}/" /proc/[0-9]*/maps; then
		acis_warn "prefix $prefix still in use: its files stay"
		return 0
	fi
	for dir in $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do
		rm -f "$dir/${prefix}map_"[0-9]*
	done
	rm -rf "/var/run/dpdk/$prefix"
}

# acisctl against a running switch: acis_ctl PREFIX COMMAND
acis_ctl() {
	"$ACIS_BUILD/app/acisctl/acisctl" -f "$1" "${@:2}"
}

# One counter from a telemetry reply: acis_counter PREFIX[@SWITCH] CMD KEY
# (the first "KEY": NUMBER in the reply).
acis_counter() {
	local v sel=(-f "$1")
	# PREFIX@SWITCH: a logical switch of the process on PREFIX
	[[ $1 == *@* ]] && sel=(-f "${1%@*}" -n "${1#*@}")
	v=$("$ACIS_BUILD/app/acisctl/acisctl" "${sel[@]}" --raw "$2" |
		grep -o "\"$3\": *[0-9]*" | head -1 | grep -o '[0-9]*$') || true
	if [ -z "$v" ]; then
		echo "acis_counter: $2 of switch $1 has no counter $3" >&2
		return 1
	fi
	echo "$v"
}

# A counter of the collective stage: acis_coll_counter PREFIX NAME
acis_coll_counter() { acis_counter "$1" /acis/collectives "$2"; }

# A figure of the switch's DPDK heap: acis_heap PREFIX NAME (Alloc_size...)
acis_heap() { acis_counter "$1" /eal/heap_info,0 "$2"; }

# Drops a collective run may not cause: all of them but the expected
# refusals, which are repeated chunks (duplicate), back-pressure (busy:
# NACK BUSY, the host retries), and repeated confirmations that arrive
# after their communicator was freed (no_comm) or their rank left the job
# (not_member; with two workers a confirmation can overtake the LEAVE),
# and congestion losses the protocol recovers from (handoff_full, tx_full
# when a two-core machine is overloaded), and answers to a memif host that
# has gone (tx_link_down). acis_unexpected_drops PREFIX
acis_unexpected_drops() {
	local d=/acis/drops
	echo $(( $(acis_counter "$1" $d total) - \
		$(acis_counter "$1" $d acis_duplicate) - \
		$(acis_counter "$1" $d acis_busy) - \
		$(acis_counter "$1" $d acis_no_comm) - \
		$(acis_counter "$1" $d acis_not_member) - \
		$(acis_counter "$1" $d handoff_full) - \
		$(acis_counter "$1" $d tx_full) - \
		$(acis_counter "$1" $d tx_link_down) ))
}

# Whether the switch has N aggregation slots open, as before a test
# (acis_wait_for ... acis_slots_back PREFIX N): acis_slots_back PREFIX N
acis_slots_back() { [ "$(acis_coll_counter "$1" slots_in_use)" -eq "$2" ]; }

# The first three FAIL lines of ranks 0..P-1's logs in DIR, each marked
# with its rank: acis_rank_fails DIR P
acis_rank_fails() {
	local r
	for ((r = 0; r < $2; r++)); do
		{ grep -h '^FAIL' "$1/rank$r.log" || true; } | head -3 |
			sed "s/^/    rank $r: /"
	done
}

# How many results the ranks whose logs are in DIR checked (the sum of
# their "N passed, M failed" lines): acis_checks_passed DIR
acis_checks_passed() {
	awk '/ passed, / { s += $1 } END { print s + 0 }' "$1"/rank*.log
}

# The environment that puts host I's libacis on the transport
# ACIS_HOST_TRANSPORT names: nothing for udp (the default: the kernel's
# sockets), and for dpdk the host's own net_memif port on the switch of
# pipelines/testbed-memif.ini (socket $ACIS_MEMIF_DIR/hI.sock, interface
# id $ACIS_MEMIF_ID, default 0: one process per host and id).
#   env $(acis_host_env I) COMMAND...
acis_host_env() {
	case ${ACIS_HOST_TRANSPORT:-udp} in
	udp) ;;
	dpdk)
		echo "ACIS_TRANSPORT=dpdk ACIS_BIND=10.77.0.$((10 + $1))" \
			"ACIS_DPDK_PORT=net_memif$1,role=client,id=${ACIS_MEMIF_ID:-0},socket=${ACIS_MEMIF_DIR:-/run/acis-memif}/h$1.sock,socket-abstract=no${ACIS_MEMIF_ARGS:-}"
		;;
	*) echo "acis_host_env: ACIS_HOST_TRANSPORT=$ACIS_HOST_TRANSPORT: expected udp or dpdk" >&2; return 1 ;;
	esac
}

# Run acis-coll-check (or $ACIS_RANK_TOOL, a program taking the same
# --switch --job --rank --size) as ranks 0..P-1 of one job, one per
# testbed host.
#   acis_run_ranks PREFIX P JOB LOGDIR [the tool's options...]
# Each rank's output goes to LOGDIR/rankR.log; fails if any rank failed.
acis_run_ranks() {
	local prefix=$1 P=$2 job=$3 dir=$4; shift 4
	local r rc=0 pids=()
	for ((r = 0; r < P; r++)); do
		# shellcheck disable=SC2046
		env $(acis_host_env "$r") \
		ip netns exec "$prefix-h$r" "${ACIS_RANK_TOOL:-$ACIS_BUILD/tools/acis-coll-check}" \
			--switch "${ACIS_SWITCH_IP:-10.77.0.1}" --job "$job" --rank "$r" --size "$P" \
			"$@" >"$dir/rank$r.log" 2>&1 &
		pids+=($!)
	done
	for r in "${!pids[@]}"; do
		wait "${pids[$r]}" || rc=1
	done
	return $rc
}

# The end-to-end tests' checks: check WHAT COMMAND... runs COMMAND and
# prints "ok   - WHAT" or "FAIL - WHAT", counting in $passes and $fails.
check() {
	local what=$1; shift
	if "$@"; then
		echo "ok   - $what"; passes=$(( ${passes:-0} + 1 ))
	else
		echo "FAIL - $what"; fails=$(( ${fails:-0} + 1 ))
	fi
}

# Sum over every rank's log in DIR of the count next to WORD on its
# "messages sent ..." line (libacis's own fault figures):
#   acis_sum_field DIR WORD
acis_sum_field() {
	# no match is a sum of 0 (and must not end a script under set -e)
	{ grep -ho -E "[0-9]+ $2|$2 [0-9]+" "$1"/rank*.log || true; } |
		awk '{ s += ($1 ~ /^[0-9]+$/) ? $1 : $2 } END { print s + 0 }'
}

# Every argument a number above 0.
acis_all_above_0() {
	local n
	for n; do [ "${n:-0}" -gt 0 ] || return 1; done
}

# A check that faults happened in the run whose rank logs are in DIR:
# messages dropped, duplicated and reordered, chunks sent again. A fault
# test in which none happened proved nothing. acis_faults_seen NAME DIR
acis_faults_seen() {
	local dropped duplicated reordered resent
	dropped=$(acis_sum_field "$2" dropped)
	duplicated=$(acis_sum_field "$2" duplicated)
	reordered=$(acis_sum_field "$2" reordered)
	resent=$(acis_sum_field "$2" retransmitted)
	check "$1: faults injected ($dropped dropped, $duplicated duplicated, $reordered reordered), chunks sent again ($resent)" \
		acis_all_above_0 "$dropped" "$duplicated" "$reordered" "$resent"
}

# The start every end-to-end test shares. acis_e2e_begin NAME PREFIX skips
# (exit 77) without root, then sets PREFIX, TB (the testbed script), LOG
# and DIR (a log file and a work folder named after the test) and
# fails=passes=0. On any exit the script itself — never a subshell that
# inherited the trap — runs the test's e2e_teardown, if it defines one,
# then acis_e2e_cleanup.
acis_e2e_begin() {
	[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
	PREFIX=$2
	TB="$ACIS_ROOT/scripts/testbed.sh"
	LOG=$(mktemp "/tmp/acis-e2e-$1.XXXXXX.log")
	DIR=$(mktemp -d "/tmp/acis-e2e-$1.XXXXXX")
	# the memif sockets of a switch on pipelines/testbed-memif.ini
	export ACIS_MEMIF_DIR=$DIR/memif
	mkdir -p "$ACIS_MEMIF_DIR"
	fails=0 passes=0
	# cleanup on every exit; an interrupt ends the test (the EXIT trap
	# then cleans up once)
	trap acis_e2e_exit EXIT
	trap 'exit 130' INT TERM
}

acis_e2e_exit() {
	[ "$BASHPID" = "$$" ] || return 0
	if declare -F e2e_teardown >/dev/null; then
		e2e_teardown
	fi
	acis_e2e_cleanup "$PREFIX" "$LOG" "$DIR"
}

# What an end-to-end test leaves when it ends, pass or fail: the switch it
# started, its testbed, its files. acis_e2e_cleanup PREFIX FILE...
acis_e2e_cleanup() {
	local prefix=$1; shift
	acis_switch_stop
	"$ACIS_ROOT/scripts/testbed.sh" down -p "$prefix" >/dev/null 2>&1 || true
	rm -rf "$@"
}

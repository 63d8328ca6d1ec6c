#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The fabric testbed: a fabric of acis switches built from one topology
# file (topologies/*.ini, doc/fabric.md), its hosts as network namespaces,
# its switches placed as the file says or -P says: logical (every switch
# in one acis-switch process, links ring pairs) or process (one process
# per switch, links net_memif pairs).
#
#   scripts/fabric.sh up     TOPOLOGY [-p PREFIX] [-m MTU] [-P PLACEMENT] [-b]
#   scripts/fabric.sh start  [-p PREFIX] [SWITCH...]
#   scripts/fabric.sh stop   [-p PREFIX] [SWITCH...]
#   scripts/fabric.sh ctl    [-p PREFIX] SWITCH ACISCTL-COMMAND...
#   scripts/fabric.sh exec   [-p PREFIX] SWITCH|HOST COMMAND...
#   scripts/fabric.sh status [-p PREFIX]
#   scripts/fabric.sh links  [-p PREFIX]
#   scripts/fabric.sh down   [-p PREFIX]
#
# up makes a namespace PREFIX-HOST per host and, placement process, a
# namespace PREFIX-SWITCH per switch; placement logical, one namespace
# PREFIX-fab for the one process. Host i of the file (in its order) has
# interface eth0, MAC 02:a0:00:00:00:(10+i) and IPv4 10.77.0.(10+i)/24,
# as on the one-switch testbed (scripts/testbed.sh), joined by a veth to
# interface pN of its switch's namespace (logical: sKpN of PREFIX-fab, K
# the switch's place in the file). With -b each host also gets eth1 on
# 10.77.2.(10+i)/24, a port of the Linux bridge br0 in namespace
# PREFIX-br, as testbed.sh -b gives it: the hosts joined without the
# switches, the benchmarks' baseline. start writes each switch's pipeline
# file (acis-fabric pipeline) and starts the switches in the file's
# order, on EAL file prefix PREFIX-SWITCH (logical: the one process on
# PREFIX-fab; acisctl -f PREFIX-fab -n SWITCH reaches a switch), their
# logs and pipelines in /run/acis-fabric/PREFIX; memif links' sockets
# live there too. Switch k answers on 10.77.0.(200+k) unless the
# file gives it an address (a host reaches 10.78.0.0/16 on its link too,
# where acis-fabric torus puts the switches of a torus past 250). links shows every fabric link's frames and
# bytes each way (the TX counters of both ends' ports). stop ends them (SIGINT: they print their
# counters), down ends them and removes the namespaces (PREFIX-br too)
# and files.
#
# Environment: ACIS_FABRIC_LCORES (placement logical: the EAL lcores,
# e.g. 0-1; switch k is walked by the k-th, round robin; default 0, the
# main lcore walks them all), ACIS_BUILD (the build folder), ACIS_SW_IDLE_SLEEP (each
# switch's --idle-sleep, default 50 us), ACIS_MTU, ACIS_MBUFS and
# ACIS_FOLD (off: no folding in the tree, the unicast baseline) as in the
# generated pipelines; ACIS_NOFOLD="SWITCH ..." starts those switches
# with fold = off, the others as ACIS_FOLD says.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

cmd=${1:-}
[ -n "$cmd" ] && shift
topo=
if [ "$cmd" = up ] && [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
	topo=$1; shift
fi
prefix=acisf
mtu=1500
placement=
bridge=0
while getopts "p:m:P:b" o; do
	case $o in
	p) prefix=$OPTARG ;;
	m) mtu=$OPTARG ;;
	P) placement=$OPTARG ;;
	b) bridge=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

die() { echo "fabric: $*" >&2; exit 1; }
# PREFIX-vI names a host's veth before it moves: an interface name
[ ${#prefix} -le 10 ] && [[ $prefix =~ ^[A-Za-z0-9_-]+$ ]] ||
	die "-p $prefix: letters, digits, '-' and '_', at most 10"

FAB=$ACIS_BUILD/tools/acis-fabric
CTL=$ACIS_BUILD/app/acisctl/acisctl
SW=$ACIS_BUILD/app/acis-switch/acis-switch
state=/run/acis-fabric/$prefix

# The topology's listing (acis-fabric list), kept by up.
listing() {
	[ -f "$state/list" ] || die "no fabric $prefix (run: $0 up TOPOLOGY -p $prefix)"
	cat "$state/list"
}
switches() { listing | awk '$1 == "switch" {print $2}'; }
# The placement up chose: logical or process.
placed() { cat "$state/placement" 2>/dev/null || echo process; }
# A switch's namespace, EAL file prefix and acisctl arguments.
sw_ns() { if [ "$(placed)" = logical ]; then echo "$prefix-fab"; else echo "$prefix-$1"; fi; }
ctl_args() {
	if [ "$(placed)" = logical ]; then echo "-f $prefix-fab -n $1"
	else echo "-f $prefix-$1"; fi
}

up() {
	local name sw port i=0 ns kind
	[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
	[ -n "$topo" ] || die "usage: $0 up TOPOLOGY [-p PREFIX] [-m MTU] [-P PLACEMENT] [-b]"
	[ -x "$FAB" ] || die "no $FAB (build first: make build)"
	[ ! -e "$state" ] || die "fabric $prefix exists; run: $0 down -p $prefix"
	[ "$bridge" -eq 0 ] || ! ip netns list | grep -q "^$prefix-br\b" ||
		die "$prefix-br exists; run: $0 down -p $prefix"
	mkdir -p "$state/memif"
	if ! "$FAB" list "$topo" >"$state/list.new"; then
		rm -rf "$state"
		exit 1
	fi
	mv "$state/list.new" "$state/list"
	cp "$topo" "$state/topology.ini"
	# a profile the file names is read beside it (doc/fidelity.md)
	if [ -d "$(dirname "$topo")/profiles" ]; then
		cp -r "$(dirname "$topo")/profiles" "$state/profiles"
	fi
	if [ -z "$placement" ]; then
		placement=$("$FAB" check "$topo" | sed -n '1s/.*placement \([a-z]*\).*/\1/p')
		# one machine runs what the file places on many as processes
		[ "$placement" = machine ] && placement=process
	fi
	case $placement in
	logical | process) echo "$placement" >"$state/placement" ;;
	*) rm -rf "$state"; die "-P $placement: expected logical or process" ;;
	esac
	while read -r kind name _; do
		[ "$kind" = switch ] || continue
		ns=$(sw_ns "$name")
		ip netns list | grep -q "^$ns\b" && continue
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	done <"$state/list"
	[ "$bridge" -eq 0 ] || acis_bridge_up "$prefix" "$mtu"
	while read -r kind name sw port; do
		[ "$kind" = host ] || continue
		ns="$prefix-$name"
		local swns iface
		swns=$(sw_ns "$sw")
		iface=$port
		if [ "$placement" = logical ]; then
			iface="s$(switches | grep -nx "$sw" | cut -d: -f1 | awk '{print $1 - 1}')$port"
		fi
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		acis_host_veth "$ns" eth0 "$(printf '02:a0:00:00:00:%02x' $((10 + i)))" \
			"10.77.0.$((10 + i))" "$mtu" "$prefix-v$i" "$iface" "$swns"
		# switches past the 250th answer on 10.78.0.0/16 (acis-fabric
		# torus): on the same link
		ip -n "$ns" route add 10.78.0.0/16 dev eth0
		acis_tame "$ns" eth0
		acis_tame "$swns" "$iface"
		[ "$bridge" -eq 0 ] || acis_bridge_host "$prefix" "$ns" "$i" "$mtu"
		i=$((i + 1))
	done <"$state/list"
	echo "fabric $prefix: $(switches | wc -l) switches ($(switches | tr '\n' ' ')), $i hosts (10.77.0.10..10.77.0.$((9 + i))), placement $placement"
	[ "$bridge" -eq 0 ] ||
		echo "fabric $prefix: bridge br0 in $prefix-br ($(acis_bridge_ip 0)..$(acis_bridge_ip $((i - 1))) on the hosts' eth1)"
}

# pipeline_of NAME: its pipeline file in the state folder, fold = off
# when ACIS_NOFOLD names it
pipeline_of() {
	"$FAB" pipeline "$state/topology.ini" "$1" "$(placed)" >"$state/$1.ini"
	if [[ " ${ACIS_NOFOLD:-} " == *" $1 "* ]]; then
		sed -i 's/^fold = .*/fold = off/' "$state/$1.ini"
	fi
}

# lcore_ids LIST: the EAL lcore list (0, 0-1, 0,2) as ids, one a line
lcore_ids() {
	local part
	for part in ${1//,/ }; do
		if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
			seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
		elif [[ $part =~ ^[0-9]+$ ]]; then
			echo "$part"
		else
			die "ACIS_FABRIC_LCORES=$1: expected lcore ids like 0, 0-1 or 0,2"
		fi
	done
}

# start_logical: every switch in one process on PREFIX-fab; with
# ACIS_FABRIC_LCORES naming several lcores, switch k is walked by the
# k-th of them (round robin), else the main lcore walks them all
start_logical() {
	local name k=0 ids=() args=()
	[ -f "$state/fab.pid" ] && kill -0 "$(cat "$state/fab.pid")" 2>/dev/null &&
		die "the fabric's switches are running (pid $(cat "$state/fab.pid"))"
	mapfile -t ids < <(lcore_ids "${ACIS_FABRIC_LCORES:-0}")
	for name in $(switches); do
		pipeline_of "$name"
		if [ ${#ids[@]} -gt 1 ]; then
			printf '\n[lcore %s]\nrx = %s\n' "${ids[$((k % ${#ids[@]}))]}" \
				"$(sed -n 's/^\[port \(.*\)\]$/\1/p' "$state/$name.ini" | tr '\n' ' ')" \
				>>"$state/$name.ini"
		fi
		args+=(--pipeline "$state/$name.ini")
		k=$((k + 1))
	done
	# up within 30 s and a second for every 50 switches more (512 take
	# 12-17 s on a quiet 2-core machine, longer on a loaded one)
	run_switch "$prefix-fab" "${ACIS_FABRIC_LCORES:-0}" fab $((300 + 2 * k)) "${args[@]}"
}

# run_switch NAMESPACE LCORES NAME TRIES ACIS-SWITCH-ARGS...: one
# acis-switch process in NAMESPACE on EAL file prefix NAMESPACE and
# LCORES, its log and pid NAME.log and NAME.pid in the state folder; up
# once its telemetry answers (within TRIES tenths of a second)
run_switch() {
	local ns=$1 lcores=$2 name=$3 tries=$4 mem pid
	shift 4
	mem=$(acis_eal_mem_args)
	# shellcheck disable=SC2086
	ACIS_MEMIF_DIR=$state/memif ACIS_MTU=${ACIS_MTU:-$mtu} \
	ip netns exec "$ns" "$SW" -l "$lcores" $mem \
		--file-prefix "$ns" --no-pci --log-level=warning -- \
		"$@" --idle-sleep "${ACIS_SW_IDLE_SLEEP:-50}" \
		>"$state/$name.log" 2>&1 &
	pid=$!
	echo "$pid" >"$state/$name.pid"
	if ! acis_wait_for "$tries" "$CTL" -f "$ns" info; then
		echo "fabric: switch process $name did not come up; its log:" >&2
		cat "$state/$name.log" >&2
		return 1
	fi
}

# start_one NAME INDEX: its pipeline, the process, its telemetry up
start_one() {
	local name=$1 k=$2
	[ -f "$state/$name.pid" ] && kill -0 "$(cat "$state/$name.pid")" 2>/dev/null &&
		die "switch $name is running (pid $(cat "$state/$name.pid"))"
	pipeline_of "$name"
	# spread the switches over the machine's cores
	run_switch "$prefix-$name" $((k % $(nproc))) "$name" 150 \
		--pipeline "$state/$name.ini"
}

# Every port of a running switch with its link up (the memif links
# connect once both ends run).
links_up() {
	# shellcheck disable=SC2046
	! "$CTL" $(ctl_args "$1") --raw /acis/ports | grep -q '"link_up": *0'
}

start() {
	local k=0 name want=("$@")
	if [ "$(placed)" = logical ]; then
		[ $# -eq 0 ] || die "logical switches share one process: start them all ($0 start -p $prefix)"
		start_logical
		for name in $(switches); do
			acis_wait_for 100 links_up "$name" ||
				acis_warn "switch $name: some link still down ($CTL $(ctl_args "$name") ports)"
		done
		echo "fabric $prefix: switches running; acisctl -f $prefix-fab -n SWITCH reaches each"
		return 0
	fi
	for name in $(switches); do
		if [ ${#want[@]} -eq 0 ] || [[ " ${want[*]} " == *" $name "* ]]; then
			start_one "$name" "$k"
		fi
		k=$((k + 1))
	done
	for name in $(switches); do
		[ -f "$state/$name.pid" ] || continue
		acis_wait_for 100 links_up "$name" ||
			acis_warn "switch $name: some link still down ($CTL -f $prefix-$name ports)"
	done
	echo "fabric $prefix: switches running; acisctl -f $prefix-SWITCH reaches each"
}

# stop_one NAME: SIGINT, wait, its EAL files gone
stop_one() {
	local name=$1 pid
	[ -f "$state/$name.pid" ] || return 0
	pid=$(cat "$state/$name.pid")
	rm -f "$state/$name.pid"
	acis_switch_stop_pid "$pid" "$prefix-$name"
}

stop() {
	local name pid
	if [ "$(placed)" = logical ]; then
		[ $# -eq 0 ] || die "logical switches share one process: stop them all ($0 stop -p $prefix)"
		[ -f "$state/fab.pid" ] || return 0
		pid=$(cat "$state/fab.pid")
		rm -f "$state/fab.pid"
		acis_switch_stop_pid "$pid" "$prefix-fab"
		return 0
	fi
	if [ $# -gt 0 ]; then
		for name; do stop_one "$name"; done
		return 0
	fi
	# the reverse of the start order: clients before their servers
	for name in $(switches | tac); do stop_one "$name"; done
}

down() {
	local ns kind name
	if [ -f "$state/list" ]; then
		stop
		while read -r kind name _; do
			[ "$kind" = switch ] || [ "$kind" = host ] || continue
			ns="$prefix-$name"
			[ "$kind" = switch ] && ns=$(sw_ns "$name")
			# what is left in our namespaces was started by the
			# fabric's users (host programs): ended first
			acis_netns_remove "$ns"
		done <"$state/list"
	fi
	acis_netns_remove "$prefix-br"
	rm -rf "$state"
}

status() {
	local name pid
	for name in $(switches); do
		if [ "$(placed)" = logical ]; then
			pid=$(cat "$state/fab.pid" 2>/dev/null || true)
		else
			pid=$(cat "$state/$name.pid" 2>/dev/null || true)
		fi
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			# shellcheck disable=SC2046
			echo "$name: running, pid $pid, $("$CTL" $(ctl_args "$name") --raw /acis/info |
				sed -n 's/.*"ip": *"\([^"]*\)".*/\1/p'), acisctl $(ctl_args "$name")"
		else
			echo "$name: stopped"
		fi
	done
}

# Every link's traffic each way, from both ends' port counters.
links() {
	local a pa b pb
	printf '%-24s %14s %16s %14s %16s\n' link "frames a->b" "bytes a->b" \
		"frames b->a" "bytes b->a"
	while read -r _ a pa b pb; do
		printf '%-24s %14s %16s %14s %16s\n' "$a:$pa-$b:$pb" \
			$(port_tx "$a" "$pa") $(port_tx "$b" "$pb")
	done < <(listing | awk '$1 == "link"')
}
# port_tx SWITCH PORT: "frames bytes" it sent on the port (- - if down)
port_tx() {
	# shellcheck disable=SC2046
	"$CTL" $(ctl_args "$1") --raw /acis/ports 2>/dev/null | python3 -c "
import json, sys
try:
    p = json.load(sys.stdin)['/acis/ports']['$2']
    print(p['tx_pkts'], p['tx_bytes'])
except Exception:
    print('- -')"
}

case $cmd in
up) up ;;
links) links ;;
start) start "$@" ;;
stop) stop "$@" ;;
down) down ;;
ctl)
	[ $# -ge 2 ] || die "usage: $0 ctl [-p PREFIX] SWITCH COMMAND..."
	name=$1; shift
	# shellcheck disable=SC2046
	exec "$CTL" $(ctl_args "$name") "$@" ;;
exec)
	[ $# -ge 2 ] || die "usage: $0 exec [-p PREFIX] SWITCH|HOST COMMAND..."
	node=$1; shift
	ns="$prefix-$node"
	switches | grep -qx "$node" && ns=$(sw_ns "$node")
	exec ip netns exec "$ns" "$@" ;;
status) status ;;
*) echo "usage: $0 up TOPOLOGY|start|stop|ctl|exec|status|links|down [-p PREFIX] [-m MTU] [-P logical|process] [-b]" >&2; exit 2 ;;
esac

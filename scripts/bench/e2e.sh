#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Comparison 3, end to end: every collective on the namespace testbed
# through acis-switch (libacis, acis-bench) against MPI libraries running
# the same collectives on the same namespaced hosts (acis-bench built on
# MPI: bench/acis_over_mpi.c), sizes 4 B to 4 MiB.
#
#   scripts/bench/e2e.sh [-o DIR] [-n "4"] [-i ITER] [-w WARMUP] [-c COLLS]
#                        [-s MIN] [-S MAX] [-t MS] [-m MTU] [-p PIPELINE]
#                        [-P PEERS] [-x dedicated|shared]
#                        [-- more acis-bench options]
#
# After --, options for every set-up's acis-bench: e.g. "--dtype uint8
# --op-program examples/cgra/satsum_u8.s" runs a user op, folded by the
# switch's CGRA through acis-switch and by the same function written in C
# and given to MPI_Op_create on the MPI peers (bench/acis_over_mpi.c).
#
# The set-ups, each a function run_NAME P COLL below:
#   acis          libacis through acis-switch, kernel UDP sockets
#   acis-memif    libacis through acis-switch, kernel bypass: each host's
#                 own net_memif port (ACIS_TRANSPORT=dpdk,
#                 doc/transports.md); the switch then runs
#                 pipelines/testbed-memif.ini unless -p names another
#   acis-mpi      the Open MPI benchmark of ompi-bridge, unchanged, with
#                 libacis-mpi preloaded (doc/mpi.md): its collectives
#                 through the switch (kernel sockets), the rest of Open
#                 MPI across the bridge; when Open MPI and
#                 libacis-mpi-openmpi.so are there
#   ompi-bridge   Open MPI over TCP (btl self,tcp) across a Linux bridge
#                 (testbed.sh -b, 10.77.2.0/24): the set-up a user would
#                 pick without the switch, and the headline ratio's peer
#   ompi-switch   Open MPI over TCP across acis-switch's L2 forwarding
#                 (10.77.0.0/24): Open MPI slowed by crossing the switch's
#                 forwarding (AF_PACKET ports unless -p says otherwise),
#                 not a set-up a user would pick; with dedicated cores its
#                 ranks run on the hosts' cores, off the switch's
#   ompi-shm      Open MPI, every rank in h0, btl self,vader (shared
#                 memory): one machine's limit
#   mpich-bridge  MPICH (ch4, UCX over TCP) across the Linux bridge
#   mpich-shm     MPICH, every rank in h0, shared memory
# -P takes a comma list of peers (default all); acis and acis-memif
# always run.
#
# -n "2 3 4" runs each host count in turn (scaling). One testbed per host
# count, under a prefix of its own, with acis-switch running on it
# throughout; each collective runs through the switch and then on each
# peer before the next collective, so what else the machine does falls
# on all alike. Same method, iterations and statistics for all
# (doc/acis-bench.md). Ratios are a peer's avg latency over the switch's:
# above 1, the switch is faster. Writes DIR/e2e.csv (a transport column
# naming the set-up), SETUP-P.{txt,csv}, table.txt, e2e.png, run.txt.
# -x says how the switch and the hosts share the cores. dedicated (the
# default): the switch polls the last core without sleeping, as a
# switch is hardware of its own, the hosts' acis-bench run on the other
# cores, and the switch is paused (SIGSTOP) while a peer that does not
# cross it runs, so it takes nothing from them. shared: the switch
# sleeps 50 us when idle (--idle-sleep 50) and runs throughout, the
# hosts unbound (the method of the runs before the dedicated core).
# -m sets the testbed's MTU (veths, bridge, libacis, the switch; default
# 9000, or ACIS_MTU: jumbo frames, the faster for the switch and no
# slower for the peers' TCP); above 1500 the switch runs
# pipelines/testbed-jumbo.ini unless -p names another: AF_PACKET's ring
# needs slots a jumbo frame fits in. Needs root and Debian's openmpi-bin,
# libopenmpi-dev, mpich and libmpich-dev (those of the peers chosen).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

# Every set-up, in the order each collective runs them: those through the
# switch, then the peers. SETUP_WHAT says what each is (run.txt); a
# set-up NAME runs as run_NAME P COLL (dashes as underscores), and its
# name says what it needs: ompi-* Open MPI, mpich-* MPICH, *-bridge the
# testbed's Linux bridge (testbed.sh -b).
ACIS_SETUPS=(acis acis-memif acis-mpi)
PEERS=(ompi-bridge ompi-switch ompi-shm mpich-bridge mpich-shm)
HEADLINE=ompi-bridge
declare -A SETUP_WHAT=(
	[acis]="libacis through acis-switch, kernel UDP sockets"
	[acis-memif]="libacis through acis-switch, kernel bypass: each host's own net_memif port (ACIS_TRANSPORT=dpdk)"
	[acis-mpi]="Open MPI's benchmark of ompi-bridge with libacis-mpi preloaded: collectives through acis-switch, kernel sockets"
	[ompi-bridge]="Open MPI, TCP (btl self,tcp) across a Linux bridge, 10.77.2.0/24"
	[ompi-switch]="Open MPI, TCP across acis-switch's L2 forwarding, 10.77.0.0/24: slowed by crossing the switch, not a set-up a user would pick"
	[ompi-shm]="Open MPI, all ranks in h0, btl self,vader (shared memory)"
	[mpich-bridge]="MPICH, UCX over TCP across a Linux bridge, 10.77.2.0/24"
	[mpich-shm]="MPICH, all ranks in h0, shared memory"
)

OUT='' HOSTS_LIST=4 ITER='' WARM='' MIN=4 MAX=4194304 TIMEOUT=30000 MTU=${ACIS_MTU:-9000}
CORES=dedicated
COLLS=allreduce,reduce,bcast,scatter,gather,allgather,reduce_scatter,alltoall,barrier
PIPELINE='' PEERS_WANTED='' P_GIVEN=0
while getopts "o:n:i:w:c:s:S:t:m:p:P:x:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	n) HOSTS_LIST=$OPTARG ;;
	i) ITER=$OPTARG ;;
	w) WARM=$OPTARG ;;
	c) COLLS=$OPTARG ;;
	s) MIN=$OPTARG ;;
	S) MAX=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	m) MTU=$OPTARG ;;
	p) PIPELINE=$OPTARG ;;
	P) PEERS_WANTED=$OPTARG P_GIVEN=1 ;;
	x) CORES=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_want_ints e2e -n "$HOSTS_LIST"
[ -z "$ITER" ] || bench_want_int e2e -i "$ITER"
[ -z "$WARM" ] || bench_want_int e2e -w "$WARM" 0
bench_want_int e2e -s "$MIN"
bench_want_int e2e -S "$MAX" "$MIN"
bench_want_int e2e -t "$TIMEOUT"
# dedicated: the switch on the last core, never sleeping; the hosts'
# libacis on the others
bench_cores e2e "$CORES"
P_FLAG=$PIPELINE
bench_testbed_mtu e2e -m "$MTU"
# acis-memif's ports: the memif pipeline, which has the AF_PACKET ports
# too (with ring slots a jumbo frame fits in above MTU 1500)
if [ -z "$P_FLAG" ]; then
	PIPELINE=$ACIS_ROOT/pipelines/testbed-memif.ini
	[ "$MTU" -le 1500 ] ||
		export ACIS_AFP_ARGS=",blocksz=20480,framesz=10240,framecnt=1024" \
			ACIS_MBUF_SIZE=10240
fi

# -P LIST: the peers named, in PEERS' order
if [ "$P_GIVEN" -eq 1 ]; then
	bench_pick e2e -P peer "$PEERS_WANTED" "${PEERS[@]}"
	PEERS=("${BENCH_PICKED[@]}")
fi
# acis-mpi: where Open MPI and libacis-mpi for it are
ACIS_MPI_LIB=$ACIS_BUILD/lib/mpi/libacis-mpi-openmpi.so
if ! command -v mpirun.openmpi >/dev/null || [ ! -e "$ACIS_MPI_LIB" ]; then
	echo "e2e: no Open MPI or no $ACIS_MPI_LIB: acis-mpi not run" >&2
	ACIS_SETUPS=(acis acis-memif)
fi
SETUPS=("${ACIS_SETUPS[@]}" "${PEERS[@]}")
# what the chosen set-ups need
NEED_OMPI=0 NEED_MPICH=0 NEED_BRIDGE=0
for s in "${SETUPS[@]}"; do
	case $s in ompi-* | acis-mpi) NEED_OMPI=1 ;; mpich-*) NEED_MPICH=1 ;; esac
	case $s in *-bridge | acis-mpi) NEED_BRIDGE=1 ;; esac
done

# the hosts' libacis and the switch's pipeline file read it
export ACIS_MTU=$MTU
[ "$(id -u)" -eq 0 ] || { echo "e2e: needs root (namespaces)" >&2; exit 1; }
BENCH=$ACIS_BUILD/tools/acis-bench
[ -x "$BENCH" ] || { echo "e2e: $BENCH missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
# each MPI by its own name: Debian's alternatives point mpicc and mpirun
# at one of the two
if [ "$NEED_OMPI" -eq 1 ]; then
	command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null ||
		{ echo "e2e: the Open MPI peers need openmpi-bin and libopenmpi-dev (scripts/bench/setup.sh)" >&2; exit 1; }
fi
if [ "$NEED_MPICH" -eq 1 ]; then
	command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null ||
		{ echo "e2e: the MPICH peers need mpich and libmpich-dev (scripts/bench/setup.sh)" >&2; exit 1; }
fi
OUT=$(bench_outdir e2e "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -n \"$HOSTS_LIST\"${ITER:+ -i $ITER}${WARM:+ -w $WARM} -c $COLLS -s $MIN -S $MAX -t $TIMEOUT -m $MTU -p $PIPELINE -P $(IFS=,; echo "${PEERS[*]}") -x $CORES"
ompi_version=$(mpirun.openmpi --version 2>/dev/null | head -1) || true
mpich_version=$(mpichversion 2>/dev/null | awk '/^MPICH (Version|Device):/ {
	sub(/^[^:]*:[ \t]*/, ""); printf "%s%s", n++ ? ", device " : "MPICH ", $0 }') || true
{
	echo "openmpi:   ${ompi_version:-not installed}"
	echo "mpich:     ${mpich_version:-not installed}"
	if [ "$CORES" = dedicated ]; then
		echo "cores:     dedicated: the switch polls core $SW_CORE without sleeping, the hosts' libacis on CPUs $HOST_CPUS; paused (SIGSTOP) while a peer that does not cross it runs"
	else
		echo "cores:     shared: the switch sleeps 50 us when idle and runs throughout, hosts unbound"
	fi
	for s in "${SETUPS[@]}"; do
		printf 'setup:     %-13s %s\n' "$s" "${SETUP_WHAT[$s]}"
	done
} >>"$OUT/run.txt"

# the same benchmark source, on each MPI: acis-bench-ompi, acis-bench-mpich
mpi_build() {
	"$1" -O2 -DACIS_BENCH_MPI -I"$ACIS_ROOT/lib/client" -I"$ACIS_ROOT/lib/proto" \
		"$ACIS_ROOT/tools/acis-bench.c" "$ACIS_ROOT/bench/acis_over_mpi.c" \
		"$ACIS_ROOT/lib/proto/proto.c" -o "$2"
}
[ "$NEED_OMPI" -eq 0 ] || mpi_build mpicc.openmpi "$OUT/acis-bench-ompi"
[ "$NEED_MPICH" -eq 0 ] || mpi_build mpicc.mpich "$OUT/acis-bench-mpich"

opts=(--min-size "$MIN" --max-size "$MAX")
[ -n "$ITER" ] && opts+=(--iterations "$ITER")
[ -n "$WARM" ] && opts+=(--warmup "$WARM")
opts+=("$@")

PREFIX=be$$
export BENCH_NETNS_PREFIX=$PREFIX
# Open MPI's session directories, one per host: the namespaces share one
# hostname, and daemons making the same directory at once can fail
# ("orte_session_dir failed ... File exists").
export BENCH_OMPI_TMP=/tmp/acis-ompi-$PREFIX
# the switch's memif sockets, one per host (acis-memif)
export ACIS_MEMIF_DIR=$OUT/memif
mkdir -p "$ACIS_MEMIF_DIR"
AGENT=$ACIS_ROOT/scripts/bench/mpi-netns-agent.sh
TB=$ACIS_ROOT/scripts/testbed.sh
# the testbed (PREFIX-sw, -hI and -br) and what runs in it go with it
# RUNNING: the processes a set-up has started (acis-bench on each host,
# or the MPI launcher, which takes its ranks down with it), ended first
RUNNING=()
cleanup() {
	[ "$BASHPID" = "$$" ] || return 0
	if [ ${#RUNNING[@]} -gt 0 ]; then
		kill "${RUNNING[@]}" 2>/dev/null || true
		sleep 1
		kill -KILL "${RUNNING[@]}" 2>/dev/null || true
	fi
	acis_e2e_cleanup "$PREFIX" "$BENCH_OMPI_TMP" "$ACIS_MEMIF_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# acis_run SETUP TRANSPORT P COLL: one collective through the switch on
# the hosts' TRANSPORT (udp or dpdk, acis_host_env), rank 0's rows
# appended to SETUP-P.{csv,txt}
acis_run() {
	local s=$1 tr=$2 P=$3 c=$4 r rc=0 pids=()
	for ((r = 0; r < P; r++)); do
		local args=(--switch 10.77.0.1 --job $((900 + P)) --rank "$r" --size "$P"
			--timeout "$TIMEOUT" --colls "$c" "${opts[@]}")
		# the switch faults in a new memif peer's memory in its first
		# tenth of a second: not the first size's to pay
		[ "$tr" = udp ] || args+=(--settle 300)
		local env=()
		# shellcheck disable=SC2207
		env=($(ACIS_HOST_TRANSPORT=$tr acis_host_env "$r"))
		[ -z "${HOST_CPUS:-}" ] || env=(taskset -c "$HOST_CPUS" env "${env[@]}")
		if [ "$r" -eq 0 ]; then
			env "${env[@]}" ip netns exec "$PREFIX-h0" "$BENCH" "${args[@]}" \
				--output "$OUT/part.csv" >"$OUT/part.txt" \
				2>>"$OUT/$s-$P-rank0.log" &
		else
			env "${env[@]}" ip netns exec "$PREFIX-h$r" "$BENCH" "${args[@]}" \
				>/dev/null 2>>"$OUT/$s-$P-rank$r.log" &
		fi
		pids+=($!)
	done
	RUNNING=("${pids[@]}")
	for r in "${!pids[@]}"; do
		wait "${pids[$r]}" || rc=1
	done
	RUNNING=()
	keep_part "$OUT/$s-$P"
	return $rc
}
run_acis() { acis_run acis udp "$@"; }
run_acis_memif() { acis_run acis-memif dpdk "$@"; }

# ompi_run SETUP P COLL MPIRUN-OPTIONS...: the collective on Open MPI,
# mpirun in h0's namespace, appended to SETUP-P.*. Without
# yield_when_idle the ranks spin on two cores.
ompi_run() {
	local s=$1 P=$2 c=$3 rc=0
	shift 3
	mkdir -p "$BENCH_OMPI_TMP/h0"
	# in the background, so that an interrupt ends it (RUNNING) at once;
	# with dedicated cores, ranks that cross the switch keep off its core
	# (the daemons and ranks inherit mpirun's affinity)
	local pin=()
	case $s in ompi-switch | acis-mpi)
		[ -z "$HOST_CPUS" ] || pin=(taskset -c "$HOST_CPUS") ;;
	esac
	TMPDIR=$BENCH_OMPI_TMP/h0 \
	"${pin[@]}" ip netns exec "$PREFIX-h0" mpirun.openmpi --allow-run-as-root -np "$P" \
		--bind-to none --mca mpi_yield_when_idle 1 "$@" \
		-x PATH -x LD_LIBRARY_PATH \
		"$OUT/acis-bench-ompi" --colls "$c" "${opts[@]}" --output "$OUT/part.csv" \
		>"$OUT/part.txt" 2>>"$OUT/$s-$P.log" </dev/null &
	RUNNING=($!)
	wait "${RUNNING[0]}" || rc=1
	RUNNING=()
	keep_part "$OUT/$s-$P"
	return $rc
}

# ompi_across SETUP P COLL NET [MPIRUN-OPTIONS...]: one rank per host
# namespace, on subnet NET (10.77.0: through the switch, 10.77.2: the
# bridge); the agent starts the other ranks' daemons in their namespaces
ompi_across() {
	local s=$1 P=$2 c=$3 net=$4 r
	shift 4
	: >"$OUT/hosts-$s-$P"
	for ((r = 0; r < P; r++)); do
		echo "$net.$((10 + r)) slots=1" >>"$OUT/hosts-$s-$P"
	done
	ompi_run "$s" "$P" "$c" --hostfile "$OUT/hosts-$s-$P" --map-by node \
		--mca plm_rsh_agent "$AGENT" --mca btl self,tcp \
		--mca btl_tcp_if_include "$net.0/24" --mca oob_tcp_if_include "$net.0/24" "$@"
}

run_ompi_bridge() { ompi_across ompi-bridge "$1" "$2" 10.77.2; }
# the same binary and set-up, libacis-mpi preloaded: the switch at
# 10.77.0.1 through each host's eth0, every collective offloaded
# (crossovers 0), a table of what went where in acis-mpi-P.log
run_acis_mpi() {
	ompi_across acis-mpi "$1" "$2" 10.77.2 -x LD_PRELOAD="$ACIS_MPI_LIB" \
		-x ACIS_SWITCH=10.77.0.1 -x ACIS_MPI_MIN_BYTES=0 -x ACIS_MPI_STATS=1 \
		-x ACIS_MTU="$MTU" -x ACIS_TIMEOUT_MS="$TIMEOUT"
}
run_ompi_switch() { ompi_across ompi-switch "$1" "$2" 10.77.0; }
run_ompi_shm() {
	ompi_run ompi-shm "$1" "$2" --oversubscribe --mca btl self,vader
}

# mpich_run SETUP P COLL MPIEXEC-OPTIONS...: the collective on MPICH,
# mpiexec (hydra) in h0's namespace, appended to SETUP-P.*. MPICH 4's
# ch4 device polls without ever yielding the core (no setting changes
# that: MPIR_CVAR_POLLS_BEFORE_YIELD is the older ch3 device's), so ranks
# are left unbound for the scheduler to spread over the cores.
mpich_run() {
	local s=$1 P=$2 c=$3 pid rc=0 t=0
	shift 3
	ip netns exec "$PREFIX-h0" mpiexec.mpich -n "$P" -bind-to none "$@" \
		"$OUT/acis-bench-mpich" --colls "$c" "${opts[@]}" --output "$OUT/part.csv" \
		>"$OUT/part.txt" 2>>"$OUT/$s-$P.log" </dev/null &
	pid=$!
	RUNNING=("$pid")
	# Over UCX's TCP (Debian 12: MPICH 4.0.2, UCX 1.13) MPI_Finalize
	# hangs now and then, two ranks waiting for ever on the flush of
	# endpoints to ranks that have already left (UCX's TCP transport
	# stops progressing them). Rank 0 prints "# done" once its results
	# are written: 3 s after that, mpiexec is ended.
	while kill -0 "$pid" 2>/dev/null; do
		if grep -q '^# done' "$OUT/part.txt" 2>/dev/null; then
			if [ $((t += 1)) -gt 15 ]; then
				echo "e2e: $s, $P hosts, $c: MPI_Finalize still running 3 s" \
					"after the results; mpiexec ended" >>"$OUT/$s-$P.log"
				kill "$pid" 2>/dev/null || true
			fi
		fi
		sleep 0.2
	done
	wait "$pid" || rc=1
	RUNNING=()
	# ended by us: the run stands if rank 0 said it had no errors
	[ "$t" -le 15 ] || { grep -q '^# done, 0 errors' "$OUT/part.txt" && rc=0; }
	keep_part "$OUT/$s-$P"
	return $rc
}

# One rank per host namespace (hydra's proxies started by the agent),
# over TCP on the bridge's eth1. The hosts share one machine, so MPICH
# and UCX would find one another's shared memory across the namespaces:
# NOLOCAL takes every rank for another node's, UCX_TLS leaves UCX only
# TCP (and self), UCX_NET_DEVICES only eth1.
run_mpich_bridge() {
	local P=$1 r hosts=''
	for ((r = 0; r < P; r++)); do
		hosts+=${hosts:+,}10.77.2.$((10 + r))
	done
	mpich_run mpich-bridge "$P" "$2" -launcher ssh -launcher-exec "$AGENT" \
		-hosts "$hosts" -ppn 1 -iface eth1 -genv MPIR_CVAR_NOLOCAL 1 \
		-genv UCX_TLS self,tcp -genv UCX_NET_DEVICES eth1
}

run_mpich_shm() {
	mpich_run mpich-shm "$1" "$2" -launcher fork -hosts localhost
}

# append the part just measured to BASE.csv (one header) and BASE.txt
keep_part() {
	local base=$1
	if [ -f "$OUT/part.csv" ]; then
		if [ -s "$base.csv" ]; then
			tail -n +2 "$OUT/part.csv" >>"$base.csv"
		else
			cat "$OUT/part.csv" >"$base.csv"
		fi
	fi
	[ -f "$OUT/part.txt" ] && cat "$OUT/part.txt" >>"$base.txt"
	rm -f "$OUT/part.csv" "$OUT/part.txt"
}

# switch_for SETUP: with dedicated cores, the switch runs for the set-ups
# that cross it (acis*, ompi-switch) and is paused for the others
switch_for() {
	[ "$CORES" = dedicated ] && [ -n "${ACIS_SW_PID:-}" ] || return 0
	case $1 in
	acis* | *-switch) kill -CONT "$ACIS_SW_PID" ;;
	*) kill -STOP "$ACIS_SW_PID" ;;
	esac
}

rc=0
tbopts=()
[ "$NEED_BRIDGE" -eq 0 ] || tbopts+=(-b)
for P in $HOSTS_LIST; do
	N=$((P > 4 ? P : 4)) # the testbed pipelines name four ports
	acis_log "$P hosts: testbed $PREFIX, MTU $MTU, switch on $(basename "$PIPELINE")"
	"$TB" up -n "$N" -p "$PREFIX" -m "$MTU" "${tbopts[@]}" >/dev/null
	acis_switch_start "$PREFIX" "$PIPELINE" "$OUT/switch-$P.log"
	for s in "${SETUPS[@]}"; do
		rm -f "$OUT/$s-$P".*
	done
	# collective by collective, the switch then each peer, so that what
	# else the machine does falls on all alike
	for c in ${COLLS//,/ }; do
		acis_log "$P hosts, $c: ${SETUPS[*]}" \
			"(load $(cut -d' ' -f1 /proc/loadavg))"
		echo "load:      $P hosts, $c: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/run.txt"
		for s in "${SETUPS[@]}"; do
			switch_for "$s"
			"run_${s//-/_}" "$P" "$c" ||
				{ echo "e2e: $s failed on $P hosts, $c (see $OUT/$s-$P*.log)" >&2; rc=1; }
		done
	done
	switch_for acis
	{
		# retransmissions (acis_duplicate, retrans_answered) say how
		# much of the time went to recovering from late answers
		echo "switch counters after $P hosts:"
		acis_ctl "$PREFIX" --raw /acis/drops | sed 's/^/  /'
		acis_ctl "$PREFIX" --raw /acis/collectives | sed 's/^/  /'
	} >>"$OUT/run.txt" 2>&1 || true
	acis_switch_stop
	"$TB" down -p "$PREFIX" >/dev/null 2>&1 || true
done

"$BENCH_PY" - "$OUT" "$HEADLINE" "$(IFS=,; echo "${ACIS_SETUPS[*]}")" \
	"$(IFS=,; echo "${PEERS[*]}")" $HOSTS_LIST <<'PY'
import csv, os, sys
out, headline, mine, peers, hosts = (sys.argv[1], sys.argv[2], sys.argv[3].split(","),
                                     sys.argv[4].split(","), sys.argv[5:])
ORDER = ["allreduce", "reduce", "bcast", "scatter", "gather", "allgather",
         "reduce_scatter", "alltoall", "barrier"]
fields = ["transport", "ranks", "collective", "size_bytes", "avg_us", "min_us",
          "max_us", "p99_us", "busbw_GBps", "status"]
rows, lines = [], []


def fmt_ratio(x):
    if x is None:
        return "-"
    return "%.2fx" % x if x >= 0.1 else "%.3fx" % x


for P in hosts:
    lat = {}  # (set-up, collective, size) -> avg us, None if failed
    for s in mine + peers:
        path = os.path.join(out, "%s-%s.csv" % (s, P))
        if not os.path.exists(path):
            continue
        for r in csv.DictReader(open(path)):
            row = {k: r.get(k, "") for k in fields}
            row["transport"], row["ranks"] = s, P
            rows.append(row)
            lat[(s, r["collective"], int(r["size_bytes"]))] = \
                float(r["avg_us"]) if r["avg_us"] else None
    keys = sorted({(c, n) for (_, c, n) in lat},
                  key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else 99, k[1]))
    lines.append("# %s hosts: avg latency (us) of the slowest rank; %s/X = %s's over X's "
                 "(above 1: X is faster); best/X = the fastest peer's at that size over X's"
                 % (P, headline, headline))
    head = "%-15s %10s" % ("collective", "size(B)")
    head += "".join(" %12s" % s for s in mine + peers)
    for a in mine:
        head += " %16s %-20s" % ("%s/%s" % (headline, a), "best/%s" % a)
    lines.append(head)
    wins = {a: [0, 0, 0, 0] for a in mine}  # vs headline: won, of; vs best: won, of
    bests = {}
    for c, n in keys:
        line = "%-15s %10d" % (c, n)
        for s in mine + peers:
            v = lat.get((s, c, n), "absent")
            line += " %12s" % ("-" if v == "absent" else "ERROR" if v is None else "%.2f" % v)
        got = {p: lat.get((p, c, n)) for p in peers if lat.get((p, c, n))}
        best = min(got, key=got.get) if got else None
        if best and n >= 65536:
            bests[best] = bests.get(best, 0) + 1
        for a in mine:
            av = lat.get((a, c, n))
            hv = got.get(headline)
            r_head = hv / av if av and hv else None
            r_best = got[best] / av if av and best else None
            line += " %16s %-20s" % (fmt_ratio(r_head),
                                     "%s %s" % (fmt_ratio(r_best), best) if r_best else "-")
            if n >= 65536:
                if r_head is not None:
                    wins[a][1] += 1
                    wins[a][0] += r_head > 1
                if r_best is not None:
                    wins[a][3] += 1
                    wins[a][2] += r_best > 1
        lines.append(line)
    often = ", ".join("%s at %d" % kv for kv in
                      sorted(bests.items(), key=lambda kv: -kv[1])) or "none measured"
    if not any(n >= 65536 for _, n in keys):
        lines.append("# %s hosts: no size >= 64 KiB measured" % P)
        mine_summed = []
    else:
        mine_summed = mine
    for a in mine_summed:
        vs_head = ("faster than %s at %d of %d (collective, size) pairs"
                   % ((headline,) + tuple(wins[a][:2])) if wins[a][1]
                   else "%s not measured" % headline)
        vs_best = ("faster than the best peer at each at %d of %d" % tuple(wins[a][2:])
                   if wins[a][3] else "no peer measured")
        lines.append("# %s hosts, sizes >= 64 KiB, %s: %s; %s; the best peer: %s"
                     % (P, a, vs_head, vs_best, often))
    lines.append("")
with open(os.path.join(out, "e2e.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
open(os.path.join(out, "table.txt"), "w").write("\n".join(lines))
print("\n".join(lines))
PY
LAST=${HOSTS_LIST##* }
"$BENCH_PY" - "$OUT/e2e.csv" "$OUT/e2e-$LAST.csv" "$LAST" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["ranks"] == sys.argv[3]]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys() if rows else ["transport"])
    w.writeheader()
    w.writerows(rows)
PY
bench_plot e2e "$OUT/e2e-$LAST.csv" "$OUT/e2e.png"
acis_log "results: $OUT (e2e.csv, table.txt, e2e.png, run.txt)"
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The reference applications (doc/benchmarks.md, Reference applications):
# N-body, a parallel FFT and a row-wise matrix-vector multiply
# (bench/apps/, plain MPI programs), four ranks, one on each of hosts
# h0-h3 of a fabric (-t, default topologies/leaf-spine.ini: two leaves
# and a spine; one.ini: one switch), its switches logical ones of one
# process, in two set-ups:
#   in-network   Open MPI with libacis-mpi preloaded (doc/mpi.md): the
#                collectives through the fabric, addressed to the root of
#                its aggregation tree over the hosts' eth0 (kernel
#                sockets); the rest of Open MPI (its launch, the FFT's
#                MPI_Sendrecv) across the bridge
#   ompi-bridge  Open MPI alone, TCP (btl self,tcp) across a Linux bridge
#                (fabric.sh -b, 10.77.2.0/24): the set-up a user would
#                pick without the switch
#
#   scripts/bench/apps.sh [-o DIR] [-r REPEATS] [-a APPS] [-t TOPOLOGY]
#                         [-x dedicated|shared] [-m MTU] [-q]
#
# APPS, a comma list (default all, in this order): nbody (4096
# particles, 10 steps: an MPI_Allgather a step), fft (2^18 complex
# doubles, 10 transforms: scatter, two pairwise exchanges by
# MPI_Sendrecv, gather), fft-a2a (the same, each exchange an
# MPI_Alltoall on the pair's communicator), mvm (2048 x 2048 floats, 10
# iterations, A scattered in each: scatter, bcast, gather) and mvm-keep
# (A scattered once, 100 iterations: bcast and gather). -q: small sizes
# and fewer iterations (nbody 1024, fft 2^14, mvm 512), a look at the
# shape. Each app runs REPEATS times (default 3) in each set-up, the
# set-ups taking turns to go first. Every run must pass the app's check
# (bit for bit against a serial run on rank 0). The table gives the
# median over the runs of the slowest rank's compute and communication
# seconds over the timed iterations (the apps' own MPI_Wtime split) and
# the ratios ompi-bridge / in-network of communication and of the total
# time: above 1, in-network is faster. -m sets the MTU of the hosts'
# links, the bridge, the switches and libacis (576 to 9000, default
# 1500); above 1500 the fabric's AF_PACKET ports get ring slots a jumbo
# frame fits in, and its switches 10 KiB mbufs.
# -x says how the switches and the hosts share the cores. dedicated (the
# default), as in e2e.sh: the switches are hardware of their own, so the
# fabric's process polls the last core without sleeping, the ranks of
# both set-ups run on the other cores (the same cores for both: the
# computation costs them alike), and the fabric is paused (SIGSTOP) for
# the ompi-bridge runs. shared: the switches sleep 50 us when idle and
# run throughout, nothing pinned.
#
# Writes DIR/apps.csv (a row a run), table.txt, run.txt and each run's
# output (APP-SETUP-R.log, its standard error in APP-SETUP-R.log.err:
# in-network's holds libacis-mpi's table of what went to the switch,
# ACIS_MPI_STATS=1). Needs root, and Open MPI
# (openmpi-bin, libopenmpi-dev: scripts/bench/setup.sh) installed when
# the build was configured: it then made bench/apps and
# libacis-mpi-openmpi.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

# Each app: its binary and arguments, full and -q
APPS=(nbody fft fft-a2a mvm mvm-keep)
declare -A APP_BIN=([nbody]=app_nbody [fft]=app_fft [fft-a2a]=app_fft
	[mvm]=app_mvm [mvm-keep]=app_mvm)
declare -A APP_ARGS=([nbody]="-n 4096 -i 10" [fft]="-n 262144 -i 10"
	[fft-a2a]="-n 262144 -i 10 -e alltoall" [mvm]="-n 2048 -i 10"
	[mvm-keep]="-n 2048 -i 100 -k")
declare -A APP_QUICK=([nbody]="-n 1024 -i 5" [fft]="-n 16384 -i 5"
	[fft-a2a]="-n 16384 -i 5 -e alltoall" [mvm]="-n 512 -i 5"
	[mvm-keep]="-n 512 -i 20 -k")
SETUPS=(in-network ompi-bridge)

OUT='' REPEATS=3 WANTED='' A_GIVEN=0 QUICK=0 TOPO=$ACIS_ROOT/topologies/leaf-spine.ini
CORES=dedicated MTU=1500
while getopts "o:r:a:t:x:m:qh" o; do
	case $o in
	m) MTU=$OPTARG ;;
	x) CORES=$OPTARG ;;
	o) OUT=$OPTARG ;;
	t) TOPO=$OPTARG ;;
	r) REPEATS=$OPTARG ;;
	a) WANTED=$OPTARG A_GIVEN=1 ;;
	q) QUICK=1 ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int apps -r "$REPEATS"
bench_want_int apps -m "$MTU" 576
[ "$MTU" -le 9000 ] || { echo "apps: -m $MTU: want an MTU from 576 to 9000 (libacis's range)" >&2; exit 2; }
# dedicated: the fabric on the last core, never sleeping; the ranks on
# the others
bench_cores apps "$CORES"
if [ "$A_GIVEN" -eq 1 ]; then
	bench_pick apps -a app "$WANTED" "${APPS[@]}"
	APPS=("${BENCH_PICKED[@]}")
fi
[ -r "$TOPO" ] || { echo "apps: -t $TOPO: no such topology file" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "apps: needs root (namespaces)" >&2; exit 1; }
command -v mpirun.openmpi >/dev/null ||
	{ echo "apps: needs Open MPI (openmpi-bin, libopenmpi-dev: scripts/bench/setup.sh)" >&2; exit 1; }
APPDIR=$ACIS_BUILD/bench/apps
ACIS_MPI_LIB=$ACIS_BUILD/lib/mpi/libacis-mpi-openmpi.so
for f in "$APPDIR/app_nbody" "$APPDIR/app_fft" "$APPDIR/app_mvm" "$ACIS_MPI_LIB"; do
	[ -e "$f" ] || {
		echo "apps: no $f: the build was configured without Open MPI's development files;" \
			"run scripts/bench/setup.sh, then meson setup --reconfigure $ACIS_BUILD && ninja -C $ACIS_BUILD" >&2
		exit 1
	}
done
FAB=$ACIS_BUILD/tools/acis-fabric
FABRIC=$ACIS_ROOT/scripts/fabric.sh
for h in h0 h1 h2 h3; do
	"$FAB" list "$TOPO" | grep -q "^host $h " ||
		{ echo "apps: $TOPO has no host $h (the four ranks run on h0-h3)" >&2; exit 2; }
done
OUT=$(bench_outdir apps "$OUT")
PREFIX=ap$$
export BENCH_OMPI_TMP=/tmp/acis-ompi-$PREFIX

# the fabric, its bridge and what runs on its hosts go with it;
# RUNNING: the launcher of the run under way, ended first
RUNNING=
cleanup() {
	[ "$BASHPID" = "$$" ] || return 0
	[ -z "$RUNNING" ] || kill "$RUNNING" 2>/dev/null || true
	acis_kill_hosts "$PREFIX"
	[ -z "$RUNNING" ] || wait "$RUNNING" 2>/dev/null || true
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
	rm -rf "$BENCH_OMPI_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -r $REPEATS -a $(IFS=,; echo "${APPS[*]}") -t $TOPO -x $CORES -m $MTU$([ "$QUICK" -eq 0 ] || echo ' -q')"
"$FABRIC" up "$TOPO" -p "$PREFIX" -P logical -b -m "$MTU" >/dev/null
if [ "$MTU" -gt 1500 ]; then
	# AF_PACKET's ring slots and the pools' mbufs hold a jumbo frame
	ACIS_MTU=$MTU ACIS_MBUF_SIZE=10240 ACIS_MBUFS=${ACIS_MBUFS:-8191} \
	ACIS_AFP_ARGS=",blocksz=20480,framesz=10240,framecnt=1024" \
		"$FABRIC" start -p "$PREFIX" >/dev/null
else
	"$FABRIC" start -p "$PREFIX" >/dev/null
fi
root=$("$FAB" tree "$TOPO" all | sed -n 's/^root \([^,]*\),.*/\1/p')
SWITCH=$("$FAB" list "$TOPO" | awk -v s="$root" '$1 == "switch" && $2 == s {print $3}')
SW_PID=$("$FABRIC" status -p "$PREFIX" | sed -n 's/.*: running, pid \([0-9]*\),.*/\1/p' | head -1)
[ -n "$SW_PID" ] || { echo "apps: the fabric's switches are not running" >&2; exit 1; }
{
	echo "openmpi:   $(mpirun.openmpi --version 2>/dev/null | head -1)"
	echo "fabric:    $(basename "$TOPO"), logical switches in one process" \
		"(idle sleep ${ACIS_SW_IDLE_SLEEP:-50} us), root $root at $SWITCH; MTU $MTU"
	if [ "$CORES" = dedicated ]; then
		echo "cores:     dedicated: the fabric polls core $SW_CORE without sleeping, every rank on CPUs $HOST_CPUS; the fabric paused (SIGSTOP) while ompi-bridge runs"
	else
		echo "cores:     shared: the fabric sleeps 50 us when idle and runs throughout, ranks unbound"
	fi
	echo "setup:     in-network   Open MPI + libacis-mpi (ACIS_SWITCH=$SWITCH, kernel sockets), the rest of Open MPI across the bridge"
	echo "setup:     ompi-bridge  Open MPI, TCP (btl self,tcp) across a Linux bridge, 10.77.2.0/24"
	for a in "${APPS[@]}"; do
		args=${APP_ARGS[$a]}
		[ "$QUICK" -eq 0 ] || args=${APP_QUICK[$a]}
		echo "app:       $a: ${APP_BIN[$a]} $args"
	done
} >>"$OUT/run.txt"

# run_app APP SETUP REP: one run, 4 ranks; its key=value line as a row
# of apps.csv, its output in APP-SETUP-REP.log
run_app() {
	local a=$1 s=$2 rep=$3 log="$OUT/$1-$2-$3.log" rc=0 line args pre=() pin=()
	args=${APP_ARGS[$a]}
	[ "$QUICK" -eq 0 ] || args=${APP_QUICK[$a]}
	[ "$s" = ompi-bridge ] || pre=(-x LD_PRELOAD="$ACIS_MPI_LIB"
		-x ACIS_SWITCH="$SWITCH" -x ACIS_MPI_STATS=1 -x ACIS_MTU="$MTU")
	# the daemons and ranks inherit mpirun's affinity
	[ -z "$HOST_CPUS" ] || pin=(taskset -c "$HOST_CPUS")
	if [ "$CORES" = dedicated ]; then
		if [ "$s" = ompi-bridge ]; then kill -STOP "$SW_PID"; else kill -CONT "$SW_PID"; fi
	fi
	# shellcheck disable=SC2086
	timeout 600 "${pin[@]}" bash -c "source '$ACIS_ROOT/scripts/lib.sh'; \"\$@\"" _ \
		acis_ompi_hosts "$PREFIX" 10.77.2 4 "${pre[@]}" \
		"$APPDIR/${APP_BIN[$a]}" $args >"$log" 2>"$log.err" </dev/null &
	RUNNING=$!
	wait "$RUNNING" || rc=$?
	RUNNING=
	line=$(grep -m1 '^app=' "$log" || true)
	if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
		echo "apps: $a, $s, run $rep failed (exit $rc; $log)" >&2
		line="app=${APP_BIN[$a]#app_} check=${line:+FAIL}${line:-no-result}"
		fail=1
	fi
	# offloaded: in-network must have taken the switch (a silent
	# fallback to the library would measure ompi-bridge twice)
	if [ "$s" = in-network ] && ! [[ $line =~ offloaded=[1-9] ]]; then
		echo "apps: $a, run $rep: the switch took no call ($log)" >&2
		fail=1
	fi
	awk -v s="$s" -v r="$rep" -v a="$a" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", a, s, r, v["ranks"],
			v["n"], v["iters"], v["compute_s"], v["comm_s"], v["total_s"],
			v["comm_mean_s"], v["check"], v["offloaded"] }' <<<"$line" >>"$OUT/apps.csv"
	acis_log "$a, $s, run $rep: ${line#app=* }"
}

fail=0
echo "app,setup,run,ranks,n,iters,compute_s,comm_s,total_s,comm_mean_s,check,offloaded" >"$OUT/apps.csv"
for ((rep = 1; rep <= REPEATS; rep++)); do
	order=("${SETUPS[@]}")
	[ $((rep % 2)) -eq 1 ] || order=("${SETUPS[1]}" "${SETUPS[0]}")
	for a in "${APPS[@]}"; do
		echo "load:      $a, run $rep: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/run.txt"
		for s in "${order[@]}"; do
			run_app "$a" "$s" "$rep"
		done
	done
done
kill -CONT "$SW_PID"
{
	echo "switch $root's collectives after the runs:"
	"$FABRIC" ctl -p "$PREFIX" "$root" --raw /acis/collectives | sed 's/^/  /'
} >>"$OUT/run.txt" 2>&1 || true

"$BENCH_PY" - "$OUT/apps.csv" "$OUT/table.txt" "$(basename "$TOPO")" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
apps = list(dict.fromkeys(r["app"] for r in rows))


def med(app, setup, key):
    v = [float(r[key]) for r in rows
         if r["app"] == app and r["setup"] == setup and r["check"] == "ok" and r[key]]
    return statistics.median(v) if v else None


def s(v):
    return "-" if v is None else "%.4f" % v


def ratio(a, b):
    return "-" if a is None or not b else "**%.2fx**" % (a / b)


runs = max(int(r["run"]) for r in rows) if rows else 0
out = ["# 4 ranks, %s; seconds over the timed iterations, the slowest rank's,"
       " median of %d runs a set-up; ratios ompi-bridge / in-network (above 1: in-network"
       " is faster)" % (sys.argv[3], runs),
       "| app | size | iterations | in-network compute | in-network comm | in-network total"
       " | ompi-bridge compute | ompi-bridge comm | ompi-bridge total | comm ratio | total ratio |",
       "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for a in apps:
    one = next((r for r in rows if r["app"] == a and r["n"]), {"n": "-", "iters": "-"})
    f = {(st, k): med(a, st, k) for st in ("in-network", "ompi-bridge")
         for k in ("compute_s", "comm_s", "total_s")}
    out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        a, one["n"], one["iters"],
        s(f["in-network", "compute_s"]), s(f["in-network", "comm_s"]),
        s(f["in-network", "total_s"]), s(f["ompi-bridge", "compute_s"]),
        s(f["ompi-bridge", "comm_s"]), s(f["ompi-bridge", "total_s"]),
        ratio(f["ompi-bridge", "comm_s"], f["in-network", "comm_s"]),
        ratio(f["ompi-bridge", "total_s"], f["in-network", "total_s"])))
bad = [r for r in rows if r["check"] != "ok"]
if bad:
    out.append("# %d runs failed: %s" % (len(bad), ", ".join(
        "%s %s %s" % (r["app"], r["setup"], r["run"]) for r in bad)))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
acis_log "results: $OUT (apps.csv, table.txt, run.txt)"
exit $fail

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Comparison 3, end to end: every collective on the namespace testbed
# through acis-switch (libacis, acis-bench) against Open MPI running the
# same collectives on the same namespaced hosts over TCP (acis-bench built
# on MPI: bench/acis_over_mpi.c), sizes 4 B to 4 MiB.
#
#   scripts/bench/e2e.sh [-o DIR] [-n "4"] [-i ITER] [-w WARMUP] [-c COLLS]
#                        [-s MIN] [-S MAX] [-t MS] [-m MTU] [-p PIPELINE]
#
# -n "2 3 4" runs each host count in turn (scaling). One testbed per host
# count, under a prefix of its own; acis-switch runs on it throughout
# (the MPI ranks' TCP traffic crosses it as L2 forwarding, the same path
# the ACiS messages take), and each collective runs on the switch and then
# on Open MPI before the next. Same method, iterations and statistics for
# both (doc/acis-bench.md); the ratio is Open MPI's avg latency over the
# switch's: above 1, the switch is faster. Writes DIR/e2e.csv,
# acis-P.{txt,csv}, mpi-P.{txt,csv}, table.txt, e2e.png, run.txt.
# -m sets the testbed's MTU (veths, libacis, the switch; default 1500, or
# ACIS_MTU); above 1500 the switch runs pipelines/testbed-jumbo.ini unless
# -p names another: AF_PACKET's ring needs slots a jumbo frame fits in.
# Needs root and Debian's openmpi-bin and libopenmpi-dev.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' HOSTS_LIST=4 ITER='' WARM='' MIN=4 MAX=4194304 TIMEOUT=30000 MTU=${ACIS_MTU:-1500}
COLLS=allreduce,reduce,bcast,scatter,gather,allgather,reduce_scatter,barrier
PIPELINE=''
while getopts "o:n:i:w:c:s:S:t:m:p:h" o; do
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
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_ints e2e -n "$HOSTS_LIST"
[ -z "$ITER" ] || bench_want_int e2e -i "$ITER"
[ -z "$WARM" ] || bench_want_int e2e -w "$WARM" 0
bench_want_int e2e -s "$MIN"
bench_want_int e2e -S "$MAX" "$MIN"
bench_want_int e2e -t "$TIMEOUT"
bench_testbed_mtu e2e -m "$MTU"
# the hosts' libacis and the switch's pipeline file read it
export ACIS_MTU=$MTU
[ "$(id -u)" -eq 0 ] || { echo "e2e: needs root (namespaces)" >&2; exit 1; }
BENCH=$ACIS_BUILD/tools/acis-bench
[ -x "$BENCH" ] || { echo "e2e: $BENCH missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
	{ echo "e2e: needs openmpi-bin and libopenmpi-dev (scripts/bench/setup.sh)" >&2; exit 1; }
OUT=$(bench_outdir e2e "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -n \"$HOSTS_LIST\"${ITER:+ -i $ITER}${WARM:+ -w $WARM} -c $COLLS -s $MIN -S $MAX -t $TIMEOUT -m $MTU -p $PIPELINE"
echo "mpi:       $(mpirun --version 2>&1 | head -1)" >>"$OUT/run.txt"

# the same benchmark source, on MPI
MPIBENCH=$OUT/acis-bench-mpi
mpicc -O2 -DACIS_BENCH_MPI -I"$ACIS_ROOT/lib/client" -I"$ACIS_ROOT/lib/proto" \
	"$ACIS_ROOT/tools/acis-bench.c" "$ACIS_ROOT/bench/acis_over_mpi.c" \
	"$ACIS_ROOT/lib/proto/proto.c" -o "$MPIBENCH"

opts=(--min-size "$MIN" --max-size "$MAX")
[ -n "$ITER" ] && opts+=(--iterations "$ITER")
[ -n "$WARM" ] && opts+=(--warmup "$WARM")

PREFIX=be$$
export BENCH_NETNS_PREFIX=$PREFIX
# Open MPI's session directories, one per host: the namespaces share one
# hostname, and daemons making the same directory at once can fail
# ("orte_session_dir failed ... File exists").
export BENCH_OMPI_TMP=/tmp/acis-ompi-$PREFIX
TB=$ACIS_ROOT/scripts/testbed.sh
cleanup() {
	[ "$BASHPID" = "$$" ] || return 0
	acis_e2e_cleanup "$PREFIX"
	rm -rf "$BENCH_OMPI_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_acis P COLL: one collective through the switch, rank 0's rows
# appended to acis-P.{csv,txt}
run_acis() {
	local P=$1 c=$2 r rc=0 pids=()
	for ((r = 0; r < P; r++)); do
		local args=(--switch 10.77.0.1 --job $((900 + P)) --rank "$r" --size "$P"
			--timeout "$TIMEOUT" --colls "$c" "${opts[@]}")
		if [ "$r" -eq 0 ]; then
			ip netns exec "$PREFIX-h0" "$BENCH" "${args[@]}" \
				--output "$OUT/part.csv" >"$OUT/part.txt" \
				2>>"$OUT/acis-$P-rank0.log" &
		else
			ip netns exec "$PREFIX-h$r" "$BENCH" "${args[@]}" \
				>/dev/null 2>>"$OUT/acis-$P-rank$r.log" &
		fi
		pids+=($!)
	done
	for r in "${!pids[@]}"; do
		wait "${pids[$r]}" || rc=1
	done
	keep_part "$OUT/acis-$P"
	return $rc
}

# run_mpi P COLL: the same collective on Open MPI, appended to mpi-P.*
run_mpi() {
	local P=$1 c=$2 r rc=0
	: >"$OUT/hosts-$P"
	for ((r = 0; r < P; r++)); do
		echo "10.77.0.$((10 + r)) slots=1" >>"$OUT/hosts-$P"
	done
	# mpirun in h0's namespace; the agent starts the other ranks' daemons
	# in theirs. Without yield_when_idle the ranks spin on two cores.
	mkdir -p "$BENCH_OMPI_TMP/h0"
	TMPDIR=$BENCH_OMPI_TMP/h0 \
	ip netns exec "$PREFIX-h0" mpirun --allow-run-as-root -np "$P" \
		--hostfile "$OUT/hosts-$P" --map-by node --bind-to none \
		--mca plm_rsh_agent "$ACIS_ROOT/scripts/bench/mpi-netns-agent.sh" \
		--mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24 \
		--mca oob_tcp_if_include 10.77.0.0/24 --mca mpi_yield_when_idle 1 \
		-x PATH -x LD_LIBRARY_PATH \
		"$MPIBENCH" --colls "$c" "${opts[@]}" --output "$OUT/part.csv" \
		>"$OUT/part.txt" 2>>"$OUT/mpi-$P.log" || rc=1
	keep_part "$OUT/mpi-$P"
	return $rc
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

rc=0
for P in $HOSTS_LIST; do
	N=$((P > 4 ? P : 4)) # the testbed pipelines name four ports
	acis_log "$P hosts: testbed $PREFIX, MTU $MTU, switch on $(basename "$PIPELINE")"
	"$TB" up -n "$N" -p "$PREFIX" -m "$MTU" >/dev/null
	acis_switch_start "$PREFIX" "$PIPELINE" "$OUT/switch-$P.log"
	rm -f "$OUT/acis-$P".* "$OUT/mpi-$P".*
	# collective by collective, the switch then Open MPI, so that what
	# else the machine does falls on both alike
	for c in ${COLLS//,/ }; do
		acis_log "$P hosts, $c: through the switch, then on Open MPI over TCP" \
			"(load $(cut -d' ' -f1 /proc/loadavg))"
		echo "load:      $P hosts, $c: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/run.txt"
		run_acis "$P" "$c" || { echo "e2e: acis-bench failed on $P hosts, $c (see $OUT/acis-$P-rank*.log)" >&2; rc=1; }
		run_mpi "$P" "$c" || { echo "e2e: MPI run failed on $P hosts, $c (see $OUT/mpi-$P.log)" >&2; rc=1; }
	done
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

"$BENCH_PY" - "$OUT" $HOSTS_LIST <<'PY'
import csv, os, sys
out, hosts = sys.argv[1], sys.argv[2:]
fields = ["transport", "ranks", "collective", "size_bytes", "avg_us", "min_us",
          "max_us", "p99_us", "busbw_GBps", "status"]
rows, lines = [], []
for P in hosts:
    got = {}
    for tr in ("acis", "mpi"):
        path = os.path.join(out, "%s-%s.csv" % (tr, P))
        if not os.path.exists(path):
            continue
        for r in csv.DictReader(open(path)):
            row = {k: r.get(k, "") for k in fields}
            row["transport"], row["ranks"] = tr, P
            rows.append(row)
            got[(tr, r["collective"], int(r["size_bytes"]))] = r
    lines.append("# %s hosts: avg latency (us) of the slowest rank; ratio = Open MPI / acis "
                 "(above 1: the switch is faster)" % P)
    lines.append("%-15s %10s %12s %12s %8s" % ("collective", "size(B)", "acis", "Open MPI", "ratio"))
    keys = sorted({(c, s) for (_, c, s) in got},
                  key=lambda k: (["allreduce", "reduce", "bcast", "scatter", "gather",
                                  "allgather", "reduce_scatter", "barrier"].index(k[0])
                                 if k[0] in ("allreduce", "reduce", "bcast", "scatter", "gather",
                                             "allgather", "reduce_scatter", "barrier") else 9, k[1]))
    for c, s in keys:
        a, m = got.get(("acis", c, s)), got.get(("mpi", c, s))
        av = float(a["avg_us"]) if a and a["avg_us"] else None
        mv = float(m["avg_us"]) if m and m["avg_us"] else None
        lines.append("%-15s %10d %12s %12s %8s" % (
            c, s, "%.2f" % av if av else "ERROR", "%.2f" % mv if mv else "ERROR",
            "%.2fx" % (mv / av) if av and mv else "-"))
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

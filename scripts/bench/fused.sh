#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fused collectives against the same computation as separate collectives
# with the op on the hosts (doc/fused.md, doc/benchmarks.md), four hosts
# on the namespace testbed:
#
#   scripts/bench/fused.sh [-o DIR] [-i ITERS] [-r RUNS]
#
#   patterns  acis-fused --iters ITERS (default 200) on 4 ranks, RUNS
#             rounds (default 3): each of Table 5.1's benchmarks checked
#             bit for bit, then ITERS fused calls and ITERS separate ones
#             alternating; the median call time (rank 0's) of each round,
#             and the median over the rounds
#   floor     acis-bench allreduce of 4 B, 2 KiB and 16 KiB (the ops'
#             data a fused call ships to the switch: a GMRES rank's 16 KiB
#             inbound buffer, an IS rank's 4 KiB histogram), the same
#             rounds: what a round trip and a buffer cost on this machine
# Writes DIR/fused.csv, floor.csv and table.txt. Needs root. Not a test:
# nothing here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' ITERS=200 RUNS=3
while getopts "o:i:r:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	i) ITERS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int fused -i "$ITERS"
bench_want_int fused -r "$RUNS"
[ "$(id -u)" -eq 0 ] || { echo "fused: needs root (namespaces)" >&2; exit 1; }
for t in acis-fused acis-bench; do
	[ -x "$ACIS_BUILD/tools/$t" ] ||
		{ echo "fused: $ACIS_BUILD/tools/$t missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
done
OUT=$(bench_outdir fused "$OUT")
PREFIX=fb$$
TB=$ACIS_ROOT/scripts/testbed.sh

cleanup() { acis_kill_hosts "$PREFIX"; acis_e2e_cleanup "$PREFIX"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -i $ITERS -r $RUNS"
"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$ACIS_ROOT/pipelines/testbed-af_packet.ini" "$OUT/switch.log"

job=1
# ranks TOOL ARGS...: TOOL as ranks 0..3, logs OUT/rankR.out
ranks() {
	local tool=$1 r pids=() rc=0
	shift
	for r in 0 1 2 3; do
		ip netns exec "$PREFIX-h$r" "$ACIS_BUILD/tools/$tool" \
			--switch 10.77.0.1 --job "$job" --rank "$r" --size 4 \
			"$@" >"$OUT/rank$r.out" 2>&1 &
		pids+=($!)
	done
	for r in "${pids[@]}"; do wait "$r" || rc=1; done
	job=$((job + 1))
	[ "$rc" -eq 0 ] || { echo "fused: $tool failed: $(cat "$OUT"/rank*.out)" >&2; exit 1; }
}

echo "run,pattern,fused_us,separate_us" >"$OUT/fused.csv"
echo "run,bytes,allreduce_us" >"$OUT/floor.csv"
for ((run = 1; run <= RUNS; run++)); do
	ranks acis-fused --iters "$ITERS"
	# "ok NAME (op OP): ...; median of N: fused F us, separate S us (...)"
	sed -n 's/^ok \([a-z_]*\) .*fused \([0-9.]*\) us, separate \([0-9.]*\) us.*/\1,\2,\3/p' \
		"$OUT/rank0.out" | sed "s/^/$run,/" | tee -a "$OUT/fused.csv"
	ranks acis-bench --colls allreduce --min-size 4 --max-size 16384 \
		--iterations "$ITERS" --warmup 20 --output "$OUT/floor-$run.csv"
	"$BENCH_PY" - "$OUT/floor-$run.csv" "$run" >>"$OUT/floor.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["size_bytes"] in ("4", "2048", "16384"):
        print("%s,%s,%s" % (sys.argv[2], r["size_bytes"], r["avg_us"]))
PY
done
acis_ctl "$PREFIX" --raw /acis/collectives >"$OUT/collectives.json" || true

"$BENCH_PY" - "$OUT/fused.csv" "$OUT/floor.csv" "$OUT/table.txt" "$ITERS" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
floor = list(csv.DictReader(open(sys.argv[2])))
pats = []
for r in rows:
    if r["pattern"] not in pats:
        pats.append(r["pattern"])
out = ["# fused against separate collectives + the op on the hosts, 4 ranks "
       "(median call time of %s, median of %d rounds)" %
       (sys.argv[4], len({r["run"] for r in rows})),
       "| pattern | fused (us) | separate (us) | separate / fused |",
       "|---|---|---|---|"]
for p in pats:
    f = statistics.median(float(r["fused_us"]) for r in rows if r["pattern"] == p)
    s = statistics.median(float(r["separate_us"]) for r in rows if r["pattern"] == p)
    out.append("| %s | %.1f | %.1f | %.2f |" % (p, f, s, s / f))
out += ["", "# the floor: allreduce through the switch (mean call time, us)",
        "| bytes | us |", "|---|---|"]
for b in ("4", "2048", "16384"):
    v = [float(r["allreduce_us"]) for r in floor if r["bytes"] == b]
    if v:
        out.append("| %s | %.1f |" % (b, statistics.median(v)))
open(sys.argv[3], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

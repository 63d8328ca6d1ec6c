#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The switch steering progress (doc/benchmarks.md, Deadlines and SSP;
# doc/sync.md), four hosts on the namespace testbed:
#
#   scripts/bench/sync.sh [-o DIR] [-i ITERS] [-r RUNS]
#
#   signal   a deadline of 1 ms, 5 ms and 20 ms, 200 epochs (50 at 20 ms):
#            how far each signal's interval on the hosts is from the
#            period (mean, p99, largest over the four ranks)
#   loop     ITERS iterations (default 1000) of work (200 us, times
#            1 + Exp(1): every member's varies) where rank 3 also
#            stalls 5 ms every 20th iteration, synchronised by a plain
#            barrier (acis_barrier) and by the switch's SSP barrier with
#            staleness 0, 1, 2, 4 and 8; the loop's time (the slowest
#            rank's), against the barrier's; RUNS rounds (default 3),
#            the median.
# Writes DIR/signal.csv, loop.csv and table.txt. Needs root. Not a test:
# nothing here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' ITERS=1000 RUNS=3
while getopts "o:i:r:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	i) ITERS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int sync -i "$ITERS"
bench_want_int sync -r "$RUNS"
[ "$(id -u)" -eq 0 ] || { echo "sync: needs root (namespaces)" >&2; exit 1; }
SYNC=$ACIS_BUILD/tools/acis-sync
[ -x "$SYNC" ] || { echo "sync: $SYNC missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
OUT=$(bench_outdir sync "$OUT")
PREFIX=sb$$
TB=$ACIS_ROOT/scripts/testbed.sh

cleanup() { acis_kill_hosts "$PREFIX"; acis_e2e_cleanup "$PREFIX"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -i $ITERS -r $RUNS"
"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$ACIS_ROOT/pipelines/testbed-af_packet.ini" "$OUT/switch.log"

job=1
# ranks ARGS...: acis-sync as ranks 0..3, logs OUT/rankR.out
ranks() {
	local r pids=() rc=0
	for r in 0 1 2 3; do
		ip netns exec "$PREFIX-h$r" "$SYNC" --switch 10.77.0.1 --job "$job" \
			--rank "$r" --size 4 --timeout 60000 "$@" >"$OUT/rank$r.out" 2>&1 &
		pids+=($!)
	done
	for r in "${pids[@]}"; do wait "$r" || rc=1; done
	job=$((job + 1))
	[ "$rc" -eq 0 ] || { echo "sync: acis-sync failed: $(cat "$OUT"/rank*.out)" >&2; exit 1; }
}

echo "period_us,epochs,err_mean_us,err_p99_us,err_max_us" >"$OUT/signal.csv"
for p in 1000:200 5000:200 20000:50; do
	ranks --period-us "${p%:*}" --epochs "${p#*:}" deadline
	# each rank: "interval error mean M us, p99 P us, max X us"
	sed -n 's/.*error mean \([0-9.]*\) us, p99 \([0-9.]*\) us, max \([0-9.]*\) us.*/\1 \2 \3/p' \
		"$OUT"/rank*.out | awk -v p="${p%:*}" -v e="${p#*:}" \
		'{ m += $1; if ($2 > q) q = $2; if ($3 > x) x = $3; n++ }
		 END { printf "%s,%s,%.1f,%.1f,%.1f\n", p, e, m / n, q, x }' |
		tee -a "$OUT/signal.csv"
done

# loop_ms ARGS...: the slowest rank's loop time
loop_ms() {
	ranks --iters "$ITERS" --work-us 200 --jitter 1 --slow-rank 3 \
		--stall-us 5000 --stall-every 20 --seed "$run" "$@"
	sed -n 's/.* iterations in \([0-9.]*\) ms.*/\1/p' "$OUT"/rank*.out |
		sort -n | tail -1
}
echo "run,barrier,ssp0,ssp1,ssp2,ssp4,ssp8" >"$OUT/loop.csv"
for ((run = 1; run <= RUNS; run++)); do
	row="$run,$(loop_ms barrier)"
	for s in 0 1 2 4 8; do row="$row,$(loop_ms --staleness "$s" ssp)"; done
	echo "$row" | tee -a "$OUT/loop.csv"
done
acis_ctl "$PREFIX" --raw /acis/sync >"$OUT/sync.json" || true

"$BENCH_PY" - "$OUT/signal.csv" "$OUT/loop.csv" "$OUT/table.txt" "$ITERS" <<'PY'
import csv, statistics, sys
sig = list(csv.DictReader(open(sys.argv[1])))
loop = list(csv.DictReader(open(sys.argv[2])))
out = ["# deadline signals: interval error on the hosts (us)",
       "| period | epochs | mean | p99 | max |", "|---|---|---|---|---|"]
for r in sig:
    out.append("| %s us | %s | %s | %s | %s |" % (r["period_us"], r["epochs"],
               r["err_mean_us"], r["err_p99_us"], r["err_max_us"]))
cols = ["barrier", "ssp0", "ssp1", "ssp2", "ssp4", "ssp8"]
med = {c: statistics.median(float(r[c]) for r in loop) for c in cols}
out += ["", "# %s iterations, rank 3 stalls 5 ms every 20th: loop time (ms, median of %d)"
        % (sys.argv[4], len(loop)),
        "| " + " | ".join(["barrier", "SSP s=0", "s=1", "s=2", "s=4", "s=8"]) + " |",
        "|" + "---|" * len(cols),
        "| " + " | ".join("%.0f (%.2f)" % (med[c], med["barrier"] / med[c]) for c in cols) + " |"]
open(sys.argv[3], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

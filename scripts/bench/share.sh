#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fair share: how much of its throughput a job keeps while another job on
# the same switch floods it (doc/benchmarks.md, Fair share; the target of
# doc/threat-model.md is at least half).
#
#   scripts/bench/share.sh [-o DIR] [-s BYTES] [-i ITER] [-r RUNS]
#
# Four hosts (h0..h3) run acis-bench allreduce float32 of BYTES (default
# 65536), ITER timed calls (default 300), and the calls a second are
# taken from its mean; a fifth host (h4) runs scripts/bench/flood.py: a
# job of its own whose rank 0 sends DATA as fast as it can, a new
# collective each, that never complete. Each run measures, in turn:
#   alone     no flood
#   floor     the same flood sent to a UDP port the switch does not serve:
#             what receiving it costs (the switch drops each frame)
#   flood     the flood into the collective stage, fair_share on
#   weighted  the same, the measured job of weight 4 ([collective] weights)
#   unfair    the same with [collective] fair_share = off
# RUNS rounds of the five (default 3) alternate. Writes DIR/share.csv,
# table.txt and run.txt. Needs root. Not a test: nothing here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' SIZE=65536 ITER=300 RUNS=3
while getopts "o:s:i:r:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	s) SIZE=$OPTARG ;;
	i) ITER=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int share -s "$SIZE"
bench_want_int share -i "$ITER"
bench_want_int share -r "$RUNS"
[ "$(id -u)" -eq 0 ] || { echo "share: needs root (namespaces)" >&2; exit 1; }
BENCH=$ACIS_BUILD/tools/acis-bench
[ -x "$BENCH" ] || { echo "share: $BENCH missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
OUT=$(bench_outdir share "$OUT")
FLOOD="$ACIS_ROOT/scripts/bench/flood.py"
PREFIX=sh$$
TB=$ACIS_ROOT/scripts/testbed.sh
fpid=''

cleanup() {
	[ -z "$fpid" ] || kill "$fpid" 2>/dev/null || true
	acis_e2e_cleanup "$PREFIX"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -s $SIZE -i $ITER -r $RUNS"
# the testbed's pipeline with a fifth port, the flooding host's
BASE=$ACIS_ROOT/pipelines/testbed-af_packet.ini
{ cat "$BASE"; printf '[port h4]\ndev = net_af_packet4,iface=sw4\n'; } >"$OUT/fair.ini"
{ cat "$OUT/fair.ini"; printf '[collective]\nfair_share = off\n'; } >"$OUT/unfair.ini"
# the measured jobs of the weighted phase are 8, 18, 28, ...
{
	cat "$OUT/fair.ini"
	printf '[collective]\nweights ='
	for ((k = 1; k <= RUNS; k++)); do printf ' %d:4' $((k * 10 + 8)); done
	printf '\n'
} >"$OUT/weighted.ini"
"$TB" up -n 5 -p "$PREFIX" >/dev/null

# calls a second of one acis-bench run of the four hosts as job $1
measure() {
	local job=$1 r pids=() us
	for r in 0 1 2 3; do
		ip netns exec "$PREFIX-h$r" "$BENCH" --switch 10.77.0.1 --job "$job" \
			--rank "$r" --size 4 --colls allreduce --min-size "$SIZE" \
			--max-size "$SIZE" --iterations "$ITER" --warmup 20 \
			--timeout 60000 --format csv >"$OUT/bench$r.out" 2>>"$OUT/bench.log" &
		pids+=($!)
	done
	for r in "${!pids[@]}"; do wait "${pids[$r]}" || true; done
	# csv: collective,size,count,bytes,P,dtype,op,iters,warmup,avg_us,...
	us=$(awk -F, -v s="$SIZE" '$2 == s && $10 != "" { print $10; exit }' "$OUT/bench0.out")
	[ -n "$us" ] || { echo "share: acis-bench gave no result (bench.log)" >&2; return 1; }
	awk -v u="$us" 'BEGIN { printf "%.1f\n", 1e6 / u }'
}
# flood_start JOB [PORT]: h4 floods as job JOB (to PORT)
flood_start() {
	ip netns exec "$PREFIX-h4" python3 "$FLOOD" 10.77.0.1 "$@" \
		>>"$OUT/flood.log" 2>&1 &
	fpid=$!
	sleep 1
}
flood_stop() {
	kill "$fpid" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	fpid=''
}
switch_on() {
	acis_switch_stop
	acis_switch_start "$PREFIX" "$1" "$OUT/switch.log"
}

echo "run,alone,floor,flood,weighted,unfair" >"$OUT/share.csv"
for ((k = 1; k <= RUNS; k++)); do
	j=$((k * 10))
	switch_on "$OUT/fair.ini"
	alone=$(measure $((j + 1)))
	flood_start $((j + 5)) 47009
	floor=$(measure $((j + 2)))
	flood_stop
	flood_start $((j + 6))
	flood=$(measure $((j + 3)))
	flood_stop
	acis_ctl "$PREFIX" --raw /acis/collectives >"$OUT/collectives.$k.json" || true
	switch_on "$OUT/weighted.ini"
	flood_start $((j + 9))
	weighted=$(measure $((j + 8)))
	flood_stop
	switch_on "$OUT/unfair.ini"
	flood_start $((j + 7))
	unfair=$(measure $((j + 4)))
	flood_stop
	echo "$k,$alone,$floor,$flood,$weighted,$unfair" | tee -a "$OUT/share.csv"
done

"$BENCH_PY" - "$OUT/share.csv" "$OUT/table.txt" "$SIZE" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {k: statistics.median(float(r[k]) for r in rows)
       for k in ("alone", "floor", "flood", "weighted", "unfair")}
lines = ["# allreduce float32 %s B, 4 ranks, calls/s (median of %d runs)"
         % (sys.argv[3], len(rows)),
         "| alone | floor (flood not served) | flood, fair_share on | flood, weight 4 | flood, fair_share off |",
         "|---|---|---|---|---|",
         "| %.0f | %.0f (%.2f) | %.0f (%.2f) | %.0f (%.2f) | %.0f (%.2f) |"
         % (med["alone"], med["floor"], med["floor"] / med["alone"],
            med["flood"], med["flood"] / med["alone"],
            med["weighted"], med["weighted"] / med["alone"],
            med["unfair"], med["unfair"] / med["alone"])]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Collectives under loss: four ranks on the namespace testbed run each
# collective at each size through acis-switch (AF_PACKET ports) while
# libacis's fault injection drops, duplicates and reorders what they send
# and receive; every result is checked bit for bit. The table gives the
# slowest rank's time per call and its ratio to the same call at 0 %
# loss, or FAIL. doc/reliability.md quotes it.
#
#   scripts/bench/loss.sh [-o DIR] [-s SIZES] [-c COLLS] [-t TIMEOUT_MS]
#
# SIZES are bytes per rank (default "4 65536 1048576 16777216 67108864"),
# COLLS acis-coll-check collectives (default "allreduce gather bcast").
# The fault sets: 0 %, 1 %, 5 % and 20 % loss, and 20 % loss with 5 %
# duplication and 20 % reordering (window 8); the host's RTO is 20 ms.
# Writes DIR/loss.csv, table.txt, run.txt; exits 1 when a call failed.
# Needs root.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' SIZES="4 65536 1048576 16777216 67108864" COLLS="allreduce gather bcast"
TMO=10000
while getopts "o:s:c:t:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	s) SIZES=$OPTARG ;;
	c) COLLS=$OPTARG ;;
	t) TMO=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) sed -n '10p' "$0" | sed 's/^# \{0,1\}/usage: /' >&2; exit 2 ;;
	esac
done
bench_want_ints loss -s "$SIZES"
bench_want_int loss -t "$TMO" 100
for c in $COLLS; do
	case $c in
	allreduce|reduce|bcast|scatter|gather|allgather|reduce_scatter|alltoall|barrier) ;;
	*) echo "loss: -c: unknown collective '$c'" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "loss: needs root (the namespace testbed)" >&2; exit 1; }
OUT=$(bench_outdir loss "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -s '$SIZES' -c '$COLLS' -t $TMO"
PREFIX=ls$$
cleanup() {
	acis_switch_stop
	"$ACIS_ROOT/scripts/testbed.sh" down -p "$PREFIX" >/dev/null 2>&1 || true
}
trap cleanup EXIT
"$ACIS_ROOT/scripts/testbed.sh" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$ACIS_ROOT/pipelines/testbed-af_packet.ini" "$OUT/switch.log"

export ACIS_RTO_MS=20 ACIS_FAULT_WINDOW=8
echo "faults,collective,bytes,ms,result" >"$OUT/loss.csv"
job=800
for fault in "0 0 0" "0.01 0 0" "0.05 0 0" "0.20 0 0" "0.20 0.05 0.20"; do
	read -r drop dup reorder <<<"$fault"
	for c in $COLLS; do
		for n in $SIZES; do
			job=$((job + 1))
			d=$OUT/runs/$job
			mkdir -p "$d"
			rc=0
			ACIS_FAULT_DROP=$drop ACIS_FAULT_DUP=$dup ACIS_FAULT_REORDER=$reorder \
				ACIS_FAULT_SEED=$job acis_run_ranks "$PREFIX" 4 "$job" "$d" \
				--timeout "$TMO" --sizes "$n" --colls "$c" --dtypes int32 \
				--times || rc=1
			ms=$(grep -h '^time ' "$d"/rank*.log 2>/dev/null |
				awk '{ v = $(NF - 1); if (v > m) m = v } END { printf "%.1f", m }')
			echo "$drop/$dup/$reorder,$c,$n,${ms:-0},$([ $rc -eq 0 ] && echo ok || echo FAIL)" |
				tee -a "$OUT/loss.csv"
		done
	done
done

"$BENCH_PY" - "$OUT/loss.csv" "$OUT/table.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
faults = []
for r in rows:
    if r["faults"] not in faults:
        faults.append(r["faults"])
base = {(r["collective"], r["bytes"]): float(r["ms"]) for r in rows
        if r["faults"] == faults[0] and r["result"] == "ok"}
def name(f):
    d, u, o = f.split("/")
    s = "%g %% loss" % (float(d) * 100)
    if float(u) or float(o):
        s += " +%g %% dup +%g %% reorder" % (float(u) * 100, float(o) * 100)
    return s
def size(b):
    b = int(b)
    for u, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= k and b % k == 0:
            return "%d %s" % (b // k, u)
    return "%d B" % b
lines = ["| collective | size | " + " | ".join(name(f) for f in faults) + " |",
         "|---|---|" + "---|" * len(faults)]
keys = []
for r in rows:
    k = (r["collective"], r["bytes"])
    if k not in keys:
        keys.append(k)
for k in keys:
    cells = []
    for f in faults:
        r = next(r for r in rows if r["faults"] == f and (r["collective"], r["bytes"]) == k)
        ms = float(r["ms"])
        if r["result"] != "ok":
            cells.append("FAIL")
        elif f == faults[0] or not base.get(k):
            cells.append("%.1f ms" % ms)
        else:
            cells.append("%.1f ms (%.1f×)" % (ms, ms / base[k]))
    lines.append("| %s | %s | %s |" % (k[0], size(k[1]), " | ".join(cells)))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
echo "loss: results in $OUT (table.txt, loss.csv)"
if grep -q ',FAIL$' "$OUT/loss.csv"; then
	echo "loss: some calls failed (FAIL in the table)" >&2
	exit 1
fi

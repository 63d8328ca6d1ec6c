#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Comparison 5, scaling: aggregation throughput with 1 and 2 worker lcores
# (agg.sh -w "1 2") and end-to-end latency through the switch with 2, 3
# and 4 hosts (e2e.sh -n "2 3 4"), in one plot.
#
#   scripts/bench/scaling.sh [-o DIR] [-n "2 3 4"] [-w "1 2"] [-i ITER]
#                            [-W WARMUP] [-a AGG_DIR] [-e E2E_DIR]
#
# -a and -e take the results of earlier agg.sh / e2e.sh runs instead of
# running them again. On a two-core machine the second worker shares core
# 0 with the sampler, and the hosts share both cores with the switch:
# run.txt of each part says so. Writes DIR/scaling.png, table.txt.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' HOSTS="2 3 4" WORKERS="1 2" ITER=100 WARM=10 AGG='' E2E=''
while getopts "o:n:w:i:W:a:e:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	n) HOSTS=$OPTARG ;;
	w) WORKERS=$OPTARG ;;
	i) ITER=$OPTARG ;;
	W) WARM=$OPTARG ;;
	a) AGG=$OPTARG ;;
	e) E2E=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_ints scaling -n "$HOSTS"
bench_want_ints scaling -w "$WORKERS"
bench_want_int scaling -i "$ITER"
bench_want_int scaling -W "$WARM" 0
for d in ${AGG:+"$AGG/agg.csv"} ${E2E:+"$E2E/e2e.csv"}; do
	[ -r "$d" ] || { echo "scaling: no $d (-a takes agg.sh's results, -e e2e.sh's)" >&2; exit 2; }
done
OUT=$(bench_outdir scaling "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -n \"$HOSTS\" -w \"$WORKERS\" -i $ITER -W $WARM${AGG:+ -a $AGG}${E2E:+ -e $E2E}"
D=$(dirname "$0")
if [ -z "$AGG" ]; then
	AGG=$OUT/agg
	"$D/agg.sh" -o "$AGG" -P "4 8" -L "256 1024 8192" -w "$WORKERS"
fi
if [ -z "$E2E" ]; then
	E2E=$OUT/e2e
	"$D/e2e.sh" -o "$E2E" -n "$HOSTS" -i "$ITER" -w "$WARM" \
		-c allreduce,bcast,allgather,barrier
fi
"$BENCH_PY" - "$AGG/agg.csv" "$E2E/e2e.csv" "$OUT/table.txt" <<'PY'
import csv, sys
agg = [r for r in csv.DictReader(open(sys.argv[1]))
       if r.get("checksums", "software") == "software"]
e2e = [r for r in csv.DictReader(open(sys.argv[2])) if r["transport"] == "acis" and r["avg_us"]]
if not agg:
    sys.exit("scaling: %s holds no aggregation result" % sys.argv[1])
if not e2e:
    sys.exit("scaling: %s holds no end-to-end result through the switch" % sys.argv[2])
lines = ["# aggregation: total contribution Gb/s by worker lcores (median round)",
         "%5s %8s %7s %12s %12s" % ("ranks", "payload", "workers", "total Gb/s", "per core")]
for r in sorted(agg, key=lambda r: (int(r["ranks"]), int(r["payload_bytes"]), int(r["workers"]))):
    W = int(r["workers"])
    lines.append("%5s %8s %7d %12.2f %12.2f" % (r["ranks"], r["payload_bytes"], W,
                                               float(r["switch_gbps_core_median"]) * W,
                                               float(r["switch_gbps_core_median"])))
hosts = sorted({int(r["ranks"]) for r in e2e})
lines += ["", "# end to end through the switch: avg latency (us) by hosts",
          "%-15s %10s" % ("collective", "size(B)") + "".join("%10s" % ("P=%d" % h) for h in hosts)]
keys = sorted({(r["collective"], int(r["size_bytes"])) for r in e2e})
for c, s in keys:
    v = {int(r["ranks"]): float(r["avg_us"]) for r in e2e
         if r["collective"] == c and int(r["size_bytes"]) == s}
    lines.append("%-15s %10d" % (c, s) + "".join("%10s" % ("%.1f" % v[h] if h in v else "-")
                                                  for h in hosts))
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
# the plot shows a few sizes, or it is unreadable
"$BENCH_PY" - "$E2E/e2e.csv" "$OUT/e2e-some.csv" <<'PY'
import csv, sys
SIZES = ("0", "64", "65536", "1048576")
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["transport"] == "acis" and r["size_bytes"] in SIZES]
if not rows:
    sys.exit("scaling: %s has no result through the switch at %s B, the sizes the "
             "plot shows (e2e.sh -s and -S must take some in)"
             % (sys.argv[1], ", ".join(SIZES)))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    w.writerows(rows)
PY
bench_plot scaling "$AGG/agg.csv" "$OUT/e2e-some.csv" "$OUT/scaling.png"
acis_log "results: $OUT (table.txt, scaling.png; parts in $AGG and $E2E)"

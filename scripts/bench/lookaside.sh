#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Comparison 4, look-aside: each example CGRA program of examples/cgra on
# the acis_cgra machine against the same computation in native C on the
# same packets (bench/cgra_bench; its header says how each pair is made
# equal, and it checks their outputs bit for bit).
#
#   scripts/bench/lookaside.sh [-o DIR] [-t SECONDS_PER_MEASUREMENT]
#
# Ratio = machine time / C time (1.0 is parity; the target is 1.5 or
# less) and payload Gb/s through the machine on one core. Writes
# DIR/lookaside.csv, table.txt, lookaside.png, run.txt.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' SECS=0.3
while getopts "o:t:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	t) SECS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_secs lookaside -t "$SECS"
CB=$ACIS_BUILD/bench/cgra_bench
[ -x "$CB" ] || { echo "lookaside: $CB missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
OUT=$(bench_outdir lookaside "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -t $SECS"
# one core, pinned, like a look-aside worker lcore
CORE=$(( $(nproc) > 1 ? 1 : 0 ))
echo "core:      $CORE (taskset)" >>"$OUT/run.txt"
taskset -c "$CORE" "$CB" "$SECS" | tee "$OUT/cgra_bench.txt"

"$BENCH_PY" - "$OUT/cgra_bench.txt" "$OUT/lookaside.csv" "$OUT/table.txt" <<'PY'
import re, sys
pat = re.compile(r"^(\S.*?)\s+(\d+) pkts\s+([\d.]+) KiB\s+machine\s+([\d.]+) us\s+"
                 r"C\s+([\d.]+) us\s+ratio\s+([\d.]+)\s+([\d.]+) Gb/s")
rows = []
for line in open(sys.argv[1]):
    m = pat.match(line)
    if m:
        name, pk, kib, tm, tc, ratio, gbps = m.groups()
        bits = float(kib) * 1024 * 8
        rows.append((name.strip(), int(pk), float(kib), float(tm), float(tc), float(ratio),
                     float(gbps), bits / (float(tc) * 1e-6) / 1e9))
if not rows:
    sys.exit("lookaside: cgra_bench printed no result line")
with open(sys.argv[2], "w") as f:
    f.write("program,packets,payload_kib,machine_us,c_us,ratio,machine_gbps,c_gbps\n")
    for r in rows:
        f.write("%s,%d,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f\n" % r)
lines = ["# look-aside CGRA programs vs native C on one core; ratio = machine / C (target <= 1.5)",
         "%-28s %6s %10s %10s %7s %12s %10s" % ("program", "pkts", "machine us", "C us", "ratio",
                                              "machine Gb/s", "C Gb/s")]
for r in rows:
    lines.append("%-28s %6d %10.2f %10.2f %6.2fx %12.2f %10.2f%s" % (
        r[0], r[1], r[3], r[4], r[5], r[6], r[7], "" if r[5] <= 1.5 else "   (over 1.5)"))
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
bench_plot lookaside "$OUT/lookaside.csv" "$OUT/lookaside.png"
acis_log "results: $OUT (lookaside.csv, table.txt, lookaside.png, run.txt)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every comparison of doc/benchmarks.md in one command (`make bench`):
# forwarding, aggregation, end to end, look-aside, the reference
# applications, seed 000's torus findings and scaling, each into
# DIR/<name>/ with its CSV, table, plot and run.txt. Takes about half an
# hour on two cores with the defaults; QUICK=1 cuts iterations and sizes
# (a few minutes: for a look at the shape, not for publishing). Needs root.
#
#   scripts/bench/all.sh [DIR]     (default /tmp/acis-bench-all-DATE)
set -euo pipefail
while getopts "h" o; do
	case $o in
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
source "$(dirname "$0")/../lib.sh"
D=$(dirname "$0")
OUT=${1:-/tmp/acis-bench-all-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
"$D/setup.sh"
if [ -n "${QUICK:-}" ]; then
	"$D/fwd.sh" -o "$OUT/fwd" -s 1 -r 1
	"$D/agg.sh" -o "$OUT/agg" -L "256 8192" -r 2 -m 16 -w "1 2" -k "sw nic"
	"$D/e2e.sh" -o "$OUT/e2e" -n "2 4" -i 20 -w 2 -S 65536
	"$D/lookaside.sh" -o "$OUT/lookaside" -t 0.1
	"$D/apps.sh" -o "$OUT/apps" -q -r 1
	"$D/torus-findings.sh" -o "$OUT/torus" -q
else
	"$D/fwd.sh" -o "$OUT/fwd"
	"$D/agg.sh" -o "$OUT/agg" -w "1 2" -k "sw nic"
	"$D/e2e.sh" -o "$OUT/e2e" -n "2 3 4" -i 100 -w 10
	"$D/lookaside.sh" -o "$OUT/lookaside"
	"$D/apps.sh" -o "$OUT/apps"
	"$D/torus-findings.sh" -o "$OUT/torus"
fi
"$D/scaling.sh" -o "$OUT/scaling" -a "$OUT/agg" -e "$OUT/e2e"
acis_log "all results in $OUT: fwd agg e2e lookaside apps torus scaling"

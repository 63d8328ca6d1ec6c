#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Comparison 2, aggregation: allreduce contributions (float32 sum, 4 and 8
# ranks, payloads 256 B to 8 KiB) fed to the switch's aggregation stage on
# net_ring ports, against a plain streaming sum over the same bytes in the
# same run (bench/switch_bench agg; doc/benchmarks.md says how).
#
#   scripts/bench/agg.sh [-o DIR] [-P "4 8"] [-L "256 512 ... 8192"]
#                        [-w "1"] [-k "sw"] [-r ROUNDS] [-m ROUND_MB] [-a] [-c]
#
# -w "1 2" measures one and two worker lcores (scaling). -k "sw nic"
# measures the switch verifying every UDP checksum in software (sw, as on
# ports without checksum offload) and taking a NIC's verdict instead (nic:
# the frames arrive marked good, as from a NIC that verified them). Contribution Gb/s
# per worker core (a round timed whole, from the workers' launch to the
# drain that takes its last result), median of ROUNDS rounds, and the
# ratio to the ceiling; and the floor, a bare loop that only receives,
# verifies and folds the same frames (no answers, no bookkeeping), with
# its ratio to the ceiling: what any switch could reach on them. With -a
# (one worker only) the floor also answers every member of a finished
# chunk as the switch does (a frame of prebuilt headers each, the sum
# chained behind them), which every switch must: the floor with answers.
# With -c every rank joins with a cookie that each contribution carries
# and the switch checks, as libacis's ranks do by default (doc/threat-model.md).
# Writes DIR/agg.csv, table.txt, agg.png, run.txt. Needs root (hugepages).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' RANKS="4 8" SIZES="256 512 1024 2048 4096 8192" WORKERS=1 ROUNDS=5 MB=32
CSUM=sw ANSWERS=() AUTH=()
while getopts "o:P:L:w:k:r:m:ach" o; do
	case $o in
	o) OUT=$OPTARG ;;
	P) RANKS=$OPTARG ;;
	L) SIZES=$OPTARG ;;
	w) WORKERS=$OPTARG ;;
	k) CSUM=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	m) MB=$OPTARG ;;
	a) ANSWERS=(--floor-answers) ;;
	c) AUTH=(--auth) ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_ints agg -P "$RANKS" 2
bench_want_ints agg -L "$SIZES"
bench_want_ints agg -w "$WORKERS"
for k in $CSUM; do
	case $k in
	sw | nic) ;;
	*) echo "agg: -k: sw or nic (or both: -k \"sw nic\"), found '$k'" >&2; exit 2 ;;
	esac
done
[ -n "${CSUM// /}" ] || { echo "agg: -k: sw, nic or \"sw nic\"" >&2; exit 2; }
bench_want_int agg -r "$ROUNDS"
bench_want_int agg -m "$MB"
if [ ${#ANSWERS[@]} -ne 0 ] && [ "${WORKERS// /}" != 1 ]; then
	echo "agg: -a: one worker only (-w 1), found -w \"$WORKERS\"" >&2
	exit 2
fi
[ "$(id -u)" -eq 0 ] || { echo "agg: needs root (hugepages)" >&2; exit 1; }
SB=$ACIS_BUILD/bench/switch_bench
[ -x "$SB" ] || { echo "agg: $SB missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
OUT=$(bench_outdir agg "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -P \"$RANKS\" -L \"$SIZES\" -w \"$WORKERS\" -k \"$CSUM\" -r $ROUNDS -m $MB${ANSWERS:+ -a}${AUTH:+ -c}"
# a round's templates (about ROUND_MB of contributions plus their mbufs)
# and the fresh copies the switch or the ceiling reads; with several
# workers, the switch's pool grows from 32767 mbufs to a whole round's
# results plus 8192 (switch_bench says why): ROUND_MB / L results at
# payload L, each mbuf its data room (2 KiB, or the frame) and some 384
# bytes of headers
PAGES=$(( (MB * 5 + 160) / 2 + 64 )) EXTRA=0
for w in $WORKERS; do
	[ "$w" -gt 1 ] || continue
	for L in $SIZES; do
		n=$(( MB * 1048576 / L + 8192 - 32767 )) room=$(( L + 128 ))
		[ "$room" -ge 2048 ] || room=2048
		[ "$n" -le 0 ] || [ $(( n * (room + 384) / 2097152 + 1 )) -le "$EXTRA" ] ||
			EXTRA=$(( n * (room + 384) / 2097152 + 1 ))
	done
	break
done
MEM=$(bench_hugepages $(( PAGES + EXTRA )))
# main lcore 0 (it samples the results) and worker lcores 1 and 2: lcore 1
# on core 1 and, with two workers, lcore 2 on core 0 beside the sampler,
# which sleeps 100 us between samples
LCORES=${BENCH_LCORES:-0@0,1@1,2@0}
# a LIFO mempool: a freed mbuf is reused while still in cache, as when a
# NIC driver frees transmitted mbufs on the worker itself
# shellcheck disable=SC2206 # MEM is several options
EAL=(--lcores "$LCORES" $MEM --no-pci --no-telemetry --log-level error
	--mbuf-pool-ops-name stack)
echo "eal:       ${EAL[*]}" >>"$OUT/run.txt"
rm -f "$OUT/agg.csv"
for W in $WORKERS; do
	for P in $RANKS; do
		for L in $SIZES; do
			for k in $CSUM; do
				flag=()
				[ "$k" = nic ] && flag=(--nic-checksums)
				"$SB" "${EAL[@]}" --file-prefix "ag$$" -- agg --ranks "$P" \
					--payload "$L" --workers "$W" --rounds "$ROUNDS" \
					--round-mb "$MB" "${flag[@]}" "${ANSWERS[@]}" "${AUTH[@]}" \
					--csv "$OUT/agg.csv" |
					tee -a "$OUT/log.txt"
			done
		done
	done
done

"$BENCH_PY" - "$OUT/agg.csv" "$OUT/table.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if not rows:
    sys.exit("agg: switch_bench wrote no result to %s" % sys.argv[1])
answers = rows[0].get("floor_answers") == "1"
lines = ["# allreduce float32 sum through the aggregation stage; contribution Gb/s per worker core",
         "# (median of %s rounds) against a streaming sum over the same bytes on the same cores"
         % rows[0]["rounds"],
         "# and a bare receive-and-fold loop on the same frames (the floor: %s)"
         % ("no bookkeeping; it answers every member, as a switch must" if answers
            else "no answers, no bookkeeping"),
         "%5s %8s %7s %9s %12s %12s %7s %10s %10s %7s" % (
             "ranks", "payload", "workers", "checksums", "switch", "ceiling", "ratio",
             "Mcontrib/s", "floor", "ratio")]
for r in rows:
    sw, ce = float(r["switch_gbps_core_median"]), float(r["ceiling_gbps_core_median"])
    fl = float(r.get("floor_gbps_core_median") or "nan")
    lines.append("%5s %8s %7s %9s %12.2f %12.2f %6.3fx %10.3f %10.2f %6.3fx" % (
        r["ranks"], r["payload_bytes"], r["workers"], r.get("checksums", "software"), sw, ce,
        sw / ce, sw * 1e3 / 8 / int(r["payload_bytes"]), fl, fl / ce))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
bench_plot agg "$OUT/agg.csv" "$OUT/agg.png"
acis_log "results: $OUT (agg.csv, table.txt, agg.png, run.txt)"

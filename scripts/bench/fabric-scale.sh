#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# How many switches one machine emulates (doc/benchmarks.md, Fabrics):
# rings of N switches (scripts/fabric.sh), placed as logical switches of
# one acis-switch process and as one process each, a host on switch 0
# and one on switch N/2, the farthest.
#
#   scripts/bench/fabric-scale.sh [-o DIR] [-n "4 8 16"] [-P "logical process"] [-i ITER]
#
# For each placement and N: the time to start the fabric, the hugepage memory its
# switches hold, the round trip of a ping between the two hosts (N/2
# switches each way), and a 2-rank allreduce float32 of 4 B and 64 KiB
# through the switch the hosts' tree is rooted at (ITER timed calls,
# default 200): latency and bus bandwidth. Writes DIR/scale.csv and
# table.txt. Needs root. Not a test: nothing here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' SIZES="4 8 16" ITER=200 PLACES="logical process"
while getopts "o:n:i:P:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	n) SIZES=$OPTARG ;;
	P) PLACES=$OPTARG ;;
	i) ITER=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_ints fabric-scale -n "$SIZES" 2
bench_want_int fabric-scale -i "$ITER"
for p in $PLACES; do
	case $p in logical | process) ;; *) echo "fabric-scale: -P $p: expected logical or process" >&2; exit 2 ;; esac
done
[ "$(id -u)" -eq 0 ] || { echo "fabric-scale: needs root (namespaces)" >&2; exit 1; }
BENCH=$ACIS_BUILD/tools/acis-bench
FAB=$ACIS_BUILD/tools/acis-fabric
OUT=$(bench_outdir fabric-scale "$OUT")
FABRIC=$ACIS_ROOT/scripts/fabric.sh
PREFIX=fs$$

cleanup() {
	acis_kill_hosts "$PREFIX"
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -n '$SIZES' -P '$PLACES' -i $ITER"

# ring N: the topology file of a ring of N switches, hosts on s0 and sN/2
ring() {
	local n=$1 k
	printf '[topology]\nname = ring of %d\nplacement = process\n' "$n"
	# addresses from 10.77.0.100: up to 150 switches beside the hosts
	for ((k = 0; k < n; k++)); do
		printf '[switch s%d]\nports = 3\nip = 10.77.0.%d\n' "$k" $((100 + k))
	done
	printf '[links]\n'
	for ((k = 0; k < n; k++)); do
		printf 'link = s%d:p1 s%d:p2\n' "$k" $(( (k + 1) % n ))
	done
	printf '[hosts]\nh0 = s0:p0\nh1 = s%d:p0\n' $((n / 2))
}

free_pages() { awk '/HugePages_Free/ {print $2}' /proc/meminfo; }

echo "placement,switches,start_s,hugepage_mb,ping_rtt_ms,us_4B,us_64KiB,busbw_64KiB_GBps" >"$OUT/scale.csv"
job=1
for place in $PLACES; do
for n in $SIZES; do
	ring "$n" >"$OUT/ring$n.ini"
	# 48 MB a switch (its pool), whichever the placement
	export ACIS_HUGEPAGES=$(( 26 * n + 128 > ${ACIS_HUGEPAGES:-512} ? 26 * n + 128 : ${ACIS_HUGEPAGES:-512} ))
	acis_have_hugepages || true
	before=$(free_pages)
	t0=$(date +%s.%N)
	"$FABRIC" up "$OUT/ring$n.ini" -p "$PREFIX" -P "$place" >/dev/null
	"$FABRIC" start -p "$PREFIX" >/dev/null
	start=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')
	mb=$(( ($before - $(free_pages)) * 2 ))
	rtt=$(ip netns exec "$PREFIX-h0" ping -c 20 -i 0.05 -W 2 10.77.0.11 |
		sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
	root=$("$FAB" tree "$OUT/ring$n.ini" all | sed -n 's/^root \([^,]*\),.*/\1/p')
	ip=$("$FAB" list "$OUT/ring$n.ini" | awk -v s="$root" '$1 == "switch" && $2 == s {print $3}')
	for size in 4 65536; do
		pids=()
		for r in 0 1; do
			ip netns exec "$PREFIX-h$r" "$BENCH" --switch "$ip" --job "$job" \
				--rank "$r" --size 2 --colls allreduce --min-size "$size" \
				--max-size "$size" --iterations "$ITER" --warmup 20 \
				--timeout 60000 --format csv >"$OUT/bench$r.out" 2>>"$OUT/bench.log" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p" || true; done
		job=$((job + 1))
		read -r us bus < <(awk -F, -v s="$size" '$2 == s && $10 != "" { print $10, $16; exit }' "$OUT/bench0.out") ||
			{ echo "fabric-scale: no result for $n switches, $size B (bench.log)" >&2; exit 1; }
		if [ "$size" = 4 ]; then us4=$us; else us64=$us; bus64=$bus; fi
	done
	echo "$place,$n,$start,$mb,$rtt,$us4,$us64,$bus64" | tee -a "$OUT/scale.csv"
	"$FABRIC" down -p "$PREFIX" >/dev/null
done
done

"$BENCH_PY" - "$OUT/scale.csv" "$OUT/table.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = ["# rings of switches, hosts N/2 switches apart; 2-rank allreduce through the root",
       "| placement | switches | start s | hugepage MB | ping RTT ms | allreduce 4 B us | 64 KiB us | bus bandwidth GB/s |",
       "|---|---|---|---|---|---|---|---|"]
for r in rows:
    out.append("| %s | %s | %.1f | %s | %s | %.0f | %.0f | %s |" % (
        r["placement"], r["switches"], float(r["start_s"]), r["hugepage_mb"], r["ping_rtt_ms"],
        float(r["us_4B"]), float(r["us_64KiB"]), r["busbw_64KiB_GBps"]))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

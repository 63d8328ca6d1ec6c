#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Allreduce across 1, 2 and 3 levels of switches (doc/benchmarks.md,
# Fabrics): four hosts, the switches placed as -P says (logical: every
# switch in one acis-switch process, the default; process: one process
# per switch; scripts/fabric.sh), the hosts' collectives addressed to
# the root of the fabric's aggregation tree.
#
#   scripts/bench/fabric.sh [-o DIR] [-s SIZES] [-i ITER] [-P PLACEMENT]
#
# Topologies: topologies/one.ini (one switch), leaf-spine.ini (a leaf
# and the spine above it: one fabric link on each host's path),
# three-level.ini (leaf, aggregation, core: two). For each, acis-bench
# allreduce float32 of each of SIZES (default 4,65536,1048576), ITER
# timed calls (default 200) after 20 warm-up ones: mean latency and bus
# bandwidth, and the bytes every fabric link carried (both directions,
# summed over links, from each switch's port counters) per call -- folded
# in the tree, and again as the unicast baseline ([collective] fold =
# off: every member's frames to the root and back). Writes
# DIR/fabric.csv and table.txt. Needs root. Not a test: nothing here
# judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' SIZES=4,65536,1048576 ITER=200 WARMUP=20 PLACE=logical
while getopts "o:s:i:P:h" o; do
	case $o in
	P) PLACE=$OPTARG ;;
	o) OUT=$OPTARG ;;
	s) SIZES=$OPTARG ;;
	i) ITER=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_ints fabric -s "${SIZES//,/ }"
bench_want_int fabric -i "$ITER"
case $PLACE in logical | process) ;; *) echo "fabric: -P $PLACE: expected logical or process" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "fabric: needs root (namespaces)" >&2; exit 1; }
BENCH=$ACIS_BUILD/tools/acis-bench
FAB=$ACIS_BUILD/tools/acis-fabric
[ -x "$BENCH" ] || { echo "fabric: $BENCH missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
OUT=$(bench_outdir fabric "$OUT")
FABRIC=$ACIS_ROOT/scripts/fabric.sh
PREFIX=fb$$

cleanup() {
	acis_kill_hosts "$PREFIX"
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -s $SIZES -i $ITER -P $PLACE"

# Bytes sent on every fabric link of topology $1, both ways.
link_bytes() {
	local sum=0 a pa b pb
	while read -r _ a pa b pb; do
		for sp in "$a $pa" "$b $pb"; do
			set -- $sp
			sum=$((sum + $("$FABRIC" ctl -p "$PREFIX" "$1" --raw /acis/ports |
				python3 -c "import json,sys; print(json.load(sys.stdin)['/acis/ports']['$2']['tx_bytes'])")))
		done
	done < <("$FAB" list "$TOPO" | awk '$1 == "link"')
	echo "$sum"
}

echo "levels,topology,mode,size,avg_us,busbw_GBps,link_bytes_per_call" >"$OUT/fabric.csv"
job=1
for t in one:1:tree leaf-spine:2:tree leaf-spine:2:unicast three-level:3:tree \
	 three-level:3:unicast; do
	name=${t%%:*} levels=${t#*:} mode=${t##*:}
	levels=${levels%:*}
	TOPO=$ACIS_ROOT/topologies/$name.ini
	"$FABRIC" up "$TOPO" -p "$PREFIX" -P "$PLACE" >/dev/null
	fold=on
	[ "$mode" = tree ] || fold=off
	ACIS_FOLD=$fold "$FABRIC" start -p "$PREFIX" >/dev/null
	root=$("$FAB" tree "$TOPO" all | sed -n 's/^root \([^,]*\),.*/\1/p')
	ip=$("$FAB" list "$TOPO" | awk -v s="$root" '$1 == "switch" && $2 == s {print $3}')
	for size in ${SIZES//,/ }; do
		before=$(link_bytes)
		pids=()
		for r in 0 1 2 3; do
			ip netns exec "$PREFIX-h$r" "$BENCH" --switch "$ip" --job "$job" \
				--rank "$r" --size 4 --colls allreduce --min-size "$size" \
				--max-size "$size" --iterations "$ITER" --warmup "$WARMUP" \
				--timeout 60000 --format csv >"$OUT/bench$r.out" 2>>"$OUT/bench.log" &
			pids+=($!)
		done
		for r in "${!pids[@]}"; do wait "${pids[$r]}" || true; done
		after=$(link_bytes)
		job=$((job + 1))
		# csv: collective,size_bytes,...,avg_us(10),...,busbw_GBps(16)
		read -r us bus < <(awk -F, -v s="$size" '$2 == s && $10 != "" { print $10, $16; exit }' "$OUT/bench0.out") ||
			{ echo "fabric: acis-bench gave no result for $name $size (bench.log)" >&2; exit 1; }
		per=$(( (after - before) / (ITER + WARMUP) ))
		echo "$levels,$name,$mode,$size,$us,$bus,$per" | tee -a "$OUT/fabric.csv"
	done
	"$FABRIC" down -p "$PREFIX" >/dev/null
done

"$BENCH_PY" - "$OUT/fabric.csv" "$OUT/table.txt" "$PLACE" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
base = {r["size"]: float(r["avg_us"]) for r in rows if r["levels"] == "1"}
uni = {(r["topology"], r["size"]): int(r["link_bytes_per_call"])
       for r in rows if r["mode"] == "unicast"}
out = ["# allreduce float32, 4 ranks, through the root switch of each fabric (placement %s);" % sys.argv[3],
       "# tree: folded in the tree; unicast: [collective] fold = off",
       "| levels | topology | mode | bytes | latency us | vs 1 level | bus bandwidth GB/s | fabric link bytes a call | vs unicast |",
       "|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    us = float(r["avg_us"])
    b = int(r["link_bytes_per_call"])
    u = uni.get((r["topology"], r["size"]))
    out.append("| %s | %s | %s | %s | %.1f | %+.1f us | %s | %s | %s |" % (
        r["levels"], r["topology"], r["mode"], r["size"], us,
        us - base[r["size"]], r["busbw_GBps"], b,
        "%.2f" % (b / u) if u else "-"))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The hardware MPE's broadcast and reduce trees against its Eq. 5.3-5.4
# (doc/fidelity.md): n nodes, each a switch with one host, every link
# shaped as the MPE's Aurora channel (topologies/profiles/mpe.ini,
# 3.2 Gbit/s, dilated 1000 times), as logical switches of one process.
# The tree is the fabric's (acis-fabric chain|binomial|star N): the hosts
# join switch s0 (h0's, the root), and the switches fold and replicate
# along the links their members sit behind (doc/fabric.md).
#
#   linear    a chain s0 - s1 - ... : each switch one parent, one child
#   binomial  s0 ... as a binomial tree (sI's parent: I without its
#             highest bit), log2 n deep
#   star      s0 joined by one link to a hub switch without a host, the
#             others hanging off the hub, and [collective] fold = off:
#             only the root's switch aggregates and replicates, its one
#             channel carrying every member's frame, as the MPE's star,
#             whose one MPE at the root reaches every node over shared
#             channels
#
#   scripts/bench/mpe-trees.sh [-o DIR] [-n "4 8 16 32"] [-b BYTES] [-i ITER]
#
# For each tree and n, ITER (default 10) bcasts and reduces of BYTES
# (default 1024, float32, one frame) timed by scripts/bench/tree_rank.py
# on one clock: a bcast from the root's start to the last host's end, a
# reduce from the last host's start to the root's end; the median, over
# the dilation, is the platform's time. Beside it, Eq. 5.3-5.4's network
# stages (n - 1, or log2 n for binomial) times P, one frame's time on a
# 3.2 Gbit/s wire; the equations' "2 +" (the two local DMA transactions)
# and the reduce's O (the MPE's adder) are the hardware's own and not
# emulated: a host port costs 0 in the profile, as the source gives no
# figure, and a switch's fold takes microseconds, nanoseconds of the
# platform. Writes DIR/trees.csv (acis-model fit mpe reads it) and
# table.txt. Needs root; n up to 32 (one host port each: DPDK's 32
# ports a process). Not a test: nothing here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' NS="4 8 16 32" BYTES=1024 ITER=10
while getopts "o:n:b:i:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	n) NS=$OPTARG ;;
	b) BYTES=$OPTARG ;;
	i) ITER=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_ints mpe-trees -n "$NS" 2
bench_want_int mpe-trees -b "$BYTES" 4
bench_want_int mpe-trees -i "$ITER" 1
for n in $NS; do
	[ "$n" -le 32 ] && [ $((n & (n - 1))) -eq 0 ] ||
		{ echo "mpe-trees: -n $n: expected powers of 2 up to 32" >&2; exit 2; }
done
[ $((BYTES % 4)) -eq 0 ] || { echo "mpe-trees: -b $BYTES: a multiple of 4 (float32)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "mpe-trees: needs root (namespaces)" >&2; exit 1; }
FAB=$ACIS_BUILD/tools/acis-fabric
MODEL=$ACIS_ROOT/tools/acis-model
RANK=$ACIS_ROOT/scripts/bench/tree_rank.py
OUT=$(bench_outdir mpe-trees "$OUT")
FABRIC=$ACIS_ROOT/scripts/fabric.sh
PREFIX=mt$$

cleanup() {
	acis_kill_hosts "$PREFIX"
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -n '$NS' -b $BYTES -i $ITER"
mkdir -p "$OUT/topo"
ln -sfn "$ACIS_ROOT/topologies/profiles" "$OUT/topo/profiles"
DIL=$(awk -F' *= *' '$1 == "dilation" {print $2}' "$ACIS_ROOT/topologies/profiles/mpe.ini")


# The time of one frame of BYTES on the platform's wire: what acis-switch
# sends for the collective (Ethernet, IPv4, UDP and the 54-byte ACiS
# header) and the 24 bytes of preamble, FCS and gap the shaper charges
P=$(awk -v b="$BYTES" -v bl="$(awk -F' *= *' '$1 == "rate_mbps" {print $2}' \
	"$ACIS_ROOT/topologies/profiles/mpe.ini")" 'BEGIN { printf "%.4f", (b + 14 + 20 + 8 + 54 + 24) * 8 / bl }')
acis_log "P = $P us (one frame of $BYTES bytes at the MPE's line rate)"

echo "tree,n,coll,bytes,t_raw_us,t_us,p_us,stages_model,stages_measured,t_model_us" >"$OUT/trees.csv"
job=1
for tree in linear binomial star; do
	for n in $NS; do
		topo=$OUT/topo/$tree-$n.ini
		shape=$tree
		[ "$tree" != linear ] || shape=chain
		"$FAB" "$shape" "$n" profile=mpe >"$topo"
		"$FAB" check "$topo" >/dev/null
		"$FABRIC" up "$topo" -p "$PREFIX" -P logical >/dev/null
		fold=on
		[ "$tree" != star ] || fold=off
		ACIS_FOLD=$fold ACIS_MBUFS=${ACIS_MBUFS:-8191} ACIS_SW_IDLE_SLEEP=0 \
			"$FABRIC" start -p "$PREFIX" >/dev/null
		ip=$("$FAB" list "$topo" | awk '$1 == "switch" && $2 == "s0" {print $3}')
		for coll in bcast reduce; do
			pids=()
			for ((r = 0; r < n; r++)); do
				ACIS_LIB=$ACIS_BUILD/lib/client/libacis.so PYTHONPATH=$ACIS_ROOT/python \
				ACIS_SWITCH=$ip ACIS_JOB=$job ACIS_RANK=$r ACIS_SIZE=$n ACIS_TIMEOUT_MS=60000 \
					ip netns exec "$PREFIX-h$r" /usr/bin/python3 "$RANK" "$coll" "$BYTES" "$ITER" \
					>"$OUT/rank$r.out" 2>>"$OUT/ranks.log" &
				pids+=($!)
			done
			for p in "${pids[@]}"; do wait "$p" || true; done
			job=$((job + 1))
			[ "$(wc -l <"$OUT/rank0.out")" -eq "$ITER" ] ||
				{ echo "mpe-trees: $tree n=$n $coll: no result (ranks.log)" >&2; exit 1; }
			raw=$(sort -n "$OUT/rank0.out" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
			st=$(awk -v t="$tree" -v n="$n" 'BEGIN { printf "%g", t == "binomial" ? log(n) / log(2) : n - 1 }')
			awk -v t="$tree" -v n="$n" -v c="$coll" -v b="$BYTES" -v r="$raw" -v d="$DIL" \
				-v p="$P" -v s="$st" 'BEGIN {
				u = r / d
				printf "%s,%s,%s,%s,%s,%.4f,%s,%s,%.2f,%.4f\n", t, n, c, b, r, u, p, s, u / p, s * p }' |
				tee -a "$OUT/trees.csv"
		done
		"$FABRIC" down -p "$PREFIX" >/dev/null
	done
done

# acis-model fit mpe: the stage time the measurements imply (the "2 +"
# of the equations absorbs what the hosts add)
awk -F, 'NR == 1 {print "coll,tree,n,t_us"; next} {print $3 "," $1 "," $2 "," $6}' \
	"$OUT/trees.csv" >"$OUT/fit.csv"
"$MODEL" fit mpe "$OUT/fit.csv" | tee "$OUT/fit.txt"

"$BENCH_PY" - "$OUT/trees.csv" "$OUT/table.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = ["# the MPE's trees in fidelity mode against Eq. 5.3-5.4's network stages (us of the platform)",
       "| tree | n | collective | measured | stages x P | error | stages: Eq. | measured |",
       "|---|---|---|---|---|---|---|---|"]
for r in rows:
    m, e = float(r["t_us"]), float(r["t_model_us"])
    out.append("| %s | %s | %s | %.2f | %.2f | %+.1f %% | %s | %s |" % (
        r["tree"], r["n"], r["coll"], m, e, 100 * (m - e) / e, r["stages_model"],
        r["stages_measured"]))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: user-defined operators and fused collectives on a fabric
# (doc/fabric.md, "User ops and fused calls"), the leaf-spine topology as
# logical switches of one process, 4 hosts on 2 leaves.
#   - a user op (satsum_i8.s: a saturating int8 sum, not associative)
#     folds at the root alone, in rank order: bit for bit as
#     acis-coll-check's rank-order reference (the tree would fold
#     ((0,1),(2,3))), and no leaf folds a partial of it;
#   - a built-in op on the same fabric still folds in the tree;
#   - the five fused patterns run at the root, bit for bit.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

acis_e2e_begin fabric_userops fu$$
FABRIC="$ACIS_ROOT/scripts/fabric.sh"
FAB="$ACIS_BUILD/tools/acis-fabric"
TOPO=$ACIS_ROOT/topologies/leaf-spine.ini

e2e_teardown() {
	acis_kill_hosts "$PREFIX"
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}

"$FABRIC" up "$TOPO" -p "$PREFIX" -P logical >/dev/null
"$FABRIC" start -p "$PREFIX" >/dev/null
root=$("$FAB" tree "$TOPO" all | sed -n 's/^root \([^,]*\),.*/\1/p')
export ACIS_SWITCH_IP
ACIS_SWITCH_IP=$("$FAB" list "$TOPO" | awk -v s="$root" '$1 == "switch" && $2 == s {print $3}')
coll() { acis_counter "$PREFIX-fab@$1" /acis/collectives "$2"; }

# the user op, rank order at the root
up0=$(coll leaf0 partials_up)
rs0=$(coll leaf0 partials_resent)
d0=$(coll "$root" data_msgs)
rc=0
acis_run_ranks "$PREFIX" 4 61 "$DIR" --timeout 30000 \
	--op-program "$ACIS_ROOT/examples/cgra/satsum_i8.s" \
	--colls allreduce,reduce,reduce_scatter --dtypes int8 \
	--sizes 8,1000,20000 || rc=1
acis_rank_fails "$DIR" 4
check "satsum_i8 on the fabric: every reduction bit for bit as the rank-order fold ($(tail -n 1 "$DIR/rank0.log"))" \
	[ "$rc" -eq 0 ]
up1=$(coll leaf0 partials_up)
rs1=$(coll leaf0 partials_resent)
# the run's one folded collective is acis_finalize's barrier
check "no leaf folded a partial of the user op: leaf0 sent up one, the closing barrier's (partials up $up0 before, $up1 after, $((rs1 - rs0)) of them resent)" \
	[ $((up1 - up0 - (rs1 - rs0))) -eq 1 ]
# Every member's chunk reaches the root itself: int8 blocks of 8, 1000
# and 20000 bytes are 1 + 1 + 15 chunks at MTU 1500, so allreduce and
# reduce bring 4 x 17 DATA each and reduce_scatter (4 blocks a rank)
# 4 x 68: 408 in all, where folding at the leaves would bring half
d1=$(coll "$root" data_msgs)
check "the root took every member's DATA itself ($((d1 - d0)) DATA, at least 408) and no fold faulted" \
	[ $((d1 - d0)) -ge 408 -a "$(coll "$root" userop_faults)" = 0 ]

# a built-in op still folds in the tree
rc=0
acis_run_ranks "$PREFIX" 4 62 "$DIR" --timeout 30000 --colls allreduce \
	--dtypes float32 --sizes 65536 \
	--fold "$("$FAB" fold "$TOPO" h0 h1 h2 h3)" || rc=1
check "a built-in float32 sum on the same fabric folds in the tree, bit for bit (leaf0 partials up: $up1 before, $(coll leaf0 partials_up) after)" \
	[ "$rc" -eq 0 -a "$(coll leaf0 partials_up)" -gt "$up1" ]

# the fused patterns at the root
rc=0
ACIS_RANK_TOOL=$ACIS_BUILD/tools/acis-fused \
	acis_run_ranks "$PREFIX" 4 63 "$DIR" --timeout-ms 30000 || rc=1
cat "$DIR"/rank*.log >>"$LOG"
check "the five fused patterns on the fabric, bit for bit ($(grep -h 'passed' "$DIR"/rank*.log | tr '\n' '|'))" \
	[ "$rc" -eq 0 ]
check "the root ran them ($(coll "$root" fused_calls) fused calls)" \
	[ "$(coll "$root" fused_calls)" -ge 5 ]

echo "fabric_userops: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Soak under faults: SOAK_OPS collectives (default 20000; the documented
# long run is 100000) of one four-rank job, every kind in turn at 4 B and
# 64 B, while every host drops 1 %, duplicates 1 % and reorders 1 % of what
# it sends and receives (seeded). Every result is checked bit for bit.
# Afterwards the switch must be where it was after a warm-up: no slot, no
# held contribution, no mbuf in use, the same rte_malloc heap, and its
# resident memory not grown by more than SOAK_RSS_KB (default 1024). Exit
# 77 without root; cleans up pass or fail.
#   SOAK_OPS=N    collectives in the soak (a multiple of 16)
#   SOAK_SEED=N   fault seed (default 7)
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
acis_e2e_begin soak sk$$
OPS=${SOAK_OPS:-20000}
RSS_SLACK=${SOAK_RSS_KB:-1024}
COLLS=allreduce,reduce,bcast,scatter,gather,allgather,reduce_scatter,barrier
PER_ROUND=16 # 8 collectives x 2 sizes

counter() { acis_coll_counter "$PREFIX" "$1"; }
heap() { acis_heap "$PREFIX" "$1"; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$ACIS_SW_PID/status"; }
# run_job JOB ROUNDS: every rank must pass every check
run_job() {
	local job=$1 rounds=$2 ok=0
	mkdir -p "$DIR/$job"
	acis_run_ranks "$PREFIX" 4 "$job" "$DIR/$job" --timeout 60000 \
		--sizes 4,64 --dtypes int32 --colls "$COLLS" \
		--repeat "$rounds" || ok=1
	acis_rank_fails "$DIR/$job" 4
	return $ok
}

[ $((OPS % PER_ROUND)) -eq 0 ] || { echo "SOAK_OPS must be a multiple of $PER_ROUND"; exit 2; }
"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

export ACIS_RTO_MS=20 ACIS_FAULT_DROP=0.01 ACIS_FAULT_DUP=0.01 \
	ACIS_FAULT_REORDER=0.01 ACIS_FAULT_WINDOW=8 \
	ACIS_FAULT_SEED=${SOAK_SEED:-7}

# Warm-up: the first packets touch pages and fill caches; the levels to
# come back to are taken after it.
slots_before=$(counter slots_in_use)
ok=0
run_job 700 4 || ok=1
check "warm-up: $(tail -n 1 "$DIR/700/rank0.log")" [ "$ok" -eq 0 ]
acis_faults_seen warm-up "$DIR/700"
acis_wait_for 100 acis_slots_back "$PREFIX" "$slots_before" || true
mbufs_before=$(counter mbufs_in_use)
heap_size_before=$(heap Alloc_size)
heap_count_before=$(heap Alloc_count)
rss_before=$(rss_kb)
opened_before=$(counter slots_opened)

ok=0
start=$(date +%s)
run_job 701 $((OPS / PER_ROUND)) || ok=1
secs=$(( $(date +%s) - start ))
checks=$(acis_checks_passed "$DIR/701")
check "$OPS collectives under faults: $checks results checked on 4 ranks" [ "$ok" -eq 0 ]
check "every collective's result checked on some rank ($checks >= $OPS)" [ "$checks" -ge "$OPS" ]
echo "    figures: $OPS collectives in ${secs} s;" \
	"$(( $(counter slots_opened) - opened_before )) slots opened"
acis_faults_seen "$OPS collectives" "$DIR/701"

# Answers the last ranks did not confirm before leaving go after the
# linger time (2 s).
acis_wait_for 100 acis_slots_back "$PREFIX" "$slots_before" || true
in_use=$(counter slots_in_use)
held=$(counter held_now)
mbufs=$(counter mbufs_in_use)
heap_size=$(heap Alloc_size)
heap_count=$(heap Alloc_count)
rss=$(rss_kb)
check "slots back to their level (got $in_use, before $slots_before)" [ "$in_use" -eq "$slots_before" ]
check "no contribution left held (got $held)" [ "$held" -eq 0 ]
check "mbufs in use back to their level (got $mbufs, before $mbufs_before)" \
	[ "$mbufs" -eq "$mbufs_before" ]
check "rte_malloc heap as before ($heap_count blocks, $heap_size bytes)" \
	[ "$heap_size.$heap_count" = "$heap_size_before.$heap_count_before" ]
check "resident memory $rss kB (before $rss_before kB, slack $RSS_SLACK kB)" \
	[ "$rss" -le $((rss_before + RSS_SLACK)) ]
check "no slot failed at its deadline (got $(counter slots_expired))" \
	[ "$(counter slots_expired)" -eq 0 ]
check "the mbuf pool never ran dry (got $(counter tx_nombuf))" [ "$(counter tx_nombuf)" -eq 0 ]

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: the switch restarts under a running job. Four ranks run
# allreduces in a loop (30 s timeouts); the switch is stopped and a new
# one started on the same ports, knowing nothing of the job. Every rank
# must fail at once, saying the switch lost the job (the new switch
# answers their DATA NACK NO_COMM), and leave at once: acis_finalize has
# nothing to meet or leave. Then the same job joins the new switch anew
# and runs. Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
runner=
acis_e2e_begin restart rs$$

e2e_teardown() {
	acis_kill_hosts "$PREFIX"
	[ -z "$runner" ] || wait "$runner" 2>/dev/null || true
}

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

acis_run_ranks "$PREFIX" 4 61 "$DIR" --timeout 30000 --sizes 4,4096 \
	--colls allreduce --dtypes int32 --repeat 1000000 &
runner=$!
done_before() { [ "$(acis_coll_counter "$PREFIX" completed_allreduce)" -gt 100 ]; }
acis_wait_for 100 done_before || true
ran=$(acis_coll_counter "$PREFIX" completed_allreduce || true)
check "the job runs on the first switch ($ran allreduce slots completed)" \
	bash -c "kill -0 $runner && [ ${ran:-0} -gt 100 ]"

acis_switch_stop
t0=$(date +%s%N)
acis_switch_start "$PREFIX" "$PIPELINE" "$DIR/switch2.log"
acis_wait_for 100 bash -c "! kill -0 $runner 2>/dev/null" || true
t1=$(date +%s%N)
took_ms=$(( (t1 - t0) / 1000000 ))
check "every rank stopped ${took_ms} ms after the new switch came up (timeout 30 s)" \
	bash -c "! kill -0 $runner 2>/dev/null"
wait "$runner" 2>/dev/null || true
runner=
lost=$(grep -l "lost the job" "$DIR"/rank*.log 2>/dev/null | wc -l)
check "every rank says the switch lost the job ($lost of 4)" [ "$lost" -eq 4 ]
grep -h "lost the job" "$DIR"/rank0.log | head -1 || true
nacks=$(acis_coll_counter "$PREFIX" no_comm_nacks)
check "the new switch told them (no_comm_nacks $nacks)" [ "$nacks" -ge 4 ]

# the job joins the new switch anew, as a relaunch does
mkdir -p "$DIR/again"
check "the same job joins the new switch anew and runs" \
	acis_run_ranks "$PREFIX" 4 61 "$DIR/again" --timeout 30000 --sizes 4,4096 \
	--colls allreduce,bcast --dtypes int32
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

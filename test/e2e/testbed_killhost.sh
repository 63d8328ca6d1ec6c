#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: a host dies in the middle of allreduces. Four ranks run
# 16 MiB allreduces in a loop; once the switch holds open slots, rank 3's
# process is killed (SIGKILL: no goodbye). The three survivors must each
# fail with an error naming rank 3 (the switch's NACK TIMEOUT at its
# deadline), not hang, and exit; afterwards the switch must be back where
# it started: no slot, no held contribution, no mbuf in use, the same
# rte_malloc heap; and once the dead rank's job is removed through
# management (its last LEAVE never comes), no job and no communicator.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
runner=
acis_e2e_begin kill kh$$

e2e_teardown() {
	acis_kill_hosts "$PREFIX"
	[ -z "$runner" ] || wait "$runner" 2>/dev/null || true
}

counter() { acis_coll_counter "$PREFIX" "$1"; }
heap() { acis_heap "$PREFIX" "$1"; }
slots_open() { [ "$(counter slots_in_use)" -gt "$slots_before" ]; }
runner_done() { ! kill -0 "$runner" 2>/dev/null; }

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"
slots_before=$(counter slots_in_use)
jobs_before=$(counter jobs)
comms_before=$(counter comms)
mbufs_before=$(counter mbufs_in_use)
heap_size_before=$(heap Alloc_size)
heap_count_before=$(heap Alloc_count)

# The host timeout (20 s) is longer than the switch's deadline (5 s): the
# survivors must hear from the switch who is missing.
acis_run_ranks "$PREFIX" 4 600 "$DIR" --timeout 20000 --sizes 16777216 \
	--colls allreduce --dtypes float32 --repeat 1000 2>/dev/null &
runner=$!
acis_wait_for 300 slots_open || true
victim=$(ip netns pids "$PREFIX-h3" | head -1)
open_at_kill=$(counter slots_in_use)
ok=0
[ -n "$victim" ] && [ "$open_at_kill" -gt "$slots_before" ] && ok=1
check "rank 3 was running with slots open (pid ${victim:-none}, $open_at_kill slots)" \
	[ "$ok" -eq 1 ]
# (rank 3 may have ended on its own already)
[ -z "$victim" ] || kill -9 "$victim" 2>/dev/null || true

# The survivors fail at the switch's deadline and leave: well within the
# host timeout. Still running then means they hang.
acis_wait_for 400 runner_done || true
check "the survivors finished (none hangs)" runner_done
named=0
for r in 0 1 2; do
	line=$(grep -h -m 1 '^FAIL' "$DIR/rank$r.log" || true)
	echo "    rank $r: ${line:-no failure reported}"
	if echo "$line" | grep -q -E 'ranks? ([0-9]+, )*3(, [0-9]+)* never contributed'; then
		named=$((named + 1))
	fi
done
check "every survivor failed with an error naming rank 3 ($named of 3)" [ "$named" -eq 3 ]

# The slots rank 3 never completed failed at the deadline (5 s) and are
# kept the linger time (2 s) to say so again; then everything is back.
acis_wait_for 200 acis_slots_back "$PREFIX" "$slots_before" || true
in_use=$(counter slots_in_use)
held=$(counter held_now)
mbufs=$(counter mbufs_in_use)
expired=$(counter slots_expired)
check "no slot leaked (got $in_use, before $slots_before)" [ "$in_use" -eq "$slots_before" ]
check "the dead rank's slots failed at the deadline ($expired)" [ "$expired" -gt 0 ]
check "no contribution left held (got $held)" [ "$held" -eq 0 ]
check "no mbuf left in use (got $mbufs, before $mbufs_before)" [ "$mbufs" -eq "$mbufs_before" ]
heap_size=$(heap Alloc_size)
heap_count=$(heap Alloc_count)
check "rte_malloc heap as before ($heap_count blocks, $heap_size bytes)" \
	[ "$heap_size.$heap_count" = "$heap_size_before.$heap_count_before" ]
# The dead rank never leaves: its job stays until management removes it.
job=$(acis_ctl "$PREFIX" /acis/jobs | grep -o '"job600": "[^"]*"' || true)
check "the dead rank's job is still there (${job:-none})" [ -n "$job" ]
freed=$(acis_counter "$PREFIX" /acis/job_free,600 freed)
jobs=$(counter jobs)
comms=$(counter comms)
check "job removed through management (freed $freed): $jobs jobs, $comms communicators as before" \
	[ "$freed.$jobs.$comms" = "1.$jobs_before.$comms_before" ]

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: the switch steering a job's progress (doc/sync.md), four
# ranks of acis-sync on the namespace testbed.
#   deadline: rank 0 sets a 20 ms period; every rank hears 40 signals in
#     order, none skipped but where a rank stalls; rank 2 reports epoch
#     10 only after its signal: the switch counts exactly that report
#     late, and every signal it sent;
#   ssp: a loop of 3000 iterations with staleness 3 while rank 3 is
#     stopped (SIGSTOP) for a second: the others run ahead by at most
#     4 iterations and wait (the switch's spread and waits say so), and
#     every rank finishes once it resumes; staleness 0 is a barrier.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
acis_e2e_begin sync sy$$
SYNC="$ACIS_BUILD/tools/acis-sync"

e2e_teardown() { acis_kill_hosts "$PREFIX"; }

# ranks JOB ARGS...: acis-sync as ranks 0..3 in the background; pids in
# $pids, logs DIR/rankR.log
ranks() {
	local job=$1 r; shift
	pids=()
	for r in 0 1 2 3; do
		ip netns exec "$PREFIX-h$r" "$SYNC" --switch 10.77.0.1 --job "$job" \
			--rank "$r" --size 4 --timeout 20000 "$@" \
			>"$DIR/rank$r.log" 2>&1 &
		pids+=($!)
	done
}
wait_ranks() {
	local p rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	return $rc
}
sync_field() { # KEY: KEY of the first communicator in /acis/sync
	acis_ctl "$PREFIX" --raw /acis/sync | python3 -c \
		"import json,sys; d=json.load(sys.stdin)['/acis/sync']; c=[v for k, v in d.items() if k.startswith('comm_')]; print(c[0]['$1'] if c else -1)"
}

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

ranks 31 --period-us 20000 --epochs 40 --report --late-rank 2 --late-epoch 10 deadline
ok=0; wait_ranks || ok=1
check "deadline: every rank heard 40 signals: $(grep -h '^ok\|^FAIL' "$DIR"/rank*.log | cut -c1-90 | tr '\n' '|')" \
	[ "$ok" -eq 0 ]
check "rank 2 reported epoch 10 late" grep -q 'late reports 1$' "$DIR/rank2.log"
for r in 0 1 3; do
	check "rank $r: no epoch skipped, no report late" \
		grep -q ' 0 skipped; .*late reports 0$' "$DIR/rank$r.log"
done
late=$(acis_counter "$PREFIX" /acis/sync reports_late)
ontime=$(acis_counter "$PREFIX" /acis/sync reports_on_time)
signals=$(acis_counter "$PREFIX" /acis/sync signals)
check "the switch counted 1 late report, $ontime on time, $signals signals" \
	test "$late" -eq 1 -a "$ontime" -ge 150 -a "$signals" -ge 160

ranks 32 --iters 3000 --work-us 200 --staleness 3 ssp
sleep 0.3
stopped=0
kill -STOP "${pids[3]}" && stopped=1
sleep 1
spread=$(sync_field ssp_spread)
[ "$stopped" -eq 0 ] || kill -CONT "${pids[3]}"
ok=0; wait_ranks || ok=1
check "ssp: rank 3 was stopped for 1 s mid-loop" [ "$stopped" -eq 1 ]
check "ssp: every rank finished 3000 iterations: $(grep -h '^ok\|^FAIL' "$DIR"/rank*.log | cut -c1-60 | tr '\n' '|')" \
	[ "$ok" -eq 0 ]
check "ssp: while rank 3 stood still the others ran ahead by the bound and one (spread $spread)" \
	[ "$spread" -eq 4 ]
waits=$(acis_counter "$PREFIX" /acis/sync ssp_waits)
check "ssp: members waited ($waits dones)" [ "$waits" -gt 0 ]

ranks 33 --iters 50 --work-us 100 --jitter 1 --staleness 0 ssp
ok=0; wait_ranks || ok=1
check "ssp with staleness 0 (a barrier): 50 iterations" [ "$ok" -eq 0 ]
check "ssp with staleness 0: never more than one iteration apart (spread $(sync_field ssp_spread))" \
	[ "$(sync_field ssp_spread)" -le 1 ]
check "the switch dropped nothing unexpected" \
	[ "$(acis_unexpected_drops "$PREFIX")" -eq 0 ]

echo "sync: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

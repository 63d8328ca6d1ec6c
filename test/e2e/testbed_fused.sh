#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: fused collectives (doc/fused.md), four ranks of acis-fused
# on the namespace testbed.
#   - the five patterns with the ops of examples/cgra/fused (Table 5.1's
#     benchmarks), each bit for bit as the CPU reference and as the same
#     computation done as separate collectives, 20 calls each; the
#     switch ran them all, none failed, and every rank confirmed every
#     result (nothing left to linger);
#   - the same with 5 % of each host's frames dropped (libacis's fault
#     injection): every call still completes, bit for bit;
#   - an op that reads past its bank: every rank's call fails with the
#     switch's message naming the op and the rank it ran for; the switch
#     counts the failure; the ranks go on.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
acis_e2e_begin fused fu$$
export ACIS_RANK_TOOL=$ACIS_BUILD/tools/acis-fused

e2e_teardown() { acis_kill_hosts "$PREFIX"; }

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

rc=0
acis_run_ranks "$PREFIX" 4 51 "$DIR" --iters 20 || rc=1
cat "$DIR"/rank*.log >>"$LOG"
oks=$(grep -h '^ok ' "$DIR"/rank*.log | wc -l)
check "five fused patterns on 4 ranks, bit for bit as the CPU reference and the separate collectives ($oks of 20 lines ok)" \
	[ "$rc" -eq 0 -a "$oks" -eq 20 ]
grep -h '^ok ' "$DIR/rank0.log" | sed 's/^/    /'
calls=$(acis_counter "$PREFIX" /acis/collectives fused_calls)
# 4 ranks x 5 patterns x (1 checked + 20 timed) calls, one fused call each
check "the switch ran every call (fused_calls $calls, expected 105), none failed" \
	[ "$calls" -eq 105 -a "$(acis_counter "$PREFIX" /acis/collectives fused_failed)" -eq 0 ]

rc=0
ACIS_FAULT_DROP=0.05 ACIS_FAULT_SEED=7 \
	acis_run_ranks "$PREFIX" 4 52 "$DIR" --iters 10 || rc=1
cat "$DIR"/rank*.log >>"$LOG"
retr=$(acis_sum_field "$DIR" retransmits)
check "with 5 % of frames dropped every call completes, bit for bit ($(grep -h 'passed' "$DIR"/rank*.log | tr '\n' '|'))" \
	[ "$rc" -eq 0 ]

# An op that faults: every rank's call fails, naming it.
cat >"$DIR/far.s" <<'PROG'
	lui x5, 0x20			# past the 128 KiB bank
	vsetivli x0, 16, e32, m1
	vle32.v v1, (x5)
	streamout.v v1
	wfi
PROG
rc=0
acis_run_ranks "$PREFIX" 4 53 "$DIR" --op-program "$DIR/far.s" \
	--pattern allreduce_op_allreduce || rc=1
cat "$DIR"/rank*.log >>"$LOG"
named=$(grep -l 'failed in the switch: op far: instruction 2 (vle32.v): bank 1.*(on rank 0)' "$DIR"/rank*.log | wc -l)
check "a faulting op fails the fused call on all 4 ranks, naming it ($named ranks said so)" \
	[ "$rc" -ne 0 -a "$named" -eq 4 ]
check "the switch counted the failure" \
	[ "$(acis_counter "$PREFIX" /acis/collectives fused_failed)" -ge 1 ]
# (an op goes once the last maker's OP_FREE is in: poll a little)
for _ in $(seq 20); do
	left=$("$ACIS_BUILD/app/acisctl/acisctl" -f "$PREFIX" --raw /acis/userops |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)["/acis/userops"]))')
	[ "$left" = 0 ] && break
	sleep 0.1
done
check "every rank freed its ops ($left left in the switch)" [ "$left" = 0 ]

echo "fused: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: user-defined reduction operators (doc/collectives.md), four
# ranks of acis-coll-check on the namespace testbed.
#   - examples/cgra/satsum_u8.s (a saturating uint8 sum, not
#     associative) and maxloc.s ((value, index) pairs) made with
#     acis_op_create by every rank: allreduce, reduce and reduce_scatter
#     of 8 bytes to 128 KiB (many chunks), in-place forms too, bit for bit
#     as this host folds the same program in rank order; the switch
#     counts folds and no fault;
#   - a program that reads past its bank: every rank's allreduce fails
#     with the switch's message naming the op, and the switch counts the
#     fault; the ranks go on.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
acis_e2e_begin userops uo$$
EX=$ACIS_ROOT/examples/cgra

e2e_teardown() { acis_kill_hosts "$PREFIX"; }

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

colls=allreduce,reduce,reduce_scatter
job=41
for prog in satsum_u8 maxloc; do
	rc=0
	acis_run_ranks "$PREFIX" 4 "$job" "$DIR" --op-program "$EX/$prog.s" \
		--colls "$colls" --dtypes uint8,uint64 --sizes 8,1000,20000,131072 \
		--in-place || rc=1
	cat "$DIR"/rank*.log >>"$LOG"
	check "$prog as a user op: every reduction bit for bit on every rank ($(grep -h 'passed' "$DIR"/rank*.log | tr '\n' '|'))" \
		[ "$rc" -eq 0 ]
	job=$((job + 1))
done
# the switch's view: no fault, and every rank freed the ops
faults=$(acis_counter "$PREFIX" /acis/collectives userop_faults)
left=$("$ACIS_BUILD/app/acisctl/acisctl" -f "$PREFIX" --raw /acis/userops |
	python3 -c 'import json, sys; print(len(json.load(sys.stdin)["/acis/userops"]))')
check "no user op faulted ($faults), none left in the switch ($left)" \
	[ "$faults" = 0 -a "$left" = 0 ]

# A program that faults: every rank's reduction fails, naming the op.
cat >"$DIR/far.s" <<'PROG'
	lui x5, 0x20			# past the 128 KiB bank
	vsetivli x0, 16, e32, m1
	vle32.v v1, (x5)
	streamout.v v1
	wfi
PROG
rc=0
acis_run_ranks "$PREFIX" 4 "$job" "$DIR" --op-program "$DIR/far.s" \
	--colls allreduce --dtypes uint8 --sizes 64 --keep-going || rc=1
cat "$DIR"/rank*.log >>"$LOG"
named=$(grep -l 'failed in the switch: op far: instruction 2 (vle32.v): bank 1' "$DIR"/rank*.log | wc -l)
check "a faulting op fails the allreduce on all 4 ranks, naming it ($named ranks said so)" \
	[ "$rc" -ne 0 -a "$named" -eq 4 ]
check "the switch counted the fault" \
	[ "$(acis_counter "$PREFIX" /acis/collectives userop_faults)" -ge 1 ]

echo "userops: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

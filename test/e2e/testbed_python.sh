#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: the Python package (python/acis, doc/python.md) through
# acis-switch on the namespace testbed. Four hosts each run
# test/e2e/python_ranks.py as one rank of a job: every collective,
# blocking and non-blocking, in place and not, on the world and on split
# communicators (3 ranks among them), eleven dtypes, 1 element to 1 MiB,
# each result checked bit for bit against numpy. Afterwards the switch
# must hold no slot and no contribution, have dropped nothing unexpected,
# and have no communicator left. Exit 77 (skip) without root or without
# numpy; cleans up pass or fail.
#   python3 and libacis: PYTHON (default /usr/bin/python3, Debian's, with
#   python3-numpy) and ACIS_LIB (default the build's libacis.so).
#   ACIS_HOST_TRANSPORT=dpdk: the hosts' libacis on net_memif ports
#   (pipelines/testbed-memif.ini), as the other testbed tests.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
PYTHON=${PYTHON:-/usr/bin/python3}
RANKS=$ACIS_ROOT/test/e2e/python_ranks.py
export PYTHONPATH=$ACIS_ROOT/python${PYTHONPATH:+:$PYTHONPATH}
export ACIS_LIB=${ACIS_LIB:-$ACIS_BUILD/lib/client/libacis.so}
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
	echo "skip: no numpy for $PYTHON (apt-get install python3-numpy)"
	exit 77
fi
rank_pids=()
acis_e2e_begin python apy$$

# The ranks still running when the test ends (a failure, an interrupt).
e2e_teardown() {
	local p
	for p in "${rank_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for p in "${rank_pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

# a user-defined op for the ranks (satsum_u8.s, assembled here)
"$ACIS_BUILD/tools/acis-asm" -o "$DIR/satsum_u8.bin" "$ACIS_ROOT/examples/cgra/satsum_u8.s"
export ACIS_TEST_OP_BIN=$DIR/satsum_u8.bin
"$ACIS_BUILD/tools/acis-asm" -o "$DIR/block_sum.bin" "$ACIS_ROOT/examples/cgra/fused/block_sum.s"
export ACIS_TEST_FUSED_BIN=$DIR/block_sum.bin
start=$SECONDS
for r in 0 1 2 3; do
	# shellcheck disable=SC2046
	env $(acis_host_env "$r") ACIS_SWITCH=10.77.0.1 ACIS_JOB=900 \
		ACIS_RANK=$r ACIS_SIZE=4 \
		ip netns exec "$PREFIX-h$r" "$PYTHON" "$RANKS" \
		>"$DIR/rank$r.log" 2>&1 &
	rank_pids+=($!)
done
ok=0
for p in "${rank_pids[@]}"; do wait "$p" || ok=1; done
rank_pids=()
took=$((SECONDS - start))
for r in 0 1 2 3; do
	# a rank that died says why in its last lines
	{ grep -h '^FAIL' "$DIR/rank$r.log" || tail -n 5 "$DIR/rank$r.log"; } |
		head -5 | sed "s/^/    rank $r: /"
done
check "a user-defined op from Python: every rank made satsum_u8 and reduced by it" \
	[ "$(grep -l '^rank [0-3]: user op satsum_u8 was op 1[2-9][0-9]\|^rank [0-3]: user op satsum_u8 was op 2[0-5][0-9]' "$DIR"/rank*.log | wc -l)" -eq 4 ]
checked=$(acis_checks_passed "$DIR")
check "4 ranks ran every collective from Python in ${took} s ($checked results right): $(tail -n 1 "$DIR/rank0.log")" \
	[ "$ok" -eq 0 ]
check "every rank checked results ($checked in all)" [ "$checked" -gt 1000 ]

# Answers are kept until confirmed and a completed slot lingers (2 s):
# then nothing may be left.
acis_wait_for 80 acis_slots_back "$PREFIX" 0 || true
in_use=$(acis_coll_counter "$PREFIX" slots_in_use)
held=$(acis_coll_counter "$PREFIX" held_now)
drops=$(acis_unexpected_drops "$PREFIX")
comms=$(acis_coll_counter "$PREFIX" comms)
check "no aggregation slot left open (got $in_use)" [ "$in_use" -eq 0 ]
check "no contribution left held (got $held)" [ "$held" -eq 0 ]
check "the switch dropped nothing unexpected (got $drops)" [ "$drops" -eq 0 ]
check "the job left and freed its communicators (got $comms)" [ "$comms" -eq 0 ]

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

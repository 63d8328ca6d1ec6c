#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: every collective through acis-switch on the namespace
# testbed, 2, 3 and 4 hosts, 4 B to 4 MiB, every datatype, communicator
# split and free, non-blocking calls; each rank checks its results bit for
# bit against a locally computed rank-order reference (acis-coll-check).
# Afterwards the switch must hold no slot, no held contribution and have
# dropped nothing. Exit 77 (skip) without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
PREFIX=ac$$
TB="$ACIS_ROOT/scripts/testbed.sh"
LOG=$(mktemp /tmp/acis-e2e-coll.XXXXXX.log)
DIR=$(mktemp -d /tmp/acis-e2e-coll.XXXXXX)
fails=0 passes=0

[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }

cleanup() {
	acis_switch_stop
	"$TB" down -p "$PREFIX" >/dev/null 2>&1 || true
	rm -rf "$LOG" "$DIR"
}
trap cleanup EXIT INT TERM

check() {
	local what=$1; shift
	if "$@"; then
		echo "ok   - $what"; passes=$((passes + 1))
	else
		echo "FAIL - $what"; fails=$((fails + 1))
	fi
}

# run_job NAME P JOB options...: every rank must report no failure
run_job() {
	local name=$1 P=$2 job=$3; shift 3
	local ok=0 r
	acis_run_ranks "$PREFIX" "$P" "$job" "$DIR" --timeout 30000 "$@" || ok=1
	for ((r = 0; r < P; r++)); do
		{ grep -h '^FAIL' "$DIR/rank$r.log" || true; } | head -3 | sed "s/^/    rank $r: /"
	done
	check "$name: $(tail -n 1 "$DIR/rank0.log")" [ "$ok" -eq 0 ]
}

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

LADDER=4,64,1000,4096,65536,1048576,4194304
run_job "4 hosts, float32+int32, 4 B..4 MiB, split, non-blocking" 4 101 \
	--sizes $LADDER --dtypes float32,int32 --split --nonblocking
run_job "4 hosts, every other datatype" 4 102 \
	--sizes 4,1000,65536,1048576 \
	--dtypes float64,int64,uint32,uint64,float16,bfloat16
run_job "3 hosts (not a power of two), 4 B..4 MiB, split" 3 103 \
	--sizes $LADDER --dtypes float32,int32,float16 --split
run_job "2 hosts, 4 B..4 MiB, split, non-blocking" 2 104 \
	--sizes $LADDER --dtypes float32,int64,bfloat16 --split --nonblocking

in_use=$(acis_counter "$PREFIX" /acis/collectives slots_in_use)
held=$(acis_counter "$PREFIX" /acis/collectives held_now)
drops=$(acis_counter "$PREFIX" /acis/drops total)
completed=$(acis_counter "$PREFIX" /acis/collectives slots_completed)
comms=$(acis_counter "$PREFIX" /acis/collectives comms)
check "no aggregation slot left open (got $in_use)" [ "$in_use" -eq 0 ]
check "no contribution left held (got $held)" [ "$held" -eq 0 ]
check "the switch dropped nothing (got $drops)" [ "$drops" -eq 0 ]
check "slots completed ($completed)" [ "$completed" -gt 1000 ]
check "every job left and freed its communicators (got $comms)" [ "$comms" -eq 0 ]

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

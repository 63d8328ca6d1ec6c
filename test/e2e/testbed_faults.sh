#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end under faults: collectives on the testbed while every host
# drops and duplicates what it sends and receives (libacis's seeded fault
# injection), at 1 %, 5 % and 20 % loss, each result checked bit for bit;
# a host killed in the middle of an allreduce (the others must fail with an
# error naming it, not hang); a soak of many small collectives with faults
# on. Afterwards the switch holds no slot, no contribution and no mbuf more
# than before. Exit 77 without root; cleans up pass or fail.
#   SOAK=N   collectives per rank in the soak (default 25000 x 4 kinds)
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
PREFIX=fa$$
TB="$ACIS_ROOT/scripts/testbed.sh"
LOG=$(mktemp /tmp/acis-e2e-faults.XXXXXX.log)
DIR=$(mktemp -d /tmp/acis-e2e-faults.XXXXXX)
fails=0 passes=0

[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }

cleanup() {
	# only the script itself, never a subshell that inherited the trap
	[ "$BASHPID" = "$$" ] || return 0
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

run_job() {
	local name=$1 P=$2 job=$3; shift 3
	local ok=0 r
	acis_run_ranks "$PREFIX" "$P" "$job" "$DIR" "$@" || ok=1
	for ((r = 0; r < P; r++)); do
		{ grep -h '^FAIL' "$DIR/rank$r.log" || true; } | head -3 | sed "s/^/    rank $r: /"
	done
	grep -h '^messages' "$DIR/rank0.log" | sed 's/^/    rank 0: /' || true
	check "$name: $(tail -n 1 "$DIR/rank0.log")" [ "$ok" -eq 0 ]
}

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"
slots_before=$(acis_counter "$PREFIX" /acis/collectives slots_in_use)

export ACIS_RTO_MS=20 ACIS_FAULT_DUP=0.02
for loss in 0.01 0.05 0.20; do
	ACIS_FAULT_DROP=$loss ACIS_FAULT_SEED=$((RANDOM + 1)) \
	run_job "loss ${loss}, dup 0.02: every collective, 4 B..256 KiB, split" \
		4 $((500 + ${loss#0.})) --timeout 60000 --split \
		--sizes 4,1000,65536,262144 --dtypes float32,int32
done

# A host killed mid-allreduce: the survivors get an error naming it.
mkdir -p "$DIR/kill"
ACIS_FAULT_DROP=0 acis_run_ranks "$PREFIX" 4 600 "$DIR/kill" --timeout 15000 \
	--sizes 16777216 --colls allreduce --dtypes float32 --repeat 100 &
runner=$!
sleep 2
victim=$(ip netns pids "$PREFIX-h3" | head -1)
[ -n "$victim" ] && kill -9 "$victim"
wait $runner || true
named=0
for r in 0 1 2; do
	grep -q "rank 3 never contributed\|ranks.*3.*never contributed" "$DIR/kill/rank$r.log" && named=$((named + 1))
done
grep -h "never contributed\|timed out" "$DIR/kill/rank0.log" | head -1 | sed 's/^/    rank 0: /' || true
check "killed rank 3: every survivor failed naming it ($named of 3)" [ "$named" -eq 3 ]

# Soak: many small collectives with faults on.
SOAK=${SOAK:-25000}
ACIS_FAULT_DROP=0.01 ACIS_FAULT_SEED=99 \
run_job "soak: $((SOAK * 4)) collectives per rank at 1 % loss" 4 700 \
	--timeout 60000 --sizes 4 --dtypes int32 \
	--colls allreduce,barrier,bcast,allgather --repeat "$SOAK"

# Afterwards: the killed rank's slots fail at the deadline (5 s), kept
# answers and stale slots go after the linger time (2 s).
sleep 6
in_use=$(acis_counter "$PREFIX" /acis/collectives slots_in_use)
held=$(acis_counter "$PREFIX" /acis/collectives held_now)
expired=$(acis_counter "$PREFIX" /acis/collectives slots_expired)
nombuf=$(acis_counter "$PREFIX" /acis/collectives tx_nombuf)
check "no slot left (got $in_use; $expired failed at the deadline)" [ "$in_use" -eq "$slots_before" ]
check "no contribution left held (got $held)" [ "$held" -eq 0 ]
check "the mbuf pool never ran dry (got $nombuf)" [ "$nombuf" -eq 0 ]
acis_ctl "$PREFIX" collectives | grep -E "retrans|confirms|stale|lingered|expired" | sed 's/^ */    /'

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

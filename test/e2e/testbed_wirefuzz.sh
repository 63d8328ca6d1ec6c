#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: malformed and mutated ACiS frames from a fifth host
# (test/e2e/wirefuzz.py: bit flips, cut and padded frames, edge values,
# bad checksums, VLAN tags, fragments, IP options, in the members' names
# and its own) at a switch while a job of four runs every collective.
# Every result must be right, the switch must still answer, every frame
# it refused counted, and afterwards its slots, held contributions, mbufs
# in use and heap back where they were, its resident memory not grown by
# more than 1 MiB. The fuzz lasts as long as the job, about FUZZ_SECONDS
# (default 15; FUZZ_FRAMES caps it); FUZZ_SEED (1) seeds it. Exit 77
# without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
FRAMES=${FUZZ_FRAMES:-1000000000}
SECONDS_=${FUZZ_SECONDS:-15}
SEED=${FUZZ_SEED:-1}
SW_MAC=$(sed -n 's/^mac *= *//p' "$PIPELINE" | head -1)
runner=
acis_e2e_begin wirefuzz wf$$

e2e_teardown() {
	[ -z "${fuzzer:-}" ] || kill "$fuzzer" 2>/dev/null || true
	acis_kill_hosts "$PREFIX"
	[ -z "$runner" ] || wait "$runner" 2>/dev/null || true
}

"$TB" up -n 5 -p "$PREFIX" >/dev/null
PL="$DIR/five.ini"
{ cat "$PIPELINE"; printf '[port h4]\ndev = net_af_packet4,iface=sw4\n'; } >"$PL"
acis_switch_start "$PREFIX" "$PL" "$LOG"

counter() { acis_coll_counter "$PREFIX" "$1"; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$ACIS_SW_PID/status"; }
drops_total() { acis_counter "$PREFIX" /acis/drops total; }

# the job: rounds of every collective, on one world all through the fuzz
# (a job started during it could lose a rank to a fuzzed JOIN in its
# name, the one attack threat-model.md leaves to control_from)
job_run() {
	mkdir -p "$DIR/job$1"
	acis_run_ranks "$PREFIX" 4 "$1" "$DIR/job$1" --timeout 30000 \
		--sizes 4,2000,70000 --dtypes int32,float32 --repeat "$2"
}
fuzzer=
fuzz() { # fuzz JOB COMM SECONDS SEED MEMBERS...: in the background
	local job=$1 comm=$2 secs=$3 seed=$4; shift 4
	ip netns exec "$PREFIX-h4" python3 "$ACIS_ROOT/test/e2e/wirefuzz.py" \
		eth0 10.77.0.1 "$SW_MAC" "$job" "$comm" "$FRAMES" "$secs" \
		"$seed" "$@" >"$DIR/fuzz.log" 2>&1 &
	fuzzer=$!
}
fuzz_stop() { # frames the fuzzer sent
	kill -TERM "$fuzzer" 2>/dev/null || true
	wait "$fuzzer" 2>/dev/null || true
	fuzzer=
	# the last count it wrote (it writes one every half second too)
	{ grep -o 'frames [0-9]*' "$DIR/fuzz.log" || echo 'frames 0'; } |
		tail -n 1 | grep -o '[0-9]*'
}
# a warm-up: a run of 30 rounds, timed, beside 3 s of fuzz (the switch's
# pool and rings touched as deep as a fuzz goes), then the figures the
# fuzzed run must come back to
t0=$(date +%s%N)
fuzz 81 0 3 $((SEED + 1000)) 10.77.0.10:40000:02:a0:00:00:00:0a
job_run 81 30 || true
fuzz_stop >/dev/null
round_ms=$(( ($(date +%s%N) - t0) / 30000000 + 1 ))
acis_wait_for 150 acis_slots_back "$PREFIX" 0 || true
slots0=$(counter slots_in_use) held0=$(counter held_now)
mbufs0=$(acis_counter "$PREFIX" /acis/info mbufs_in_use || echo 0)
heap0=$(acis_heap "$PREFIX" Alloc_count || echo 0)
rss0=$(rss_kb) drops0=$(drops_total)

# rounds for FUZZ_SECONDS at the warm-up's pace; the fuzz lasts as long
# as the job (three times that at most)
rounds=$(( SECONDS_ * 1000 / round_ms + 3 ))
job_run 82 "$rounds" &
runner=$!
world() {
	acis_ctl "$PREFIX" --raw /acis/comms |
		grep -o '"[0-9]*": *"job=82 size=4 parent=-1' |
		grep -o '^"[0-9]*' | tr -d '"' | head -1
}
acis_wait_for 100 world || true
comm=$(world || echo 0)
mapfile -t members < <(acis_ctl "$PREFIX" --raw "/acis/comm,$comm" |
	grep -o 'at [0-9.]*:[0-9]*' | sed 's/^at //' |
	while IFS=: read -r ip port; do
		printf '%s:%s:02:a0:00:00:00:%02x\n' "$ip" "$port" $(( ${ip##*.} ))
	done)
echo "job 82: $rounds rounds ($round_ms ms each alone), world $comm: ${members[*]}"
t0=$(date +%s)
fuzz 82 "$comm" $((SECONDS_ * 3)) "$SEED" "${members[@]}"
bad_runs=0
wait "$runner" || bad_runs=1
runner=
t1=$(date +%s)
check "the fuzz ran all through the job" kill -0 "$fuzzer"
sent=$(fuzz_stop)
check "the fuzzer sent ${sent:-0} frames in $((t1 - t0)) s" [ "${sent:-0}" -gt 0 ]
checked=$(awk '/ passed, / { s += $1 } END { print s + 0 }' "$DIR"/job82/rank*.log)
echo "    $checked results checked"
wrong=$(cat "$DIR"/job82/rank*.log | grep -c 'differs from the reference' || true)
failed=$(cat "$DIR"/job82/rank*.log | grep -c '^FAIL' || true)
check "no result was wrong ($wrong)" [ "$wrong" -eq 0 ]
check "no call failed ($failed)" [ "$((failed + bad_runs))" -eq 0 ]
acis_rank_fails "$DIR/job82" 4
check "the switch still answers" acis_ctl "$PREFIX" --raw /acis/info
drops=$(( $(drops_total) - drops0 ))
check "the switch counted what it refused ($drops drops)" [ "$drops" -gt 0 ]
acis_ctl "$PREFIX" --raw /acis/drops | grep -o '"[a-z0-9_]*": *[1-9][0-9]*' | tr '\n' ' ' || true; echo
acis_wait_for 150 acis_slots_back "$PREFIX" "$slots0" || true
check "slots back ($(counter slots_in_use), before $slots0)" \
	[ "$(counter slots_in_use)" -eq "$slots0" ]
check "no contribution held ($(counter held_now), before $held0)" \
	[ "$(counter held_now)" -eq "$held0" ]
mbufs=$(acis_counter "$PREFIX" /acis/info mbufs_in_use || echo 0)
check "mbufs in use back ($mbufs, before $mbufs0)" [ "$mbufs" -le "$mbufs0" ]
heap=$(acis_heap "$PREFIX" Alloc_count || echo 0)
check "heap blocks back ($heap, before $heap0)" [ "$heap" -eq "$heap0" ]
rss=$(rss_kb)
check "resident memory $rss0 kB before, $rss kB after" [ $((rss - rss0)) -le 1024 ]
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

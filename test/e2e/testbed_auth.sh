#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: a hostile host (h4) against a job of four (h0..h3), as
# doc/threat-model.md describes it. The hostile host knows the switch's
# address, the job, its communicator and every member's address, UDP
# port and MAC (read here from the switch's telemetry); it forges, for a
# range of collective numbers, RESULTs and NACK TIMEOUTs in the switch's
# name to every member, and DATA, NACKs and LEAVEs in every member's
# name to the switch (test/e2e/forge.py).
#
# Without cookies (ACIS_AUTH=off) the forgeries are taken: the job goes
# wrong, which shows they have teeth. With them (the default) every
# forgery is dropped and counted, by the members (auth_rejected) and by
# the switch (acis_bad_auth), and every collective is right. Then
# [collective] auth = required refuses a rank without a cookie. Exit 77
# without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
FORGE="$ACIS_ROOT/test/e2e/forge.py"
SW_MAC=$(sed -n 's/^mac *= *//p' "$PIPELINE" | head -1)
runner= c0=0
acis_e2e_begin auth au$$

e2e_teardown() {
	acis_kill_hosts "$PREFIX"
	[ -z "$runner" ] || wait "$runner" 2>/dev/null || true
}

"$TB" up -n 5 -p "$PREFIX" >/dev/null
# the testbed's pipeline with a fifth port, the hostile host's
PL="$DIR/five.ini"
cat "$PIPELINE" >"$PL"
printf '[port h4]\ndev = net_af_packet4,iface=sw4\n' >>"$PL"
acis_switch_start "$PREFIX" "$PL" "$LOG"

# The world communicator of the running job and its members as
# IP:PORT:MAC, from the switch's telemetry.
world_of_job() {
	local id
	id=$(acis_ctl "$PREFIX" --raw /acis/comms |
		grep -o "\"[0-9]*\": *\"job=$1 size=4 parent=-1" |
		grep -o '^"[0-9]*' | tr -d '"' | head -1) || return 1
	[ -n "$id" ] && echo "$id"
}
members_of() {
	acis_ctl "$PREFIX" --raw "/acis/comm,$1" |
		grep -o 'at [0-9.]*:[0-9]*' | sed 's/^at //' |
		while IFS=: read -r ip port; do
			printf '%s:%s:02:a0:00:00:00:%02x\n' "$ip" "$port" \
				$(( ${ip##*.} ))
		done
}

# Collectives (of one slot each: 4-byte allreduces, barriers) the switch
# completed, and since $c0: every call of the job numbers one.
completed() {
	acis_ctl "$PREFIX" --raw /acis/collectives |
		grep -o '"completed_[a-z_]*": *[0-9]*' |
		awk -F: '{ s += $2 } END { print s + 0 }'
}
done_since() { echo $(( $(completed) - c0 )); }
running() { [ "$(done_since)" -gt 100 ]; }

# attack JOB AUTH KINDS DIR: job JOB runs 20,000 4-byte int32 allreduces,
# calls failing after 2 s without progress, while h4 forges KINDS for the
# 4,000 collectives from 1,500 past the one running (the forger knows that
# too; it sends the farthest first, so a fast job still meets them); the
# ranks' exit status. A job still running 3 minutes on is
# stopped (failed).
attack() {
	local job=$1 auth=$2 kinds=$3 dir=$4 comm members first rc=0
	mkdir -p "$dir"
	c0=$(completed)
	ACIS_AUTH=$auth acis_run_ranks "$PREFIX" 4 "$job" "$dir" --timeout 2000 \
		--sizes 4 --colls allreduce --dtypes int32 --repeat 20000 \
		--keep-going &
	runner=$!
	acis_wait_for 100 world_of_job "$job" || true
	acis_wait_for 100 running || true
	comm=$(world_of_job "$job" || echo 0)
	first=$(( $(done_since) + 1500 ))
	mapfile -t members < <(members_of "$comm")
	echo "world $comm from collective $first: ${members[*]}"
	ip netns exec "$PREFIX-h4" python3 "$FORGE" eth0 10.77.0.1 "$SW_MAC" \
		"$job" "$comm" "$first" 4000 "$kinds" "${members[@]}" \
		>"$dir/forge.log" 2>&1 || echo "forge.py failed: $(cat "$dir/forge.log")"
	cat "$dir/forge.log"
	acis_wait_for 1800 bash -c "! kill -0 $runner" ||
		{ echo "the job still ran 3 minutes on: stopped"; acis_kill_hosts "$PREFIX"; }
	wait "$runner" || rc=$?
	runner=
	return $rc
}

# Without cookies: the forgeries are taken. (No LEAVEs here: a member
# forged out of its job would wait out the timeout of every call left.)
acis_log "ACIS_AUTH=off"
rc=0
# (contributions and NACKs in the members' names: each forged collective
# completes with a wrong sum at once; forged answers to members would
# also break it, by calls the forgery finished for one rank and its
# peers then wait out, 2 s each: the test would take minutes)
attack 71 off data,nack "$DIR/off" || rc=$?
bad=$(cat "$DIR"/off/rank*.log | grep -c '^FAIL' || true)
check "without cookies the forgeries break the job ($bad failed checks, exit $rc)" \
	[ "$bad" -gt 0 ]
tail -n 2 "$DIR"/off/rank0.log
{ grep -h '^FAIL' "$DIR"/off/rank*.log || true; } | cut -c1-100 | sort | uniq -c | sort -rn | head -4
acis_wait_for 100 acis_slots_back "$PREFIX" 0 || true
# what the forged LEAVEs left of the job goes, as a user would clear it
acis_ctl "$PREFIX" --raw /acis/job_free,71 >/dev/null 2>&1 || true

# With cookies (the default): every forgery is dropped and counted.
acis_log "ACIS_AUTH=cookie (the default)"
drops0=$(acis_counter "$PREFIX" /acis/drops acis_bad_auth || echo 0)
rc=0
attack 72 cookie result,data,nack,leave "$DIR/cookie" || rc=$?
passed=$(acis_checks_passed "$DIR/cookie" || true)
check "with cookies every collective of every rank is right (exit $rc)" \
	[ "$rc" -eq 0 ]
acis_rank_fails "$DIR/cookie" 4
rejected=$(acis_sum_field "$DIR/cookie" rejected)
check "the members dropped the forged answers ($rejected rejected)" \
	[ "$rejected" -gt 0 ]
drops=$(( $(acis_counter "$PREFIX" /acis/drops acis_bad_auth) - drops0 ))
check "the switch dropped the forged DATA, NACKs and LEAVEs ($drops acis_bad_auth)" \
	[ "$drops" -gt 0 ]
echo "${passed:-} checks passed on the ranks"

# [collective] auth = required: a rank without a cookie is refused.
acis_switch_stop
{ cat "$PL"; printf '[collective]\nauth = required\n'; } >"$DIR/required.ini"
acis_switch_start "$PREFIX" "$DIR/required.ini" "$DIR/switch2.log"
mkdir -p "$DIR/req"
rc=0
ACIS_AUTH=off acis_run_ranks "$PREFIX" 1 73 "$DIR/req" --timeout 2000 \
	--sizes 4 --colls allreduce --dtypes int32 || rc=$?
check "auth = required refuses a rank without a cookie" \
	grep -q "requires a cookie" "$DIR/req/rank0.log"
refused=$(acis_coll_counter "$PREFIX" auth_refused)
check "... and counts it (auth_refused $refused)" [ "$refused" -ge 1 ]
check "auth = required takes ranks with cookies" \
	acis_run_ranks "$PREFIX" 4 74 "$DIR/req" --timeout 5000 \
	--sizes 4,4096 --colls allreduce,bcast --dtypes int32
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

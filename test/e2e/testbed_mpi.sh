#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: unmodified MPI programs on the switch (libacis-mpi,
# doc/mpi.md). test/mpi/mpi_check, built with plain mpicc against one MPI
# library, runs under that library's launcher with libacis-mpi preloaded,
# four ranks in host h0, the switch at 10.77.0.1:
#
#   - every intercepted call on every mapped datatype and op, blocking and
#     not, in place and not, on world, dup, split, split_type and create,
#     each result compared bit for bit with the MPI library's own in the
#     same run, and the switch must have taken calls (its counters too);
#   - the same with ACIS_MPI=off, and with no switch named: every call
#     left to the library, the program unchanged; with ACIS_MPI_STRICT=1
#     and a switch that does not answer, the job stops at MPI_Init with
#     the reason;
#   - two jobs at once on one switch (two launchers, hosts h1 and h2);
#   - a rank killed in the middle of 16 MiB allreduces: the job ends (no
#     rank hangs) and the switch's slots drain.
#
#   - a C++ program (MPI_CHECK_CXX, if given) the same way.
#
#   testbed_mpi.sh openmpi|mpich LIBACIS_MPI MPI_CHECK [MPI_CHECK_CXX]
# Exit 77 without root or without the MPI's launcher; cleans up pass or
# fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

VARIANT=$1 LIB=$2 CHECK=$3 CHECK_CXX=${4:-}
case $VARIANT in
openmpi) LAUNCHER=mpirun.openmpi ;;
mpich) LAUNCHER=mpiexec.mpich ;;
*) echo "testbed_mpi: $VARIANT: want openmpi or mpich" >&2; exit 2 ;;
esac
command -v "$LAUNCHER" >/dev/null || { echo "skip: no $LAUNCHER"; exit 77; }
runner=
# the switch is named where a run wants one, never inherited
unset ACIS_SWITCH
acis_e2e_begin mpi mp$$

e2e_teardown() {
	[ -z "$runner" ] || kill "$runner" 2>/dev/null || true
	acis_kill_hosts "$PREFIX"
	[ -z "$runner" ] || wait "$runner" 2>/dev/null || true
}

# mpi HOST NP LOG [VAR=VALUE...] -- ARGS...: the check under the MPI's
# launcher in host HOST's namespace, NP ranks, libacis-mpi preloaded;
# VAR=VALUE pass to every rank
mpi() {
	local h=$1 np=$2 log=$3 envs=() a
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local x=()
	for a in LD_PRELOAD="$LIB" "${envs[@]}"; do
		if [ "$VARIANT" = openmpi ]; then
			x+=(-x "$a")
		else
			x+=(-genv "${a%%=*}" "${a#*=}")
		fi
	done
	mkdir -p "$DIR/tmp-$h"
	if [ "$VARIANT" = openmpi ]; then
		# shared memory among the ranks; the switch through eth0
		TMPDIR=$DIR/tmp-$h ip netns exec "$PREFIX-$h" "$LAUNCHER" \
			--allow-run-as-root --oversubscribe --bind-to none \
			-np "$np" --mca btl self,vader --mca mpi_yield_when_idle 1 \
			"${x[@]}" "$CHECK" "$@" >"$log" 2>&1
	else
		TMPDIR=$DIR/tmp-$h ip netns exec "$PREFIX-$h" "$LAUNCHER" \
			-n "$np" -launcher fork "${x[@]}" "$CHECK" "$@" \
			>"$log" 2>&1 </dev/null
	fi
}

counter() { acis_coll_counter "$PREFIX" "$1"; }
summary() { grep -h '^mpi_check: [0-9]* ranks' "$1" || echo "no summary"; }

"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$ACIS_ROOT/pipelines/testbed-af_packet.ini" "$LOG"
slots_before=$(counter slots_in_use)

# 1. every call, against the library's own; MPICH's ranks never yield
# their core, so it runs the shorter list
quick=()
[ "$VARIANT" = openmpi ] || quick=(--quick)
ar_before=$(counter completed_allreduce)
rc=0
# (with an MPI_Op_create op given examples/cgra/maxloc.s: offloaded)
"$ACIS_BUILD/tools/acis-asm" -o "$DIR/maxloc.bin" "$ACIS_ROOT/examples/cgra/maxloc.s"
mpi h0 4 "$DIR/full.log" ACIS_SWITCH=10.77.0.1 ACIS_MPI_STATS=1 \
	MPI_CHECK_OP_BIN="$DIR/maxloc.bin" -- \
	"${quick[@]}" --expect-offload || rc=$?
check "$VARIANT, 4 ranks, every call against the library's own: $(summary "$DIR/full.log")" \
	[ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/    /' "$DIR/full.log" | tail -30
grep -q '^libacis-mpi: rank 0, job' "$DIR/full.log" &&
	sed -n '/^libacis-mpi: rank 0, job/,/avg_us: blocking/p' "$DIR/full.log" | sed 's/^/    /'
check "an MPI_Op_create op with a CGRA program ran in the switch, MPI_MAXLOC's result" \
	bash -c "grep -q '^mpi_check: a user op with a CGRA program' '$DIR/full.log' &&
		 ! grep -q 'stays on the hosts' '$DIR/full.log'"
ar_after=$(counter completed_allreduce)
check "the switch completed the allreduces ($((ar_after - ar_before)))" \
	[ "$ar_after" -gt "$ar_before" ]
check "the layer left derived types, MAXLOC, user ops and unequal counts to the library" \
	grep -qE '^  allreduce +[0-9]+ +[0-9]+ +[0-9.]+ +0 +0 +0 +[1-9][0-9]* +[1-9]' "$DIR/full.log"

# 1b. the same from C++
if [ -n "$CHECK_CXX" ]; then
	rc=0
	CHECK=$CHECK_CXX mpi h0 4 "$DIR/cxx.log" ACIS_SWITCH=10.77.0.1 -- \
		--expect-offload || rc=$?
	check "$VARIANT, a C++ program: $(grep -h '^mpi_check_cxx:' "$DIR/cxx.log" || echo 'no summary')" \
		[ "$rc" -eq 0 ]
	[ "$rc" -eq 0 ] || sed 's/^/    /' "$DIR/cxx.log" | tail -10
fi

# 2. nothing offloaded, the same results
rc=0
mpi h0 4 "$DIR/off.log" ACIS_SWITCH=10.77.0.1 ACIS_MPI=off -- --quick || rc=$?
ok=0
[ "$rc" -eq 0 ] && grep -q 'calls offloaded on rank 0: 0$' "$DIR/off.log" && ok=1
check "ACIS_MPI=off: $(summary "$DIR/off.log")" [ "$ok" -eq 1 ]
rc=0
mpi h0 4 "$DIR/noswitch.log" -- --quick || rc=$?
ok=0
[ "$rc" -eq 0 ] && grep -q 'no switch: set ACIS_SWITCH' "$DIR/noswitch.log" && ok=1
check "no switch named: a warning, every call to the library: $(summary "$DIR/noswitch.log")" \
	[ "$ok" -eq 1 ]
rc=0
timeout 120 bash -c "$(declare -f mpi); $(declare -p VARIANT LAUNCHER LIB CHECK PREFIX DIR);
	mpi h0 4 '$DIR/strict.log' ACIS_SWITCH=10.77.0.99 ACIS_MPI_STRICT=1 \
	ACIS_TIMEOUT_MS=2000 -- --quick" || rc=$?
ok=0
[ "$rc" -ne 0 ] && grep -q 'cannot join the switch.*ACIS_MPI_STRICT=1' "$DIR/strict.log" && ok=1
check "ACIS_MPI_STRICT=1, no switch answering: the job stops at MPI_Init (exit $rc)" \
	[ "$ok" -eq 1 ]

# 3. two jobs at once on one switch
rc1=0 rc2=0
mpi h1 2 "$DIR/job1.log" ACIS_SWITCH=10.77.0.1 -- --quick --expect-offload &
p1=$!
mpi h2 2 "$DIR/job2.log" ACIS_SWITCH=10.77.0.1 -- --quick --expect-offload &
p2=$!
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
check "two jobs at once: $(summary "$DIR/job1.log") / $(summary "$DIR/job2.log")" \
	[ "$rc1.$rc2" = 0.0 ]

# 4. a rank killed mid-collective: the job ends, nothing hangs
mkdir -p "$DIR/pids"
slots_open() { [ "$(counter slots_in_use)" -gt "$slots_before" ]; }
runner_done() { ! kill -0 "$runner" 2>/dev/null; }
mpi h3 4 "$DIR/kill.log" ACIS_SWITCH=10.77.0.1 ACIS_TIMEOUT_MS=20000 \
	MPI_CHECK_PIDS="$DIR/pids" -- --soak 100000 &
runner=$!
# rank 3's pid file may come after the first slots open (the ranks
# start one by one): wait for both
acis_wait_for 300 test -s "$DIR/pids/rank3.pid" || true
acis_wait_for 300 slots_open || true
victim=$(cat "$DIR/pids/rank3.pid" 2>/dev/null || true)
check "rank 3 was in an allreduce (pid ${victim:-none}, $(counter slots_in_use) slots open)" \
	[ -n "$victim" ]
[ -n "$victim" ] || { ls "$DIR/pids"; sed 's/^/    /' "$DIR/kill.log" | tail -5; }
[ -z "$victim" ] || kill -9 "$victim" 2>/dev/null || true
acis_wait_for 600 runner_done || true
ended=0
runner_done && ended=1
check "the job ended within 60 s of the kill (no rank hangs)" [ "$ended" -eq 1 ]
[ "$ended" -eq 1 ] || kill "$runner" 2>/dev/null || true
wait "$runner" 2>/dev/null || true
runner=
sed 's/^/    /' "$DIR/kill.log" | grep -E 'failed|exited|signal|noticed|KILLED|rank 3' | head -8 || true
acis_wait_for 100 acis_slots_back "$PREFIX" "$slots_before" || true
check "the switch's slots drained (got $(counter slots_in_use), before $slots_before)" \
	[ "$(counter slots_in_use)" -eq "$slots_before" ]
check "no contribution left held (got $(counter held_now))" [ "$(counter held_now)" -eq 0 ]

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

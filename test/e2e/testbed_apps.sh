#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: the reference applications (bench/apps/, doc/benchmarks.md)
# on the leaf-spine fabric, four ranks, one on each host, under Open MPI
# (its own traffic across the fabric's bridge, fabric.sh -b) with
# libacis-mpi preloaded and every crossover 0: N-body, the FFT with each
# of its exchanges, the matrix-vector multiply with A scattered every
# iteration and once, each at a small size. For each:
#   - the app's own check passes (bit for bit against a serial run on
#     rank 0);
#   - its collectives went to the switch: libacis-mpi's table
#     (ACIS_MPI_STATS=1) shows each collective the app makes offloaded
#     at every iteration, none failed and none left to Open MPI for any
#     reason, and the root switch completed that many more of each (its
#     counters): a silent fallback to Open MPI fails the test.
#
#   testbed_apps.sh LIBACIS_MPI APP_NBODY APP_FFT APP_MVM
# Exit 77 without root or without Open MPI's launcher; cleans up pass or
# fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

LIB=$1
declare -A BIN=([nbody]=$2 [fft]=$3 [mvm]=$4)
command -v mpirun.openmpi >/dev/null || { echo "skip: no mpirun.openmpi"; exit 77; }
acis_e2e_begin apps ap$$
FABRIC=$ACIS_ROOT/scripts/fabric.sh
FAB=$ACIS_BUILD/tools/acis-fabric
TOPO=$ACIS_ROOT/topologies/leaf-spine.ini
export BENCH_OMPI_TMP=$DIR/ompi
runner=

e2e_teardown() {
	[ -z "$runner" ] || kill "$runner" 2>/dev/null || true
	acis_kill_hosts "$PREFIX"
	[ -z "$runner" ] || wait "$runner" 2>/dev/null || true
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}

"$FABRIC" up "$TOPO" -p "$PREFIX" -P logical -b >/dev/null
"$FABRIC" start -p "$PREFIX" >/dev/null
root=$("$FAB" tree "$TOPO" all | sed -n 's/^root \([^,]*\),.*/\1/p')
SWITCH=$("$FAB" list "$TOPO" | awk -v s="$root" '$1 == "switch" && $2 == s {print $3}')
completed() { acis_counter "$PREFIX-fab@$root" /acis/collectives "completed_$1"; }

# stats_ok LOG COLL=MIN...: libacis-mpi's table in LOG has each COLL
# offloaded at least MIN times, and no row a failed call or a call left
# to the library (the columns after avg_us)
stats_ok() {
	local log=$1
	shift
	awk -v want="$*" '
		/^libacis-mpi: rank 0,/ { t = 1; next }
		t && /^  [a-z_]+ +[0-9]/ {
			got[$1] = $2
			for (i = 5; i <= NF; i++)
				if ($i != 0) { print "    not all offloaded: " $0; bad = 1; break }
		}
		END {
			if (!t) { print "    no libacis-mpi table"; exit 1 }
			n = split(want, w, " ")
			for (i = 1; i <= n; i++) {
				split(w[i], cm, "=")
				if (got[cm[1]] + 0 < cm[2] + 0) {
					printf "    %s offloaded %d times, want %d\n", cm[1], got[cm[1]], cm[2]
					bad = 1
				}
			}
			exit bad
		}' "$log"
}

# run NAME APP "ARGS" COLL=MIN...: the app on the four hosts; its
# checks. Three timed iterations after one warm-up: 4 of each call.
run() {
	local name=$1 app=$2 args=$3 rc=0 c line log="$DIR/$1.log" before=() after=()
	shift 3
	for c; do before+=("$(completed "${c%=*}")"); done
	# shellcheck disable=SC2086
	timeout 60 bash -c "source '$ACIS_ROOT/scripts/lib.sh'; \"\$@\"" _ \
		acis_ompi_hosts "$PREFIX" 10.77.2 4 -x LD_PRELOAD="$LIB" \
		-x ACIS_SWITCH="$SWITCH" -x ACIS_MPI_STATS=1 -x ACIS_MPI_MIN_BYTES=0 \
		"${BIN[$app]}" $args -i 3 -w 1 >"$log" 2>"$log.err" </dev/null &
	runner=$!
	wait "$runner" || rc=$?
	runner=
	line=$(grep -m1 '^app=' "$log" || echo "no result line (exit $rc)")
	check "$name: its check passed, the switch took calls: ${line#app=}" \
		grep -q "^app=.* check=ok offloaded=[1-9]" "$log"
	[ "$rc" -eq 0 ] || tail -n 15 "$log" "$log.err" | sed 's/^/    /'
	# (the result line on stdout, libacis-mpi's table on stderr: apart,
	# so mpirun's forwarding cannot splice one into the other)
	check "$name: libacis-mpi offloaded $* and left nothing to Open MPI" \
		stats_ok "$log.err" "$@"
	for c; do after+=("$(completed "${c%=*}")"); done
	local i grew=1 said=''
	for i in "${!before[@]}"; do
		said+=" ${1%=*} +$((after[i] - before[i]))"
		[ "${after[i]}" -gt "${before[i]}" ] || grew=0
		shift
	done
	check "$name: the root switch $root completed them:$said" [ "$grew" -eq 1 ]
}

run "nbody, 512 particles" nbody "-n 512" allgather=4
run "fft, 4096 points, MPI_Sendrecv exchanges" fft "-n 4096" scatter=4 gather=4
run "fft, 4096 points, MPI_Alltoall exchanges" fft "-n 4096 -e alltoall" \
	scatter=4 alltoall=8 gather=4
run "mvm, 256 rows, A scattered each iteration" mvm "-n 256" \
	scatter=4 bcast=4 gather=4
run "mvm, 256 rows, A scattered once" mvm "-n 256 -k" scatter=1 bcast=4 gather=4

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

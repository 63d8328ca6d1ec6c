#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# acis-bench in one command: bring up the namespace testbed under a prefix
# of its own, start acis-switch, run acis-bench on P hosts (one rank per
# host), keep the results, and tear everything down, whatever happens.
#
#   scripts/bench/run-acis-bench.sh [-n P] [-o DIR] [-i ITER] [-w WARMUP]
#       [-c COLLS] [-s MIN] [-S MAX] [-d DTYPE] [-t MS] [-p PIPELINE]
#       [-- more acis-bench options]
#
#   -n P         ranks, one per host (default 4; more than 4 needs a
#                pipeline with a port per host, -p)
#   -o DIR       results directory (default /tmp/acis-bench-DATE)
#   -i, -w       timed and warm-up calls per size (default: OSU's, 1000
#                and 200 up to 8 KiB, 100 and 10 above)
#   -c COLLS     collectives (default all); -s, -S smallest and largest
#                size in bytes (default 4 and 4194304); -d datatype
#   -t MS        libacis timeout per call (default 30000)
#   -p PIPELINE  switch pipeline (default pipelines/testbed-af_packet.ini;
#                testbed-jumbo.ini when ACIS_MTU is above 1500)
#
# DIR gets acis-bench.txt (the table), acis-bench.csv, acis-bench.json,
# run.txt (machine, command, switch lcores and counters), switch.log and
# rankR.log (each rank's stderr). Exits 1 if any rank reported an error.
# Needs root. Not a test: nothing here judges the numbers.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

P=4
OUT=/tmp/acis-bench-$(date +%Y%m%d-%H%M%S)
ITER='' WARM='' COLLS='' MIN=4 MAX=4194304 DTYPE=float32 TIMEOUT=30000
PIPELINE=''
while getopts "n:o:i:w:c:s:S:d:t:p:h" o; do
	case $o in
	n) P=$OPTARG ;;
	o) OUT=$OPTARG ;;
	i) ITER=$OPTARG ;;
	w) WARM=$OPTARG ;;
	c) COLLS=$OPTARG ;;
	s) MIN=$OPTARG ;;
	S) MAX=$OPTARG ;;
	d) DTYPE=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	p) PIPELINE=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
bench_testbed_mtu run-acis-bench ACIS_MTU "${ACIS_MTU:-1500}"
bench_want_int run-acis-bench -n "$P"
[ -z "$ITER" ] || bench_want_int run-acis-bench -i "$ITER"
[ -z "$WARM" ] || bench_want_int run-acis-bench -w "$WARM" 0
bench_want_int run-acis-bench -s "$MIN"
bench_want_int run-acis-bench -S "$MAX" "$MIN"
bench_want_int run-acis-bench -t "$TIMEOUT"

[ "$(id -u)" -eq 0 ] || { echo "run-acis-bench: needs root (namespaces)" >&2; exit 1; }
BENCH=$ACIS_BUILD/tools/acis-bench
[ -x "$BENCH" ] || { echo "run-acis-bench: $BENCH missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }

# A prefix of our own: other people use the testbed at the same time.
PREFIX=bn$$
TB=$ACIS_ROOT/scripts/testbed.sh
HOSTS=$((P > 4 ? P : 4)) # the testbed pipelines name four ports
JOB=900

cleanup() { acis_e2e_cleanup "$PREFIX"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

opts=(--min-size "$MIN" --max-size "$MAX" --dtype "$DTYPE" --timeout "$TIMEOUT")
[ -n "$ITER" ] && opts+=(--iterations "$ITER")
[ -n "$WARM" ] && opts+=(--warmup "$WARM")
[ -n "$COLLS" ] && opts+=(--colls "$COLLS")
opts+=("$@")

# before the switch starts, so its count of others running is right
bench_runinfo "$OUT" "$0 -n $P -o $OUT${ITER:+ -i $ITER}${WARM:+ -w $WARM}${COLLS:+ -c $COLLS} -s $MIN -S $MAX -d $DTYPE -t $TIMEOUT${*:+ -- $*}"
acis_log "testbed $PREFIX: $HOSTS hosts; switch on $(basename "$PIPELINE")"
"$TB" up -n "$HOSTS" -p "$PREFIX" -m "${ACIS_MTU:-1500}" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$OUT/switch.log"

{
	echo "testbed:   namespaces $PREFIX-*, $HOSTS hosts on veth pairs, MTU ${ACIS_MTU:-1500}"
	echo "switch:    $PIPELINE, lcores ${ACIS_SW_LCORES:-$(( $(nproc) > 1 ? $(nproc) - 1 : 0 ))}"
	echo "ranks:     $P (h0..h$((P - 1))), job $JOB"
	echo "acis-bench options: ${opts[*]}"
	echo "switch:"
	acis_ctl "$PREFIX" info | sed 's/^/  /'
} >>"$OUT/run.txt"

acis_log "acis-bench: $P ranks, results in $OUT"
pids=()
for ((r = 0; r < P; r++)); do
	args=(--switch 10.77.0.1 --job "$JOB" --rank "$r" --size "$P" "${opts[@]}")
	if [ "$r" -eq 0 ]; then
		args+=(--output "$OUT/acis-bench.csv" --output "$OUT/acis-bench.json")
		# rank 0's stderr stays on the terminal, if any, for the
		# progress bar; its errors are in the results as well
		if [ -t 2 ]; then
			ip netns exec "$PREFIX-h0" "$BENCH" "${args[@]}" \
				>"$OUT/acis-bench.txt" &
		else
			ip netns exec "$PREFIX-h0" "$BENCH" "${args[@]}" \
				>"$OUT/acis-bench.txt" 2>"$OUT/rank0.log" &
		fi
	else
		ip netns exec "$PREFIX-h$r" "$BENCH" "${args[@]}" \
			>/dev/null 2>"$OUT/rank$r.log" &
	fi
	pids+=($!)
done
rc=0
for r in "${!pids[@]}"; do
	wait "${pids[$r]}" || { echo "rank $r exited with status $?" >&2; rc=1; }
done

{
	echo "switch counters after the run:"
	acis_ctl "$PREFIX" --raw /acis/collectives | sed 's/^/  /'
	acis_ctl "$PREFIX" --raw /acis/drops | sed 's/^/  /'
	acis_ctl "$PREFIX" --raw /acis/ports | sed 's/^/  /'
} >>"$OUT/run.txt" 2>&1 || true

cat "$OUT/acis-bench.txt"
for ((r = 0; r < P; r++)); do
	if [ -s "$OUT/rank$r.log" ]; then
		sed "s/^/rank $r: /" "$OUT/rank$r.log" >&2
	fi
done
acis_log "results: $OUT/acis-bench.{txt,csv,json}, run.txt"
exit $rc

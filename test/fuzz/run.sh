#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the fuzz targets if needed and run each for a bounded time.
#
#   test/fuzz/run.sh [SECONDS_PER_TARGET]        default 20
#
# Each target runs with libFuzzer's -max_total_time on a temporary copy
# of its seeds (test/fuzz/corpus/<target>/ and the generated
# BUILD/seeds/<target>/), so the repository is never written; the copy is
# removed on exit, also on failure or interrupt. A crash, leak, timeout
# or OOM fails the target; its input is kept in
# BUILD/artifacts/<target>/ and the path is printed with the report.
# Prints per target its executions, then the state of the open bugs of
# test/fuzz/known/ (replayed and reported; a run that stops on one of
# them is not a failure), and a last line "fuzz: N passed, M failed".
# Exits non-zero if any target failed.
#
# Environment:
#   FUZZ_BUILD_DIR  build directory (default: build-fuzz at the repo root)
#   FUZZ_TARGETS    targets to run, space separated (default: all built)
#   FUZZ_JOBS       targets run at once (default: number of CPUs)
#   FUZZ_ARGS       extra libFuzzer arguments for every target
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-20}
out=${FUZZ_BUILD_DIR:-$root/build-fuzz}

case $secs in
''|*[!0-9]*) echo "usage: $0 [SECONDS_PER_TARGET]" >&2; exit 2 ;;
esac

"$here/build.sh" "$out" || { echo "fuzz: build failed"; exit 1; }
out=$(cd "$out" && pwd)

if [ -n "${FUZZ_TARGETS:-}" ]; then
	read -r -a targets <<< "$FUZZ_TARGETS"
else
	mapfile -t targets < "$out/targets"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/acis-fuzz.XXXXXX") || exit 1
pids=()
cleanup() {
	local p f
	# timeout(1) runs in its own process group, so an interrupt does not
	# reach the fuzzers: stop them by pid (timeout passes it on)
	for f in "$tmp"/*/pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# libFuzzer options per target: the longest input worth trying.
target_args() {
	case $1 in
	fuzz_pkt) echo -max_len=9700 ;;  # jumbo frames, 9600 MTU + 2 tags
	fuzz_cgra) echo -max_len=8192 ;; # the example programs as text
	fuzz_conf) echo -max_len=4096 ;;
	*) echo -max_len=2048 ;;
	esac
}

run_one() {
	local t=$1 dir=$tmp/$1 art=$out/artifacts/$1 dict=() rc
	local bin=$out/$t

	mkdir -p "$dir/corpus" "$art"
	for d in "$here/corpus/$t" "$out/seeds/$t"; do
		[ -d "$d" ] && cp -r "$d/." "$dir/corpus/"
	done
	[ -f "$here/dict/$t.dict" ] && dict=("-dict=$here/dict/$t.dict")
	if [ ! -x "$bin" ]; then
		echo "no binary $bin" > "$dir/log"
		echo 1 > "$dir/rc"
		return
	fi
	# The hard timeout is a backstop only: -max_total_time ends the run,
	# -timeout fails any single input slower than 10 s.
	# shellcheck disable=SC2046,SC2086
	ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1:symbolize=1} \
	UBSAN_OPTIONS=${FUZZ_UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	timeout -k 10 $((secs + 120)) "$bin" \
		-max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$art/" \
		$(target_args "$t") "${dict[@]}" ${FUZZ_ARGS:-} \
		"$dir/corpus" > "$dir/log" 2>&1 &
	echo $! > "$dir/pid"
	wait $!
	rc=$?
	rm -f "$dir/pid"
	echo $rc > "$dir/rc"
}

jobs_max=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=1
echo "fuzz: ${targets[*]}: ${secs} s each, $jobs_max at a time"
for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
	run_one "$t" &
	pids+=($!)
done
wait

# The first invariant or UBSan message of a log, without the repository
# path: what identifies a bug across inputs.
signature() {
	grep -E -m1 'invariant violated|runtime error' "$1" | sed "s|$root/||"
}

# Open bugs: each file under test/fuzz/known/<target>/ reproduces a bug
# that is reported but not fixed yet (test/fuzz/known/README.md). They are
# replayed and reported, not counted; a fuzzing run that ends on one of
# their messages is reported as that known bug, not as a failure. One that
# no longer fails is fixed and belongs in corpus/<target>/ from then on.
declare -A known_sig=()
known_report=()
for t in "${targets[@]}"; do
	[ -d "$here/known/$t" ] || continue
	for f in "$here/known/$t"/*; do
		[ -f "$f" ] || continue
		klog=$tmp/known.log
		ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1:symbolize=1} \
		UBSAN_OPTIONS=${FUZZ_UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
		timeout -k 10 60 "$out/$t" "$f" > "$klog" 2>&1
		krc=$?
		rel=${f#"$root"/}
		if [ $krc = 0 ]; then
			known_report+=("fuzz: $t: known bug no longer reproduces: $rel (fixed? move it to test/fuzz/corpus/$t/)")
			continue
		fi
		sig=$(signature "$klog")
		[ -n "$sig" ] && known_sig["$t|$sig"]=1
		known_report+=("fuzz: $t: known bug, still open: $rel: ${sig:-exit $krc}")
	done
done

passed=0
failed=0
for t in "${targets[@]}"; do
	log=$tmp/$t/log
	rc=$(cat "$tmp/$t/rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<< "$last")
	summary="${execs:-?} executions (${rate:-?}/s), cov ${cov:-?}, corpus ${corp:-?}"
	artifact=$(sed -n "s/.*Test unit written to \(.*\)/\1/p" "$log")
	sig=$(signature "$log")
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		echo "fuzz: $t: ok, $summary"
	elif [ -n "$sig" ] && [ -n "${known_sig["$t|$sig"]:-}" ]; then
		passed=$((passed + 1))
		echo "fuzz: $t: ok, stopped on a known open bug after $summary"
		echo "fuzz: $t:   $sig"
		[ -n "$artifact" ] && echo "fuzz: $t: artifact $artifact"
	else
		failed=$((failed + 1))
		echo "fuzz: $t: FAILED (exit $rc), $summary"
		# the report: sanitizer or invariant message, stack, artifact
		grep -E 'ERROR: |invariant violated|runtime error|^SUMMARY|deadly signal|timeout|out-of-memory' "$log" |
			head -8 | sed "s/^/fuzz: $t:   /"
		[ -n "$artifact" ] && echo "fuzz: $t: artifact $artifact"
		echo "fuzz: $t: log tail:"
		tail -40 "$log" | sed "s/^/    /"
	fi
done
for line in "${known_report[@]}"; do
	echo "$line"
done

echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]

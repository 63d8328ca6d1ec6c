#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: fidelity mode (doc/fidelity.md). The 2-switch and 3-switch
# chains of topologies/*-cuscomnet.ini, every link shaped as CusComNet's
# platform and dilated 1000 times, as logical switches of one process:
# host to host, half the smallest ping round trip over the dilation,
# with the emulator's own time (the same switches unshaped) subtracted,
# is CusComNet's Eq. 1 for the ping's frame within 10 %, and the second
# hop costs what the model says a hop costs, within 10 %.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

acis_e2e_begin fidelity fd$$

scripts_out=$DIR/bench
"$ACIS_ROOT/scripts/bench/fidelity.sh" -o "$scripts_out" -n 30 >"$DIR/bench.log" 2>&1 ||
	{ cat "$DIR/bench.log"; check "scripts/bench/fidelity.sh ran" false; }
cat "$scripts_out/table.txt" 2>/dev/null | sed 's/^/    /' || true

# within PCT percent: within MEASURED MODEL PCT
within() { python3 -c "import sys; m, w, p = map(float, sys.argv[1:]); sys.exit(not abs(m - w) <= p / 100 * w)" "$@"; }
field() { awk -F, -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$1 == t { print $col[c] }' "$scripts_out/fidelity.csv"; }

for t in pair-cuscomnet chain3-cuscomnet; do
	m=$(field "$t" model_us) s=$(field "$t" subtracted_us) r=$(field "$t" raw_us)
	check "$t: one way ${s} us of the platform (raw ${r} us), Eq. 1 ${m} us, within 10 %" \
		within "${s:-0}" "${m:-1}" 10
done
hop=$(python3 -c "print('%.3f' % ($(field chain3-cuscomnet subtracted_us) - $(field pair-cuscomnet subtracted_us)))")
mhop=$(python3 -c "print('%.3f' % ($(field chain3-cuscomnet model_us) - $(field pair-cuscomnet model_us)))")
check "the second link costs ${hop} us, Eq. 1's hop ${mhop} us (0.57 routing + 0.61 the frame), within 10 %" \
	within "$hop" "$mhop" 10

echo "fidelity: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

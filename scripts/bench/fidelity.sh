#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fidelity mode against CusComNet's latency model (doc/fidelity.md):
# topologies/pair-cuscomnet.ini (host to host over one link, k = 2 in
# CusComNet's Eq. 1) and chain3-cuscomnet.ini (two links, k = 3), every
# link shaped as the paper's platform and dilated (profiles/cuscomnet.ini,
# 1000 times), as logical switches of one process.
#
#   scripts/bench/fidelity.sh [-o DIR] [-n PINGS]
#
# For each topology: the smallest round trip of PINGS pings (default 50,
# 20 ms apart) from h0 to h1 with the profile, and again with the same
# switches unshaped (the emulator's own time, hosts' stacks included).
# The platform's one-way latency is half the round trip over the
# dilation, raw and with the emulator's own time subtracted, beside
# Eq. 1 for the ping's frame (98 bytes and the 24 of preamble, FCS and
# gap the shaper charges: p = 976 bits). The switches busy-poll
# (ACIS_SW_IDLE_SLEEP, default here 0): a switch that sleeps when idle
# wakes up to 50 us late, 0.05 us of the platform's time a hop.
# Writes DIR/fidelity.csv and
# table.txt. Needs root. Not a test: nothing here judges
# (test/e2e/testbed_fidelity.sh holds the tolerance).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' PINGS=50
while getopts "o:n:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	n) PINGS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int fidelity -n "$PINGS" 2
[ "$(id -u)" -eq 0 ] || { echo "fidelity: needs root (namespaces)" >&2; exit 1; }
FAB=$ACIS_BUILD/tools/acis-fabric
MODEL=$ACIS_ROOT/tools/acis-model
OUT=$(bench_outdir fidelity "$OUT")
FABRIC=$ACIS_ROOT/scripts/fabric.sh
PREFIX=fd$$

cleanup() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -n $PINGS"

# min_rtt TOPOLOGY: the smallest round trip h0 -> h1, in ms
min_rtt() {
	"$FABRIC" up "$1" -p "$PREFIX" -P logical >/dev/null
	ACIS_SW_IDLE_SLEEP=${ACIS_SW_IDLE_SLEEP:-0} "$FABRIC" start -p "$PREFIX" >/dev/null
	# the first ping resolves the address: not counted
	ip netns exec "$PREFIX-h0" ping -c 1 -W 5 10.77.0.11 >/dev/null
	ip netns exec "$PREFIX-h0" ping -c "$PINGS" -i 0.02 -W 5 10.77.0.11 |
		sed -n 's|.*= \([0-9.]*\)/.*|\1|p'
	"$FABRIC" down -p "$PREFIX" >/dev/null
}

echo "topology,k,dilation,model_us,rtt_ms,rtt_unshaped_ms,raw_us,subtracted_us" >"$OUT/fidelity.csv"
for t in pair-cuscomnet:2 chain3-cuscomnet:3; do
	name=${t%%:*} k=${t##*:}
	topo=$ACIS_ROOT/topologies/$name.ini
	dil=$("$FAB" check "$topo" | sed -n 's/.*dilation \([0-9.]*\):.*/\1/p')
	[ -n "$dil" ] || { echo "fidelity: $topo names no profile" >&2; exit 1; }
	# the same switches without the profile: the emulator's own time
	mkdir -p "$OUT/plain"
	grep -v '^profile *=' "$topo" >"$OUT/plain/$name.ini"
	shaped=$(min_rtt "$topo")
	plain=$(min_rtt "$OUT/plain/$name.ini")
	model=$("$MODEL" --csv cuscomnet --k "$k" --bits 976 | awk -F, '$1 == "T_eq1" {print $2}')
	awk -v n="$name" -v k="$k" -v d="$dil" -v m="$model" -v s="$shaped" -v p="$plain" 'BEGIN {
		raw = s * 1000 / 2 / d; sub_ = (s - p) * 1000 / 2 / d
		printf "%s,%s,%s,%.4f,%.3f,%.3f,%.4f,%.4f\n", n, k, d, m, s, p, raw, sub_ }' |
		tee -a "$OUT/fidelity.csv"
done

"$BENCH_PY" - "$OUT/fidelity.csv" "$OUT/table.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = ["# CusComNet's Eq. 1 against the emulator in fidelity mode (one-way, us of the platform)",
       "| topology | k | Eq. 1 | emulated, raw | error | emulator's own time subtracted | error |",
       "|---|---|---|---|---|---|---|"]
for r in rows:
    m, raw, sub = float(r["model_us"]), float(r["raw_us"]), float(r["subtracted_us"])
    out.append("| %s | %s | %.3f | %.3f | %+.1f %% | %.3f | %+.1f %% |" % (
        r["topology"], r["k"], m, raw, 100 * (raw - m) / m, sub, 100 * (sub - m) / m))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

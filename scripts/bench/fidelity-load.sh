#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fidelity mode under load, against CusComNet's Eq. 7 (doc/fidelity.md):
# topologies/pair-cuscomnet.ini (host to host over one shaped link, k = 2,
# dilated 1000 times) as logical switches, h0 sending h1 Poisson UDP
# traffic (scripts/bench/poisson.py) that loads the link to each
# utilisation of -r in turn, first in frames of one size (58 bytes, the
# smallest the generator sends), then of exponential sizes (58 bytes
# plus 400 on average).
#
#   scripts/bench/fidelity-load.sh [-o DIR] [-r "0.1 0.3 0.5 0.7"] [-t S]
#
# Each point runs S seconds (default 10) and reports the frames' mean
# one-way delay, on the platform's time: the raw delay less the
# emulator's own (the same switches unshaped, at a light load), over the
# dilation. Beside it, Eq. 7 as the paper prints it (M/M/1: exponential
# service) and with the wait of the frames' own size distribution
# (Pollaczek-Khinchine, M/G/1: acis-model cuscomnet --cv2). Eq. 2 spreads
# a node's lambda over four links; the pair has one, so a host loading
# it with lambda_link packets a second is the model's node injecting
# 4 lambda_link. Writes DIR/load.csv and table.txt. Needs root. Not a
# test: nothing here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' RHOS="0.1 0.3 0.5 0.7" SECS=10
while getopts "o:r:t:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	r) RHOS=$OPTARG ;;
	t) SECS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int fidelity-load -t "$SECS" 1
for r in $RHOS; do
	awk -v r="$r" 'BEGIN { exit !(r > 0 && r < 1) }' ||
		{ echo "fidelity-load: -r $r: expected utilisations between 0 and 1" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "fidelity-load: needs root (namespaces)" >&2; exit 1; }
FAB=$ACIS_BUILD/tools/acis-fabric
MODEL=$ACIS_ROOT/tools/acis-model
GEN=$ACIS_ROOT/scripts/bench/poisson.py
OUT=$(bench_outdir fidelity-load "$OUT")
FABRIC=$ACIS_ROOT/scripts/fabric.sh
PREFIX=fl$$
PORT=5001
TOPO=$ACIS_ROOT/topologies/pair-cuscomnet.ini

cleanup() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -r '$RHOS' -t $SECS"
read -r DIL BL < <("$FAB" check "$TOPO" >/dev/null &&
	awk -F' *= *' '$1 == "dilation" {d = $2} $1 == "rate_mbps" {b = $2}
		END {print d, b}' "$ACIS_ROOT/topologies/profiles/cuscomnet.ini")

# The generator's processes on the last core, off the switch's lcore 0
CPU=$(($(nproc) - 1))

# fabric TOPOLOGY: a fresh fabric, busy polling, h1 resolved
fabric() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
	"$FABRIC" up "$1" -p "$PREFIX" -P logical >/dev/null
	ACIS_SW_IDLE_SLEEP=0 "$FABRIC" start -p "$PREFIX" >/dev/null
	ip netns exec "$PREFIX-h0" ping -c 1 -W 5 10.77.0.11 >/dev/null
}

# point RATE SIZE: h0 -> h1 for SECS; the receiver's CSV row
point() {
	local f=$OUT/recv.$$ pid
	taskset -c "$CPU" ip netns exec "$PREFIX-h1" python3 "$GEN" recv "$PORT" \
		--seconds "$((SECS + 10))" --csv >"$f" &
	pid=$!
	sleep 0.5
	taskset -c "$CPU" ip netns exec "$PREFIX-h0" python3 "$GEN" send 10.77.0.11 "$PORT" \
		--rate "$1" --seconds "$SECS" --size "$2" >/dev/null
	wait "$pid"
	tail -1 "$f"
	rm -f "$f"
}

# The emulator's own delay: the same switches without the profile,
# frames of each size at 20 a second
mkdir -p "$OUT/plain"
grep -v '^profile *=' "$TOPO" >"$OUT/plain/pair.ini"
fabric "$OUT/plain/pair.ini"
declare -A OWN
for size in fixed:58 exp:400; do
	OWN[$size]=$(point 20 "$size" | cut -d, -f3)
	acis_log "own delay, $size: ${OWN[$size]} us"
done

fabric "$TOPO"
echo "size,rho,rate_pps,received,lost,bits,cv2,mean_raw_us,own_us,p99_raw_us,measured_us,eq7_us,mg1_us" \
	>"$OUT/load.csv"
for size in fixed:58 exp:400; do
	bits=$(python3 "$GEN" bits --size "$size")
	for rho in $RHOS; do
		# lambda_link = rho B / p, dilated
		rate=$(awk -v r="$rho" -v b="$bits" -v bl="$BL" -v d="$DIL" \
			'BEGIN { printf "%.3f", r * bl * 1e6 / b / d }')
		# poisson.py's row: received,lost,mean_us,p50_us,p99_us,max_us,bits,cv2
		IFS=, read -r recvd lost mean _ p99 _ mbits cv2 < <(point "$rate" "$size")
		# the model at the measured load: lambda a node = 4 x the link's
		lam=$(awk -v r="$rate" -v d="$DIL" 'BEGIN { printf "%.1f", 4 * r * d }')
		eq7=$("$MODEL" --csv cuscomnet --k 2 --bits "$mbits" --bl "$BL" --rate "$lam" |
			awk -F, '$1 == "T_eq7" {print $2}')
		mg1=$("$MODEL" --csv cuscomnet --k 2 --bits "$mbits" --bl "$BL" --rate "$lam" --cv2 "$cv2" |
			awk -F, '$1 == "T_eq7" {print $2}')
		awk -v s="$size" -v rho="$rho" -v rate="$rate" -v n="$recvd" -v l="$lost" \
			-v b="$mbits" -v c="$cv2" -v m="$mean" -v o="${OWN[$size]}" -v p="$p99" \
			-v d="$DIL" -v e="$eq7" -v g="$mg1" 'BEGIN {
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f\n",
				s, rho, rate, n, l, b, c, m, o, p, (m - o) / d, e, g }' |
			tee -a "$OUT/load.csv"
	done
done

"$BENCH_PY" - "$OUT/load.csv" "$OUT/table.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = ["# CusComNet's Eq. 7 against the emulator under Poisson load (one-way, us of the platform)",
       "| frames | rho | frames sent | wire bits | cv2 | measured | Eq. 7 (M/M/1) | error | M/G/1 | error |",
       "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    m, e, g = float(r["measured_us"]), float(r["eq7_us"]), float(r["mg1_us"])
    size = "58 B" if r["size"].startswith("fixed") else "58 B + exp(400 B)"
    out.append("| %s | %s | %s | %.0f | %.2f | %.3f | %.3f | %+.1f %% | %.3f | %+.1f %% |" % (
        size, r["rho"], r["received"], float(r["bits"]), float(r["cv2"]), m, e,
        100 * (m - e) / e, g, 100 * (m - g) / g))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

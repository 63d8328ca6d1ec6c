#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Comparison 1, forwarding: acis-switch L2 forwarding against dpdk-testpmd
# on net_ring ports, one forwarding lcore each, 64 B and 1500 B frames.
#
#   scripts/bench/fwd.sh [-o DIR] [-s SECONDS] [-r REPEATS] [-f "64 1500"]
#
# acis-switch: the switch core (bench/switch_bench fwd: pipeline, ports,
# graph, the lcore loop of acis-switch) on two net_ring ports wired back to
# back, stations A and B static on either side, 256 frames in flight each
# way. testpmd: two net_ring ports (each port's RX and TX on one ring),
# `start tx_first 8` (256 frames in flight per port), io forwarding, and
# mac forwarding (which, like a switch, reads and writes every frame's
# Ethernet header). The in-process io loop (switch_bench fwd --io) is
# testpmd's io forwarding on the very ports acis-switch uses, to show the
# two setups cost the same. Mpps = frames forwarded per second on the one
# forwarding lcore, median of REPEATS runs (alternating). Writes DIR/fwd.csv,
# table.txt, fwd.png, run.txt. Needs root (hugepages).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' SECS=2 REPS=3 FRAMES="64 1500"
while getopts "o:s:r:f:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	s) SECS=$OPTARG ;;
	r) REPS=$OPTARG ;;
	f) FRAMES=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_secs fwd -s "$SECS"
bench_want_int fwd -r "$REPS"
bench_want_ints fwd -f "$FRAMES" 60
[ "$(id -u)" -eq 0 ] || { echo "fwd: needs root (hugepages)" >&2; exit 1; }
SB=$ACIS_BUILD/bench/switch_bench
[ -x "$SB" ] || { echo "fwd: $SB missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
command -v dpdk-testpmd >/dev/null || { echo "fwd: dpdk-testpmd missing (Debian package dpdk)" >&2; exit 1; }
OUT=$(bench_outdir fwd "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -s $SECS -r $REPS -f \"$FRAMES\""
MEM=$(bench_hugepages 256)
# the main lcore on core 0, the forwarding lcore on core 1
LCORES=${BENCH_LCORES:-0-1}
# shellcheck disable=SC2206 # MEM is several options
EAL=(-l "$LCORES" $MEM --no-pci --no-telemetry --log-level error)
echo "eal:       ${EAL[*]}" >>"$OUT/run.txt"
echo "dut,frame_bytes,rep,mpps" >"$OUT/fwd.csv"

# testpmd on two net_ring ports: Mpps forwarded (both ports' RX), measured
# by testpmd itself between two "show port stats" SECS apart
testpmd_mpps() {
	local mode=$1 frame=$2 log
	log=$(mktemp)
	{
		echo "set fwd $mode"
		echo "start tx_first 8"
		sleep 0.5
		echo "show port stats all"
		sleep "$SECS"
		echo "show port stats all"
		echo "stop"
		echo "quit"
	} | dpdk-testpmd "${EAL[@]}" --file-prefix "tp$$" \
		--vdev=net_ring0 --vdev=net_ring1 -- -i --txpkts="$frame" \
		--burst=32 --total-num-mbufs=8192 >"$log" 2>&1 || true
	# the second pair of Rx-pps lines: the rate over SECS
	awk '/Rx-pps:/ {n++; if (n > 2) s += $2} END {
		if (n < 4) exit 1; printf "%.4f\n", s / 1e6 }' "$log" ||
		{ echo "fwd: testpmd gave no rates; its output:" >&2; cat "$log" >&2; rm -f "$log"; exit 1; }
	rm -f "$log"
}

sb_mpps() {
	local tmp rc=0
	tmp=$(mktemp)
	"$SB" "${EAL[@]}" --file-prefix "sb$$" -- fwd --frame "$2" \
		--seconds "$SECS" --inflight 256 $1 --csv "$tmp" >/dev/null || rc=$?
	[ "$rc" -ne 0 ] || tail -n 1 "$tmp" | awk -F, '{print $NF}'
	rm -f "$tmp"
	return "$rc"
}

# measure DUT FRAME REP COMMAND...: one row of fwd.csv, the rate COMMAND
# prints. A run that fails or prints no rate stops the comparison: a
# missing number would leave a row the table and the plot cannot read.
measure() {
	local dut=$1 frame=$2 rep=$3 mpps; shift 3
	if ! mpps=$("$@") || ! [[ $mpps =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		echo "fwd: $dut gave no rate for $frame B frames (run $rep): '$mpps'" >&2
		exit 1
	fi
	echo "$dut,$frame,$rep,$mpps" >>"$OUT/fwd.csv"
}

for ((rep = 1; rep <= REPS; rep++)); do
	for f in $FRAMES; do
		acis_log "run $rep/$REPS, $f B frames"
		measure acis-switch "$f" "$rep" sb_mpps '' "$f"
		measure testpmd-io "$f" "$rep" testpmd_mpps io "$f"
		measure testpmd-mac "$f" "$rep" testpmd_mpps mac "$f"
		measure io-loop "$f" "$rep" sb_mpps --io "$f"
	done
done

"$BENCH_PY" - "$OUT/fwd.csv" "$OUT/table.txt" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {}
for r in rows:
    med.setdefault((r["dut"], int(r["frame_bytes"])), []).append(float(r["mpps"]))
med = {k: statistics.median(v) for k, v in med.items()}
frames = sorted({f for _, f in med})
lines = ["# forwarding on net_ring ports, one forwarding lcore; Mpps, median of %d runs"
         % len([r for r in rows if r["dut"] == "acis-switch" and int(r["frame_bytes"]) == frames[0]]),
         "%8s %12s %12s %8s %12s %8s %12s" % ("frame(B)", "acis-switch", "testpmd-io",
                                            "ratio", "testpmd-mac", "ratio", "io-loop")]
for f in frames:
    a, io, mac, loop = (med.get((d, f), float("nan")) for d in
                        ("acis-switch", "testpmd-io", "testpmd-mac", "io-loop"))
    lines.append("%8d %12.2f %12.2f %7.3fx %12.2f %7.3fx %12.2f" % (f, a, io, a / io, mac, a / mac, loop))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
bench_plot fwd "$OUT/fwd.csv" "$OUT/fwd.png"
acis_log "results: $OUT (fwd.csv, table.txt, fwd.png, run.txt)"

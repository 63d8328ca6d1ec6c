#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Comparison 1, forwarding: acis-switch L2 forwarding against dpdk-testpmd
# on the same virtual ports, one forwarding lcore each, 64 B and 1500 B.
#
#   scripts/bench/fwd.sh [-o DIR] [-s SECONDS] [-r REPEATS] [-f "64 1500"]
#                        [-p "ring memif"]
#
# -p: the ports, one or both of
#   ring   two net_ring ports wired back to back: a frame crosses by a
#          pointer moved through a ring (nothing copied);
#   memif  two net_memif ports of the one process connected to each other
#          (server and client of one id): every frame is copied through
#          shared memory, as between two processes or a VM and its host.
# acis-switch: the switch core (bench/switch_bench fwd: pipeline, ports,
# graph, the lcore loop of acis-switch) on the two ports, stations A and B
# static on either side, 256 frames in flight each way. testpmd: the same
# two ports, `start tx_first 8` (256 frames in flight per port), io
# forwarding, and mac forwarding (which, like a switch, reads and writes
# every frame's Ethernet header). The in-process io loop (switch_bench fwd
# --io) is testpmd's io forwarding on the very ports acis-switch uses, to
# show the two setups cost the same. Mpps = frames forwarded per second on
# the one forwarding lcore, median of REPEATS runs (alternating). Writes
# DIR/fwd.csv, table.txt, fwd.png, run.txt. Needs root (hugepages).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' SECS=2 REPS=3 FRAMES="64 1500" PORTS="ring memif"
while getopts "o:s:r:f:p:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	s) SECS=$OPTARG ;;
	r) REPS=$OPTARG ;;
	f) FRAMES=$OPTARG ;;
	p) PORTS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_secs fwd -s "$SECS"
bench_want_int fwd -r "$REPS"
bench_want_ints fwd -f "$FRAMES" 60
for k in $PORTS; do
	case $k in ring | memif) ;; *) echo "fwd: -p $PORTS: want ring, memif or both" >&2; exit 2 ;; esac
done
[ -n "${PORTS// /}" ] || { echo "fwd: -p: want ring, memif or both" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "fwd: needs root (hugepages)" >&2; exit 1; }
SB=$ACIS_BUILD/bench/switch_bench
[ -x "$SB" ] || { echo "fwd: $SB missing; run: ninja -C $ACIS_BUILD" >&2; exit 1; }
command -v dpdk-testpmd >/dev/null || { echo "fwd: dpdk-testpmd missing (Debian package dpdk)" >&2; exit 1; }
OUT=$(bench_outdir fwd "$OUT")
bench_runinfo "$OUT" "$0 -o $OUT -s $SECS -r $REPS -f \"$FRAMES\" -p \"$PORTS\""
MEM=$(bench_hugepages 256)
# the main lcore on core 0, the forwarding lcore on core 1
LCORES=${BENCH_LCORES:-0-1}
# shellcheck disable=SC2206 # MEM is several options
EAL=(-l "$LCORES" $MEM --no-pci --no-telemetry --log-level error)
echo "eal:       ${EAL[*]}" >>"$OUT/run.txt"
echo "dut,ports,frame_bytes,rep,mpps" >"$OUT/fwd.csv"

# testpmd on two net_ring ports: Mpps forwarded (both ports' RX), measured
# by testpmd itself between two "show port stats" SECS apart
# the two ports of kind $1 as testpmd's --vdev options
testpmd_ports() {
	if [ "$1" = memif ]; then
		echo "--vdev=net_memif0,role=server,id=0,socket-abstract=yes,socket=/acis-fwd-$$.sock"
		echo "--vdev=net_memif1,role=client,id=0,socket-abstract=yes,socket=/acis-fwd-$$.sock"
	else
		echo "--vdev=net_ring0"
		echo "--vdev=net_ring1"
	fi
}

testpmd_mpps() {
	local mode=$1 frame=$2 ports=$3 log="$OUT/testpmd.log"
	{
		echo "set fwd $mode"
		# a memif pair connects a moment after start-up
		[ "$ports" = ring ] || sleep 1
		echo "start tx_first 8"
		sleep 0.5
		echo "show port stats all"
		sleep "$SECS"
		echo "show port stats all"
		echo "stop"
		echo "quit"
	} | dpdk-testpmd "${EAL[@]}" --file-prefix "tp$$" \
		$(testpmd_ports "$ports") -- -i --txpkts="$frame" \
		--burst=32 --total-num-mbufs=8192 >"$log" 2>&1 || true
	# the second pair of Rx-pps lines: the rate over SECS
	# no rate, or nothing forwarded (a memif pair that never connected),
	# is a failed run, not a figure
	awk '/Rx-pps:/ {n++; if (n > 2) s += $2} END {
		if (n < 4 || s == 0) exit 1; printf "%.4f\n", s / 1e6 }' "$log" ||
		{ echo "fwd: testpmd forwarded nothing; its output:" >&2; cat "$log" >&2; rm -f "$log"; exit 1; }
	rm -f "$log"
}

sb_mpps() {
	local tmp="$OUT/switch_bench.csv" rc=0
	local memif=''
	[ "$3" = ring ] || memif=--memif
	"$SB" "${EAL[@]}" --file-prefix "sb$$" -- fwd --frame "$2" \
		--seconds "$SECS" --inflight 256 $1 $memif --csv "$tmp" >/dev/null || rc=$?
	[ "$rc" -ne 0 ] || tail -n 1 "$tmp" | awk -F, '{print $NF}'
	rm -f "$tmp"
	return "$rc"
}

# measure DUT FRAME REP COMMAND...: one row of fwd.csv, the rate COMMAND
# prints. A run that fails or prints no rate stops the comparison: a
# missing number would leave a row the table and the plot cannot read.
measure() {
	local dut=$1 ports=$2 frame=$3 rep=$4 mpps; shift 4
	if ! mpps=$("$@") || ! [[ $mpps =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		echo "fwd: $dut gave no rate for $frame B frames on $ports ports (run $rep): '$mpps'" >&2
		exit 1
	fi
	echo "$dut,$ports,$frame,$rep,$mpps" >>"$OUT/fwd.csv"
}

for ((rep = 1; rep <= REPS; rep++)); do
	for k in $PORTS; do
		for f in $FRAMES; do
			acis_log "run $rep/$REPS, $k ports, $f B frames"
			measure acis-switch "$k" "$f" "$rep" sb_mpps '' "$f" "$k"
			measure testpmd-io "$k" "$f" "$rep" testpmd_mpps io "$f" "$k"
			measure testpmd-mac "$k" "$f" "$rep" testpmd_mpps mac "$f" "$k"
			measure io-loop "$k" "$f" "$rep" sb_mpps --io "$f" "$k"
		done
	done
done

"$BENCH_PY" - "$OUT/fwd.csv" "$OUT/table.txt" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {}
for r in rows:
    med.setdefault((r["dut"], r["ports"], int(r["frame_bytes"])), []).append(float(r["mpps"]))
reps = max(len(v) for v in med.values())
med = {k: statistics.median(v) for k, v in med.items()}
kinds = [k for k in ("ring", "memif") if any(p == k for _, p, _ in med)]
frames = sorted({f for _, _, f in med})
lines = ["# forwarding, one forwarding lcore; Mpps, median of %d runs" % reps,
         "%6s %8s %12s %12s %8s %12s %8s %12s" % ("ports", "frame(B)", "acis-switch", "testpmd-io",
                                                "ratio", "testpmd-mac", "ratio", "io-loop")]
for k in kinds:
    for f in frames:
        a, io, mac, loop = (med.get((d, k, f), float("nan")) for d in
                            ("acis-switch", "testpmd-io", "testpmd-mac", "io-loop"))
        lines.append("%6s %8d %12.2f %12.2f %7.3fx %12.2f %7.3fx %12.2f" % (k, f, a, io, a / io, mac, a / mac, loop))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
bench_plot fwd "$OUT/fwd.csv" "$OUT/fwd.png"
acis_log "results: $OUT (fwd.csv, table.txt, fwd.png, run.txt)"

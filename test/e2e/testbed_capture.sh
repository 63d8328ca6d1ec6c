#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: DPDK's own secondary processes against a running switch
# (doc/capture.md). dpdk-dumpcap captures a testbed port while four hosts
# run collectives, and the capture, decoded by the project's dissector,
# holds the ACiS frames both ways; dpdk-proc-info reads the ports'
# counters; the switch leaves no hugepage file or runtime directory when
# it stops; --no-pdump and --in-memory say that capture is off and
# dpdk-dumpcap fails. Usage: testbed_capture.sh PIPELINE
# Exit 77 (skip) without root. Cleans up after itself, pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
acis_e2e_begin capture cp$$
LUA=$ACIS_ROOT/tools/wireshark/acis.lua
DUMPCAP_PID=

e2e_teardown() {
	if [ -n "$DUMPCAP_PID" ]; then
		kill -INT "$DUMPCAP_PID" 2>/dev/null || true
		wait "$DUMPCAP_PID" 2>/dev/null || true
	fi
}

for tool in dpdk-dumpcap dpdk-proc-info tshark; do
	command -v "$tool" >/dev/null || { echo "skip: no $tool"; exit 77; }
done
if ! acis_have_hugepages; then
	echo "skip: no hugepages: no secondary process can attach"
	exit 77
fi
unset ACIS_IN_MEMORY # the switch keeps its files: the point of the test

"$TB" up -n 4 -p "$PREFIX"
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"
check "the switch says how to capture" \
	grep -q "capture: dpdk-dumpcap --file-prefix=$PREFIX" "$LOG"

ports=$("$TB" exec -p "$PREFIX" sw dpdk-dumpcap --file-prefix="$PREFIX" -D 2>/dev/null || true)
echo "$ports"
check "dpdk-dumpcap -D lists the switch's ports" \
	bash -c "grep -q '0. net_af_packet0' <<<'$ports' && grep -q '3. net_af_packet3' <<<'$ports'"

# Capture h0's port (net_af_packet0), ACiS only, until 24 frames or 20 s,
# from the switch's namespace as a user on the switch would.
"$TB" exec -p "$PREFIX" sw stdbuf -oL dpdk-dumpcap --file-prefix="$PREFIX" \
	-i net_af_packet0 -f 'udp port 47000' -c 24 -a duration:20 -w "$DIR/h0.pcapng" \
	>"$DIR/dumpcap.log" 2>&1 &
DUMPCAP_PID=$!
acis_wait_for 100 grep -q "Capturing on" "$DIR/dumpcap.log" || true
check "dpdk-dumpcap attached to the switch" grep -q "Capturing on 'net_af_packet0'" "$DIR/dumpcap.log"

check "collectives ran while capturing" \
	acis_run_ranks "$PREFIX" 4 41 "$DIR" --timeout 30000 --sizes 4,4096 \
	--colls allreduce,bcast,gather --dtypes int32
check "dpdk-dumpcap stopped after 24 frames" wait "$DUMPCAP_PID"
DUMPCAP_PID=
grep -v "^EAL\|not driven" "$DIR/dumpcap.log" || true

ts() {
	HOME=$DIR tshark -n -X lua_script:"$LUA" -r "$DIR/h0.pcapng" "$@" 2>>"$DIR/tshark.err"
}
to_sw=$(ts -Y 'acis.type == 1 && ip.src == 10.77.0.10 && ip.dst == 10.77.0.1' | wc -l)
from_sw=$(ts -Y 'acis.type == 2 && ip.src == 10.77.0.1 && ip.dst == 10.77.0.10' | wc -l)
join=$(ts -Y 'acis.type == 5 && acis.opcode == 1 && acis.job == 41 && ip.src == 10.77.0.10' | wc -l)
other=$(ts -Y '!acis' | wc -l)
all=$(ts | wc -l)
echo "capture: $all frames: $to_sw DATA h0 -> switch, $from_sw RESULT switch -> h0," \
	"$join JOIN of job 41 from h0, $other not ACiS"
# dpdk-dumpcap counts its stop in bursts: it may write a few past 24
check "the capture holds the 24 frames asked for ($all)" [ "$all" -ge 24 ]
check "the filter let only ACiS through ($other other frames)" [ "$other" -eq 0 ]
check "the capture holds h0's DATA to the switch ($to_sw)" [ "$to_sw" -ge 1 ]
check "the capture holds the switch's RESULTs to h0 ($from_sw)" [ "$from_sw" -ge 1 ]
check "the capture holds h0's JOIN of job 41 ($join)" [ "$join" -ge 1 ]

"$TB" exec -p "$PREFIX" sw dpdk-proc-info --file-prefix="$PREFIX" --no-pci \
	--log-level=error -- --stats >"$DIR/procinfo" 2>&1 || true
rx=$(awk '/statistics for port 0 / {p = 1} p && /RX-packets:/ {print $2; exit}' "$DIR/procinfo")
echo "dpdk-proc-info: port 0 RX-packets ${rx:-none}"
check "dpdk-proc-info reads port 0's counters (RX ${rx:-none})" [ "${rx:-0}" -ge 10 ]

acis_switch_stop
left=$(find /dev/hugepages -maxdepth 1 -name "${PREFIX}map_*" 2>/dev/null | wc -l)
check "the stopped switch left no hugepage file ($left)" [ "$left" -eq 0 ]
check "the stopped switch left no runtime directory" [ ! -e "/var/run/dpdk/$PREFIX" ]

# With capture off, or no shared files, dpdk-dumpcap cannot capture.
for how in --no-pdump --in-memory; do
	if [ "$how" = --no-pdump ]; then
		acis_switch_start "$PREFIX" "$PIPELINE" "$LOG" --no-pdump
		check "$how: the switch says capture is off" grep -q "capture off (--no-pdump)" "$LOG"
		why="Packet dump enable failed: Operation not permitted"
	else
		ACIS_IN_MEMORY=1 acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"
		check "$how: the switch says capture is unavailable" grep -q "capture unavailable: with --in-memory" "$LOG"
		why="is primary process running?"
	fi
	check "$how: dpdk-dumpcap fails" bash -c "! timeout 20 '$TB' exec -p '$PREFIX' sw \
		dpdk-dumpcap --file-prefix='$PREFIX' -i net_af_packet0 -c 1 \
		-w '$DIR/none.pcapng' >'$DIR/none.log' 2>&1"
	grep -v "^EAL\|not driven\|^Capturing" "$DIR/none.log" | tail -2 || true
	check "$how: dpdk-dumpcap says why, as doc/capture.md does" grep -qF "$why" "$DIR/none.log"
	acis_switch_stop
done

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

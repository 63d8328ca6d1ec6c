#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Replay ACiS traffic into acis-switch with pktgen-DPDK through net_memif
# (doc/pktgen.md): make the pcap file, start the switch on
# pipelines/pktgen-memif.ini, start pktgen in tmux on the two memif
# sockets with acis.pkt at the chosen rate, let it run, and keep the
# switch's counters. Pktgen is not a Debian package: build it first
# (doc/pktgen.md) and give its binary as PKTGEN=... or put it on PATH.
#
#   scripts/pktgen/run-pktgen.sh [-r RATE%] [-d SECONDS] [-k KIND] [-o DIR]
#                                [-- acis_pcap.py options]
#
# KIND is an acis_pcap.py kind (default mix). DIR (default
# /tmp/acis-pktgen-DATE) gets the pcap, the command file, pktgen's screen
# at the end, the switch's log and counters. Needs root.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

RATE=10 SECS=10 KIND=mix OUT=/tmp/acis-pktgen-$(date +%Y%m%d-%H%M%S)
while getopts "r:d:k:o:h" o; do
	case $o in
	r) RATE=$OPTARG ;;
	d) SECS=$OPTARG ;;
	k) KIND=$OPTARG ;;
	o) OUT=$OPTARG ;;
	h) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "$(id -u)" -eq 0 ] || { echo "run-pktgen: needs root" >&2; exit 1; }
PKTGEN=${PKTGEN:-$(command -v pktgen || true)}
[ -n "$PKTGEN" ] && [ -x "$PKTGEN" ] ||
	{ echo "run-pktgen: no pktgen binary (PKTGEN=...); doc/pktgen.md says how to build it" >&2; exit 1; }
command -v tmux >/dev/null || { echo "run-pktgen: needs tmux (pktgen wants a terminal)" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

/usr/bin/python3 "$ACIS_ROOT/scripts/pktgen/acis_pcap.py" "$KIND" "$OUT/traffic.pcap" "$@"
sed "s/RATE/$RATE/" "$ACIS_ROOT/scripts/pktgen/acis.pkt" >"$OUT/acis.pkt"

SESSION=acis-pktgen-$$
SW_PID=''
cleanup() {
	tmux kill-session -t "$SESSION" 2>/dev/null || true
	if [ -n "$SW_PID" ]; then
		kill -INT "$SW_PID" 2>/dev/null || true
		wait "$SW_PID" 2>/dev/null || true
	fi
}
trap cleanup EXIT

# the switch: memif server on core 1
mem=$(acis_eal_mem_args)
# shellcheck disable=SC2086
"$ACIS_BUILD/app/acis-switch/acis-switch" -l "${ACIS_SW_LCORES:-1}" $mem \
	--file-prefix acispg$$ --no-pci -- \
	--pipeline "$ACIS_ROOT/pipelines/pktgen-memif.ini" >"$OUT/switch.log" 2>&1 &
SW_PID=$!
acis_wait_for 150 "$ACIS_BUILD/app/acisctl/acisctl" -f "acispg$$" info ||
	{ echo "run-pktgen: the switch did not come up:" >&2; cat "$OUT/switch.log" >&2; exit 1; }

# pktgen: its main lcore and its port lcore on core 0; memif clients of
# both sockets; port 0 replays the pcap (-s), port 1 receives
tmux new-session -d -s "$SESSION" -x 200 -y 60 \
	"$PKTGEN --lcores '0@0,1@0' --no-huge -m 2048 --file-prefix pg$$ --no-pci \
	 --vdev=net_memif0,role=client,id=0,socket=/run/acis-pktgen0.sock \
	 --vdev=net_memif1,role=client,id=0,socket=/run/acis-pktgen1.sock \
	 -- -P -m '1.[0-1]' -s 0:$OUT/traffic.pcap -f $OUT/acis.pkt; sleep 30"
sleep "$SECS"
tmux send-keys -t "$SESSION" "stop 0" Enter
sleep 1
tmux capture-pane -p -t "$SESSION" >"$OUT/pktgen-screen.txt" || true
{
	for c in ports stages drops /acis/collectives /acis/cgra; do
		echo "== $c"
		"$ACIS_BUILD/app/acisctl/acisctl" -f "acispg$$" "$c" || true
	done
} >"$OUT/counters.txt" 2>&1
tmux send-keys -t "$SESSION" "quit" Enter
acis_log "results in $OUT: counters.txt (the switch's count of what arrived is the number to trust), pktgen-screen.txt"

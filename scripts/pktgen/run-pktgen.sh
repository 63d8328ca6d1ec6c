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
#                                [-m MB] [-- acis_pcap.py options]
#
# KIND is an acis_pcap.py kind (default mix). DIR (default
# /tmp/acis-pktgen-DATE) gets the pcap, the command file, pktgen's output
# (pktgen.log) and last screen, the switch's log and counters. MB is
# pktgen's memory (default 4096: its pools for two memif ports need more
# than 2048). Fails, with pktgen's own words, when pktgen stops early or
# its ports never come up. Needs root.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

RATE=10 SECS=10 KIND=mix MEM=4096 OUT=/tmp/acis-pktgen-$(date +%Y%m%d-%H%M%S)
usage() { sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "run-pktgen: $*" >&2; exit 1; }
while getopts "r:d:k:o:m:h" o; do
	case $o in
	r) RATE=$OPTARG ;;
	d) SECS=$OPTARG ;;
	k) KIND=$OPTARG ;;
	o) OUT=$OPTARG ;;
	m) MEM=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $RATE =~ ^[0-9]+$ && $RATE -ge 1 && $RATE -le 100 ]] ||
	{ echo "run-pktgen: -r: expected a rate from 1 to 100 (%), found '$RATE'" >&2; exit 2; }
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 1 ]] ||
	{ echo "run-pktgen: -d: expected whole seconds from 1, found '$SECS'" >&2; exit 2; }
[[ $MEM =~ ^[0-9]+$ && $MEM -ge 512 ]] ||
	{ echo "run-pktgen: -m: expected megabytes from 512, found '$MEM'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "needs root"
PKTGEN=${PKTGEN:-$(command -v pktgen || true)}
[ -n "$PKTGEN" ] && [ -x "$PKTGEN" ] ||
	die "no pktgen binary (PKTGEN=...); doc/pktgen.md says how to build it"
command -v tmux >/dev/null || die "needs tmux (pktgen wants a terminal)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

/usr/bin/python3 "$ACIS_ROOT/scripts/pktgen/acis_pcap.py" "$KIND" "$OUT/traffic.pcap" "$@"
sed "s/RATE/$RATE/" "$ACIS_ROOT/scripts/pktgen/acis.pkt" >"$OUT/acis.pkt"

# this run's names: two runs at once do not meet
RUN=acispg$$
SESSION=$RUN
export ACIS_PKTGEN_DIR=/run/$RUN
mkdir -p "$ACIS_PKTGEN_DIR"
cleanup() {
	tmux kill-session -t "$SESSION" 2>/dev/null || true
	acis_switch_stop # and the files of its prefix
	acis_eal_files_remove "pg$$"
	rm -rf "$ACIS_PKTGEN_DIR"
}
trap cleanup EXIT
acisctl() { acis_ctl "$RUN" "$@"; }

# pktgen's output without the terminal's control sequences
pktgen_said() {
	sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1b[()][A-Z0-9]//g; s/\r//g' \
		"$OUT/pktgen.log" | grep -v '^[[:space:]]*$' || true
}
pktgen_died() {
	echo "run-pktgen: pktgen stopped${1:+ (exit status $1)}; what it said last:" >&2
	pktgen_said | tail -25 >&2
	echo "run-pktgen: all of it in $OUT/pktgen.log" >&2
	exit 1
}
pktgen_status() {
	tmux display-message -p -t "$SESSION" '#{pane_dead} #{pane_dead_status}' 2>/dev/null ||
		echo "1"
}

# the switch: memif server on core 1
mem=$(acis_eal_mem_args)
# shellcheck disable=SC2086
"$ACIS_BUILD/app/acis-switch/acis-switch" -l "${ACIS_SW_LCORES:-1}" $mem \
	--file-prefix "$RUN" --no-pci -- \
	--pipeline "$ACIS_ROOT/pipelines/pktgen-memif.ini" >"$OUT/switch.log" 2>&1 &
ACIS_SW_PID=$! ACIS_SW_PREFIX=$RUN
acis_wait_for 150 acisctl info || {
	echo "run-pktgen: the switch did not come up:" >&2
	cat "$OUT/switch.log" >&2
	exit 1
}

# pktgen: its main lcore and its port lcore on core 0; memif clients of
# both sockets; port 0 replays the pcap (-s), port 1 receives. The pane
# stays when pktgen exits, and everything it prints goes to pktgen.log.
tmux new-session -d -s "$SESSION" -x 200 -y 60 cat
tmux set-option -t "$SESSION" remain-on-exit on >/dev/null
tmux pipe-pane -t "$SESSION" -o "cat >>'$OUT/pktgen.log'"
tmux respawn-pane -k -t "$SESSION" \
	"$PKTGEN --lcores '0@0,1@0' --no-huge -m $MEM --file-prefix pg$$ --no-pci \
	 --vdev=net_memif0,role=client,id=0,socket=$ACIS_PKTGEN_DIR/acis-pktgen0.sock \
	 --vdev=net_memif1,role=client,id=0,socket=$ACIS_PKTGEN_DIR/acis-pktgen1.sock \
	 -- -P -m '1.[0-1]' -s 0:$OUT/traffic.pcap -f $OUT/acis.pkt"

# both memif links up: pktgen is connected and running
links_up() {
	acisctl --raw /acis/ports | /usr/bin/python3 -c '
import json, sys
ports = json.load(sys.stdin)["/acis/ports"]
sys.exit(0 if ports and all(p.get("link_up") for p in ports.values()) else 1)'
}
for ((i = 0; i < 300; i++)); do
	read -r dead status < <(pktgen_status)
	[ "$dead" = 1 ] && pktgen_died "$status"
	links_up && break
	sleep 0.1
done
links_up || {
	echo "run-pktgen: pktgen's memif ports did not come up in 30 s" >&2
	pktgen_said | tail -25 >&2
	exit 1
}
acis_log "pktgen is replaying $OUT/traffic.pcap at $RATE % for $SECS s"
for ((i = 0; i < SECS * 10; i++)); do
	read -r dead status < <(pktgen_status)
	[ "$dead" = 1 ] && pktgen_died "$status"
	sleep 0.1
done
tmux send-keys -t "$SESSION" "stop 0" Enter
sleep 1
tmux capture-pane -p -t "$SESSION" >"$OUT/pktgen-screen.txt" || true
{
	for c in ports stages drops /acis/collectives /acis/cgra; do
		echo "== $c"
		acisctl "$c" || true
	done
} >"$OUT/counters.txt" 2>&1
rx=$(acis_counter "$RUN" /acis/ports rx_pkts 2>/dev/null || echo 0)
tmux send-keys -t "$SESSION" "quit" Enter
# pktgen's own way out, its last words kept, before the session goes
for ((i = 0; i < 50; i++)); do
	read -r dead _ < <(pktgen_status)
	[ "$dead" = 1 ] && break
	sleep 0.1
done
[ "${rx:-0}" -gt 0 ] || die "the switch received nothing from pktgen (counters in $OUT/counters.txt)"
acis_log "the switch received $rx frames; results in $OUT: counters.txt (the switch's count of what arrived is the number to trust), pktgen-screen.txt, pktgen.log"

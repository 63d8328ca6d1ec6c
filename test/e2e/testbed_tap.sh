#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end on tap ports (net_tap): a port whose device verifies IPv4 and
# UDP checksums on receive. With rx_checksum on (the default) the switch
# takes the device's verdicts: collectives across four hosts come out right
# while every contribution's checksum is the port's "good", not verified
# again; frames the port found bad are verified in software and dropped,
# each counted where it failed. With rx_checksum off the switch verifies
# everything itself and the port's verdicts are not counted. Exit 77
# (skip) without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-tap.ini}
acis_e2e_begin tap tp$$

hx() { "$TB" exec -p "$PREFIX" "$@"; }
ports() { acis_ctl "$PREFIX" --raw /acis/ports; }
# port_field PORT KEY: one field of one port in /acis/ports
port_field() {
	ports | /usr/bin/python3 -c \
		"import json,sys; print(json.load(sys.stdin)['/acis/ports']['$1']['$2'])"
}
drops() { acis_counter "$PREFIX" /acis/drops "$1"; }

# bad_frames KIND N: N datagrams from h0 to the switch's ACiS port, the
# UDP checksum (KIND udp) or the IPv4 header checksum (KIND ipv4) wrong
bad_frames() {
	hx h0 /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
from scapy.all import Ether, IP, UDP, Raw, sendp
kind, n = sys.argv[1], int(sys.argv[2])
udp = UDP(sport=40000, dport=47000, chksum=0x1234) if kind == "udp" \
    else UDP(sport=40000, dport=47000)
ip = IP(src="10.77.0.10", dst="10.77.0.1", chksum=0x4321) \
    if kind == "ipv4" else IP(src="10.77.0.10", dst="10.77.0.1")
f = Ether(src="02:a0:00:00:00:0a", dst="02:ac:15:00:00:01") / ip / udp \
    / Raw(b"\x01" * 64)
sendp([f] * n, iface="eth0", verbose=0)
PY
}

# start_switch RX_CHECKSUM: the switch on tap ports, the taps into the hosts
start_switch() {
	"$TB" up -t -n 4 -p "$PREFIX" >/dev/null
	ACIS_RX_CHECKSUM=$1 acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"
	"$TB" tap -n 4 -p "$PREFIX"
	hx h0 ping -c 1 -W 2 -q 10.77.0.11 >/dev/null 2>&1 || true
}

stop_switch() {
	acis_switch_stop
	"$TB" down -p "$PREFIX" >/dev/null 2>&1 || true
}

# every_port_verifies WHAT: each port's rx_checksum in /acis/ports is WHAT
every_port_verifies() {
	local p
	for p in h0 h1 h2 h3; do
		check "$p verifies checksums: $1" \
			[ "$(port_field $p rx_checksum)" = "$1" ]
	done
}

# collectives NAME JOB acis-coll-check options...: 4 ranks, all right,
# and the switch drops nothing unexpected meanwhile (a tap's first frames,
# sent while it was still on its way to its host, are dropped before this)
collectives() {
	local name=$1 job=$2 ok=0 d0; shift 2
	d0=$(acis_unexpected_drops "$PREFIX")
	acis_run_ranks "$PREFIX" 4 "$job" "$DIR" --timeout 30000 "$@" || ok=1
	acis_rank_fails "$DIR" 4
	check "$name: $(tail -n 1 "$DIR/rank0.log")" [ "$ok" -eq 0 ]
	check "$name: nothing dropped unexpectedly" \
		[ "$(acis_unexpected_drops "$PREFIX")" -eq "$d0" ]
}

# drops_reach REASON N: whether the switch counts N drops for REASON
drops_reach() { [ "$(drops "$1")" -ge "$2" ]; }

# wait_drops REASON N: until the switch counts N drops for REASON
wait_drops() { acis_wait_for 20 drops_reach "$1" "$2" || true; }

# --- rx_checksum on: the port's verdicts --------------------------------
start_switch on
check "h0 pings h1 over tap ports" hx h0 ping -c 2 -i 0.2 -W 2 -q 10.77.0.11
every_port_verifies ipv4,udp
collectives "4 hosts, every collective, 4 B..1 MiB" 301 \
	--sizes 4,1000,65536,1048576 --dtypes float32,int32
for p in h0 h1 h2 h3; do
	good=$(port_field $p rx_csum_good)
	rx=$(port_field $p rx_pkts)
	check "$p: the port found $good of $rx frames' UDP checksum good (>= 1000), none bad" \
		bash -c "[ $good -ge 1000 ] && [ $(port_field $p rx_csum_bad) -eq 0 ]"
done

udp0=$(drops udp_bad_checksum) ip0=$(drops ipv4_bad_checksum)
bad0=$(port_field h0 rx_csum_bad)
bad_frames udp 5
bad_frames ipv4 3
wait_drops ipv4_bad_checksum $((ip0 + 3))
bad_h0=$(( $(port_field h0 rx_csum_bad) - bad0 ))
bad_udp=$(( $(drops udp_bad_checksum) - udp0 ))
what="5 frames with a bad UDP checksum: the port said bad, software agreed,"
check "$what dropped as udp_bad_checksum ($bad_h0 said bad, $bad_udp dropped)" \
	bash -c "[ $bad_h0 -eq 5 ] && [ $bad_udp -eq 5 ]"
check "3 frames with a bad IPv4 header checksum dropped as ipv4_bad_checksum" \
	[ $(( $(drops ipv4_bad_checksum) - ip0 )) -eq 3 ]
acis_wait_for 80 acis_slots_back "$PREFIX" 0 || true
check "no aggregation slot left open" acis_slots_back "$PREFIX" 0
stop_switch

# --- rx_checksum off: everything verified in software ---------------------
start_switch off
every_port_verifies software
collectives "4 hosts, every collective, verified in software" 302 \
	--sizes 4,65536 --dtypes float32
for p in h0 h1 h2 h3; do
	good=$(port_field $p rx_csum_good) bad=$(port_field $p rx_csum_bad)
	check "$p: no port verdict counted ($good good, $bad bad)" \
		bash -c "[ $good -eq 0 ] && [ $bad -eq 0 ]"
done
udp0=$(drops udp_bad_checksum)
bad_frames udp 4
wait_drops udp_bad_checksum $((udp0 + 4))
check "4 frames with a bad UDP checksum dropped in software" \
	[ $(( $(drops udp_bad_checksum) - udp0 )) -eq 4 ]
stop_switch

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

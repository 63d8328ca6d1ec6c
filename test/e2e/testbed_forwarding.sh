#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end on the namespace testbed: hosts ping each other and the switch
# through acis-switch, a UDP transfer arrives whole, and the switch's
# counters say what happened. Usage: testbed_forwarding.sh PIPELINE
# Exit 77 (skip) without root. Cleans up after itself, pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-af_packet.ini}
acis_e2e_begin fwd at$$

"$TB" up -n 4 -p "$PREFIX"
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

hx() { "$TB" exec -p "$PREFIX" "$@"; }

check "h0 pings h1 through the switch" hx h0 ping -c 3 -i 0.2 -W 2 -q 10.77.0.11
check "h3 pings h2 through the switch" hx h3 ping -c 3 -i 0.2 -W 2 -q 10.77.0.12
check "h1 pings the switch itself" hx h1 ping -c 3 -i 0.2 -W 2 -q 10.77.0.1
check "large ping (1472 B payload, unfragmented) crosses" \
	hx h0 ping -c 2 -s 1472 -M do -W 2 -q 10.77.0.13

hx h3 python3 "$ACIS_ROOT/scripts/udp_transfer.py" recv 9000 3000 20 >"$DIR/udp" &
rx=$!
sleep 0.5
hx h2 python3 "$ACIS_ROOT/scripts/udp_transfer.py" send 10.77.0.13 9000 3000 1472 >/dev/null
check "3000 UDP datagrams h2 -> h3 arrive intact" wait "$rx"
cat "$DIR/udp"

icmp=$(acis_counter "$PREFIX" /acis/stages local_icmp_replies)
arp=$(acis_counter "$PREFIX" /acis/stages local_arp_replies)
l2=$(acis_counter "$PREFIX" /acis/stages l2_forward)
learned=$(acis_counter "$PREFIX" /acis/l2 learned)
drops=$(acis_counter "$PREFIX" /acis/drops total)
check "switch answered 3 echo requests (got $icmp)" [ "$icmp" -eq 3 ]
check "switch answered ARP for itself (got $arp)" [ "$arp" -ge 1 ]
check "L2 stage forwarded the transfer (got $l2)" [ "$l2" -ge 3000 ]
check "all four hosts learned (got $learned)" [ "$learned" -ge 4 ]
check "nothing dropped (got $drops)" [ "$drops" -eq 0 ]
check "MAC table shows h0 learned on port h0" \
	bash -c "'$ACIS_BUILD/app/acisctl/acisctl' -f $PREFIX l2 | grep -q '02:a0:00:00:00:0a h0 learned'"
if grep -q '^dev *= *net_af_xdp' "$PIPELINE"; then
	# the kernel's counters of the ports' AF_XDP sockets: one socket a
	# port, and no descriptor refused (a buffer outside the UMEM)
	check "AF_XDP ports show their sockets' kernel counters, none refused" \
		bash -c "'$ACIS_BUILD/app/acisctl/acisctl' -f $PREFIX --raw /acis/ports |
		python3 -c '
import json, sys
ports = json.load(sys.stdin)[\"/acis/ports\"]
for name, p in ports.items():
    print(name, p[\"xsk_sockets\"], p[\"xsk_tx_invalid_descs\"],
          p[\"xsk_rx_invalid_descs\"], p[\"xsk_rx_dropped\"])
    assert p[\"xsk_sockets\"] == p[\"rx_queues\"], name
    assert p[\"xsk_tx_invalid_descs\"] == 0 and p[\"xsk_rx_invalid_descs\"] == 0, name
'"
fi
check "dpdk-telemetry.py lists /acis commands" \
	bash -c "echo / | dpdk-telemetry.py -f $PREFIX | grep -q /acis/ports"

acis_switch_stop
check "exit summary printed" grep -q "drops: total=" "$LOG"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

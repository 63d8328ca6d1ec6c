#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: proxying to attached FPGAs (pipelines/testbed-fpga.ini), the
# FPGAs emulated by net_acis_fpga.
#  - dot products sent by a host to the switch go to fpga0, which runs the
#    handler on resident rows; every answer equals plain C bit for bit and
#    the rule's counters add up (sent = returned, nothing outstanding or
#    lost; the switch's own machine never ran);
#  - UDP to port 48001 travels to fpga1 in the raw link framing and comes
#    back to its sender intact;
#  - with fpga0's link down the rule runs its own program (fallback),
#    answers still exact; link up again, the FPGA serves again;
#  - nothing else reaches the FPGA ports.
# Exit 77 (skip) without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

PIPELINE=${1:-$ACIS_ROOT/pipelines/testbed-fpga.ini}
acis_e2e_begin fpga fq$$
LA="$ACIS_BUILD/tools/acis-lookaside"

la_counter() { acis_counter "$PREFIX" "/acis/cgra,$1" "$2"; }

"$LA" prep dot --dir "$DIR" --vpe 4 --seed 5 >/dev/null
export ACIS_ROOT ACIS_FPGA_DIR=$DIR
"$TB" up -n 4 -p "$PREFIX" >/dev/null
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"

out=$(ip netns exec "$PREFIX-h0" "$LA" run dot --to 10.77.0.1:48000 --vpe 4 \
	--seed 5 --count 300 --len 333 2>&1) && rc=0 || rc=1
check "dot products through the attached FPGA: $(tail -1 <<<"$out")" [ "$rc" -eq 0 ]
check "proxy counters: 300 sent, 300 returned, none outstanding or lost ($(la_counter dot fpga_sent)/$(la_counter dot fpga_returned)/$(la_counter dot fpga_outstanding)/$(la_counter dot fpga_lost))" \
	[ "$(la_counter dot fpga_sent)" -eq 300 -a "$(la_counter dot fpga_returned)" -eq 300 \
	  -a "$(la_counter dot fpga_outstanding)" -eq 0 -a "$(la_counter dot fpga_lost)" -eq 0 ]
check "the switch's own machine did not run (the FPGA did)" [ "$(la_counter dot runs)" -eq 0 ]

# fpga0's link goes down: the rule falls back to its own program, and
# the answers are still exact; back up, the FPGA serves again.
acis_ctl "$PREFIX" port-link fpga0,down >/dev/null
acis_wait_for 30 bash -c "$ACIS_BUILD/app/acisctl/acisctl -f $PREFIX --raw /acis/cgra,dot | grep -q '\"fpga_link\": *\"down\"'" || true
out=$(ip netns exec "$PREFIX-h1" "$LA" run dot --to 10.77.0.1:48000 --vpe 4 \
	--seed 5 --count 100 --len 333 2>&1) && rc=0 || rc=1
check "FPGA link down, fallback = local: $(tail -1 <<<"$out")" [ "$rc" -eq 0 ]
check "fallback counted, the switch's machine ran ($(la_counter dot fpga_fallback) fallbacks, $(la_counter dot runs) runs)" \
	[ "$(la_counter dot fpga_fallback)" -eq 100 -a "$(la_counter dot runs)" -eq 100 ]
acis_ctl "$PREFIX" port-link fpga0,up >/dev/null
acis_wait_for 30 bash -c "$ACIS_BUILD/app/acisctl/acisctl -f $PREFIX --raw /acis/cgra,dot | grep -q '\"fpga_link\": *\"up\"'" || true
out=$(ip netns exec "$PREFIX-h1" "$LA" run dot --to 10.77.0.1:48000 --vpe 4 \
	--seed 5 --count 50 --len 100 2>&1) && rc=0 || rc=1
check "FPGA link up again, served by the FPGA: $(tail -1 <<<"$out")" \
	[ "$rc" -eq 0 -a "$(la_counter dot fpga_returned)" -eq 350 ]

# Link framing to fpga1 (loopback): each datagram comes back intact.
cat >"$DIR/echo.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
ok = 0
for i in range(200):
    msg = (b"echo-%05d-" % i) * (1 + i % 40)
    s.sendto(msg, ("10.77.0.1", 48001))
    data, src = s.recvfrom(65535)
    ok += data == msg and src == ("10.77.0.1", 48001)
print(f"{ok}/200 echoed intact")
sys.exit(0 if ok == 200 else 1)
PY
out=$(ip netns exec "$PREFIX-h2" /usr/bin/python3 "$DIR/echo.py" 2>&1) && rc=0 || rc=1
check "raw link framing through fpga1: $out" [ "$rc" -eq 0 ]
check "link-framed requests all answered ($(la_counter echo fpga_returned) of $(la_counter echo fpga_sent), bad $(la_counter echo fpga_link_bad))" \
	[ "$(la_counter echo fpga_returned)" -eq 200 -a "$(la_counter echo fpga_sent)" -eq 200 \
	  -a "$(la_counter echo fpga_link_bad)" -eq 0 ]

# Nothing but the rules' requests went to the FPGA ports (ARP, pings and
# L2 flooding stay away: the ports' tx counters equal what was proxied).
ip netns exec "$PREFIX-h1" ping -c 3 -W 1 10.77.0.13 >/dev/null 2>&1 || true
tx0=$(acis_ctl "$PREFIX" --raw ports | grep -o '"fpga0": *{[^}]*' | grep -o '"tx_pkts": *[0-9]*' | grep -o '[0-9]*$')
tx1=$(acis_ctl "$PREFIX" --raw ports | grep -o '"fpga1": *{[^}]*' | grep -o '"tx_pkts": *[0-9]*' | grep -o '[0-9]*$')
check "the FPGA ports carried only proxied requests (fpga0 tx $tx0, fpga1 tx $tx1)" \
	[ "${tx0:-x}" = 350 -a "${tx1:-x}" = 200 ]

# Every request the cards got came back: none lost, none outstanding, in
# both framings (telemetry's outstanding is sent - returned - lost).
all_back() {
	[ "$(la_counter "$1" fpga_sent)" -eq "$(la_counter "$1" fpga_returned)" ] &&
	[ "$(la_counter "$1" fpga_lost)" -eq 0 ] &&
	[ "$(la_counter "$1" fpga_outstanding)" -eq 0 ]
}
check "every request sent came back, none lost or outstanding (udp framing)" \
	all_back dot
check "every request sent came back, none lost or outstanding (link framing)" \
	all_back echo

acis_ctl "$PREFIX" cgra stats dot | grep -E 'fpga_|"runs"' | sed 's/^/    /'
acis_switch_stop
echo "# $passes passed, $fails failed"
[ "$fails" -eq 0 ]

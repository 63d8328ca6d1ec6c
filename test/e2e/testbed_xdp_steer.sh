#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: XDP steering on ports the switch shares with the kernel.
# The switch namespace's kernel holds an address (10.77.0.2) on sw0, the
# same veth the switch attaches to through net_af_xdp with our XDP program
# (xdp_prog=acis_steer.bpf.o). Shown: the kernel keeps answering ping to
# its address; once the program is configured (acis-xdp-steer, what the
# switch does itself for xdp_steer ports), ARP and ping for the switch's
# address and ACiS traffic (a real collective between h0 and h1) reach the
# switch; frames between hosts stay with the kernel; what the program sent
# up is exactly what the switch received; on exit the program is gone.
# Then the same through the pipeline key xdp_steer = on.
# Usage: testbed_xdp_steer.sh. Exit 77 (skip) without root. Cleans up
# after itself, pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

acis_e2e_begin xdp_steer xs$$
STEER="$ACIS_BUILD/bpf/acis-xdp-steer"
OBJ=${ACIS_XDP_STEER_OBJ:-$ACIS_BUILD/bpf/acis_steer.bpf.o}
SW_IP=10.77.0.1
SW_MAC=02:ac:15:00:00:01
KERNEL_IP=10.77.0.2

[ -r "$OBJ" ] || { echo "FAIL - no XDP object $OBJ (build first)"; exit 1; }

sx() { ip netns exec "$PREFIX-sw" "$@"; }
hx() { "$TB" exec -p "$PREFIX" "$@"; }
# One counter of the XDP program on an interface: xdp_cnt IF NAME
xdp_cnt() { sx "$STEER" "$1" --stats | awk -v k="$2" '$1 == k {print $2}'; }
# rx_pkts + eth_imissed of a switch port: what reached the switch
port_in() {
	acis_ctl "$PREFIX" --raw /acis/ports | python3 -c '
import json, sys
p = json.load(sys.stdin)["/acis/ports"][sys.argv[1]]
print(p["rx_pkts"] + p["eth_imissed"])' "$1"
}
attached() { sx ip link show "$1" | grep -q "prog/xdp"; }
# The interface is there and has no XDP program.
detached() {
	local out
	out=$(sx ip link show "$1") || return 1
	! grep -q "prog/xdp" <<<"$out"
}
# to_kernel DEST: a ping from h0 to DEST goes unanswered because its frames
# went to the kernel: sw0's program passed frames up to the kernel and the
# switch received nothing on either port.
to_kernel() {
	local k0 k1 in0 in1
	k0=$(xdp_cnt sw0 kernel); in0="$(port_in h0) $(port_in h1)"
	if hx h0 ping -c 1 -W 1 -q "$1" >/dev/null 2>&1; then
		echo "  $1 answered"; return 1
	fi
	sleep 0.2   # let the switch poll what may be in its rings
	k1=$(xdp_cnt sw0 kernel); in1="$(port_in h0) $(port_in h1)"
	echo "  sw0 to the kernel: ${k0:-?} -> ${k1:-?}; the switch received: $in0 -> $in1"
	[[ $in0 =~ ^[0-9]+\ [0-9]+$ ]] && [ "$in1" = "$in0" ] &&
		[ "${k1:-0}" -gt "${k0:-0}" ]
}

cat >"$DIR/pipeline.ini" <<EOF
[switch]
name = xdp-steer
mac = $SW_MAC
ip = $SW_IP
[port h0]
dev = net_af_xdp0,iface=sw0,xdp_prog=$OBJ
[port h1]
dev = net_af_xdp1,iface=sw1,xdp_prog=$OBJ
EOF

"$TB" up -n 2 -p "$PREFIX"
sx ip addr add "$KERNEL_IP/24" dev sw0
acis_switch_start "$PREFIX" "$DIR/pipeline.ini" "$DIR/switch.log"

check "acis_steer is attached to sw0" attached sw0
check "acis_steer is attached to sw1" attached sw1
check "the kernel answers ping to its address on the switch's port" \
	hx h0 ping -c 3 -i 0.2 -W 2 -q "$KERNEL_IP"
check "unconfigured, ARP for the switch's address stays with the kernel" \
	to_kernel "$SW_IP"
for i in 0 1; do
	sx "$STEER" "sw$i" --port 47000 --ip "$SW_IP" --mac "$SW_MAC"
done
check "configured, the switch answers ping to its address" \
	hx h0 ping -c 3 -i 0.2 -W 2 -q "$SW_IP"
check "an allreduce and a bcast between h0 and h1 through the shared ports" \
	acis_run_ranks "$PREFIX" 2 11 "$DIR" --sizes 4,4096 \
	--colls allreduce,bcast
check "the kernel still answers ping to its address" \
	hx h0 ping -c 3 -i 0.2 -W 2 -q "$KERNEL_IP"
check "ping between hosts goes to the kernel, not through the switch" \
	to_kernel 10.77.0.11
sleep 0.5   # let the switch poll what is in its rings

sx "$STEER" sw0 --stats | sed 's/^/  sw0 /'
udp0=$(xdp_cnt sw0 udp); udp1=$(xdp_cnt sw1 udp)
arp0=$(xdp_cnt sw0 arp); ip0=$(xdp_cnt sw0 ipv4); mac0=$(xdp_cnt sw0 mac)
kern0=$(xdp_cnt sw0 kernel); nosock=$(( $(xdp_cnt sw0 no_socket) + $(xdp_cnt sw1 no_socket) ))
coll=$(acis_counter "$PREFIX" /acis/stages collective)
icmp=$(acis_counter "$PREFIX" /acis/stages local_icmp_replies)
in0=$(port_in h0); in1=$(port_in h1)
steered0=$((udp0 + arp0 + ip0 + mac0))
steered1=$(( $(xdp_cnt sw1 udp) + $(xdp_cnt sw1 arp) + $(xdp_cnt sw1 ipv4) + $(xdp_cnt sw1 mac) ))
check "ACiS UDP went up on both ports (sw0 $udp0, sw1 $udp1)" \
	[ "$udp0" -gt 0 -a "$udp1" -gt 0 ]
check "the switch's collective stage saw them ($coll)" [ "$coll" -ge "$((udp0 + udp1))" ]
check "ARP for the switch went up ($arp0)" [ "$arp0" -ge 1 ]
# (a request the unconfigured ping left queued behind its ARP may follow)
check "the echo requests to the switch went up ($ip0) and were answered ($icmp)" \
	[ "$ip0" -ge 3 -a "$icmp" -eq "$ip0" ]
check "the kernel got the rest: 6 pings, their ARP, the host-to-host ping ($kern0)" \
	[ "$kern0" -ge 8 ]
check "every queue had its AF_XDP socket (no_socket $nosock)" [ "$nosock" -eq 0 ]
check "the switch received exactly what sw0 sent up ($in0 = $steered0)" \
	[ "$in0" -eq "$steered0" ]
check "the switch received exactly what sw1 sent up ($in1 = $steered1)" \
	[ "$in1" -eq "$steered1" ]

acis_switch_stop
check "the program is detached when the switch exits" detached sw0
check "the kernel answers ping to its address after the switch left" \
	hx h0 ping -c 1 -W 2 -q "$KERNEL_IP"
# says_err WANT CMD...: the command fails and its message says WANT
says_err() {
	local want=$1 out; shift
	if out=$("$@" 2>&1); then return 1; fi
	grep -q "$want" <<<"$out" || { echo "  said: $out"; return 1; }
}
check "acis-xdp-steer names a missing interface" \
	says_err "no such interface" sx "$STEER" nosuch0 --stats
check "acis-xdp-steer says when no program is attached" \
	says_err "no XDP program attached" sx "$STEER" sw0 --port 47000

# The same through the pipeline: xdp_steer = on loads the program and the
# switch configures it itself once the port has started.
cat >"$DIR/steer.ini" <<EOF
[switch]
name = xdp-steer-key
mac = $SW_MAC
ip = $SW_IP
[port h0]
dev = net_af_xdp0,iface=sw0
xdp_steer = on
[port h1]
dev = net_af_xdp1,iface=sw1
xdp_steer = on
EOF
acis_switch_start "$PREFIX" "$DIR/steer.ini" "$DIR/switch.log"
check "xdp_steer = on: the program is attached" attached sw0
check "xdp_steer = on: the switch answers ping to its address" \
	hx h0 ping -c 3 -i 0.2 -W 2 -q "$SW_IP"
check "xdp_steer = on: the kernel answers ping to its address" \
	hx h0 ping -c 3 -i 0.2 -W 2 -q "$KERNEL_IP"
check "xdp_steer = on: an allreduce between h0 and h1" \
	acis_run_ranks "$PREFIX" 2 12 "$DIR" --sizes 4,4096 --colls allreduce
udp0=$(xdp_cnt sw0 udp); ip0=$(xdp_cnt sw0 ipv4)
check "xdp_steer = on: the switch set the program up (udp $udp0, ipv4 $ip0)" \
	[ "$udp0" -gt 0 -a "$ip0" -ge 3 ]
acis_switch_stop
check "xdp_steer = on: the program is detached when the switch exits" \
	detached sw0

[ "$fails" -eq 0 ] || { echo "switch log:"; cat "$DIR/switch.log"; }
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

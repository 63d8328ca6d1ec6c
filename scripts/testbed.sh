#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The emulated testbed: a switch namespace and N host namespaces, each host
# joined to the switch namespace by a veth pair. acis-switch runs in the
# switch namespace and attaches to sw0..swN-1 with AF_PACKET or AF_XDP.
#
#   scripts/testbed.sh up   [-n HOSTS] [-p PREFIX] [-m MTU] [-t] [-b] [-M]
#   scripts/testbed.sh tap  [-n HOSTS] [-p PREFIX]
#   scripts/testbed.sh down [-p PREFIX]
#   scripts/testbed.sh exec [-p PREFIX] sw|br|hI COMMAND...
#   scripts/testbed.sh status [-p PREFIX]
#   scripts/testbed.sh fabric up TOPOLOGY|start|stop|ctl|exec|status|links|down ...
#
# fabric builds a testbed of many switches from a topology file
# (topologies/*.ini): the same as scripts/fabric.sh, which documents it.
#
# Host i: namespace PREFIX-hI, interface eth0, MAC 02:a0:00:00:00:(10+i),
# IPv4 10.77.0.(10+i)/24. The switch is 10.77.0.1 (in its pipeline file).
#
# With -b each host also gets eth1, MAC 02:a0:00:00:02:(10+i), IPv4
# 10.77.2.(10+i)/24, a veth whose peer is a port of the Linux bridge br0
# in namespace PREFIX-br: the hosts joined by the kernel's own bridge, as
# a user would join them without acis-switch (the benchmarks' baseline;
# scripts/lib.sh's acis_bridge_*, shared with fabric.sh -b). Same MTU as
# eth0, the kernel's default offloads (nothing of ours reads that path).
# "down" deletes PREFIX-br too.
#
# With -M the folder of the switch's memif sockets, $ACIS_MEMIF_DIR
# (default /run/acis-memif), is made, and what a host process sets to use
# its memif port (libacis's kernel-bypass transport, doc/transports.md)
# is printed; the switch then runs pipelines/testbed-memif.ini.
#
# With -t the hosts get no veth: the switch's ports are net_tap devices
# tap0..tapN-1, which it creates in its namespace when it starts, and
# "tap" then moves each into its host as eth0 (the switch keeps reading
# and writing it: a port whose device verifies checksums on receive).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

cmd=${1:-}
[ -n "$cmd" ] && shift
if [ "$cmd" = fabric ]; then
	exec "$(dirname "$0")/fabric.sh" "$@"
fi
prefix=acis
hosts=4
mtu=1500
tap=0
bridge=0
memif=0
while getopts "n:p:m:tbM" o; do
	case $o in
	n) hosts=$OPTARG ;;
	p) prefix=$OPTARG ;;
	m) mtu=$OPTARG ;;
	t) tap=1 ;;
	b) bridge=1 ;;
	M) memif=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

die() { echo "testbed: $*" >&2; exit 1; }

host_ip() { echo "10.77.0.$((10 + $1))"; }
host_mac() { printf '02:a0:00:00:00:%02x' $((10 + $1)); }

up() {
	[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
	[ "$hosts" -ge 1 ] && [ "$hosts" -le 200 ] || die "-n: 1 to 200 hosts"
	ip netns list | grep -q "^$prefix-sw\b" && die "$prefix-sw exists; run: $0 down -p $prefix"
	[ "$bridge" -eq 0 ] || ! ip netns list | grep -q "^$prefix-br\b" ||
		die "$prefix-br exists; run: $0 down -p $prefix"
	ip netns add "$prefix-sw"
	ip -n "$prefix-sw" link set lo up
	[ "$bridge" -eq 0 ] || acis_bridge_up "$prefix" "$mtu"
	for ((i = 0; i < hosts; i++)); do
		local ns="$prefix-h$i"
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		if [ "$tap" -eq 1 ]; then
			[ "$bridge" -eq 0 ] || acis_bridge_host "$prefix" "$ns" "$i" "$mtu"
			continue
		fi
		acis_host_veth "$ns" eth0 "$(host_mac "$i")" "$(host_ip "$i")" \
			"$mtu" "$prefix-v$i" "sw$i" "$prefix-sw"
		acis_tame "$ns" eth0
		acis_tame "$prefix-sw" "sw$i"
		[ "$bridge" -eq 0 ] || acis_bridge_host "$prefix" "$ns" "$i" "$mtu"
	done
	echo "testbed $prefix: switch namespace $prefix-sw, $hosts hosts ($(host_ip 0)..$(host_ip $((hosts - 1))))"
	[ "$memif" -eq 0 ] || memif_up
	[ "$bridge" -eq 0 ] ||
		echo "testbed $prefix: bridge br0 in $prefix-br ($(acis_bridge_ip 0)..$(acis_bridge_ip $((hosts - 1))) on the hosts' eth1)"
}

# The memif sockets' folder (-M), and the environment of host I's
# memif port: the one scripts/lib.sh's acis_host_env gives the tests.
memif_up() {
	local dir=${ACIS_MEMIF_DIR:-/run/acis-memif}
	mkdir -p "$dir"
	echo "testbed $prefix: memif sockets in $dir (switch: pipelines/testbed-memif.ini); host I's processes set"
	echo "  ACIS_TRANSPORT=dpdk ACIS_BIND=10.77.0.(10+I) ACIS_DPDK_PORT=net_memif0,role=client,id=0,socket=$dir/hI.sock,socket-abstract=no"
	echo "  (id=1 for a second process on the same host)"
}

# The switch's tap devices into the hosts (after the switch started).
tap_hosts() {
	local i ns
	for ((i = 0; i < hosts; i++)); do
		ns="$prefix-h$i"
		ip -n "$prefix-sw" link show "tap$i" >/dev/null 2>&1 ||
			die "no tap$i in $prefix-sw (is the switch running with net_tap ports?)"
		ip -n "$prefix-sw" link set "tap$i" netns "$ns"
		ip -n "$ns" link set "tap$i" name eth0
		ip -n "$ns" link set eth0 address "$(host_mac "$i")"
		ip -n "$ns" addr add "$(host_ip "$i")/24" dev eth0
		ip -n "$ns" link set eth0 up
		acis_tame "$ns" eth0
	done
}

down() {
	# shellcheck disable=SC2046
	acis_netns_remove $(ip netns list | awk '{print $1}' |
		grep -E "^$prefix-(sw|br|h[0-9]+)$" || true)
}

case $cmd in
up) up ;;
tap) tap_hosts ;;
down) down ;;
exec)
	[ $# -ge 2 ] || die "usage: $0 exec [-p PREFIX] sw|br|hI COMMAND..."
	node=$1; shift
	exec ip netns exec "$prefix-$node" "$@" ;;
status)
	ip netns list | grep -E "^$prefix-" || echo "testbed $prefix: down"
	if ip netns list | grep -q "^$prefix-br\b"; then
		echo "$prefix-br: br0 ports $(ip -n "$prefix-br" -o link show master br0 |
			awk -F': ' '{sub(/@.*/, "", $2); printf "%s ", $2}')"
	fi ;;
*) echo "usage: $0 up|tap|down|exec|status|fabric [-n HOSTS] [-p PREFIX] [-m MTU] [-t] [-b] [-M]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The fabric testbed: a fabric of acis switches built from one topology
# file (topologies/*.ini, doc/fabric.md), one acis-switch process per
# switch (placement process), its hosts as network namespaces.
#
#   scripts/fabric.sh up     TOPOLOGY [-p PREFIX] [-m MTU]
#   scripts/fabric.sh start  [-p PREFIX] [SWITCH...]
#   scripts/fabric.sh stop   [-p PREFIX] [SWITCH...]
#   scripts/fabric.sh ctl    [-p PREFIX] SWITCH ACISCTL-COMMAND...
#   scripts/fabric.sh exec   [-p PREFIX] SWITCH|HOST COMMAND...
#   scripts/fabric.sh status [-p PREFIX]
#   scripts/fabric.sh links  [-p PREFIX]
#   scripts/fabric.sh down   [-p PREFIX]
#
# up makes a namespace PREFIX-SWITCH per switch and PREFIX-HOST per host.
# Host i of the file (in its order) has interface eth0, MAC
# 02:a0:00:00:00:(10+i) and IPv4 10.77.0.(10+i)/24, as on the one-switch
# testbed (scripts/testbed.sh), joined by a veth to interface pN of its
# switch's namespace. start writes each switch's pipeline file
# (acis-fabric pipeline) and starts the switches in the file's order, on
# EAL file prefix PREFIX-SWITCH (what acisctl -f takes), their logs and
# pipelines in /run/acis-fabric/PREFIX; links are net_memif pairs whose
# sockets live there too. Switch k answers on 10.77.0.(200+k) unless the
# file gives it an address. links shows every fabric link's frames and
# bytes each way (the TX counters of both ends' ports). stop ends them (SIGINT: they print their
# counters), down ends them and removes the namespaces and files.
#
# Environment: ACIS_BUILD (the build folder), ACIS_SW_IDLE_SLEEP (each
# switch's --idle-sleep, default 50 us), ACIS_MTU, ACIS_MBUFS and
# ACIS_FOLD (off: no folding in the tree, the unicast baseline) as in the
# generated pipelines; ACIS_NOFOLD="SWITCH ..." starts those switches
# with fold = off, the others as ACIS_FOLD says.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

cmd=${1:-}
[ -n "$cmd" ] && shift
topo=
if [ "$cmd" = up ] && [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
	topo=$1; shift
fi
prefix=acisf
mtu=1500
while getopts "p:m:" o; do
	case $o in
	p) prefix=$OPTARG ;;
	m) mtu=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

die() { echo "fabric: $*" >&2; exit 1; }
# PREFIX-vI names a host's veth before it moves: an interface name
[ ${#prefix} -le 10 ] && [[ $prefix =~ ^[A-Za-z0-9_-]+$ ]] ||
	die "-p $prefix: letters, digits, '-' and '_', at most 10"

FAB=$ACIS_BUILD/tools/acis-fabric
CTL=$ACIS_BUILD/app/acisctl/acisctl
SW=$ACIS_BUILD/app/acis-switch/acis-switch
state=/run/acis-fabric/$prefix

# The topology's listing (acis-fabric list), kept by up.
listing() {
	[ -f "$state/list" ] || die "no fabric $prefix (run: $0 up TOPOLOGY -p $prefix)"
	cat "$state/list"
}
switches() { listing | awk '$1 == "switch" {print $2}'; }

up() {
	local name sw port i=0 ns kind
	[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
	[ -n "$topo" ] || die "usage: $0 up TOPOLOGY [-p PREFIX] [-m MTU]"
	[ -x "$FAB" ] || die "no $FAB (build first: make build)"
	[ ! -e "$state" ] || die "fabric $prefix exists; run: $0 down -p $prefix"
	mkdir -p "$state/memif"
	if ! "$FAB" list "$topo" >"$state/list.new"; then
		rm -rf "$state"
		exit 1
	fi
	mv "$state/list.new" "$state/list"
	cp "$topo" "$state/topology.ini"
	while read -r kind name _; do
		[ "$kind" = switch ] || continue
		ns="$prefix-$name"
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	done <"$state/list"
	while read -r kind name sw port; do
		[ "$kind" = host ] || continue
		ns="$prefix-$name"
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip link add "$prefix-v$i" mtu "$mtu" type veth peer name "$port" \
			mtu "$mtu" netns "$prefix-$sw"
		ip link set "$prefix-v$i" netns "$ns"
		ip -n "$ns" link set "$prefix-v$i" name eth0
		ip -n "$ns" link set eth0 address "$(printf '02:a0:00:00:00:%02x' $((10 + i)))"
		ip -n "$ns" addr add "10.77.0.$((10 + i))/24" dev eth0
		ip -n "$ns" link set eth0 up
		ip -n "$prefix-$sw" link set "$port" up
		acis_tame "$ns" eth0
		acis_tame "$prefix-$sw" "$port"
		i=$((i + 1))
	done <"$state/list"
	echo "fabric $prefix: $(switches | wc -l) switches ($(switches | tr '\n' ' ')), $i hosts (10.77.0.10..10.77.0.$((9 + i)))"
}

# start_one NAME INDEX: its pipeline, the process, its telemetry up
start_one() {
	local name=$1 k=$2 lcore mem pid
	[ -f "$state/$name.pid" ] && kill -0 "$(cat "$state/$name.pid")" 2>/dev/null &&
		die "switch $name is running (pid $(cat "$state/$name.pid"))"
	"$FAB" pipeline "$state/topology.ini" "$name" >"$state/$name.ini"
	# spread the switches over the machine's cores
	lcore=$((k % $(nproc)))
	mem=$(acis_eal_mem_args)
	local fold=${ACIS_FOLD:-on}
	[[ " ${ACIS_NOFOLD:-} " == *" $name "* ]] && fold=off
	# shellcheck disable=SC2086
	ACIS_MEMIF_DIR=$state/memif ACIS_MTU=${ACIS_MTU:-$mtu} ACIS_FOLD=$fold \
	ip netns exec "$prefix-$name" "$SW" -l "$lcore" $mem \
		--file-prefix "$prefix-$name" --no-pci --log-level=warning -- \
		--pipeline "$state/$name.ini" \
		--idle-sleep "${ACIS_SW_IDLE_SLEEP:-50}" >"$state/$name.log" 2>&1 &
	pid=$!
	echo "$pid" >"$state/$name.pid"
	if ! acis_wait_for 150 "$CTL" -f "$prefix-$name" info; then
		echo "fabric: switch $name did not come up; its log:" >&2
		cat "$state/$name.log" >&2
		return 1
	fi
}

# Every port of a running switch with its link up (the memif links
# connect once both ends run).
links_up() {
	! "$CTL" -f "$prefix-$1" --raw /acis/ports | grep -q '"link_up": *0'
}

start() {
	local k=0 name want=("$@")
	for name in $(switches); do
		if [ ${#want[@]} -eq 0 ] || [[ " ${want[*]} " == *" $name "* ]]; then
			start_one "$name" "$k"
		fi
		k=$((k + 1))
	done
	for name in $(switches); do
		[ -f "$state/$name.pid" ] || continue
		acis_wait_for 100 links_up "$name" ||
			acis_warn "switch $name: some link still down ($CTL -f $prefix-$name ports)"
	done
	echo "fabric $prefix: switches running; acisctl -f $prefix-SWITCH reaches each"
}

# stop_one NAME: SIGINT, wait, its EAL files gone
stop_one() {
	local name=$1 pid
	[ -f "$state/$name.pid" ] || return 0
	pid=$(cat "$state/$name.pid")
	rm -f "$state/$name.pid"
	acis_switch_stop_pid "$pid" "$prefix-$name"
}

stop() {
	local name
	if [ $# -gt 0 ]; then
		for name; do stop_one "$name"; done
		return 0
	fi
	# the reverse of the start order: clients before their servers
	for name in $(switches | tac); do stop_one "$name"; done
}

down() {
	local ns pid kind name
	if [ -f "$state/list" ]; then
		stop
		while read -r kind name _; do
			[ "$kind" = switch ] || [ "$kind" = host ] || continue
			ns="$prefix-$name"
			ip netns list | grep -q "^$ns\b" || continue
			# what is left in our namespaces was started by the
			# fabric's users (host programs): end it first
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill "$pid" 2>/dev/null || true
			done
			ip netns delete "$ns" 2>/dev/null || true
		done <"$state/list"
	fi
	rm -rf "$state"
}

status() {
	local name pid
	for name in $(switches); do
		pid=$(cat "$state/$name.pid" 2>/dev/null || true)
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			echo "$name: running, pid $pid, $("$CTL" -f "$prefix-$name" --raw /acis/info |
				sed -n 's/.*"ip": *"\([^"]*\)".*/\1/p'), acisctl -f $prefix-$name"
		else
			echo "$name: stopped"
		fi
	done
}

# Every link's traffic each way, from both ends' port counters.
links() {
	local a pa b pb
	printf '%-24s %14s %16s %14s %16s\n' link "frames a->b" "bytes a->b" \
		"frames b->a" "bytes b->a"
	while read -r _ a pa b pb; do
		printf '%-24s %14s %16s %14s %16s\n' "$a:$pa-$b:$pb" \
			$(port_tx "$a" "$pa") $(port_tx "$b" "$pb")
	done < <(listing | awk '$1 == "link"')
}
# port_tx SWITCH PORT: "frames bytes" it sent on the port (- - if down)
port_tx() {
	"$CTL" -f "$prefix-$1" --raw /acis/ports 2>/dev/null | python3 -c "
import json, sys
try:
    p = json.load(sys.stdin)['/acis/ports']['$2']
    print(p['tx_pkts'], p['tx_bytes'])
except Exception:
    print('- -')"
}

case $cmd in
up) up ;;
links) links ;;
start) start "$@" ;;
stop) stop "$@" ;;
down) down ;;
ctl)
	[ $# -ge 2 ] || die "usage: $0 ctl [-p PREFIX] SWITCH COMMAND..."
	name=$1; shift
	exec "$CTL" -f "$prefix-$name" "$@" ;;
exec)
	[ $# -ge 2 ] || die "usage: $0 exec [-p PREFIX] SWITCH|HOST COMMAND..."
	node=$1; shift
	exec ip netns exec "$prefix-$node" "$@" ;;
status) status ;;
*) echo "usage: $0 up TOPOLOGY|start|stop|ctl|exec|status|links|down [-p PREFIX] [-m MTU]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: a torus of logical switches routing host to host frames
# hop by hop (doc/torus.md). acis-fabric torus 4x4x4 hosts=21 (64
# switches, a host on every third) under each routing algorithm
# (ACIS_TORUS_ROUTING: dor, o1turn, rmr, rlb, ccar), and a 4x4 mesh
# under dor: h0 pings every other host; every ping answers; the frames
# delivered took on average exactly the minimal distances between h0's
# switch and the others' (computed here from the switches' coords) under
# the minimal algorithms, and at least them under rlb (the hosts' ARP
# entries fixed, so each pair exchanges the same frames); no switch refused
# a route for an illegal turn or failed to read a torus header; under
# dor on the torus some frames crossed a ring's wrap link. Every switch
# a router with buffers (slots = 8, oldest first) on the torus: each
# frame routed on was granted once, none overran an input, no watchdog
# fired, credit frames flowed, nothing is left queued; a link taken down
# under traffic makes its router's watchdog report and recover; a link
# with its own slots and arbitration has them at both ends; the mesh
# runs without (slots = 0), frames sent at once.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

acis_e2e_begin torus to$$
FABRIC="$ACIS_ROOT/scripts/fabric.sh"
FAB="$ACIS_BUILD/tools/acis-fabric"

e2e_teardown() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}

# totals TOPOLOGY: every switch's /acis/torus summed, "key value" lines
totals() {
	local s
	for s in $("$FAB" list "$1" | awk '$1 == "switch" {print $2}'); do
		"$FABRIC" ctl -p "$PREFIX" "$s" --raw /acis/torus
		echo
	done | python3 -c '
import json, sys
t = {}
for line in sys.stdin:
    if line.strip():
        for k, v in json.loads(line)["/acis/torus"].items():
            if isinstance(v, int):
                t[k] = t.get(k, 0) + v
for k, v in sorted(t.items()):
    print(k, v)'
}

# mean_distance TOPOLOGY HOSTS: the mean minimal hops from h0's switch to
# each other host's, from the coords in the file (torus: around the ring)
mean_distance() {
	python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(sys.argv[2])
mesh = re.search(r"^mesh = (\S+)", text, re.M)
dims = [int(k) for k in (mesh or re.search(r"^torus = (\S+)", text, re.M)).group(1).split("x")]
coord = dict(re.findall(r"\[switch (\S+)\]\nports = \d+\ncoord = (\S+)", text))
hosts = dict(re.findall(r"^(h\d+) = (\S+):p0$", text, re.M))
def dist(a, b):
    a, b = [int(x) for x in coord[a].split(",")], [int(x) for x in coord[b].split(",")]
    return sum(abs(x - y) if mesh else min(abs(x - y), k - abs(x - y))
               for x, y, k in zip(a, b, dims))
print(sum(dist(hosts["h0"], hosts["h%d" % j]) for j in range(1, n)) / (n - 1))
PY
}

# run TOPOLOGY HOSTS ALGO [SLOTS]: the fabric started with ALGO (and the
# routers' SLOTS, 8 by default); h0 pings the others
run() {
	local topo=$1 n=$2 algo=$3 slots=${4:-8} j lost=0
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
	"$FABRIC" up "$topo" -p "$PREFIX" -P logical >/dev/null
	ACIS_TORUS_ROUTING=$algo ACIS_TORUS_SLOTS=$slots ACIS_MBUFS=2559 \
		"$FABRIC" start -p "$PREFIX" >/dev/null
	# neighbours fixed: no ARP, so every pair exchanges the same frames,
	# three echo requests and three replies
	for ((j = 1; j < n; j++)); do
		ip netns exec "$PREFIX-h0" ip neigh replace "10.77.0.$((10 + j))" \
			lladdr "$(printf '02:a0:00:00:00:%02x' $((10 + j)))" dev eth0 nud permanent
		ip netns exec "$PREFIX-h$j" ip neigh replace 10.77.0.10 \
			lladdr 02:a0:00:00:00:0a dev eth0 nud permanent
	done
	for ((j = 1; j < n; j++)); do
		ip netns exec "$PREFIX-h0" ping -c 3 -i 0.1 -W 2 "10.77.0.$((10 + j))" \
			>>"$LOG" 2>&1 || lost=$((lost + 1))
	done
	check "$(basename "$topo" .ini) $algo: h0 reaches every other host" [ "$lost" -eq 0 ]
	totals "$topo" >"$DIR/totals"
	sed 's/^/    /' "$DIR/totals"
}
get() { awk -v k="$1" '$1 == k {print $2}' "$DIR/totals"; }

"$FAB" torus 4x4x4 hosts=21 >"$DIR/torus.ini"
"$FAB" torus 4x4 mesh >"$DIR/mesh.ini"
want=$(mean_distance "$DIR/torus.ini" 21)
for algo in dor o1turn rmr rlb ccar; do
	run "$DIR/torus.ini" 21 "$algo"
	used=$("$FABRIC" ctl -p "$PREFIX" s_1_1_1 --raw /acis/torus |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["/acis/torus"]["routing"])')
	check "torus: the switches route by $algo (s_1_1_1 says $used)" [ "$used" = "$algo" ]
	mean=$(python3 -c "print('%.4f' % ($(get hops) / max(1, $(get ejected))))")
	if [ "$algo" = rlb ]; then
		check "torus rlb: $(get ejected) frames took ${mean} hops on average, at least the minimal ${want}" \
			python3 -c "import sys; sys.exit(not $mean >= $want - 1e-3)"
	else
		check "torus $algo: $(get ejected) frames took ${mean} hops on average, the minimal ${want}" \
			python3 -c "import sys; sys.exit(not abs($mean - $want) < 1e-3)"
	fi
	check "torus $algo: no illegal turn, no header refused" \
		[ "$(get illegal_turns)" = 0 -a "$(get bad_header)" = 0 ]
	check "torus $algo: every frame routed on was delivered or injected ($(get injected) in, $(get ejected) out)" \
		[ "$(get injected)" = "$(get ejected)" ]
	[ "$algo" != dor ] || check "torus dor: frames crossed a ring's wrap link ($(get dateline))" \
		[ "$(get dateline)" -gt 0 ]
	check "torus $algo: the routers granted each frame once ($(get grants) = $(get injected) + $(get transit)), nothing left queued" \
		[ "$(get grants)" = $(($(get injected) + $(get transit))) -a "$(get queued)" = 0 ]
	check "torus $algo: no input overran, no watchdog report; $(get credits_rx) credit frames taken" \
		[ "$(get overruns)" = 0 -a "$(get deadlocks)" = 0 -a "$(get credits_rx)" -gt 0 ]
done
# The watchdog: s_0_0_0's X+ link taken down at its end, so the frames
# it grants there are lost and their credits never come back; h0's
# pings toward x = 2 fill the router's queue, which reports a deadlock
# within the watchdog's 300 ms, drops what it holds and starts afresh;
# with the link back up h0 reaches the host again.
# (s_0_0_0's Y+ link has its own slots=2 arbitration=ff: checked below)
sed 's/^\(link = s_0_0_0:p3 s_0_1_0:p4\)$/\1 slots=2 arbitration=ff/' \
	"$DIR/torus.ini" >"$DIR/torus-l.ini"
"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
"$FABRIC" up "$DIR/torus-l.ini" -p "$PREFIX" -P logical >/dev/null
ACIS_TORUS_WATCHDOG_MS=300 ACIS_MBUFS=2559 "$FABRIC" start -p "$PREFIX" >/dev/null
ip netns exec "$PREFIX-h0" ip neigh replace 10.77.0.12 lladdr 02:a0:00:00:00:0c dev eth0 nud permanent
ip netns exec "$PREFIX-h2" ip neigh replace 10.77.0.10 lladdr 02:a0:00:00:00:0a dev eth0 nud permanent
"$FABRIC" ctl -p "$PREFIX" s_0_0_0 port-link p1,down >/dev/null
ip netns exec "$PREFIX-h0" ping -c 30 -i 0.05 -W 1 10.77.0.12 >>"$LOG" 2>&1 || true
wd=$("$FABRIC" ctl -p "$PREFIX" s_0_0_0 --raw /acis/torus | python3 -c '
import json, sys
t = json.load(sys.stdin)["/acis/torus"]
print(t["deadlocks"], t["deadlock_drops"])')
check "watchdog: the router behind a dead link reported a deadlock and dropped its queue (reports, drops: $wd)" \
	bash -c "set -- $wd; [ \$1 -ge 1 -a \$2 -ge 1 ] && grep -q 'torus node 0,0,0: no frame moved for 300 ms' '/run/acis-fabric/$PREFIX/fab.log'"
"$FABRIC" ctl -p "$PREFIX" s_0_0_0 port-link p1,up >/dev/null
check "watchdog: with the link back, h0 reaches h2 again" \
	ip netns exec "$PREFIX-h0" ping -c 3 -i 0.1 -W 2 10.77.0.12
# A link's own router options: s_0_0_0's Y+ link (to s_0_1_0's Y- input)
# holds 2 frames a class at both ends and its outputs arbitrate farthest
# first; the switches' other links keep 8 and oldest first. h0's pings to
# h8 (0,2,1) go over it (DOR: Y+ first).
ip netns exec "$PREFIX-h0" ip neigh replace 10.77.0.18 lladdr 02:a0:00:00:00:12 dev eth0 nud permanent
ip netns exec "$PREFIX-h8" ip neigh replace 10.77.0.10 lladdr 02:a0:00:00:00:0a dev eth0 nud permanent
ip netns exec "$PREFIX-h0" ping -c 5 -i 0.05 -W 2 10.77.0.18 >>"$LOG" 2>&1 || true
link_opts() {
	"$FABRIC" ctl -p "$PREFIX" "$1" --raw /acis/torus | python3 -c '
import json, sys
t = json.load(sys.stdin)["/acis/torus"]
d = sys.argv[1]
print(t["link_slots"][d], t["link_arbitration"][d], t["link_slots"]["xp"],
      t["link_arbitration"]["xp"], t["credits"][d + "_c0"], t["out_" + d],
      t["overruns"])' "$2"
}
read -r s0 a0 sx ax c0 o0 r0 <<<"$(link_opts s_0_0_0 yp)"
read -r s1 a1 _ _ _ _ r1 <<<"$(link_opts s_0_1_0 ym)"
check "a link's slots=2 arbitration=ff: s_0_0_0's Y+ ($s0, $a0) and s_0_1_0's Y- ($s1, $a1), X+ keeps the switch's ($sx, $ax)" \
	[ "$s0" = 2 -a "$a0" = ff -a "$s1" = 2 -a "$a1" = ff -a "$sx" = 8 -a "$ax" = of ]
check "a link's slots=2: s_0_0_0 counts 2 credits a class on it ($c0), sent $o0 frames over it, no input overran" \
	[ "$c0" = 2 -a "$o0" -ge 5 -a "$r0" = 0 -a "$r1" = 0 ]
run "$DIR/mesh.ini" 16 dor 0
mean=$(python3 -c "print('%.4f' % ($(get hops) / max(1, $(get ejected))))")
want=$(mean_distance "$DIR/mesh.ini" 16)
check "mesh dor: ${mean} hops on average, the minimal ${want}; no wrap link crossed" \
	python3 -c "import sys; sys.exit(not (abs($mean - $want) < 1e-3 and $(get dateline) == 0))"
check "mesh dor: no illegal turn, no header refused" \
	[ "$(get illegal_turns)" = 0 -a "$(get bad_header)" = 0 ]
check "mesh dor, slots = 0: no router, no credit frame" \
	[ "$(get slots)" = 0 -a -z "$(get credits_rx)" ]

echo "torus: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

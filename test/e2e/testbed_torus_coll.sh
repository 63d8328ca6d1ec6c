#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: multicast and reduction in the torus (doc/torus.md,
# doc/torus-tables.md), driven by the traffic generator.
#  - Cube multicast (seed 000 §6.3), radius 1, on acis-fabric torus
#    4x4x4 hosts=0: every node receives a copy from each of its 26
#    neighbours' messages, as many as CUBE-NN's unicasts deliver, from 26
#    times fewer frames sent; copies made in the routers; no deadlock.
#  - Cube reduction (§6.4), radius 1: every node receives one sum a round,
#    holding every member's contribution (their count and node numbers);
#    none without; rounds that overlap are kept, not dropped.
#  - Fig. 8.1 (§8.1) on a 3x3 mesh: the paper's tables loaded at runtime
#    (acisctl torus-table load), node A's multicast reaches D and C once
#    each and nobody else; acis-torus-table walk says the same.
#  - Tables acis-torus-table builds on the 4x4x4 torus: a multicast from
#    one node reaches each of ten destinations once; the members'
#    contributions reduce to one frame at the root; a bad table file is
#    refused with its line; a cleared table drops frames, counted.
#  - No deadlock at saturation: ALL, two frames to every node, with one
#    slot a class, under each of the five algorithms: every frame
#    arrives, the watchdog stays quiet.
#  - 8x8x8: 512 logical switches in one process; a cube multicast from
#    every node reaches all 26 neighbours.
#  - Routing per class: a run's frames routed by RLB on switches whose
#    own routing is DOR.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

acis_e2e_begin torus_coll tc$$
FABRIC="$ACIS_ROOT/scripts/fabric.sh"
FAB="$ACIS_BUILD/tools/acis-fabric"
TAB="$ACIS_BUILD/tools/acis-torus-table"
TT="$ACIS_ROOT/tools/acis-torus-traffic"

e2e_teardown() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}

start() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
	"$FABRIC" up "$1" -p "$PREFIX" -P logical >/dev/null
	ACIS_MBUFS=2559 "$FABRIC" start -p "$PREFIX" >/dev/null
}
switches() { "$FAB" list "$1" | awk '$1 == "switch" {print $2}'; }
ctl() { "$FABRIC" ctl -p "$PREFIX" "$@"; }
# field SWITCH COMMAND KEY: one number of a switch's telemetry
field() {
	ctl "$1" --raw "$2" | python3 -c "import json, sys
d = json.load(sys.stdin)
print(list(d.values())[0].get('$3', ''))"
}
# csv FILE COLUMN: the one row's value
csv() {
	python3 -c "import csv, sys
print(next(csv.DictReader(open('$1')))['$2'])"
}
# load_all TOPOLOGY FILE: every switch's tables from FILE
load_all() {
	local s
	for s in $(switches "$1"); do
		ctl "$s" torus-table "load,$2" >/dev/null || return 1
	done
}
# gen_all TOPOLOGY KEY: every switch's generator KEY, "switch value" lines
gen_all() {
	local s v
	for s in $(switches "$1"); do
		v=$(field "$s" /acis/torus/gen "$2")
		echo "$s ${v:-0}"
	done
}
# gen_one TOPOLOGY SWITCH PARAMS: every switch's generator made ready to
# receive the run (count=0), then SWITCH's started, waited for
gen_one() {
	local s
	for s in $(switches "$1"); do
		ctl "$s" torus-gen "start,$3,count=0" >/dev/null
	done
	shift
	ctl "$1" torus-gen "start,$2" >/dev/null
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(field "$1" /acis/torus/gen state)" = done ] && break
		sleep 0.05
	done
	sleep 0.5 # what is in flight lands
}

"$FAB" torus 4x4x4 hosts=0 >"$DIR/t.ini"
start "$DIR/t.ini"

# ---- cube multicast against CUBE-NN's unicasts ----
"$TT" -f "$PREFIX-fab" --csv run --pattern cube-nn --count 2 >"$DIR/uni.csv" 2>>"$LOG"
"$TT" -f "$PREFIX-fab" --csv run --coll cube-mc --radius 1 --count 2 >"$DIR/mc.csv" 2>>"$LOG" ||
	cat "$DIR/mc.csv" >>"$LOG"
u_sent=$(csv "$DIR/uni.csv" sent) u_recv=$(csv "$DIR/uni.csv" received)
m_sent=$(csv "$DIR/mc.csv" sent) m_recv=$(csv "$DIR/mc.csv" received)
check "cube-mc: every node got a copy of each neighbour's messages ($m_recv, as CUBE-NN's $u_recv unicasts), from $m_sent frames sent (unicast: $u_sent)" \
	[ "$m_recv" = "$u_recv" -a "$m_recv" = $((64 * 26 * 2)) -a $((m_sent * 26)) = "$u_sent" ]
check "cube-mc: the routers made the copies ($(csv "$DIR/mc.csv" mc_copies)); no deadlock, overrun or illegal turn" \
	[ "$(csv "$DIR/mc.csv" mc_copies)" -gt 0 -a "$(csv "$DIR/mc.csv" deadlocks)" = 0 \
	  -a "$(csv "$DIR/mc.csv" overruns)" = 0 -a "$(csv "$DIR/mc.csv" illegal_turns)" = 0 ]
check "cube-mc: mean hops of the copies = CUBE-NN's ($(csv "$DIR/mc.csv" hops_mean))" \
	[ "$(csv "$DIR/mc.csv" hops_mean)" = "$(csv "$DIR/uni.csv" hops_mean)" ]

# ---- cube reduction ----
"$TT" -f "$PREFIX-fab" --csv run --coll cube-red --radius 1 --size 64 --count 3 \
	>"$DIR/red.csv" 2>>"$LOG" || cat "$DIR/red.csv" >>"$LOG"
check "cube-red: one sum a node a round ($(csv "$DIR/red.csv" sums) of $((64 * 3))), each of all 27 members' contributions" \
	[ "$(csv "$DIR/red.csv" sums)" = $((64 * 3)) -a "$(csv "$DIR/red.csv" sums_bad)" = 0 ]
errs=0
for s in $(switches "$DIR/t.ini"); do
	errs=$((errs + $(field "$s" /acis/torus errors)))
done
check "cube-red: no frame refused by the reduction units ($errs)" [ "$errs" = 0 ]

# ---- routing per class: the run's frames by RLB, the switches' DOR ----
"$TT" -f "$PREFIX-fab" --csv run --pattern tor --routing rlb --count 8 >"$DIR/rlb.csv" 2>>"$LOG" || true
"$TT" -f "$PREFIX-fab" --csv run --pattern tor --count 8 >"$DIR/dor.csv" 2>>"$LOG" || true
check "routing per class: the run's frames took RLB's long ways ($(csv "$DIR/rlb.csv" hops_mean) hops, DOR's $(csv "$DIR/dor.csv" hops_mean)) on switches that route dor" \
	bash -c "[ '$(csv "$DIR/rlb.csv" algo)' = rlb ] && [ '$(field s_0_0_0 /acis/torus routing)' = dor ] &&
		 python3 -c 'import sys; sys.exit(not $(csv "$DIR/rlb.csv" hops_mean) > $(csv "$DIR/dor.csv" hops_mean))'"

# ---- table routing: trees acis-torus-table builds ----
"$TAB" build 4x4x4 1,2,3 0,0,0 3,3,3 2,0,1 0,3,2 1,1,1 3,0,0 2,2,2 0,1,3 3,2,0 1,3,1 \
	>"$DIR/tree.tbl"
mc=$(sed -n 's/.*The root injects \([a-z]*:[0-9]*\);.*/\1/p' "$DIR/tree.tbl")
check "acis-torus-table: the tree checks ($("$TAB" check 4x4x4 "$DIR/tree.tbl"))" \
	"$TAB" check 4x4x4 "$DIR/tree.tbl"
load_all "$DIR/t.ini" "$DIR/tree.tbl"
check "torus-table: every switch took the tables" \
	[ "$(field s_1_2_3 /acis/torus/table table)" = loaded ]
gen_one "$DIR/t.ini" s_1_2_3 "coll=table,word=$mc,run=501"
gen_all "$DIR/t.ini" received >"$DIR/got"
want="s_0_0_0 s_3_3_3 s_2_0_1 s_0_3_2 s_1_1_1 s_3_0_0 s_2_2_2 s_0_1_3 s_3_2_0 s_1_3_1"
bad=$(python3 - "$DIR/got" "$want" <<'PY'
import sys
got = dict(l.split() for l in open(sys.argv[1]))
want = set(sys.argv[2].split())
print(" ".join(f"{s}:{n}" for s, n in got.items()
               if int(n) != (1 if s in want else 0)))
PY
)
check "table multicast: each of the 10 destinations received one copy, no other node any ($bad)" [ -z "$bad" ]
# the members' contributions: each to its reduction entry
red0=$(field s_1_2_3 /acis/torus red_ejected)
while read -r node idx; do
	s=$(switches "$DIR/t.ini" | sed -n "$((node + 1))p")
	ctl "$s" torus-gen "start,coll=table,word=reduce:$idx,count=1,run=700" >/dev/null
done < <(sed -n 's/^#   node \([0-9]*\): reduce:\([0-9]*\)$/\1 \2/p' "$DIR/tree.tbl")
sleep 1
check "table reduce: the 10 members' contributions reached the root as one frame" \
	[ "$(field s_1_2_3 /acis/torus red_ejected)" = $((red0 + 1)) ]
printf '[node 1,1,1]\nunicast 0 w+:unicast:1\n' >"$DIR/bad.tbl"
ctl s_1_1_1 torus-table "load,$DIR/bad.tbl" >"$DIR/err" 2>&1 || true
check "torus-table: a bad file refused, its line named ($(tr -d '\n' <"$DIR/err" | cut -c1-120))" \
	grep -q "bad.tbl:2" "$DIR/err"
for s in $(switches "$DIR/t.ini"); do ctl "$s" torus-table clear >/dev/null; done
miss0=$(field s_1_2_3 /acis/torus table_miss)
gen_one "$DIR/t.ini" s_1_2_3 "coll=table,word=$mc,run=502"
check "torus-table clear: the root's frame found no entry, dropped and counted" \
	[ "$(field s_1_2_3 /acis/torus table_miss)" -gt "$miss0" ]

# ---- Fig. 8.1 on a 3x3 mesh ----
"$FAB" torus 3x3 mesh hosts=0 >"$DIR/m.ini"
start "$DIR/m.ini"
cat >"$DIR/fig81.tbl" <<'EOF'
# Fig. 8.1 of seed 000: A multicasts; its first copy goes X+ to B as a
# unicast of index 2, B sends it Y+ to D, which ejects it; its second
# goes Y- to C, which ejects it
[node 0,1]	# A
multicast 1 x+:unicast:2 y-:unicast:3
[node 1,1]	# B
unicast 2 y+:unicast:5 prio=1
[node 1,2]	# D
unicast 5 local
[node 0,0]	# C
unicast 3 local
EOF
"$TAB" walk 3x3 mesh "$DIR/fig81.tbl" 0,1 multicast:1 >"$DIR/walk"
check "Fig. 8.1: acis-torus-table walk: D at 2 hops, C at 1 ($(tr '\n' ';' <"$DIR/walk"))" \
	bash -c "grep -q '^2 copies' '$DIR/walk' && grep -q '^node 7 (1,2,0): 1 copy, 2 hops' '$DIR/walk' &&
		 grep -q '^node 0 (0,0,0): 1 copy, 1 hops' '$DIR/walk'"
load_all "$DIR/m.ini" "$DIR/fig81.tbl"
gen_one "$DIR/m.ini" s_0_1 "coll=table,word=multicast:1,run=801"
gen_all "$DIR/m.ini" received >"$DIR/got"
gen_all "$DIR/m.ini" hops_sum >"$DIR/hops"
check "Fig. 8.1 in the switches: D and C received one copy each, nobody else ($(tr '\n' ' ' <"$DIR/got"))" \
	bash -c "[ \"\$(awk '\$2 != 0' '$DIR/got' | sort | tr '\n' ' ')\" = 's_0_0 1 s_1_2 1 ' ]"
check "Fig. 8.1 in the switches: D's copy took 2 hops, C's 1" \
	bash -c "grep -qx 's_1_2 2' '$DIR/hops' && grep -qx 's_0_0 1' '$DIR/hops'"

# ---- no deadlock at saturation: ALL with one slot a class ----
# (the classes count the datelines crossed, so the algorithms that take
# the dimensions in other orders are as safe as DOR: doc/torus.md)
for algo in dor o1turn rmr rlb ccar; do
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
	"$FABRIC" up "$DIR/t.ini" -p "$PREFIX" -P logical >/dev/null
	ACIS_TORUS_SLOTS=1 ACIS_TORUS_ROUTING=$algo ACIS_MBUFS=2559 \
		"$FABRIC" start -p "$PREFIX" >/dev/null
	"$TT" -f "$PREFIX-fab" --csv --timeout 60 run --pattern all --count 2 \
		>"$DIR/all.csv" 2>>"$LOG" || cat "$DIR/all.csv" >>"$LOG"
	check "ALL, slots 1, $algo: every frame arrived ($(csv "$DIR/all.csv" received) of $((64 * 63 * 2))), no deadlock, no overrun" \
		[ "$(csv "$DIR/all.csv" received)" = $((64 * 63 * 2)) -a "$(csv "$DIR/all.csv" deadlocks)" = 0 \
		  -a "$(csv "$DIR/all.csv" overruns)" = 0 -a "$(csv "$DIR/all.csv" slots)" = 1 ]
done

# ---- 8x8x8: 512 logical switches in one process ----
"$FAB" torus 8x8x8 hosts=0 >"$DIR/t8.ini"
"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
"$FABRIC" up "$DIR/t8.ini" -p "$PREFIX" -P logical >/dev/null
# (not under meson's MALLOC_PERTURB_: glibc then writes every block of
# the 512 pipelines' parsing, and the start takes minutes, not seconds)
# (2 GiB of hugepages: ACIS_HUGEPAGES reserves them)
env -u MALLOC_PERTURB_ ACIS_HUGEPAGES=1280 ACIS_MBUFS=511 \
	"$FABRIC" start -p "$PREFIX" >/dev/null
"$TT" -f "$PREFIX-fab" --csv --timeout 120 run --coll cube-mc --count 1 >"$DIR/t8.csv" 2>>"$LOG" ||
	cat "$DIR/t8.csv" >>"$LOG"
check "8x8x8: 512 switches; a cube multicast from every node reached its 26 neighbours ($(csv "$DIR/t8.csv" received) of $((512 * 26)))" \
	[ "$(csv "$DIR/t8.csv" received)" = $((512 * 26)) -a "$(csv "$DIR/t8.csv" deadlocks)" = 0 ]

echo "torus coll: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

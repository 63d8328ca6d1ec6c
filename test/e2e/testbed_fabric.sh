#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: fabrics of acis switches, built by scripts/fabric.sh from
# the shipped topologies (doc/fabric.md), one process per switch or
# every switch a logical one of a single process.
#   leaf-spine (2 leaves, 1 spine, 4 hosts) and fat-tree (4 leaves,
#   2 spines, 8 hosts): every host reaches every switch's address (ARP
#   and ICMP across the fabric); every collective, bit for bit against a
#   reference folded in the tree's order (acis-fabric fold), through the
#   root of the fabric's aggregation tree (acis-fabric tree FILE all);
#   the leaves fold their members' contributions into one partial a
#   chunk and each link carries one copy each way, and a bcast's block
#   crosses a link once; the fat tree's cycles never loop a
#   flood, and its links outside the flooding tree carry nothing; loss
#   on a fabric link is recovered; a spine killed mid-collective makes
#   every member's call fail, none hang. The same leaf-spine topology
#   runs as logical switches of one process, bit for bit as with one
#   process a switch; the three-level and fat-tree fabrics run as
#   logical switches.
# Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

acis_e2e_begin fabric fb$$
FABRIC="$ACIS_ROOT/scripts/fabric.sh"
FAB="$ACIS_BUILD/tools/acis-fabric"

e2e_teardown() {
	acis_kill_hosts "$PREFIX"
	[ -z "${runner:-}" ] || wait "$runner" 2>/dev/null || true
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}

# What acis_counter takes for a switch of the running fabric: its EAL
# prefix, or the process's and its name for a logical one ($PLACED).
PLACED=process
target() {
	if [ "$PLACED" = logical ]; then echo "$PREFIX-fab@$1"; else echo "$PREFIX-$1"; fi
}
# up_fabric TOPOLOGY PLACEMENT: the fabric up and started
up_fabric() {
	PLACED=$2
	"$FABRIC" up "$1" -p "$PREFIX" -P "$2" >/dev/null
	"$FABRIC" start -p "$PREFIX" >/dev/null
}

# switch_ip TOPOLOGY SWITCH
switch_ip() { "$FAB" list "$1" | awk -v s="$2" '$1 == "switch" && $2 == s {print $3}'; }
root_of() { "$FAB" tree "$1" all | sed -n 's/^root \([^,]*\),.*/\1/p'; }
# port_counter SWITCH PORT KEY [COMMAND]: a port's figure in /acis/ports
# (or COMMAND's per-port dict, e.g. /acis/fault)
port_counter() {
	local cmd=${4:-/acis/ports}
	"$FABRIC" ctl -p "$PREFIX" "$1" --raw "$cmd" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['$cmd']['$2']['$3'])"
}

# ping_all TOPOLOGY HOSTS: each host pings each switch
ping_all() {
	local topo=$1 n=$2 h ip bad=0
	for ((h = 0; h < n; h++)); do
		for ip in $("$FAB" list "$topo" | awk '$1 == "switch" {print $3}'); do
			ip netns exec "$PREFIX-h$h" ping -c 1 -W 2 "$ip" >/dev/null 2>&1 ||
				{ echo "  h$h cannot reach $ip"; bad=1; }
		done
	done
	return $bad
}

# fold_of P: the order the world of hosts h0..h(P-1) folds in the tree
# of $TOPO (acis-coll-check's reference folds the same way)
fold_of() { "$FAB" fold "$TOPO" $(seq -f 'h%g' 0 $(($1 - 1))); }

# run_job NAME P JOB options...: every rank must report no failure
run_job() {
	local name=$1 P=$2 job=$3; shift 3
	local ok=0
	rm -f "$DIR"/rank*.log
	acis_run_ranks "$PREFIX" "$P" "$job" "$DIR" --timeout 30000 \
		--fold "${FOLD:-$(fold_of "$P")}" "$@" || ok=1
	acis_rank_fails "$DIR" "$P"
	check "$name: $(tail -n 1 "$DIR/rank0.log")" [ "$ok" -eq 0 ]
}

# ---- 2 leaves, 1 spine ----
TOPO=$ACIS_ROOT/topologies/leaf-spine.ini
up_fabric "$TOPO" process
root=$(root_of "$TOPO")
runner=
export ACIS_SWITCH_IP
ACIS_SWITCH_IP=$(switch_ip "$TOPO" "$root")
check "leaf-spine: the tree of every host is rooted at spine0 (got $root)" \
	[ "$root" = spine0 ]
check "leaf-spine: every host reaches every switch's address" ping_all "$TOPO" 4
run_job "leaf-spine, 4 hosts, every collective, float32+int32+float64, split, non-blocking" \
	4 11 --sizes 4,1000,65536,1048576 --dtypes float32,int32,float64 \
	--split --nonblocking
run_job "leaf-spine, 3 hosts over both leaves, every other datatype" 3 12 \
	--sizes 4,4096,65536 \
	--dtypes int64,uint32,uint64,float16,bfloat16,int8,uint8,int16,uint16
up=$(port_counter leaf0 p2 tx_pkts)
down=$(port_counter leaf0 p2 rx_pkts)
check "leaf-spine: leaf0's link to the spine carried both ways ($up up, $down down)" \
	acis_all_above_0 "$up" "$down"
# Folding in the tree: the leaves took the tree, sent partials up and
# the results on; the spine folded partials and sent results down.
coll() { acis_counter "$(target "$1")" /acis/collectives "$2"; }
check "leaf-spine: partials up from leaf0 ($(coll leaf0 partials_up)), folded at the spine ($(coll spine0 partials_in)), results down ($(coll spine0 results_down)), on from leaf0 ($(coll leaf0 results_from_parent))" \
	acis_all_above_0 "$(coll leaf0 partials_up)" "$(coll spine0 partials_in)" \
	"$(coll spine0 results_down)" "$(coll leaf0 results_from_parent)" \
	"$(coll leaf0 installs_taken)"
# Each link carries one partial a chunk up and one result down: a 1 MiB
# float32 allreduce puts about 1 MiB on leaf0's link each way (the
# unicast baseline, two members' frames each way, twice that).
b0=$(port_counter leaf0 p2 tx_bytes)
r0=$(port_counter leaf0 p2 rx_bytes)
run_job "leaf-spine, 4 hosts, one 1 MiB allreduce" 4 15 --sizes 1048576 \
	--dtypes float32 --colls allreduce
b1=$(port_counter leaf0 p2 tx_bytes)
r1=$(port_counter leaf0 p2 rx_bytes)
check "leaf-spine: one 1 MiB allreduce put $(( (b1 - b0) / 1024 )) KiB up and $(( (r1 - r0) / 1024 )) KiB down leaf0's link (one copy each way)" \
	python3 -c "import sys; sys.exit(not (1048576 <= $b1 - $b0 < 1.5 * 1048576 and 1048576 <= $r1 - $r0 < 1.5 * 1048576))"
# A bcast is replicated down the tree: rank 1's 1 MiB (acis-coll-check's
# root for a first size) crosses leaf1's link once for its two members;
# a reduce to rank 1 sends leaf1's members their ACKs, the result's
# header alone.
r0=$(port_counter leaf1 p2 rx_bytes)
run_job "leaf-spine, 4 hosts, one 1 MiB bcast from rank 1" 4 16 \
	--sizes 1048576 --dtypes float32 --colls bcast
r1=$(port_counter leaf1 p2 rx_bytes)
check "leaf-spine: the 1 MiB bcast put $(( (r1 - r0) / 1024 )) KiB down leaf1's link (one copy for two members)" \
	python3 -c "import sys; sys.exit(not (1048576 <= $r1 - $r0 < 1.5 * 1048576))"
run_job "leaf-spine, 4 hosts, one 1 MiB reduce to rank 1" 4 18 \
	--sizes 1048576 --dtypes float32 --colls reduce
r2=$(port_counter leaf1 p2 rx_bytes)
check "leaf-spine: the 1 MiB reduce to rank 1 put $(( (r2 - r1) / 1024 )) KiB down leaf1's link (headers: the result is not theirs)" \
	python3 -c "import sys; sys.exit(not (0 < $r2 - $r1 < 262144))"
check "leaf-spine: the root holds no slot afterwards" \
	acis_wait_for 50 acis_slots_back "$(target spine0)" 0

# Loss on a fabric link: 2% of leaf1's frames to the spine dropped, and
# 2% of the spine's to leaf1 (partials and results lost both ways).
"$FABRIC" ctl -p "$PREFIX" leaf1 fault-set p2,drop=0.02,seed=7 >/dev/null
"$FABRIC" ctl -p "$PREFIX" spine0 fault-set p1,drop=0.02,seed=8 >/dev/null
run_job "leaf-spine, 2% loss each way on the leaf1-spine0 link, recovered end to end" \
	4 13 --sizes 4,65536,1048576 --dtypes float32,int32
lost=$(port_counter leaf1 p2 dropped /acis/fault)
lost2=$(port_counter spine0 p1 dropped /acis/fault)
check "the link dropped frames both ways ($lost up, $lost2 down)" \
	acis_all_above_0 "$lost" "$lost2"
"$FABRIC" ctl -p "$PREFIX" leaf1 fault-set p2,off >/dev/null
"$FABRIC" ctl -p "$PREFIX" spine0 fault-set p1,off >/dev/null

# Shaping at runtime: 2 ms more on leaf0's link up, both ways of a ping
# to the spine cross it once (up), so the round trip grows by 2 ms.
# (before: the fastest of 5, the path's own time, free of a ping the
# loaded machine held up; after: their mean, the jitter averaged)
rtt() {
	ip netns exec "$PREFIX-h0" ping -c 5 -i 0.2 -W 2 "$ACIS_SWITCH_IP" |
		sed -n "s|.*= \([0-9.]*\)/\([0-9.]*\)/.*|\\$1|p"
}
before=$(rtt 1)
"$FABRIC" ctl -p "$PREFIX" leaf0 fault-set p2,delay_us=2000,jitter_us=100,rate_mbps=100 >/dev/null
after=$(rtt 2)
"$FABRIC" ctl -p "$PREFIX" leaf0 fault-set p2,off >/dev/null
check "a shaped link: ping to the spine ${before} ms (fastest), with 2 ms on leaf0's link ${after} ms (mean)" \
	python3 -c "import sys; sys.exit(not (1.8 <= $after - $before <= 20))"
shaped=$(port_counter leaf0 p2 shaped /acis/fault)
check "a shaped link: the shaper took the frames ($shaped)" [ "$shaped" -ge 5 ]

# The spine killed mid-collective: every member's call fails, in time.
acis_run_ranks "$PREFIX" 4 14 "$DIR" --timeout 3000 --sizes 16777216 \
	--dtypes float32 --colls allreduce --repeat 1000 \
	--fold "$(fold_of 4)" >/dev/null 2>&1 &
runner=$!
sleep 1
# mid-collective, management shows the tree at each switch
"$FABRIC" ctl -p "$PREFIX" spine0 trees >"$DIR/trees-spine0" 2>&1 || true
"$FABRIC" ctl -p "$PREFIX" leaf1 trees >"$DIR/trees-leaf1" 2>&1 || true
check "acisctl trees: the spine is the root with both leaves as children, leaf1 below it folding ranks 2 and 3" \
	bash -c "grep -q 'root job=14 size=4 covered=4 units=2 children=p0:10.77.0.200:0+2,p1:10.77.0.201:2+2' '$DIR/trees-spine0' &&
		 grep -q 'below job=14 size=4 covered=2 units=2 up=p2 children=none' '$DIR/trees-leaf1'"
kill -KILL "$(cat "/run/acis-fabric/$PREFIX/spine0.pid")"
t0=$(date +%s)
rc=0
wait "$runner" || rc=$?
took=$(( $(date +%s) - t0 ))
silent=
for r in 0 1 2 3; do
	# a call that failed, not a result that differed
	grep FAIL "$DIR/rank$r.log" | grep -qv 'differs from the reference' ||
		silent="$silent $r"
done
check "spine killed: every rank's call failed (exit $rc) within ${took} s, none hung (no failed call from:${silent:- none})" \
	test "$rc" -ne 0 -a "$took" -ge 1 -a "$took" -le 20 -a -z "$silent"
"$FABRIC" down -p "$PREFIX" >/dev/null

# The same topology as logical switches of one process: the same
# collectives, bit for bit against the same reference; links are ring
# pairs, management reaches each switch by name.
up_fabric "$TOPO" logical
check "logical: every host reaches every switch's address" ping_all "$TOPO" 4
check "logical: one process runs the three switches (acisctl switches)" \
	bash -c "[ \$('$FABRIC' ctl -p '$PREFIX' leaf0 --raw switches | grep -o '\"index\"' | wc -l) -eq 3 ]"
run_job "logical leaf-spine, 4 hosts, every collective, float32+int32+float64, split, non-blocking" \
	4 41 --sizes 4,1000,65536,1048576 --dtypes float32,int32,float64 \
	--split --nonblocking
# A communicator made through management at the root: installed in the
# tree as a split's would be, before comm-create answers; its members
# fold as its tree says (leaf1 folds ranks 2 and 3, rank 0 alone below
# leaf0).
rm -f "$DIR/attach"
sent0=$(coll spine0 installs_sent)
acis_run_ranks "$PREFIX" 4 44 "$DIR" --timeout 30000 --sizes 4,65536 \
	--dtypes float32 --colls allreduce,reduce,bcast,barrier \
	--attach "$DIR/attach" --fold "$(fold_of 4)" >/dev/null 2>&1 &
jm=$!
job_joined() {
	"$FABRIC" ctl -p "$PREFIX" spine0 --raw /acis/jobs |
		grep -qE "\"job$1\": ?\"size=$2 joined=$2 "
}
mc=
if acis_wait_for 100 job_joined 44 4; then
	mc=$("$FABRIC" ctl -p "$PREFIX" spine0 --raw comm-create 44:0,2,3)
	id=$(echo "$mc" | grep -o '"id": *[0-9]*' | grep -o '[0-9]*$')
	echo "$id 0,2,3" >"$DIR/attach.tmp" && mv "$DIR/attach.tmp" "$DIR/attach"
fi
mc_ok=0
wait $jm || mc_ok=1
acis_rank_fails "$DIR" 4
check "logical: a management communicator {0,2,3} gets its tree (${mc:-no reply}; $(( $(coll spine0 installs_sent) - sent0 )) INSTALLs) and folds in it: $(tail -n 1 "$DIR/rank0.log")" \
	bash -c "[ $mc_ok -eq 0 ] && echo '$mc' | grep -q '\"tree\": *\"installed\"'"
# Two jobs at once on the same hosts: each its own communicators and
# trees, bit for bit.
mkdir -p "$DIR/j2"
acis_run_ranks "$PREFIX" 4 45 "$DIR/j2" --timeout 30000 --sizes 4,65536 \
	--dtypes float32,int32 --split --fold "$(fold_of 4)" >/dev/null 2>&1 &
j2=$!
run_job "logical leaf-spine, two jobs at once (this one)" 4 46 \
	--sizes 4,65536 --dtypes float32,int32 --split
j2_ok=0
wait $j2 || j2_ok=1
acis_rank_fails "$DIR/j2" 4
check "logical leaf-spine, two jobs at once (the other): $(tail -n 1 "$DIR/j2/rank0.log")" \
	[ "$j2_ok" -eq 0 ]
b0=$(port_counter leaf0 p2 tx_bytes)
r0=$(port_counter leaf0 p2 rx_bytes)
run_job "logical leaf-spine, 4 hosts, one 1 MiB allreduce" 4 42 \
	--sizes 1048576 --dtypes float32 --colls allreduce
b1=$(port_counter leaf0 p2 tx_bytes)
r1=$(port_counter leaf0 p2 rx_bytes)
check "logical: partials up from leaf0 ($(coll leaf0 partials_up)), folded at the spine ($(coll spine0 partials_in)); the 1 MiB allreduce put $(( (b1 - b0) / 1024 )) KiB up and $(( (r1 - r0) / 1024 )) KiB down leaf0's ring link" \
	python3 -c "import sys; sys.exit(not ($(coll leaf0 partials_up) > 0 and $(coll spine0 partials_in) > 0 and 1048576 <= $b1 - $b0 < 1.5 * 1048576 and 1048576 <= $r1 - $r0 < 1.5 * 1048576))"
"$FABRIC" ctl -p "$PREFIX" leaf1 fault-set p2,drop=0.02,seed=7 >/dev/null
run_job "logical leaf-spine, 2% loss on leaf1's ring link, recovered" \
	4 43 --sizes 4,65536 --dtypes float32
check "logical: the fault stage of leaf1 alone dropped frames ($(port_counter leaf1 p2 dropped /acis/fault) on leaf1, $(port_counter leaf0 p2 dropped /acis/fault) on leaf0)" \
	test "$(port_counter leaf1 p2 dropped /acis/fault)" -gt 0 -a \
	"$(port_counter leaf0 p2 dropped /acis/fault)" -eq 0
# A ring link set down at one end: that end neither sends nor takes,
# and its hosts lose the spine until it is up again.
"$FABRIC" ctl -p "$PREFIX" leaf1 port-link p2,down >/dev/null
down_state=$(port_counter leaf1 p2 link_up)
ip netns exec "$PREFIX-h2" ping -c 1 -W 1 "$ACIS_SWITCH_IP" >/dev/null 2>&1 && cut=0 || cut=1
"$FABRIC" ctl -p "$PREFIX" leaf1 port-link p2,up >/dev/null
check "logical: leaf1's ring link set down (link_up $down_state, ping cut: $cut), then up: h2 reaches the spine again" \
	bash -c "[ $down_state -eq 0 ] && [ $cut -eq 1 ] && ip netns exec '$PREFIX-h2' ping -c 1 -W 2 '$ACIS_SWITCH_IP' >/dev/null"
"$FABRIC" down -p "$PREFIX" >/dev/null

# Per-hop reliability (doc/faults.md, "Reliable links"): both links
# reliable=on, 5 % of each leaf0-spine0 direction dropped and 5 %
# corrupted. Above the link nothing is lost or repeated: pings all come
# back, none twice; a job's collectives pass with libacis resending
# nothing; the link layer counted the bad CRCs and resent.
sed 's/^link = \(leaf[01]:p2 spine0:p[01]\)$/link = \1 reliable=on/' "$TOPO" >"$DIR/reliable.ini"
up_fabric "$DIR/reliable.ini" logical
"$FABRIC" ctl -p "$PREFIX" leaf0 fault-set p2,drop=0.05,corrupt=0.05,seed=3 >/dev/null
"$FABRIC" ctl -p "$PREFIX" spine0 fault-set p0,drop=0.05,corrupt=0.05,seed=4 >/dev/null
pings=$(ip netns exec "$PREFIX-h0" ping -c 300 -i 0.005 -W 3 10.77.0.12 2>&1 || true)
got=$(echo "$pings" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
dups=$(echo "$pings" | grep -c 'DUP!' || true)
check "reliable links, 5 % loss and 5 % corruption each way: 300 pings, ${got:-0} back, ${dups} twice" \
	test "${got:-0}" -eq 300 -a "$dups" -eq 0
# libacis resends after 1 s, not 100 ms: the links' go-back-N recovers
# within it even on a loaded machine, and a host's resend would only
# say the host was slower to wait than the link to recover
ACIS_RTO_MS=1000 run_job "reliable links under loss and corruption, every collective" 4 47 \
	--sizes 4,65536,1048576 --dtypes float32,int32
resent=$(acis_sum_field "$DIR" retransmitted)
link_json=$("$FABRIC" ctl -p "$PREFIX" spine0 --raw /acis/links)
lcount() { echo "$link_json" | python3 -c "import json,sys; print(json.load(sys.stdin)['/acis/links']['$1']['$2'])"; }
check "the links recovered it all: libacis resent ${resent:-?} frames; spine0's p0 saw $(lcount p0 crc_errors) bad CRCs and resent $(lcount p0 resent)" \
	test "${resent:-1}" -eq 0 -a "$(lcount p0 crc_errors)" -gt 0 -a "$(lcount p0 delivered)" -gt 0
"$FABRIC" down -p "$PREFIX" >/dev/null

# A child that does not fold (fold = off on leaf1): it refuses the
# spine's INSTALL, the spine takes its members as its own, and the tree
# is leaf0's partial, then ranks 2 and 3.
PLACED=process
"$FABRIC" up "$TOPO" -p "$PREFIX" -P process >/dev/null
ACIS_NOFOLD=leaf1 "$FABRIC" start -p "$PREFIX" >/dev/null
FOLD="((0,1),2,3)" run_job "leaf-spine, leaf1 without folding, every collective" \
	4 17 --sizes 4,65536 --dtypes float32,int32
check "leaf-spine: the spine gave up on leaf1 ($(coll spine0 installs_refused) refused) and folded leaf0's partials ($(coll spine0 partials_in)); leaf1 sent none ($(coll leaf1 partials_up))" \
	test "$(coll spine0 installs_refused)" -ge 1 -a \
	"$(coll spine0 partials_in)" -gt 0 -a "$(coll leaf1 partials_up)" -eq 0
"$FABRIC" down -p "$PREFIX" >/dev/null

# ---- three levels: leaves, aggregation switches, a core ----
TOPO=$ACIS_ROOT/topologies/three-level.ini
up_fabric "$TOPO" logical
ACIS_SWITCH_IP=$(switch_ip "$TOPO" "$(root_of "$TOPO")")
run_job "three levels, 4 hosts, every collective, float32+int32, split" \
	4 31 --sizes 4,65536 --dtypes float32,int32 --split
check "three levels: agg0 took its tree from the core and gave it on ($(coll agg0 installs_taken) taken, $(coll agg0 installs_sent) sent), folded its leaves' partials ($(coll agg0 partials_in)) into its own ($(coll agg0 partials_up))" \
	acis_all_above_0 "$(coll agg0 installs_taken)" "$(coll agg0 installs_sent)" \
	"$(coll agg0 partials_in)" "$(coll agg0 partials_up)" \
	"$(coll leaf0 partials_up)" "$(coll core0 partials_in)"
"$FABRIC" down -p "$PREFIX" >/dev/null

# ---- fat tree: 4 leaves, 2 spines, 8 hosts ----
TOPO=$ACIS_ROOT/topologies/fat-tree.ini
# the six logical switches spread over lcores 0 and 1, alternately
ACIS_FABRIC_LCORES=0-1 up_fabric "$TOPO" logical
check "fat tree: leaf1 is walked by lcore 1, leaf0 by lcore 0 (ACIS_FABRIC_LCORES=0-1)" \
	bash -c "'$FABRIC' ctl -p '$PREFIX' leaf1 --raw lcores | grep -q '\"lcore1\"' &&
		 '$FABRIC' ctl -p '$PREFIX' leaf0 --raw lcores | grep -q '\"lcore0\"'"
root=$(root_of "$TOPO")
ACIS_SWITCH_IP=$(switch_ip "$TOPO" "$root")
check "fat tree: every host reaches every switch's address" ping_all "$TOPO" 8
run_job "fat tree, 8 hosts, every collective, float32+int32, split" \
	8 21 --sizes 4,4096,262144 --dtypes float32,int32 --split
run_job "fat tree, 4 hosts on 2 leaves, every collective, non-blocking" \
	4 22 --sizes 4,65536 --dtypes float64,int16 --nonblocking
# A loop would flood without end: every switch floods a few frames a host.
total=0
for s in leaf0 leaf1 leaf2 leaf3 spine0 spine1; do
	total=$((total + $(acis_counter "$(target "$s")" /acis/stages l2_flooded)))
done
check "fat tree: floods stay few with cycles in the fabric ($total frames flooded)" \
	[ "$total" -lt 2000 ]
quiet=0
for p in p1 p2 p3; do
	quiet=$((quiet + $(port_counter spine1 "$p" rx_pkts) + $(port_counter spine1 "$p" tx_pkts)))
done
check "fat tree: spine1's links outside the flooding tree carried nothing ($quiet frames)" \
	[ "$quiet" -eq 0 ]

"$FABRIC" down -p "$PREFIX" >/dev/null

# ---- tori (acis-fabric torus): 2x2x2 with a host on every switch, and
# 4x4x4 (64 logical switches) with 8 hosts ----
for t in "2x2x2:8" "4x4x4:8"; do
	dims=${t%%:*} n=${t##*:}
	"$FAB" torus "$dims" hosts="$n" >"$DIR/torus-$dims.ini"
	TOPO=$DIR/torus-$dims.ini
	# 64 switches: pools of 4095 mbufs (ring pairs need no descriptors)
	PLACED=logical
	"$FABRIC" up "$TOPO" -p "$PREFIX" -P logical >/dev/null
	ACIS_MBUFS=4095 "$FABRIC" start -p "$PREFIX" >/dev/null
	ACIS_SWITCH_IP=$(switch_ip "$TOPO" "$(root_of "$TOPO")")
	run_job "torus $dims, $n hosts, every collective, float32+int32, split" \
		"$n" 71 --sizes 4,65536 --dtypes float32,int32 --split
	"$FABRIC" down -p "$PREFIX" >/dev/null
done

echo "fabric: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

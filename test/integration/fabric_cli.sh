#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# acis-fabric on the shipped topologies (what it prints is what
# doc/fabric.md says they are), on a bad file (file:line and exit 1), on
# an unknown host and on bad usage (exit 2); the pipeline file it makes
# for every switch of every shipped topology passes acis-switch --check.
# Usage: fabric_cli.sh ACIS_FABRIC TOPOLOGIES_DIR ACIS_SWITCH
set -uo pipefail
AF=$1 T=$2 SW=$3
TMP=$(mktemp -d /tmp/acis-fabric-cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
check() {
	local what=$1; shift
	if "$@"; then echo "ok   - $what"; pass=$((pass + 1))
	else echo "FAIL - $what"; fail=$((fail + 1)); fi
}
has() { grep -qF -- "$2" "$1" || { echo "    missing: $2"; sed 's/^/    | /' "$1"; return 1; }; }

for t in leaf-spine fat-tree ring4; do
	check "check $t.ini" "$AF" check "$T/$t.ini" >"$TMP/$t.out"
done
check "leaf-spine: 3 switches, 2 links, 4 hosts" \
	has "$TMP/leaf-spine.out" "3 switches, 2 links, 4 hosts, placement logical"
check "leaf-spine: leaf0's ports" \
	has "$TMP/leaf-spine.out" "leaf0: p0=h0 p1=h1 p2=spine0:p0"
check "fat-tree: 6 switches, 8 links, 8 hosts" \
	has "$TMP/fat-tree.out" "6 switches, 8 links, 8 hosts"
"$AF" routes "$T/ring4.ini" >"$TMP/routes.out"
check "ring4 routes: s0 reaches s2 in 2 hops by p1" \
	has "$TMP/routes.out" "s0: s1 via p1 (1 hop) s2 via p1 (2 hops) s3 via p2 (1 hop); floods on p0 p1 p2"
check "ring4 routes: one link of four does not flood" \
	has "$TMP/routes.out" "s1: s0 via p2 (1 hop) s2 via p1 (1 hop) s3 via p1 (2 hops); floods on p0 p2"
"$AF" tree "$T/leaf-spine.ini" all >"$TMP/tree.out"
check "leaf-spine, every host: the spine is the root" \
	has "$TMP/tree.out" "root spine0, depth 1, 3 switches"
check "leaf-spine, every host: leaf1 folds 2 and sends up p2" \
	has "$TMP/tree.out" "leaf1: 2 members, 0 child switches, up p2 to spine0"
"$AF" tree "$T/leaf-spine.ini" h2 h3 >"$TMP/tree2.out"
check "leaf-spine, h2 and h3: leaf1 alone" \
	has "$TMP/tree2.out" "root leaf1, depth 0, 1 switch"

printf '[topology]\nname = x\n[switch a]\nports = 2\n[links]\nlink = a:p0 b:p1\n' >"$TMP/bad.ini"
"$AF" check "$TMP/bad.ini" 2>"$TMP/bad.err" >/dev/null
rc=$?
check "a bad file: exit 1" [ "$rc" -eq 1 ]
check "a bad file: file, line and form" \
	has "$TMP/bad.err" "bad.ini:6: link: unknown switch 'b' (declare it with [switch b])"
"$AF" tree "$T/leaf-spine.ini" h9 2>"$TMP/host.err" >/dev/null
rc=$?
check "an unknown host: exit 1, named" \
	bash -c "[ $rc -eq 1 ] && grep -q \"no host 'h9'\" '$TMP/host.err'"
"$AF" frobnicate "$T/leaf-spine.ini" 2>/dev/null
check "bad usage: exit 2" [ $? -eq 2 ]
"$AF" -h >"$TMP/usage.out"
rc=$?
check "-h: usage, exit 0" bash -c "[ $rc -eq 0 ] && grep -q 'acis-fabric tree FILE' '$TMP/usage.out'"
# The pipelines of scripts/fabric.sh: one a switch, each must load.
"$AF" list "$T/fat-tree.ini" >"$TMP/list.out"
check "list: switches numbered, hosts and links one a line" bash -c \
	"grep -qx 'switch spine1 10.77.0.205 02:ac:15:01:00:05 4' '$TMP/list.out' &&
	 grep -qx 'host h7 leaf3 p1' '$TMP/list.out' &&
	 grep -qx 'link leaf3 p3 spine1 p3' '$TMP/list.out'"
for t in leaf-spine fat-tree ring4 three-level one; do
	all=()
	for s in $("$AF" list "$T/$t.ini" | awk '$1 == "switch" {print $2}'); do
		"$AF" pipeline "$T/$t.ini" "$s" process >"$TMP/$t-$s.ini"
		check "$t: $s's pipeline loads" "$SW" --no-huge -m 64 --no-pci \
			--no-shconf --in-memory -l 0 --log-level=error -- \
			--pipeline "$TMP/$t-$s.ini" --check
		"$AF" pipeline "$T/$t.ini" "$s" logical >"$TMP/$t-$s-logical.ini"
		all+=(--pipeline "$TMP/$t-$s-logical.ini")
	done
	check "$t: its logical switches' pipelines load together" "$SW" -- \
		"${all[@]}" --check
done
check "leaf-spine, logical: a link is a ring pair named after its lower end, hosts on sKpN" \
	bash -c "grep -qx 'dev = ring_pair:s0p2:a' '$TMP/leaf-spine-leaf0-logical.ini' &&
		 grep -qx 'dev = ring_pair:s0p2:b' '$TMP/leaf-spine-spine0-logical.ini' &&
		 grep -q '^dev = net_af_packet_s1p1,iface=s1p1' '$TMP/leaf-spine-leaf1-logical.ini'"
"$AF" pipeline "$T/leaf-spine.ini" leaf0 >"$TMP/default.ini"
check "leaf-spine: with no placement given, the file's (logical)" \
	cmp -s "$TMP/default.ini" "$TMP/leaf-spine-leaf0-logical.ini"
"$AF" pipeline "$T/leaf-spine.ini" leaf0 nowhere 2>"$TMP/pl.err"
rc=$?
check "pipeline: an unknown placement is refused, exit 2" \
	bash -c "[ $rc -eq 2 ] && grep -q 'expected logical, process or machine' '$TMP/pl.err'"
"$SW" -- --pipeline "$TMP/leaf-spine-leaf0-logical.ini" \
	--pipeline "$TMP/leaf-spine-leaf0-logical.ini" --check 2>"$TMP/twice.err"
rc=$?
check "two pipelines naming the same switch are refused" \
	bash -c "[ $rc -eq 1 ] && grep -q \"both name their switch 'leaf0'\" '$TMP/twice.err'"
check "fat-tree: spine1's links outside the flooding tree do not flood" \
	bash -c "[ \$(grep -c '^flood = off' '$TMP/fat-tree-spine1.ini') -eq 3 ]"
check "leaf-spine: the link's server is the switch of lower index" \
	bash -c "grep -q 'role=server.*leaf0-p2.sock' '$TMP/leaf-spine-leaf0.ini' &&
		 grep -q 'role=client.*leaf0-p2.sock' '$TMP/leaf-spine-spine0.ini'"
check "leaf-spine: the tree's links name the switch at the other end" \
	bash -c "grep -qx 'peer = 10.77.0.202 02:ac:15:01:00:02' '$TMP/leaf-spine-leaf0.ini' &&
		 [ \$(grep -c '^peer = ' '$TMP/leaf-spine-spine0.ini') -eq 2 ] &&
		 grep -q '^fold = \${ACIS_FOLD:-on}' '$TMP/leaf-spine-leaf0.ini'"
check "fat-tree: spine1's links outside the flooding tree name no peer (its one link in it does)" \
	bash -c "[ \$(grep -c '^peer' '$TMP/fat-tree-spine1.ini') -eq 1 ]"
# The fold order: a group a switch, its members and children by lowest rank
check "fold: leaf-spine, every host" \
	bash -c "[ \"\$('$AF' fold '$T/leaf-spine.ini' all)\" = '((0,1),(2,3))' ]"
check "fold: three levels" \
	bash -c "[ \"\$('$AF' fold '$T/three-level.ini' all)\" = '(((0),(1)),((2),(3)))' ]"
check "fold: leaf-spine, h2 h0 h3 (rank i on the i-th host)" \
	bash -c "[ \"\$('$AF' fold '$T/leaf-spine.ini' h2 h0 h3)\" = '((0,2),(1))' ]"
"$AF" pipeline "$T/ring4.ini" nowhere 2>"$TMP/sw.err" >/dev/null
rc=$?
check "pipeline of an unknown switch: exit 1, named" \
	bash -c "[ $rc -eq 1 ] && grep -q \"no switch 'nowhere'\" '$TMP/sw.err'"
# A link's shaping in the file reaches both ends' pipelines.
sed 's/^link = leaf0:p2 spine0:p0$/link = leaf0:p2 spine0:p0 rate_mbps=1600 delay_us=0.57 jitter_us=0.01/' \
	"$T/leaf-spine.ini" >"$TMP/shaped.ini"
"$AF" pipeline "$TMP/shaped.ini" leaf0 >"$TMP/shaped-leaf0.ini"
"$AF" pipeline "$TMP/shaped.ini" spine0 >"$TMP/shaped-spine0.ini"
check "a shaped link: [fault p2] on leaf0 and [fault p0] on spine0" bash -c \
	"grep -A3 '^\[fault p2\]' '$TMP/shaped-leaf0.ini' | grep -qx 'delay_us = 0.57' &&
	 grep -A3 '^\[fault p0\]' '$TMP/shaped-spine0.ini' | grep -qx 'rate_mbps = 1600'"
check "a shaped link: the pipeline loads" "$SW" --no-huge -m 64 --no-pci \
	--no-shconf --in-memory -l 0 --log-level=error -- \
	--pipeline "$TMP/shaped-spine0.ini" --check
# Fidelity mode (doc/fidelity.md): a profile shapes every link and host
# port, dilated; links with their own words keep them.
"$AF" check "$T/pair-cuscomnet.ini" >"$TMP/prof.out"
check "a profile: check names it, its source and the dilation" \
	grep -q 'profile cuscomnet (seed 003 (CusComNet), Table I).*dilation 1000' "$TMP/prof.out"
"$AF" pipeline "$T/pair-cuscomnet.ini" a >"$TMP/prof-a.ini"
check "a profile: the link at 1600 kbit/s and 570 us, the host port 260 us (2 x 0.13 us, dilated 1000)" bash -c \
	"grep -A3 '^\[fault p1\]' '$TMP/prof-a.ini' | grep -qx 'rate_kbps = 1600' &&
	 grep -A3 '^\[fault p1\]' '$TMP/prof-a.ini' | grep -qx 'delay_us = 570' &&
	 grep -A1 '^\[fault p0\]' '$TMP/prof-a.ini' | grep -qx 'delay_us = 260'"
check "a profile's pipeline loads" "$SW" -- --pipeline "$TMP/prof-a.ini" --check
check "a profile dilates the switch's timers: deadline 5 s x 1000 capped at an hour, linger 2 s x 1000" bash -c \
	"grep -qx 'deadline_ms = 3600000' '$TMP/prof-a.ini' && grep -qx 'linger_ms = 2000000' '$TMP/prof-a.ini' &&
	 ! '$AF' pipeline '$T/leaf-spine.ini' leaf0 | grep -q 'deadline_ms\|linger_ms'"
mkdir -p "$TMP/p/profiles"
cp "$T/profiles/cuscomnet.ini" "$TMP/p/profiles/"
sed 's/^profile = cuscomnet$/profile = cuscomnet\ndilation = 100/' "$T/pair-cuscomnet.ini" |
	sed 's/^link = a:p1 b:p1$/link = a:p1 b:p1 delay_us=7/' >"$TMP/p/t.ini"
"$AF" pipeline "$TMP/p/t.ini" a >"$TMP/p/a.ini"
check "dilation in the topology overrides the profile's; a link's own words stay, undilated" bash -c \
	"grep -A1 '^\[fault p0\]' '$TMP/p/a.ini' | grep -qx 'delay_us = 26' &&
	 grep -A2 '^\[fault p1\]' '$TMP/p/a.ini' | grep -qx 'delay_us = 7' &&
	 ! grep -q rate_kbps '$TMP/p/a.ini'"
sed 's/^profile = cuscomnet$/profile = nosuch/' "$T/pair-cuscomnet.ini" >"$TMP/p/missing.ini"
"$AF" check "$TMP/p/missing.ini" 2>"$TMP/p/err" >/dev/null
rc=$?
check "a missing profile: exit 1, the topology's line and the file looked for" bash -c \
	"[ $rc -eq 1 ] && grep -q 'missing.ini:9: profile nosuch: .*profiles/nosuch.ini' '$TMP/p/err'"
printf '[profile]\nrate_mbps = 1600\nhop_us = fast\n' >"$TMP/p/profiles/bad.ini"
sed 's/^profile = cuscomnet$/profile = bad/' "$T/pair-cuscomnet.ini" >"$TMP/p/bad.ini"
"$AF" check "$TMP/p/bad.ini" 2>"$TMP/p/err" >/dev/null
rc=$?
check "a bad profile: exit 1, the profile's file and line, the form expected" bash -c \
	"[ $rc -eq 1 ] && grep -q 'profiles/bad.ini:3: hop_us: expected a number from 0 to 1000, found .fast.' '$TMP/p/err'"
printf '[profile]\nrate_mbps = 0.5\ndilation = 1000\n' >"$TMP/p/profiles/slow.ini"
sed 's/^profile = cuscomnet$/profile = slow/' "$T/pair-cuscomnet.ini" >"$TMP/p/slow.ini"
"$AF" check "$TMP/p/slow.ini" 2>"$TMP/p/err" >/dev/null
rc=$?
check "a dilated rate below 1 kbit/s is refused" bash -c \
	"[ $rc -eq 1 ] && grep -q 'below 1 kbit/s' '$TMP/p/err'"
# Tori and meshes from their dimensions (acis-fabric torus).
"$AF" torus 4x4x4 >"$TMP/t444.ini"
"$AF" check "$TMP/t444.ini" >"$TMP/t444.out"
check "torus 4x4x4: 64 switches, 192 links, 64 hosts, every switch's six neighbours around the rings" bash -c \
	"head -1 '$TMP/t444.out' | grep -q '64 switches, 192 links, 64 hosts' &&
	 grep -q '^  s_0_0_0: p0=h0 p1=s_1_0_0:p2 p2=s_3_0_0:p1 p3=s_0_1_0:p4 p4=s_0_3_0:p3 p5=s_0_0_1:p6 p6=s_0_0_3:p5$' '$TMP/t444.out' &&
	 grep -qx 'coord = 3,2,1' '$TMP/t444.ini'"
"$AF" torus 4x4 mesh hosts=4 >"$TMP/m44.ini"
check "mesh 4x4, 4 hosts: 24 links, no port past the edge, hosts spread" bash -c \
	"'$AF' check '$TMP/m44.ini' | head -1 | grep -q '16 switches, 24 links, 4 hosts' &&
	 '$AF' check '$TMP/m44.ini' | grep -q '^  s_3_3: p0=- p1=- p2=s_2_3:p1 p3=- p4=s_3_2:p3$' &&
	 grep -qx 'h1 = s_0_1:p0' '$TMP/m44.ini'"
"$AF" torus 8x8x8 hosts=0 >"$TMP/t888.ini"
check "torus 8x8x8, no hosts: 512 switches, 1536 links; those past 250 on 10.78.0.0/16" bash -c \
	"'$AF' check '$TMP/t888.ini' | head -1 | grep -q '512 switches, 1536 links, 0 hosts' &&
	 grep -qx 'ip = 10.78.1.255' '$TMP/t888.ini'"
"$AF" torus 16x16x4 >/dev/null 2>"$TMP/t.err"
rc=$?
check "torus 16x16x4: more switches than a fabric has, refused (exit 2)" bash -c \
	"[ $rc -eq 2 ] && grep -q 'at most 512' '$TMP/t.err'"
# The routers' options: into every switch's [torus], the variables first
sed 's/^torus = 4x4x4$/torus = 4x4x4\nslots = 2\narbitration = mix/' "$TMP/t444.ini" >"$TMP/r444.ini"
"$AF" pipeline "$TMP/r444.ini" s_1_2_3 >"$TMP/r444.pl"
check "torus slots and arbitration: in the switch's [torus], \$ACIS_TORUS_SLOTS and \$ACIS_TORUS_ARBITRATION override them" bash -c \
	"grep -qx 'slots = \${ACIS_TORUS_SLOTS:-2}' '$TMP/r444.pl' &&
	 grep -qx 'arbitration = \${ACIS_TORUS_ARBITRATION:-mix}' '$TMP/r444.pl'"
# a link's own: both its ends' [torus], the other links the topology's
sed 's/^\(link = s_1_2_3:p1 s_2_2_3:p2\)$/\1 slots=3 arbitration=ff/' "$TMP/r444.ini" >"$TMP/l444.ini"
"$AF" pipeline "$TMP/l444.ini" s_1_2_3 >"$TMP/l123.pl"
"$AF" pipeline "$TMP/l444.ini" s_2_2_3 >"$TMP/l223.pl"
check "a link's slots=3 arbitration=ff: slots_p1 and arbitration_p1 at one end, slots_p2 and arbitration_p2 at the other, nothing more" bash -c \
	"grep -qx 'slots_p1 = 3' '$TMP/l123.pl' && grep -qx 'arbitration_p1 = ff' '$TMP/l123.pl' &&
	 grep -qx 'slots_p2 = 3' '$TMP/l223.pl' && grep -qx 'arbitration_p2 = ff' '$TMP/l223.pl' &&
	 [ \$(grep -c '^slots_p\|^arbitration_p' '$TMP/l123.pl') = 2 ]"
"$AF" torus 2x2 profile=chenyang >"$TMP/p22.ini"
mkdir -p "$TMP/profiles" && cp "$T/profiles/chenyang.ini" "$TMP/profiles/"
"$AF" pipeline "$TMP/p22.ini" s_0_0 >"$TMP/p22.pl"
check "a profiled torus: the dilated timers in [collective], the router clock and watchdog in [torus]" bash -c \
	"awk '/^\[/ {sec = \$0} /^deadline_ms/ {print sec} /^clock_khz/ {print sec}' '$TMP/p22.pl' |
	 tr '\n' ' ' | grep -qx '\[collective\] \[torus\] ' &&
	 grep -qx 'clock_khz = 160' '$TMP/p22.pl'"
sed 's/^torus = 4x4x4$/torus = 4x4x4\nslots = 17/' "$TMP/t444.ini" >"$TMP/r444.ini"
"$AF" check "$TMP/r444.ini" >/dev/null 2>"$TMP/t.err"
rc=$?
check "torus slots = 17: refused, the line and the range" bash -c \
	"[ $rc -eq 1 ] && grep -q 'r444.ini:7: slots: expected a number from 0 to 16' '$TMP/t.err'"
sed 's/^torus = 4x4x4$/torus = 4x4x4\narbitration = lifo/' "$TMP/t444.ini" >"$TMP/r444.ini"
"$AF" check "$TMP/r444.ini" >/dev/null 2>"$TMP/t.err"
rc=$?
check "arbitration = lifo: refused, the line and the policies" bash -c \
	"[ $rc -eq 1 ] && grep -q 'r444.ini:7: arbitration: expected ff, of or mix' '$TMP/t.err'"
"$AF" torus 4x1 >/dev/null 2>"$TMP/t.err"
rc=$?
check "torus 4x1: a dimension below 2, refused with the form expected" bash -c \
	"[ $rc -eq 2 ] && grep -q 'expected DIMS as K, KxK or KxKxK' '$TMP/t.err'"
# The MPE's collective trees as fabrics (acis-fabric chain|binomial|star).
"$AF" chain 4 >"$TMP/chain.ini"
check "chain 4: s0 - s1 - s2 - s3, a host each" bash -c \
	"'$AF' check '$TMP/chain.ini' | head -1 | grep -q '4 switches, 3 links, 4 hosts' &&
	 '$AF' check '$TMP/chain.ini' | grep -q '^  s1: p0=h1 p1=s0:p1 p2=s2:p1$'"
"$AF" binomial 8 >"$TMP/binomial.ini"
check "binomial 8: s7 under s3 under s1 under s0, three levels" bash -c \
	"'$AF' check '$TMP/binomial.ini' | grep -q '^  s0: p0=h0 p1=s1:p1 p2=s2:p1 p3=s4:p1$' &&
	 '$AF' check '$TMP/binomial.ini' | grep -q '^  s3: p0=h3 p1=s1:p2 p2=s7:p1$' &&
	 '$AF' tree '$TMP/binomial.ini' all | grep -q 'root s0'"
"$AF" star 4 >"$TMP/star.ini"
check "star 4: s0 and every other switch on a hub without a host" bash -c \
	"'$AF' check '$TMP/star.ini' | head -1 | grep -q '5 switches, 4 links, 4 hosts' &&
	 '$AF' check '$TMP/star.ini' | grep -q '^  hub: p0=s0:p1 p1=s1:p1 p2=s2:p1 p3=s3:p1$'"
"$AF" star 1 >/dev/null 2>"$TMP/t.err"
rc=$?
check "star 1: fewer than 2 switches refused (exit 2) with the range" bash -c \
	"[ $rc -eq 2 ] && grep -q 'expected N from 2 to 250' '$TMP/t.err'"
printf '[topology]\nname = x\n[switch a]\nports = 1\ncoord = 1,x\n' >"$TMP/coord.ini"
"$AF" check "$TMP/coord.ini" 2>"$TMP/t.err" >/dev/null
check "a bad coord is refused naming its line" \
	grep -q 'coord.ini:5: coord: expected x, x,y or x,y,z' "$TMP/t.err"

# Per-hop reliability: reliable=on on a link reaches both ends' ports;
# another value is refused naming the link's line.
sed 's/^link = leaf0:p2 spine0:p0$/link = leaf0:p2 spine0:p0 reliable=on drop=0.01/' \
	"$T/leaf-spine.ini" >"$TMP/rel.ini"
"$AF" pipeline "$TMP/rel.ini" leaf0 >"$TMP/rel-leaf0.ini"
"$AF" pipeline "$TMP/rel.ini" spine0 >"$TMP/rel-spine0.ini"
check "a reliable link: reliable = on at both ends, its fault words kept" bash -c \
	"grep -A4 '^\[port p2\]' '$TMP/rel-leaf0.ini' | grep -qx 'reliable = on' &&
	 grep -A4 '^\[port p0\]' '$TMP/rel-spine0.ini' | grep -qx 'reliable = on' &&
	 grep -A2 '^\[fault p2\]' '$TMP/rel-leaf0.ini' | grep -qx 'drop = 0.01' &&
	 ! grep -q 'reliable = on' <(grep -A4 '^\[port p0\]' '$TMP/rel-leaf0.ini')"
sed 's/^link = leaf0:p2 spine0:p0$/link = leaf0:p2 spine0:p0 reliable=yes/' \
	"$T/leaf-spine.ini" >"$TMP/rel-bad.ini"
"$AF" check "$TMP/rel-bad.ini" 2>"$TMP/rel.err" >/dev/null
rc=$?
check "reliable=yes is refused: expected on or off, the line named" bash -c \
	"[ $rc -eq 1 ] && grep -q 'rel-bad.ini:.*: link: reliable: expected on or off, found .yes.' '$TMP/rel.err'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

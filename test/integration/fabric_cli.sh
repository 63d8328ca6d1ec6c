#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# acis-fabric on the shipped topologies (what it prints is what
# doc/fabric.md says they are), on a bad file (file:line and exit 1), on
# an unknown host and on bad usage (exit 2). Usage: fabric_cli.sh
# ACIS_FABRIC TOPOLOGIES_DIR
set -uo pipefail
AF=$1 T=$2
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# doc/fpga.md as a user reads it: every ini block is what the switch runs
# (a part of pipelines/testbed-fpga.ini) or accepts (acis-switch
# --check), and the "Try it" block, run as written on the default testbed,
# gives right answers from the card and from the fallback.
# Exit 77 (skip) without root. Cleans up after itself, pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
DOC=$ACIS_ROOT/doc/fpga.md
DIR=$(mktemp -d /tmp/acis-e2e-fpgadoc.XXXXXX)
fails=0 passes=0
made_rows=0
[ -e /tmp/acis-fpga ] || made_rows=1
cleanup() {
	"$ACIS_ROOT/scripts/testbed.sh" down >/dev/null 2>&1 || true
	acis_eal_files_remove rte
	[ "$made_rows" = 0 ] || rm -rf /tmp/acis-fpga
	rm -rf "$DIR"
}

# The walkthrough uses the default testbed and file prefix: they must be
# free (nothing of this test's is touched before this check).
if ip netns list | grep -q '^acis-sw\b'; then
	echo "FAIL - a testbed 'acis' is up already (scripts/testbed.sh down first)"
	rm -rf "$DIR"
	exit 1
fi
trap cleanup EXIT

# ---- the ini blocks -------------------------------------------------------
awk -v dir="$DIR" '
	/^```ini$/ { n++; f = dir "/block" n ".ini"; inb = 1; next }
	/^```/ { inb = 0; next }
	inb { print > f }' "$DOC"
for f in "$DIR"/block*.ini; do
	name="ini block $(basename "$f" .ini | tr -dc 0-9) of doc/fpga.md"
	if grep -qF -f <(head -1 "$f") "$ACIS_ROOT/pipelines/testbed-fpga.ini" &&
	   python3 - "$f" "$ACIS_ROOT/pipelines/testbed-fpga.ini" <<'PY'
import sys
block, pipeline = (open(p).read() for p in sys.argv[1:])
sys.exit(0 if block in pipeline else 1)
PY
	then
		check "$name is part of pipelines/testbed-fpga.ini" true
		continue
	fi
	{
		printf '[switch]\nname = doc\nmac = 02:ac:15:00:00:01\nip = 10.77.0.1\n'
		cat "$f"
	} >"$f.full"
	check "$name: acis-switch --check accepts it" \
		"$ACIS_BUILD/app/acis-switch/acis-switch" --check -p "$f.full"
done

# ---- the walkthrough, as written --------------------------------------------
awk '
	/<!-- doc-test: fpga-walkthrough -->/ { want = 1; next }
	want && /^```sh$/ { inb = 1; next }
	inb && /^```/ { exit }
	inb { print }' "$DOC" >"$DIR/walk.sh"
check "doc/fpga.md has its walkthrough" [ -s "$DIR/walk.sh" ]
if [ "$ACIS_BUILD" != "$ACIS_ROOT/build" ]; then
	# another build of the tree (a sanitizer build): its binaries
	sed -i "s|build/|$ACIS_BUILD/|g" "$DIR/walk.sh"
fi
{
	# what the block started ends with it, pass or fail
	echo 'trap '\''for p in $(jobs -p); do kill -INT $p 2>/dev/null; done; wait'\'' EXIT'
	echo 'set -ex'
	cat "$DIR/walk.sh"
} >"$DIR/run.sh"
# within the test's own time: a hang is a failure that still cleans up
# (SIGINT runs the block's trap; KILL 10 s later if it does not end)
(cd "$ACIS_ROOT" && timeout -s INT -k 10 120 bash "$DIR/run.sh") >"$DIR/out" 2>&1 &&
	rc=0 || rc=$?
grep -v '^+' "$DIR/out" | tail -40
check "the walkthrough runs to its end within 120 s, every command succeeding (rc $rc)" \
	[ "$rc" -eq 0 ]
right=$(grep -c '^dot: 100 vectors of 333 floats .*: equal to the C reference, bit for bit' "$DIR/out" || true)
check "both runs of acis-lookaside: every answer equal to C ($right runs)" [ "$right" -eq 2 ]
stat() { grep -o "\"$1\": *[0-9]*" "$DIR/out" | grep -o '[0-9]*$' | tr '\n' ' '; }
echo "fpga_returned: $(stat fpga_returned) fpga_fallback: $(stat fpga_fallback) runs: $(stat runs)"
check "the card answered the first 100, the fallback the next 100" \
	[ "$(stat fpga_returned)" = "100 100 " -a "$(stat fpga_fallback)" = "0 100 " ]

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# acis-asm as a user runs it: every example assembled, disassembled and
# assembled again to the same words; a binary given without -d and a
# missing file refused with a message saying what is wrong.
# Usage: asm_cli.sh ACIS_ASM EXAMPLES_DIR
set -uo pipefail
ASM=$1
EX=$2
D=$(mktemp -d /tmp/acis-asm.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail=0

bad() { echo "FAIL - $*"; fail=1; }

for s in "$EX"/*.s; do
	n=$(basename "$s" .s)
	"$ASM" -o "$D/$n.bin" "$s" || { bad "$n: assembling"; continue; }
	"$ASM" -d -o "$D/$n.s" "$D/$n.bin" || { bad "$n: disassembling"; continue; }
	"$ASM" -o "$D/$n.again.bin" "$D/$n.s" || { bad "$n: assembling the disassembly"; continue; }
	cmp -s "$D/$n.bin" "$D/$n.again.bin" || bad "$n: the round trip changed the words"
	echo "ok   - $n"
done

# a binary program without -d: refused, pointing at -d
out=$("$ASM" "$D/axpy.bin" 2>&1) && bad "a .bin without -d was taken"
grep -q "not assembler text" <<<"$out" && grep -q "acis-asm -d disassembles it" <<<"$out" ||
	bad "a .bin without -d: '$out'"
# a missing file: named, and no -d hint
out=$("$ASM" "$D/missing.bin" 2>&1) && bad "a missing file was taken"
grep -q "missing.bin: No such file" <<<"$out" && ! grep -q -- "-d disassembles" <<<"$out" ||
	bad "a missing file: '$out'"
[ "$fail" -eq 0 ] && echo "ok   - refusals"
exit "$fail"

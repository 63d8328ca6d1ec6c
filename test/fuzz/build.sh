#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the libFuzzer targets of test/fuzz with clang, straight from the
# library sources (no meson, no DPDK), and generate their binary seeds.
#
#   test/fuzz/build.sh [BUILD_DIR]        default: build-fuzz at the repo root
#
# Produces BUILD_DIR/<target> for each target, BUILD_DIR/seeds/<target>/
# (generated seeds) and BUILD_DIR/targets (the list that was built).
# A target is rebuilt only when one of its sources, a library header or
# this script is newer than its binary. Environment:
#   CLANG         compiler (default: clang, else clang-14)
#   FUZZ_MACHINE  -march value, "generic" for none (default: native, like
#                 the meson build's machine option)
#   FUZZ_CFLAGS   extra compiler flags
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build-fuzz}
mkdir -p "$out"
out=$(cd "$out" && pwd)

cc=${CLANG:-}
if [ -z "$cc" ]; then
	if command -v clang >/dev/null 2>&1; then
		cc=clang
	elif command -v clang-14 >/dev/null 2>&1; then
		cc=clang-14
	else
		echo "build.sh: clang not found (apt-get install clang libclang-rt-14-dev)" >&2
		exit 1
	fi
fi

machine=${FUZZ_MACHINE:-native}
march=()
[ "$machine" != generic ] && march=("-march=$machine")

# As the meson build: gnu11, _GNU_SOURCE, warning level 2. Our own files
# are held to -Werror; the library sources are compiled with warnings
# shown but not fatal, so a clang-only warning in a library that gcc
# builds cleanly does not stop the fuzzers.
common=(-std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
	-Wall -Wextra -Wno-missing-field-initializers "${march[@]}"
	-I"$root/lib/pkt" -I"$root/lib/proto" -I"$root/lib/conf"
	-I"$root/lib/pipeline" -I"$root/lib/comm" -I"$root/lib/cgra"
	-I"$root/lib/torus"
	-I"$root/test/common" -I"$here")
# shellcheck disable=SC2206
extra=(${FUZZ_CFLAGS:-})
# shellcheck disable=SC2054 # commas inside one flag
san_compile=(-fsanitize=fuzzer-no-link,address,undefined
	     -fno-sanitize-recover=all)
# shellcheck disable=SC2054
san_link=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)

have_cgra=0
[ -f "$root/lib/cgra/acis_cgra.h" ] && have_cgra=1

targets=(fuzz_pkt fuzz_proto fuzz_conf fuzz_comm)
[ $have_cgra = 1 ] && targets+=(fuzz_cgra)

# Library sources of each target.
lib_sources() {
	case $1 in
	fuzz_pkt) echo lib/pkt/pkt.c lib/proto/proto.c ;;
	fuzz_proto) echo lib/proto/proto.c ;;
	fuzz_conf) echo lib/conf/conf.c lib/pipeline/pipeline.c lib/pkt/pkt.c lib/torus/torus.c ;;
	fuzz_comm) echo lib/comm/comm.c lib/comm/algo.c ;;
	fuzz_cgra) echo lib/cgra/cgra.c lib/cgra/cgra_kern.c lib/cgra/cgra_ext.c \
			lib/cgra/cgra_isa.c lib/cgra/cgra_asm.c ;;
	esac
}

# Per-file flags: the CGRA must not fuse on its own (lib/cgra/meson.build).
file_flags() {
	case $1 in
	lib/cgra/*) echo -ffp-contract=off ;;
	esac
}

# 0 when $1 exists and nothing it depends on is newer.
up_to_date() {
	local bin=$1 f
	shift
	[ -e "$bin" ] || return 1
	for f in "$@" "$here/build.sh" "$here/fuzz_check.h" \
		 "$root"/lib/*/*.h "$root/test/common/frames.h"; do
		[ -e "$f" ] || continue
		[ "$f" -nt "$bin" ] && return 1
	done
	return 0
}

build_target() {
	local t=$1 objdir=$out/obj/$1 objs=() src o deps=()

	for src in $(lib_sources "$t"); do
		deps+=("$root/$src")
	done
	deps+=("$here/$t.c")
	if up_to_date "$out/$t" "${deps[@]}"; then
		echo "build.sh: $t is up to date"
		return 0
	fi
	echo "build.sh: building $t"
	mkdir -p "$objdir"
	for src in $(lib_sources "$t"); do
		o=$objdir/$(basename "$src" .c).o
		# shellcheck disable=SC2046
		"$cc" "${common[@]}" "${san_compile[@]}" $(file_flags "$src") \
			"${extra[@]}" -c "$root/$src" -o "$o"
		objs+=("$o")
	done
	"$cc" "${common[@]}" -Werror "${san_compile[@]}" "${extra[@]}" \
		-c "$here/$t.c" -o "$objdir/$t.o"
	"$cc" "${san_link[@]}" "${march[@]}" "${extra[@]}" \
		"$objdir/$t.o" "${objs[@]}" -lm -o "$out/$t.tmp"
	mv "$out/$t.tmp" "$out/$t"
}

for t in "${targets[@]}"; do
	build_target "$t"
done

# Seeds: generated binary ones, plus the repository's pipeline files.
gen_src=(test/common/frames.c lib/pkt/pkt.c lib/proto/proto.c)
gen_flags=()
if [ $have_cgra = 1 ]; then
	gen_src+=(lib/cgra/cgra.c lib/cgra/cgra_kern.c lib/cgra/cgra_ext.c
		  lib/cgra/cgra_isa.c lib/cgra/cgra_asm.c)
	gen_flags+=(-DACIS_FUZZ_CGRA -ffp-contract=off)
fi
gen_deps=()
for src in "${gen_src[@]}"; do
	gen_deps+=("$root/$src")
done
if ! up_to_date "$out/gen_seeds" "$here/gen_seeds.c" "${gen_deps[@]}"; then
	echo "build.sh: building gen_seeds"
	mkdir -p "$out/obj"
	"$cc" "${common[@]}" -Werror "${gen_flags[@]}" "${extra[@]}" \
		-c "$here/gen_seeds.c" -o "$out/obj/gen_seeds.o"
	"$cc" "${common[@]}" "${gen_flags[@]}" "${extra[@]}" \
		"$out/obj/gen_seeds.o" "${gen_deps[@]}" -lm -o "$out/gen_seeds"
fi
rm -rf "$out/seeds"
mkdir -p "$out/seeds/fuzz_conf"
"$out/gen_seeds" "$root" "$out/seeds"
for f in "$root"/pipelines/*.ini; do
	[ -e "$f" ] && cp "$f" "$out/seeds/fuzz_conf/pipelines-$(basename "$f")"
done

printf '%s\n' "${targets[@]}" > "$out/targets"
echo "build.sh: ${targets[*]} in $out"

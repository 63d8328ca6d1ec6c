#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The DPDK driver SDK: the headers a PMD needs (ethdev_driver.h,
# ethdev_vdev.h, bus_vdev_driver.h, dev_driver.h, bus_driver.h) that
# Debian's libdpdk-dev does not ship. Fetched once from the Debian source
# package of exactly the installed libdpdk-dev, checked against the
# installed public headers (a driver reaches into the ABI of internal
# structs, so the two must come from one source tree), and kept in
#   ${ACIS_DPDK_SDK_CACHE:-/var/cache/acis}/dpdk-sdk-<upstream version>/
# which meson finds (option dpdk_sdk). Idempotent; a no-op when present.
#
# Usage: drivers/dpdk-sdk.sh [--check]   (--check: report, fetch nothing)
set -euo pipefail

CACHE=${ACIS_DPDK_SDK_CACHE:-/var/cache/acis}
# Driver headers, by their path in the DPDK source tree.
SDK_HEADERS=(
	lib/eal/include/dev_driver.h
	lib/eal/include/bus_driver.h
	lib/ethdev/ethdev_driver.h
	lib/ethdev/ethdev_vdev.h
	drivers/bus/vdev/bus_vdev_driver.h
)
# Public headers the driver headers build on: the installed copies must be
# byte-identical to the source package's, or the SDK is for another DPDK.
PUBLIC_HEADERS=(
	lib/eal/include/rte_dev.h
	lib/eal/include/rte_devargs.h
	lib/eal/include/rte_bus.h
	lib/eal/include/rte_eal.h
	lib/ethdev/rte_ethdev.h
	lib/ethdev/rte_ethdev_core.h
	lib/mbuf/rte_mbuf_core.h
	lib/kvargs/rte_kvargs.h
	drivers/bus/vdev/rte_bus_vdev.h
)

die() { echo "dpdk-sdk: $*" >&2; exit 1; }

deb_version=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
	die "libdpdk-dev is not installed (scripts/setup.sh installs it)"
version=$(pkg-config --modversion libdpdk 2>/dev/null) ||
	die "pkg-config does not know libdpdk (is libdpdk-dev installed?)"
incdir=
for d in $(pkg-config --cflags-only-I libdpdk); do
	if [ -f "${d#-I}/rte_ethdev.h" ]; then incdir=${d#-I}; break; fi
done
[ -n "$incdir" ] || die "no rte_ethdev.h in the include directories of libdpdk"
dir=$CACHE/dpdk-sdk-$version

if [ -f "$dir/acis-sdk.stamp" ] &&
	[ "$(cat "$dir/acis-sdk.stamp")" = "libdpdk-dev $deb_version" ] &&
	(cd / && sha256sum --check --quiet "$dir/public-headers.sha256") \
		>/dev/null 2>&1; then
	echo "setup: DPDK driver SDK $deb_version present in $dir"
	exit 0
fi
if [ "${1:-}" = "--check" ]; then
	echo "setup: DPDK driver SDK for libdpdk-dev $deb_version missing ($dir)"
	exit 1
fi
[ "$(id -u)" -eq 0 ] ||
	die "the DPDK driver SDK for libdpdk-dev $deb_version is missing; run scripts/setup.sh as root to fetch it into $dir"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A private apt state: deb-src lines for this release, nothing of the
# system's configuration touched.
# shellcheck disable=SC1091
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:?}")
cat >"$work/sources.list" <<EOF
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
EOF
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
apt_opts=(-q -o "Dir::Etc::SourceList=$work/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
	-o APT::Sandbox::User=root)
echo "setup: fetching the dpdk $deb_version source package for its driver headers"
apt-get "${apt_opts[@]}" update >"$work/apt.log" 2>&1 ||
	{ cat "$work/apt.log" >&2; die "apt-get update of the deb-src lists failed"; }
(cd "$work/dl" && apt-get "${apt_opts[@]}" source --download-only \
	"dpdk=$deb_version") >>"$work/apt.log" 2>&1 ||
	{ cat "$work/apt.log" >&2; die "cannot download the source package dpdk=$deb_version (is it still in the archive?)"; }

orig=$(ls "$work"/dl/dpdk_*.orig.tar.* 2>/dev/null | head -1)
[ -n "$orig" ] || die "no orig tarball in the source package dpdk=$deb_version"
members=()
for f in "${SDK_HEADERS[@]}" "${PUBLIC_HEADERS[@]}"; do members+=("*/$f"); done
mkdir -p "$work/src"
tar -xf "$orig" -C "$work/src" --wildcards "${members[@]}" ||
	die "the orig tarball of dpdk=$deb_version lacks a needed header"
top=$(ls "$work/src")
src=$work/src/$top

# Debian's patches: apply any that touch a header we take (none do in
# 22.11); those need the whole tree, so unpack it only then.
debtar=$(ls "$work"/dl/dpdk_*.debian.tar.* 2>/dev/null | head -1)
if [ -n "$debtar" ]; then
	tar -xf "$debtar" -C "$work"
	series=$work/debian/patches/series
	touched=0
	if [ -f "$series" ]; then
		for f in "${SDK_HEADERS[@]}" "${PUBLIC_HEADERS[@]}"; do
			if grep -qs -- "^+++ b/$f" "$work"/debian/patches/*; then
				touched=1
			fi
		done
	fi
	if [ "$touched" = 1 ]; then
		rm -rf "$work/src"
		mkdir -p "$work/src"
		tar -xf "$orig" -C "$work/src"
		src=$work/src/$(ls "$work/src")
		grep -v '^\s*#' "$series" | while read -r p _; do
			[ -n "$p" ] || continue
			patch -s -p1 -d "$src" <"$work/debian/patches/$p" ||
				die "Debian patch $p does not apply"
		done
	fi
fi

# The installed public headers must be these very files.
for f in "${PUBLIC_HEADERS[@]}"; do
	h=$(basename "$f")
	[ -f "$incdir/$h" ] || die "$incdir/$h is not installed"
	cmp -s "$src/$f" "$incdir/$h" ||
		die "installed $incdir/$h differs from the one in dpdk $deb_version's source: the SDK would not match the installed DPDK (reinstall libdpdk-dev, or check which DPDK pkg-config finds)"
done

rm -rf "$dir.new"
mkdir -p "$dir.new"
for f in "${SDK_HEADERS[@]}"; do
	install -m 0644 "$src/$f" "$dir.new/"
done
(cd / && for f in "${PUBLIC_HEADERS[@]}"; do
	sha256sum "${incdir#/}/$(basename "$f")"
done) >"$dir.new/public-headers.sha256"
echo "libdpdk-dev $deb_version" >"$dir.new/acis-sdk.stamp"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "setup: DPDK driver SDK $deb_version installed in $dir"

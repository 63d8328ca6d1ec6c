#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install every Debian package acis needs to build, test and run its demo.
# Idempotent: installs only what is missing; run as root (or it says what
# to install), then fetches the DPDK driver SDK (drivers/dpdk-sdk.sh).
# Usage: scripts/setup.sh [--check]
set -euo pipefail

PACKAGES=(
	# build
	gcc g++ make pkg-config meson ninja-build
	# the DPDK driver headers (drivers/dpdk-sdk.sh): Debian's .orig.tar.xz
	# and its patches
	xz-utils patch
	libdpdk-dev libbpf-dev libelf-dev zlib1g-dev libcmocka-dev libpcap-dev
	clang llvm libclang-rt-14-dev
	# DPDK runtime and tools: dpdk-testpmd, dpdk-telemetry.py, PMD plugins
	dpdk dpdk-dev
	# testbed, demo and tests
	iproute2 iputils-ping ethtool procps kmod python3 python3-scapy
	# the Python package (python/acis, doc/python.md)
	python3-numpy
	# the Wireshark dissector's test (tools/wireshark/acis.lua)
	tshark
	# libacis-mpi is built for, and tested under, both MPIs Debian ships
	openmpi-bin libopenmpi-dev mpich libmpich-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all ${#PACKAGES[@]} packages present"
	exec "$(dirname "$0")/../drivers/dpdk-sdk.sh" "$@"
fi
if [ "${1:-}" = "--check" ]; then
	echo "setup: missing: ${missing[*]}"
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "setup: missing packages: ${missing[*]}" >&2
	echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
# Then the DPDK driver headers Debian does not package (drivers/dpdk-sdk.sh).
exec "$(dirname "$0")/../drivers/dpdk-sdk.sh"

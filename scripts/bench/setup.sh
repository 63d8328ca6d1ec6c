#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian packages the benchmarks need beyond scripts/setup.sh: Open MPI and
# MPICH (the end-to-end peers, installed side by side: e2e.sh calls each
# by its own name, mpicc.openmpi, mpicc.mpich, ..., never the mpicc that
# Debian's alternatives pick) and matplotlib (the plots). The tests need
# none of them. Installs only what is missing; run as root.
#
#   scripts/bench/setup.sh
set -euo pipefail
while getopts "h" o; do
	case $o in
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
[ "$OPTIND" -gt "$#" ] || { echo "bench setup: takes no arguments" >&2; exit 2; }
PACKAGES=(openmpi-bin libopenmpi-dev mpich libmpich-dev python3-matplotlib)
missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && { echo "bench setup: all ${#PACKAGES[@]} packages present"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
	echo "bench setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "bench setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI's launch agent on the namespace testbed (mpirun --mca
# plm_rsh_agent THIS): instead of ssh to a host, run the command in the
# host's network namespace. Host i is 10.77.0.(10+i), namespace
# $BENCH_NETNS_PREFIX-hI (scripts/testbed.sh). With BENCH_OMPI_TMP set,
# the host's Open MPI session directory is under $BENCH_OMPI_TMP/hI.
#
#   scripts/bench/mpi-netns-agent.sh HOST COMMAND...
case ${1:-} in
-h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
-*|'') echo "usage: mpi-netns-agent.sh HOST COMMAND..." >&2; exit 2 ;;
esac
host=$1
shift
case $host in
10.77.0.*) i=$((${host##*.} - 10)) ;;
*) echo "mpi-netns-agent: $host is not a testbed host" >&2; exit 1 ;;
esac
[ -n "$BENCH_NETNS_PREFIX" ] || { echo "mpi-netns-agent: BENCH_NETNS_PREFIX unset" >&2; exit 1; }
if [ -n "${BENCH_OMPI_TMP:-}" ]; then
	mkdir -p "$BENCH_OMPI_TMP/h$i"
	TMPDIR=$BENCH_OMPI_TMP/h$i
	export TMPDIR
fi
exec ip netns exec "$BENCH_NETNS_PREFIX-h$i" /bin/sh -c "$*"

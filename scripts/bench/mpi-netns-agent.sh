#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI launchers' agent on the namespace testbed, in place of ssh:
# Open MPI's (mpirun --mca plm_rsh_agent THIS) and MPICH's hydra
# (mpiexec.mpich -launcher ssh -launcher-exec THIS). Instead of logging
# in to a host, it runs the command in the host's network namespace.
# Host i is 10.77.0.(10+i) on the switch's subnet or 10.77.2.(10+i) on
# the Linux bridge's (scripts/testbed.sh -b), namespace
# $BENCH_NETNS_PREFIX-hI. With BENCH_OMPI_TMP set, the host's Open MPI
# session directory is under $BENCH_OMPI_TMP/hI.
#
#   scripts/bench/mpi-netns-agent.sh [-x|-X] HOST COMMAND...
#
# Hydra passes ssh's -x (no X forwarding) before the host; it means
# nothing here. As with ssh, COMMAND's words are joined and run by a shell.
case ${1:-} in
-h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
-x|-X) shift ;;
esac
case ${1:-} in
-*|'') echo "usage: mpi-netns-agent.sh [-x] HOST COMMAND..." >&2; exit 2 ;;
esac
host=$1
shift
case $host in
10.77.0.*|10.77.2.*) i=$((${host##*.} - 10)) ;;
*) echo "mpi-netns-agent: $host is not a testbed host" >&2; exit 1 ;;
esac
[ "$i" -ge 0 ] || { echo "mpi-netns-agent: $host is not a testbed host" >&2; exit 1; }
[ -n "$BENCH_NETNS_PREFIX" ] || { echo "mpi-netns-agent: BENCH_NETNS_PREFIX unset" >&2; exit 1; }
if [ -n "${BENCH_OMPI_TMP:-}" ]; then
	mkdir -p "$BENCH_OMPI_TMP/h$i"
	TMPDIR=$BENCH_OMPI_TMP/h$i
	export TMPDIR
fi
exec ip netns exec "$BENCH_NETNS_PREFIX-h$i" /bin/sh -c "$*"

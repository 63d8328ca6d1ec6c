#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The option handling of the benchmark scripts (scripts/bench/*.sh and
# scripts/pktgen/run-pktgen.sh), which
# nothing else in make test runs: -h prints the script's description and
# usage and exits 0; an unknown option or a bad value says so and exits 2;
# both before the script needs root, a build, hugepages or a namespace.
# Run as root, it runs the scripts as nobody, so that one that ignored -h
# cannot start a benchmark (or install packages). Files without a #! line
# (common.sh) are sourced by the others, not run. Takes well under a
# second. Usage: bench_options.sh [ROOT]
set -uo pipefail
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
B=$ROOT/scripts/bench
ERR=$(mktemp /tmp/acis-bench-options.XXXXXX)
trap 'rm -f "$ERR"' EXIT
pass=0 fail=0

AS=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	if ! "${AS[@]}" test -r "$B/common.sh"; then
		echo "note: nobody cannot read $B; running the scripts as root"
		AS=()
	fi
fi

# expect NAME WANT_RC SCRIPT ARGS...: the script exits WANT_RC within 5 s;
# with 0, its standard output is its own usage text (it names the script
# and holds no shell code); otherwise it says why on standard error.
expect() {
	local name=$1 want=$2 script=$B/$3 out rc why=''; shift 3
	out=$(cd / && timeout 5 "${AS[@]}" "$script" "$@" </dev/null 2>"$ERR"); rc=$?
	if [ "$rc" -ne "$want" ]; then
		why="exit $rc, want $want"
	elif [ "$want" -eq 0 ] && ! grep -q "scripts/[a-z]*/${script##*/}" <<<"$out"; then
		why="-h does not show the script's usage"
	elif [ "$want" -eq 0 ] && grep -qE '^(set|source|while|\[) ' <<<"$out"; then
		why="-h prints shell code"
	elif [ "$want" -ne 0 ] && ! [ -s "$ERR" ]; then
		why="no message on standard error"
	fi
	if [ -z "$why" ]; then
		echo "ok   - $name"; pass=$((pass + 1))
	else
		echo "FAIL - $name ($why)"
		{ tail -n 5 <<<"$out"; tail -n 5 "$ERR"; } | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

n=0
for f in "$B"/*.sh; do
	s=${f##*/}
	if [ "$(head -c 2 "$f")" != "#!" ]; then
		echo "     ($s is sourced, not run)"
		continue
	fi
	n=$((n + 1))
	expect "$s -h" 0 "$s" -h
	expect "$s --no-such-option" 2 "$s" --no-such-option
done
[ "$n" -ge 8 ] || { echo "FAIL - only $n scripts in $B"; fail=$((fail + 1)); }

# values the scripts check before they start
expect "e2e.sh -n x" 2 e2e.sh -n x
expect "e2e.sh -n ''" 2 e2e.sh -n ''
expect "e2e.sh -n '2 0'" 2 e2e.sh -n '2 0'
expect "e2e.sh -S below -s" 2 e2e.sh -s 4096 -S 64
expect "e2e.sh -i 1.5" 2 e2e.sh -i 1.5
expect "e2e.sh -m 100" 2 e2e.sh -m 100
expect "e2e.sh -m 9600" 2 e2e.sh -m 9600
expect "e2e.sh -x both" 2 e2e.sh -x both
expect "run-acis-bench.sh -n '2 3'" 2 run-acis-bench.sh -n '2 3'
ACIS_MTU=x expect "run-acis-bench.sh with ACIS_MTU=x" 2 run-acis-bench.sh
ACIS_MTU=9600 expect "run-acis-bench.sh with ACIS_MTU=9600" 2 run-acis-bench.sh
expect "run-acis-bench.sh -n 0" 2 run-acis-bench.sh -n 0
expect "apps.sh -a nope" 2 apps.sh -a nope
expect "apps.sh -a ''" 2 apps.sh -a ''
expect "apps.sh -r 0" 2 apps.sh -r 0
expect "apps.sh -x both" 2 apps.sh -x both
expect "apps.sh -m 100" 2 apps.sh -m 100
expect "apps.sh -m 9600" 2 apps.sh -m 9600
expect "apps.sh -t with no topology file" 2 apps.sh -t /nonexistent/acis.ini
expect "fidelity.sh -n 1" 2 fidelity.sh -n 1
expect "fidelity-load.sh -r 1" 2 fidelity-load.sh -r 1
expect "fidelity-load.sh -r '0.5 x'" 2 fidelity-load.sh -r '0.5 x'
expect "fidelity-load.sh -t 0" 2 fidelity-load.sh -t 0
expect "mpe-trees.sh -n 12" 2 mpe-trees.sh -n 12
expect "mpe-trees.sh -n 64" 2 mpe-trees.sh -n 64
expect "mpe-trees.sh -b 6" 2 mpe-trees.sh -b 6
expect "torus-findings.sh -d 0" 2 torus-findings.sh -d 0
expect "torus-findings.sh -d x" 2 torus-findings.sh -d x
expect "torus-findings.sh -z" 2 torus-findings.sh -z
expect "thesis-models.sh -p both" 2 thesis-models.sh -p both
expect "thesis-models.sh -N 1" 2 thesis-models.sh -N 1
expect "thesis-models.sh -S below -s" 2 thesis-models.sh -s 4096 -S 64
expect "fabric.sh -P machine" 2 fabric.sh -P machine
expect "fabric-scale.sh -P both" 2 fabric-scale.sh -P both
expect "fwd.sh -r 0" 2 fwd.sh -r 0
expect "fwd.sh -s 2x" 2 fwd.sh -s 2x
expect "fwd.sh -f '64 20'" 2 fwd.sh -f '64 20'
expect "fwd.sh -p tap" 2 fwd.sh -p tap
expect "fwd.sh -p ''" 2 fwd.sh -p ''
expect "agg.sh -P 1" 2 agg.sh -P 1
expect "agg.sh -L ''" 2 agg.sh -L ''
expect "agg.sh -k hw" 2 agg.sh -k hw
expect "agg.sh -k ''" 2 agg.sh -k ''
expect "lookaside.sh -t 0" 2 lookaside.sh -t 0
expect "scaling.sh -w two" 2 scaling.sh -w two
expect "scaling.sh -a with no agg.csv" 2 scaling.sh -a /nonexistent/acis-agg
expect "setup.sh with an argument" 2 setup.sh extra
expect "mpi-netns-agent.sh with no host" 2 mpi-netns-agent.sh
expect "loss.sh -s 4k" 2 loss.sh -s 4k
expect "loss.sh -c alltoallv" 2 loss.sh -c alltoallv
expect "loss.sh -t 10" 2 loss.sh -t 10
expect "share.sh -s 64k" 2 share.sh -s 64k
expect "share.sh -r 0" 2 share.sh -r 0
# pktgen's script (scripts/pktgen), its options the same way
expect "run-pktgen.sh -h" 0 ../pktgen/run-pktgen.sh -h
expect "run-pktgen.sh --no-such-option" 2 ../pktgen/run-pktgen.sh --no-such-option
expect "run-pktgen.sh -r 0" 2 ../pktgen/run-pktgen.sh -r 0
expect "run-pktgen.sh -r 101" 2 ../pktgen/run-pktgen.sh -r 101
expect "run-pktgen.sh -d 0" 2 ../pktgen/run-pktgen.sh -d 0
expect "run-pktgen.sh -m 100" 2 ../pktgen/run-pktgen.sh -m 100
expect "run-pktgen.sh -m 4G" 2 ../pktgen/run-pktgen.sh -m 4G

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the comparison scripts in scripts/bench/. Source it after
# scripts/lib.sh. Each comparison writes a results directory holding its
# CSV, a table (table.txt), a plot (PNG) and run.txt: machine, commit,
# load, the exact command, so every figure says where it came from.

BENCH_PY=/usr/bin/python3

# Option values, checked before anything runs; a bad one exits 2 naming
# the option. bench_want_ints SCRIPT OPTION VALUE [LEAST]: one or more
# whole numbers (a list, e.g. -n "2 3 4"), each at least LEAST (default 1).
bench_want_ints() {
	local v least=${4:-1}
	[ -n "${3// /}" ] || { echo "$1: $2 wants a whole number, got nothing" >&2; exit 2; }
	for v in $3; do
		# 18 digits: any such number fits the shell's 64-bit arithmetic
		if ! [[ $v =~ ^[0-9]{1,18}$ ]] || [ "$v" -lt "$least" ]; then
			echo "$1: $2 wants whole numbers of at least $least, not '$3'" >&2
			exit 2
		fi
	done
}

# bench_want_int SCRIPT OPTION VALUE [LEAST]: one whole number
bench_want_int() {
	if [[ $3 =~ [[:space:]] ]]; then
		echo "$1: $2 wants one whole number, not '$3'" >&2
		exit 2
	fi
	bench_want_ints "$@"
}

# bench_want_secs SCRIPT OPTION VALUE: a number of seconds above 0 (0.5)
bench_want_secs() {
	if ! [[ $3 =~ ^([0-9]{1,6}(\.[0-9]*)?|\.[0-9]+)$ ]] ||
		! awk -v v="$3" 'BEGIN { exit !(v > 0) }'; then
		echo "$1: $2 wants seconds above 0, not '$3'" >&2
		exit 2
	fi
}

# bench_pick SCRIPT OPTION KIND LIST NAME...: the NAMEs the comma list
# LIST names, in the NAMEs' order, into BENCH_PICKED; a name not among
# them, or no name at all, exits 2 naming the valid ones (e2e.sh -P,
# apps.sh -a).
bench_pick() {
	local script=$1 opt=$2 kind=$3 list=$4 w valid
	shift 4
	valid=$(IFS=,; echo "$*")
	BENCH_PICKED=()
	for w in ${list//,/ }; do
		[[ " $* " == *" $w "* ]] || {
			echo "$script: $opt: no $kind '$w' (valid: $valid)" >&2
			exit 2
		}
	done
	for w; do
		[[ ",$list," == *",$w,"* ]] && BENCH_PICKED+=("$w")
	done
	[ ${#BENCH_PICKED[@]} -gt 0 ] || {
		echo "$script: $opt wants ${kind}s, comma-separated (valid: $valid)" >&2
		exit 2
	}
}

# bench_cores SCRIPT MODE: how the switch and the hosts share the cores
# (-x of e2e.sh and apps.sh); another MODE exits 2. dedicated: a switch
# is hardware of its own, so it polls the last core, SW_CORE, without
# sleeping (ACIS_SW_LCORES for acis_switch_start, ACIS_FABRIC_LCORES for
# a fabric's process), and HOST_CPUS names the other cores, the hosts'
# (one core: all share it). shared: nothing is pinned, HOST_CPUS is empty.
bench_cores() {
	case $2 in
	dedicated | shared) ;;
	*) echo "$1: -x $2: want dedicated or shared" >&2; exit 2 ;;
	esac
	SW_CORE=$(( $(nproc) > 1 ? $(nproc) - 1 : 0 ))
	HOST_CPUS=''
	[ "$2" = dedicated ] || return 0
	export ACIS_SW_IDLE_SLEEP=0 ACIS_SW_LCORES=$SW_CORE ACIS_FABRIC_LCORES=$SW_CORE
	HOST_CPUS=0
	[ "$SW_CORE" -le 1 ] || HOST_CPUS=0-$((SW_CORE - 1))
}

# bench_testbed_mtu SCRIPT OPTION MTU: the testbed's MTU, within libacis's
# range (576-9000); with PIPELINE empty, sets it to the testbed pipeline
# for that MTU: above 1500 the jumbo one, whose AF_PACKET ring slots hold
# a jumbo frame (the plain one's do not, and the switch refuses it).
bench_testbed_mtu() {
	bench_want_int "$1" "$2" "$3" 576
	if [ "$3" -gt 9000 ]; then
		echo "$1: $2 $3: want an MTU from 576 to 9000 (libacis's range)" >&2
		exit 2
	fi
	[ -z "$PIPELINE" ] || return 0
	PIPELINE=$ACIS_ROOT/pipelines/testbed-af_packet.ini
	[ "$3" -le 1500 ] || PIPELINE=$ACIS_ROOT/pipelines/testbed-jumbo.ini
}

# Results directory: -o DIR, or /tmp/acis-bench-NAME-DATE.
bench_outdir() {
	local name=$1 dir=$2
	[ -n "$dir" ] || dir=/tmp/acis-bench-$name-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$dir"
	(cd "$dir" && pwd)
}

# What the numbers came from: bench_runinfo DIR COMMAND...
bench_runinfo() {
	local dir=$1; shift
	{
		echo "date:      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "machine:   $(uname -srm), $(nproc) cores," \
			"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')," \
			"$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
		if git -C "$ACIS_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
			echo "commit:    $(git -C "$ACIS_ROOT" rev-parse --short HEAD)" \
				"($(git -C "$ACIS_ROOT" status --porcelain | wc -l) paths changed or new)"
		else
			# e.g. a tree from git archive: say which commit it was
			echo "commit:    ${BENCH_COMMIT:-unknown} ($ACIS_ROOT is not a git checkout)"
		fi
		echo "build:     $ACIS_BUILD"
		echo "dpdk:      $(pkg-config --modversion libdpdk 2>/dev/null || echo '?')"
		# the numbers mean little if someone else was using the cores
		echo "sharing:   load average $(cut -d' ' -f1-3 /proc/loadavg)," \
			"$(pgrep -c -x acis-switch || true) acis-switch," \
			"$(pgrep -c -f dpdk-testpmd || true) testpmd running"
		echo "command:   $*"
		# settings libacis and the scripts take from the environment
		# (ACIS_WINDOW, ACIS_MTU, ...): a figure depends on them too
		env | LC_ALL=C sort | grep -E '^ACIS_[A-Z0-9_]*=' |
			grep -vE '^ACIS_(ROOT|BUILD)=' | sed 's/^/env:       /' || true
	} >"$dir/run.txt"
}

# Make sure N 2 MiB hugepages are free (adds pages, never takes them
# away: others may be using them). Prints the EAL memory option to use.
bench_hugepages() {
	local want=$1 free total
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	total=$(cat /proc/sys/vm/nr_hugepages)
	if [ "${free:-0}" -lt "$want" ] && [ -w /proc/sys/vm/nr_hugepages ]; then
		echo $((total + want - free)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		grep -qs ' hugetlbfs ' /proc/mounts ||
			{ mkdir -p /dev/hugepages; mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true; }
		free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	fi
	if [ "${free:-0}" -ge "$want" ] && grep -qs ' hugetlbfs ' /proc/mounts; then
		echo "--in-memory"
	else
		acis_warn "only ${free:-0} free hugepages (want $want): --no-huge, slower"
		echo "--no-huge -m $((want * 2)) --no-shconf"
	fi
}

# The plotter needs matplotlib (Debian's python3-matplotlib).
bench_need_plot() {
	if ! "$BENCH_PY" -c 'import matplotlib' 2>/dev/null; then
		acis_warn "no python3-matplotlib: tables only (scripts/bench/setup.sh installs it)"
		return 1
	fi
}

# bench_plot KIND CSV PNG [args]: see plot.py
bench_plot() {
	bench_need_plot || return 0
	"$BENCH_PY" "$ACIS_ROOT/scripts/bench/plot.py" "$@"
}

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The demo: bring up the testbed (switch + 4 hosts in namespaces), start
# acis-switch on it, show traffic crossing the switch with its counters,
# and tear everything down again, whatever happens.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

PREFIX=${ACIS_DEMO_PREFIX:-acis-demo}
PIPELINE=${ACIS_DEMO_PIPELINE:-$ACIS_ROOT/pipelines/testbed-lookaside.ini}
LOG=$(mktemp /tmp/acis-demo.XXXXXX.log)
# the switch's memif sockets, one per host (its pipeline's m0..m3)
export ACIS_MEMIF_DIR=$(mktemp -d /tmp/acis-demo-memif.XXXXXX)
TB="$ACIS_ROOT/scripts/testbed.sh"
FABRIC="$ACIS_ROOT/scripts/fabric.sh"
FAB_PREFIX=acisdf

cleanup() {
	# only the script itself, never a subshell that inherited the trap
	[ "$BASHPID" = "$$" ] || return 0
	acis_switch_stop
	"$TB" down -p "$PREFIX" 2>/dev/null || true
	"$FABRIC" down -p "$FAB_PREFIX" 2>/dev/null || true
	rm -rf "$LOG" "$ACIS_MEMIF_DIR"
}
trap cleanup EXIT INT TERM

[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (namespaces, hugepages)" >&2; exit 1; }
"$TB" down -p "$PREFIX" 2>/dev/null || true

acis_log "testbed: switch namespace + 4 hosts on veth pairs"
"$TB" up -n 4 -p "$PREFIX"

acis_log "acis-switch on the testbed ($(basename "$PIPELINE"))"
acis_switch_start "$PREFIX" "$PIPELINE" "$LOG"
acis_ctl "$PREFIX" info

acis_log "ping h0 -> h1 through the switch"
"$TB" exec -p "$PREFIX" h0 ping -c 3 -i 0.2 -W 1 10.77.0.11

acis_log "ping h0 -> the switch's own address (ARP + ICMP answered by acis-switch)"
"$TB" exec -p "$PREFIX" h0 ping -c 3 -i 0.2 -W 1 10.77.0.1

acis_log "UDP transfer h2 -> h3: 2000 datagrams, content checked"
"$TB" exec -p "$PREFIX" h3 python3 "$ACIS_ROOT/scripts/udp_transfer.py" recv 9000 2000 15 &
rx=$!
sleep 0.5
"$TB" exec -p "$PREFIX" h2 python3 "$ACIS_ROOT/scripts/udp_transfer.py" send 10.77.0.13 9000 2000 1400
wait "$rx"

acis_log "in-network collectives: 4 hosts, the switch reduces, gathers and multicasts"
echo "(each host checks its result bit for bit against a reference it computes itself;"
echo " host 0's view is shown)"
# demo_ranks JOB ARGS...: acis-coll-check as ranks 0..3 of job JOB (the
# hosts' transport from ACIS_HOST_TRANSPORT), logs in a fresh COLL_DIR;
# on a failure every rank's log is shown and the demo stops
demo_ranks() {
	local job=$1; shift
	COLL_DIR=$(mktemp -d /tmp/acis-demo-coll.XXXXXX)
	acis_run_ranks "$PREFIX" 4 "$job" "$COLL_DIR" "$@" && return 0
	cat "$COLL_DIR"/rank*.log
	rm -rf "$COLL_DIR"
	exit 1
}
demo_ranks 42 --sizes 64,1048576 --colls allreduce,bcast,gather,reduce_scatter \
	--dtypes float32 --show
grep -A2 -h '^world \(allreduce\|bcast\|reduce_scatter\)' "$COLL_DIR/rank0.log"
echo "(gather: shown by each gather's root)"
grep -A2 -h '^world gather' "$COLL_DIR"/rank*.log
tail -n 1 "$COLL_DIR/rank0.log"
rm -rf "$COLL_DIR"

acis_log "the same through kernel bypass: each host's libacis on a memif port of its own"
echo "(ACIS_TRANSPORT=dpdk: no kernel between host and switch; doc/transports.md)"
ACIS_HOST_TRANSPORT=dpdk demo_ranks 43 --sizes 64,1048576 \
	--colls allreduce,bcast,gather,reduce_scatter --dtypes float32 --times
grep -h 'ms$' "$COLL_DIR/rank0.log" | head -8 || true
tail -n 1 "$COLL_DIR/rank0.log"
rm -rf "$COLL_DIR"

if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null &&
	[ -e "$ACIS_BUILD/lib/mpi/libacis-mpi-openmpi.so" ]; then
	acis_log "an unmodified MPI program: plain mpicc, its collectives through the switch"
	echo "(examples/mpi/mpi_demo.c has nothing of acis in it; libacis-mpi comes"
	echo " with LD_PRELOAD and sends its collectives to the switch; doc/mpi.md)"
	MPI_DIR=$(mktemp -d /tmp/acis-demo-mpi.XXXXXX)
	mpicc.openmpi -O2 "$ACIS_ROOT/examples/mpi/mpi_demo.c" -o "$MPI_DIR/mpi_demo"
	before=$(acis_coll_counter "$PREFIX" completed_allreduce)
	if ! TMPDIR=$MPI_DIR "$TB" exec -p "$PREFIX" h0 mpirun.openmpi --allow-run-as-root \
		--oversubscribe -np 4 --mca btl self,vader --bind-to none \
		--mca mpi_yield_when_idle 1 \
		-x LD_PRELOAD="$ACIS_BUILD/lib/mpi/libacis-mpi-openmpi.so" \
		-x ACIS_SWITCH=10.77.0.1 -x ACIS_MPI_STATS=1 "$MPI_DIR/mpi_demo"; then
		rm -rf "$MPI_DIR"
		exit 1
	fi
	rm -rf "$MPI_DIR"
	echo "the switch's completed allreduces: $before before the program, $(acis_coll_counter "$PREFIX" completed_allreduce) after"
fi

acis_log "look-aside CGRA: one GCN aggregation layer through the switch's handler"
echo "(4096-node power-law graph; host 0 streams the sparse rows to UDP port"
echo " 48000, the handler gathers resident node features and returns each block"
echo " of 64 aggregated rows; host 0 checks them against plain C)"
LA_DIR=$(mktemp -d /tmp/acis-demo-la.XXXXXX)
"$ACIS_BUILD/tools/acis-lookaside" prep gcn --dir "$LA_DIR" --vpe 4 --seed 1
for b in 1 2 3 4; do
	acis_ctl "$PREFIX" cgra mem gcn "$b" 0 "$LA_DIR/bank$b.bin" >/dev/null
done
acis_ctl "$PREFIX" cgra load gcn "$ACIS_ROOT/examples/cgra/gcn_os.s" >/dev/null
echo "acisctl cgra load gcn examples/cgra/gcn_os.s: loaded at runtime"
if ! "$TB" exec -p "$PREFIX" h0 "$ACIS_BUILD/tools/acis-lookaside" run gcn \
	--to 10.77.0.1:48000 --vpe 4 --seed 1; then
	rm -rf "$LA_DIR"
	exit 1
fi
rm -rf "$LA_DIR"
acis_ctl "$PREFIX" cgra stats gcn | grep -E 'state|program"|pkts_|consumed|runs|instructions|cycles|tiles_skipped|faults'

acis_log "a user-defined reduction: a CGRA program as the op of an allreduce"
echo "(examples/cgra/satsum_u8.s, a saturating uint8 sum: every rank registers it"
echo " with acis_op_create, the switch folds it in rank order on its own CGRA;"
echo " each rank checks the result against the same program folded on the host;"
echo " doc/collectives.md, \"User-defined operators\")"
demo_ranks 45 --op-program "$ACIS_ROOT/examples/cgra/satsum_u8.s" \
	--sizes 16,4096 --colls allreduce,reduce_scatter --dtypes uint8 --show
grep -A2 -h '^world allreduce uint8 16 B' "$COLL_DIR/rank0.log" || true
tail -n 1 "$COLL_DIR/rank0.log"
rm -rf "$COLL_DIR"

acis_log "fused collectives: a collective, a CGRA op and a collective, all in the switch"
echo "(the thesis's Table 5.1 benchmarks, ACiS Type 3: e.g. GMRES's allreduce of"
echo " ||w||^2, the op scaling w and dotting it with v in the switch, and the"
echo " allreduce of the shares, with no round trip to the hosts between; each"
echo " rank checks its result bit for bit against a CPU reference and against"
echo " the same computation as separate collectives; doc/fused.md)"
ACIS_RANK_TOOL=$ACIS_BUILD/tools/acis-fused demo_ranks 46 --iters 20
grep -h '^ok' "$COLL_DIR/rank0.log"
tail -n 1 "$COLL_DIR/rank0.log"
rm -rf "$COLL_DIR"
echo "the switch's fused calls: $(acis_coll_counter "$PREFIX" fused_calls)"

acis_log "the switch's counters (acisctl, over DPDK telemetry)"
acis_ctl "$PREFIX" stages
acis_ctl "$PREFIX" collectives

acis_log "stopping the switch; its exit summary"
acis_switch_stop
cat "$LOG" | grep -v '^EAL\|^TELEMETRY'
acis_log "a fabric: 2 leaves and a spine (topologies/leaf-spine.ini), logical switches of one acis-switch"
TOPO=$ACIS_ROOT/topologies/leaf-spine.ini
"$FABRIC" down -p "$FAB_PREFIX" 2>/dev/null || true
"$FABRIC" up "$TOPO" -p "$FAB_PREFIX"
"$FABRIC" start -p "$FAB_PREFIX"
"$FABRIC" status -p "$FAB_PREFIX"
"$ACIS_BUILD/tools/acis-fabric" tree "$TOPO" all
FOLD=$("$ACIS_BUILD/tools/acis-fabric" fold "$TOPO" all)
acis_log "allreduce of 1 MiB, 4 hosts on 2 leaves, folded in the tree $FOLD"
COLL_DIR=$(mktemp -d /tmp/acis-demo-coll.XXXXXX)
if ! ACIS_SWITCH_IP=10.77.0.202 acis_run_ranks "$FAB_PREFIX" 4 43 "$COLL_DIR" \
	--sizes 1048576 --colls allreduce --dtypes float32 --fold "$FOLD"; then
	cat "$COLL_DIR"/rank*.log
	exit 1
fi
tail -n 1 "$COLL_DIR/rank0.log"
echo "(each link's traffic both ways: one partial a chunk up, one result down)"
"$FABRIC" links -p "$FAB_PREFIX"
fabric_counters() {
	local sw
	for sw in leaf0 leaf1 spine0; do
		printf '%-7s ' "$sw:"
		"$FABRIC" ctl -p "$FAB_PREFIX" "$sw" --raw /acis/collectives |
			python3 -c 'import json,sys; s=json.load(sys.stdin)["/acis/collectives"]; print("partials folded in %(partials_in)d, sent up %(partials_up)d; results sent down %(results_down)d, taken from the parent %(results_from_parent)d; members answered %(results_sent)d" % s)'
	done
}
fabric_counters
acis_log "bcast of 1 MiB from rank 0: up to the spine once, one copy down each leaf's link (the counts add to the above)"
if ! ACIS_SWITCH_IP=10.77.0.202 acis_run_ranks "$FAB_PREFIX" 4 44 "$COLL_DIR" \
	--sizes 1048576 --colls bcast --dtypes float32; then
	cat "$COLL_DIR"/rank*.log
	exit 1
fi
tail -n 1 "$COLL_DIR/rank0.log"
rm -rf "$COLL_DIR"
"$FABRIC" links -p "$FAB_PREFIX"
"$FABRIC" down -p "$FAB_PREFIX"

acis_log "demo done; tearing the testbed down"

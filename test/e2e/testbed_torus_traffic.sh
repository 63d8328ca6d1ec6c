#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End to end: the torus traffic generator (doc/torus-traffic.md) driven
# by tools/acis-torus-traffic on acis-fabric torus 4x4x4 hosts=0 (64
# logical switches, no host) and a 4x4 mesh. Batch runs of every pattern
# under dor, and of three under rmr and ccar: every frame generated is
# received, and the mean hops of the fixed patterns are exactly their
# minimal distances, computed here from the coordinates and the seed's
# definitions; no watchdog report, no overrun, no illegal turn. A
# continuous run accepts what it offers; calibrate gives an ideal
# latency; the CSV has its columns; a bad pattern, a fanout the torus
# cannot give, and a process that is not there each fail with a clear
# message. Exit 77 without root; cleans up pass or fail.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

acis_e2e_begin torus_traffic tt$$
FABRIC="$ACIS_ROOT/scripts/fabric.sh"
FAB="$ACIS_BUILD/tools/acis-fabric"
TT="$ACIS_ROOT/tools/acis-torus-traffic"

e2e_teardown() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}

# start TOPOLOGY ALGO: the fabric (re)started with ALGO
start() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
	"$FABRIC" up "$1" -p "$PREFIX" -P logical >/dev/null
	ACIS_TORUS_ROUTING=$2 ACIS_MBUFS=2559 "$FABRIC" start -p "$PREFIX" >/dev/null
}

# minimal DIMS MESH PATTERN: the mean minimal hops of the pattern's
# frames, every node sending one to each of its destinations (seed 000
# Tab. 5.3 and doc/torus-traffic.md: neighbours over the dimensions
# present, none past a mesh's edge; the others modulo each ring; a node
# that maps to itself sends nothing)
minimal() {
	python3 - "$@" <<'PY'
import itertools, sys
k = [int(x) for x in sys.argv[1].split("x")] + [1, 1]
k = k[:3]
mesh = sys.argv[2] == "1"
pat = sys.argv[3]
n = k[0] * k[1] * k[2]
pd = [d for d in range(3) if k[d] > 1]
coord = lambda i: (i % k[0], i // k[0] % k[1], i // k[0] // k[1])
index = lambda c: c[0] + k[0] * (c[1] + k[1] * c[2])
def dist(a, b):
    return sum(abs(x - y) if mesh else min(abs(x - y), kk - abs(x - y))
               for x, y, kk in zip(a, b, k))
def dests(i):
    c = coord(i)
    if pat in ("nn", "3h-nn", "cube-nn"):
        out = []
        for off in itertools.product((-1, 0, 1), repeat=len(pd)):
            nz = sum(1 for o in off if o)
            if nz == 0 or (pat == "nn" and nz != 1) or \
                    (pat == "3h-nn" and nz != len(pd)):
                continue
            d = list(c)
            ok = True
            for dim, o in zip(pd, off):
                x = c[dim] + o
                if mesh and not 0 <= x < k[dim]:
                    ok = False
                d[dim] = x % k[dim]
            if ok:
                out.append(tuple(d))
        return out
    if pat == "bc":
        d = tuple(kk - 1 - x for x, kk in zip(c, k))
    elif pat == "tran":
        d = list(c)
        for j, dim in enumerate(pd):
            d[dim] = c[pd[j - 1]] % k[dim]
        d = tuple(d)
    elif pat == "tor":
        dim = 1 if k[1] > 1 else pd[0]
        d = list(c)
        d[dim] = (c[dim] + k[dim] // 2 - 1) % k[dim]
        d = tuple(d)
    elif pat == "rot":
        b = n.bit_length() - 1
        d = coord((i >> 1) | ((i & 1) << (b - 1)))
    elif pat == "all":
        return [coord(j) for j in range(n) if j != i]
    return [] if d == c else [d]
hops = [dist(coord(i), d) for i in range(n) for d in dests(i)]
print("%.6f" % (sum(hops) / len(hops)))
PY
}

# field CSV COLUMN: a column of a one-run CSV (header, one row)
field() {
	python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[-1][sys.argv[2]])' "$1" "$2"
}

# batch TOPOLOGY-DIMS MESH ALGO PATTERN: one batch run, checked
batch() {
	local dims=$1 mesh=$2 algo=$3 pat=$4 out="$DIR/run.csv" want got
	if ! "$TT" -f "$PREFIX-fab" --csv run --pattern "$pat" --count 2 \
		--timeout 20 >"$out" 2>>"$LOG"; then
		check "$dims $algo $pat: the run ends (see $LOG)" false
		return
	fi
	check "$dims $algo $pat: $(field "$out" sent) frames sent, all received" \
		[ "$(field "$out" sent)" -gt 0 -a "$(field "$out" sent)" = "$(field "$out" received)" \
		  -a "$(field "$out" lost)" = 0 -a "$(field "$out" malformed)" = 0 ]
	check "$dims $algo $pat: no watchdog report, overrun or illegal turn" \
		[ "$(field "$out" deadlocks)" = 0 -a "$(field "$out" overruns)" = 0 \
		  -a "$(field "$out" illegal_turns)" = 0 -a "$(field "$out" bad_header)" = 0 ]
	case $pat in uniform | mcast*) return ;; esac
	want=$(minimal "$dims" "$mesh" "$pat")
	got=$(field "$out" hops_mean)
	check "$dims $algo $pat: mean hops $got, the minimal $want" \
		python3 -c "import sys; sys.exit(not abs($got - $want) < 1e-4)"
}

"$FAB" torus 4x4x4 hosts=0 >"$DIR/torus.ini"
"$FAB" torus 4x4 mesh hosts=0 >"$DIR/mesh.ini"

start "$DIR/torus.ini" dor
for pat in nn 3h-nn cube-nn bc tran tor all rot uniform mcast:8; do
	batch 4x4x4 0 dor "$pat"
done

out="$DIR/run.csv"
"$TT" -f "$PREFIX-fab" --csv run --pattern tran >"$out"
check "the CSV has its columns" python3 -c '
import csv, sys
want = """run pattern mode algo arbitration slots dims nodes links size flits
count offered_fps offered_load sent received lost other_run malformed stalls
source_wait_cycles accepted_fps accepted_bps accepted_load link_bps link_load
lat_mean_cycles lat_p99_cycles lat_max_cycles lat_mean_ns lat_p99_ns
lat_max_ns batch_cycles batch_ns hops_mean ratio_threshold ideal_base
ideal_hop ratio_mean ratio_max ratio_over ratio_over_frac deadlocks
deadlock_drops overruns inject_full illegal_turns bad_header coll radius
sums sums_bad mc_copies credits_tx credits_tx_bytes hops_hist""".split()
r = list(csv.reader(open(sys.argv[1])))
sys.exit(not (r[0] == want and len(r) == 2 and len(r[1]) == len(want)))' "$out"
check "the CSV says dor, oldest first, 64 nodes and 384 links" \
	[ "$(field "$out" algo)" = dor -a "$(field "$out" arbitration)" = of \
	  -a "$(field "$out" nodes)" = 64 -a "$(field "$out" links)" = 384 ]

"$TT" -f "$PREFIX-fab" calibrate --calib-duration-ms 500 >"$DIR/calib" 2>>"$LOG" || true
ideal=$(sed -n 's/^ideal=\([0-9]*:[0-9]*\) .*/\1/p' "$DIR/calib")
check "calibrate gives the ideal latency ($ideal)" [ -n "$ideal" ]
"$TT" -f "$PREFIX-fab" --csv run --mode continuous --pattern uniform --rate 1000 \
	--duration-ms 400 --warmup-ms 100 --ideal "${ideal:-1:1}" >"$out" 2>>"$LOG" || true
check "continuous: all $(field "$out" sent) frames received, $(field "$out" accepted_fps) frames/s a node accepted of 1000" \
	python3 -c "import sys; sys.exit(not ($(field "$out" lost) == 0 and $(field "$out" sent) > 0 and
		abs($(field "$out" accepted_fps) - 1000) < 100))"
check "continuous: delay ratios measured ($(field "$out" ratio_mean) on average)" \
	[ -n "$(field "$out" ratio_mean)" ]

msg=$("$TT" -f "$PREFIX-fab" run --pattern diagonal 2>&1) && rc=0 || rc=$?
check "a bad pattern: exit $rc, '${msg##*$'\n'}'" \
	bash -c "[ $rc -eq 2 ] && grep -q \"'diagonal': expected one of nn\" <<<\"\$1\"" _ "$msg"
msg=$("$TT" -f "$PREFIX-fab" run --pattern mcast:64 2>&1) && rc=0 || rc=$?
check "a fanout past the others: exit $rc, '$msg'" \
	bash -c "[ $rc -eq 1 ] && grep -q 'refused the run: pattern=mcast: fanout 64, expected 1 to 63' <<<\"\$1\"" _ "$msg"
msg=$("$TT" -f "$PREFIX-none" status 2>&1) && rc=0 || rc=$?
check "no such process: exit $rc, '$msg'" \
	bash -c "[ $rc -eq 1 ] && grep -q 'no switch process at' <<<\"\$1\"" _ "$msg"

for algo in rmr ccar; do
	start "$DIR/torus.ini" "$algo"
	for pat in tran all bc; do
		batch 4x4x4 0 "$algo" "$pat"
	done
done

start "$DIR/mesh.ini" dor
for pat in nn cube-nn all tran; do
	batch 4x4 1 dor "$pat"
done

echo "torus_traffic: $passes passed, $fails failed"
[ "$fails" -eq 0 ]

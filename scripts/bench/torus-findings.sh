#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Seed 000's qualitative findings (§6.9 of the project's digest of it) on
# the emulated torus (doc/torus.md, "The seed's findings, reproduced"): a
# 4x4x4 torus of logical switches with no host, every link shaped as
# Chen Yang's (topologies/profiles/chenyang.ini: 20 Gbit/s, 175 ns), the
# whole dilated D times (-d, default 10000) so the one core walking the
# 64 switches keeps up with the links it emulates; each switch a
# virtual cut-through router (8 slots a class). The traffic generator and
# tools/acis-torus-traffic make every figure.
#
#   scripts/bench/torus-findings.sh [-o DIR] [-d DILATION] [-q]
#
#   hops.csv    uniform batch (16 frames to each of 63 draws... a node),
#               each algorithm: frames by hops; RLB's mean against
#               2P(N - P)/N a ring (the long way with probability P/N)
#   batch.csv   batch latency of TRAN, TOR, BC and ALL under each of the
#               15 algorithm-policy pairs (256-byte frames)
#   cont.csv    continuous TRAN and TOR at an offered load past the
#               links' (1.6 flits a cycle a node): throughput accepted
#               and latency, each algorithm with oldest first
#   mcast.csv   CUBE-NN as 26 unicasts against one cube multicast, batch,
#               64 and 1024 bytes
#   red.csv     cube reduction against CUBE-NN's unicasts (the sums made
#               at the hosts), batch of 1 (light) and 8 rounds (heavy)
#
# -q: fewer repetitions and no ALL (a quick look). Writes DIR/*.csv and
# table.txt. Needs root. Not a test: nothing here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' DIL=10000 QUICK=0
while getopts "o:d:qh" o; do
	case $o in
	o) OUT=$OPTARG ;;
	d) DIL=$OPTARG ;;
	q) QUICK=1 ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int torus-findings -d "$DIL" 1
[ "$(id -u)" -eq 0 ] || { echo "torus-findings: needs root (namespaces)" >&2; exit 1; }
FAB=$ACIS_BUILD/tools/acis-fabric
TT=$ACIS_ROOT/tools/acis-torus-traffic
FABRIC=$ACIS_ROOT/scripts/fabric.sh
OUT=$(bench_outdir torus-findings "$OUT")
PREFIX=tf$$

cleanup() { "$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -d $DIL$([ "$QUICK" = 0 ] || echo ' -q')"
mkdir -p "$OUT/topo"
ln -sfn "$ACIS_ROOT/topologies/profiles" "$OUT/topo/profiles"
TOPO=$OUT/topo/torus.ini
"$FAB" torus 4x4x4 hosts=0 profile=chenyang |
	sed "s/^profile = chenyang\$/profile = chenyang\ndilation = $DIL/" >"$TOPO"
"$FAB" check "$TOPO" >/dev/null

# start ALGO POLICY: the fabric up with them
start() {
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
	"$FABRIC" up "$TOPO" -p "$PREFIX" -P logical >/dev/null
	ACIS_TORUS_ROUTING=$1 ACIS_TORUS_ARBITRATION=$2 ACIS_MBUFS=4095 \
		ACIS_SW_IDLE_SLEEP=0 "$FABRIC" start -p "$PREFIX" >/dev/null
}
# run CSV ARGS...: one run's row appended (the header once)
run() {
	local csv=$1 row
	shift
	row=$("$TT" -f "$PREFIX-fab" --csv --timeout 120 run "$@" 2>>"$OUT/errors.log") ||
		{ echo "torus-findings: run $* failed (errors.log)" >&2; return 0; }
	[ -s "$csv" ] || head -1 <<<"$row" >"$csv"
	tail -n +2 <<<"$row" >>"$csv"
}

ALGOS="dor o1turn rmr rlb ccar"
POLICIES="ff of mix"
PATTERNS="tran tor bc all"
REP=3
[ "$QUICK" = 0 ] || { PATTERNS="tran tor bc"; REP=1; }
rm -f "$OUT"/*.csv

acis_log "hop counts and batch latency, each algorithm and policy"
for algo in $ALGOS; do
	for pol in $POLICIES; do
		start "$algo" "$pol"
		if [ "$pol" = of ]; then
			run "$OUT/hops.csv" --pattern uniform --count 16 --size 64
			for pat in tran tor; do
				run "$OUT/cont.csv" --pattern "$pat" --mode continuous \
					--load 1.6 --size 256 --duration-ms 3000 --warmup-ms 1000
			done
		fi
		for pat in $PATTERNS; do
			for ((i = 0; i < REP; i++)); do
				run "$OUT/batch.csv" --pattern "$pat" --count 4 --size 256
			done
		done
	done
done

acis_log "multicast and reduction against unicast, DOR and oldest first"
start dor of
for size in 64 1024; do
	for ((i = 0; i < REP; i++)); do
		run "$OUT/mcast.csv" --pattern cube-nn --count 2 --size "$size"
		run "$OUT/mcast.csv" --coll cube-mc --radius 1 --count 2 --size "$size"
	done
done
for count in 1 8; do
	for ((i = 0; i < REP; i++)); do
		run "$OUT/red.csv" --pattern cube-nn --count "$count" --size 256
		run "$OUT/red.csv" --coll cube-red --radius 1 --count "$count" --size 256
	done
done

"$BENCH_PY" - "$OUT" >"$OUT/table.txt" <<'PY'
import csv, statistics, sys, os
out = sys.argv[1]
def rows(name):
    p = os.path.join(out, name)
    return list(csv.DictReader(open(p))) if os.path.exists(p) else []
def f(x):
    return float(x) if x not in ("", None) else float("nan")

print("Hop counts, uniform batch, 64-byte frames (frames by hops; mean)")
ring = [0, 1, 2, 1]  # 4-ring: shorter distance by offset
# uniform over the other 63 nodes: RLB's mean is 2P(N-P)/N a dimension
def exp_hops(long_way):
    tot = n = 0
    for x in range(4):
        for y in range(4):
            for z in range(4):
                if (x, y, z) == (0, 0, 0):
                    continue
                n += 1
                tot += sum((2 * ring[c] * (4 - ring[c]) / 4) if long_way
                           else ring[c] for c in (x, y, z))
    return tot / n
print(f"  minimal {exp_hops(False):.4f}; RLB with the long way at P/N "
      f"{exp_hops(True):.4f}")
for r in rows("hops.csv"):
    print(f"  {r['algo']:7s} mean {f(r['hops_mean']):.4f}  {r['hops_hist']}")

print("\nBatch latency, platform ns (the dilation taken out), 256-byte "
      "frames, 4 to each destination; mean of the runs")
b = {}
for r in rows("batch.csv"):
    key = (r["pattern"], r["algo"], r["arbitration"])
    b.setdefault(key, []).append(f(r["batch_cycles"]) * 6.25)
pats = sorted({k[0] for k in b}, key=lambda p: "tran tor bc all".find(p))
print("  " + "algo-policy".ljust(14) + "".join(p.rjust(10) for p in pats))
best = {}
for algo in "dor o1turn rmr rlb ccar".split():
    for pol in "ff of mix".split():
        line = f"  {algo + '-' + pol:14s}"
        for p in pats:
            v = b.get((p, algo, pol))
            m = statistics.mean(v) if v else float("nan")
            line += f"{m:10.0f}"
            if v and (p not in best or m < best[p][1]):
                best[p] = (algo + "-" + pol, m)
        print(line)
print("  best: " + ", ".join(f"{p} {best[p][0]}" for p in pats if p in best))
rank = {}
for p in pats:
    order = sorted(((statistics.mean(v), k[1] + "-" + k[2])
                    for k, v in b.items() if k[0] == p))
    for i, (_, name) in enumerate(order):
        rank.setdefault(name, []).append(i + 1)
print("  mean rank over the patterns (1 best): " + ", ".join(
    f"{n} {statistics.mean(v):.1f}" for n, v in
    sorted(rank.items(), key=lambda x: statistics.mean(x[1]))))

print("\nContinuous, offered 1.6 flits a cycle a node, 256-byte frames, "
      "oldest first: accepted a link (flits a cycle), mean latency (ns)")
for r in rows("cont.csv"):
    print(f"  {r['pattern']:5s} {r['algo']:7s} link_load "
          f"{f(r['link_load']):.4f} accepted_load {f(r['accepted_load']):.4f}"
          f" latency {f(r['lat_mean_cycles']) * 6.25:10.0f}")

def pair(name, key):
    d = {}
    for r in rows(name):
        d.setdefault((r[key], r["coll"]), []).append(f(r["batch_cycles"]) * 6.25)
    return d
print("\nCUBE-NN multicast, batch of 2, batch latency (ns): unicast, "
      "cube multicast, gain")
d = pair("mcast.csv", "size")
for size in ("64", "1024"):
    u, m = d.get((size, "none")), d.get((size, "cube-mc"))
    if u and m:
        u, m = statistics.mean(u), statistics.mean(m)
        print(f"  {size:>5s} bytes  {u:10.0f} {m:10.0f}  {100 * (u - m) / u:+.1f} %")
print("\nCUBE-NN reduction, 256 bytes, batch latency (ns): unicast "
      "(summed at the hosts), cube reduction, gain")
d = pair("red.csv", "count")
for count, load in (("1", "light"), ("8", "heavy")):
    u, m = d.get((count, "none")), d.get((count, "cube-red"))
    if u and m:
        u, m = statistics.mean(u), statistics.mean(m)
        print(f"  {load} ({count} round{'s' if count != '1' else ''})  "
              f"{u:10.0f} {m:10.0f}  {100 * (u - m) / u:+.1f} %")
PY
cat "$OUT/table.txt"

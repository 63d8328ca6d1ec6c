#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The ACiS thesis's models against measured collectives (doc/fidelity.md):
#
#   LogGP (Eq. 3.2-3.5), bcast: scripts/bench/e2e.sh's bcast on the
#     namespace testbed for 2, 3 and 4 hosts, through the switch (acis,
#     kernel sockets) and Open MPI across the kernel's bridge
#     (ompi-bridge). os + or + L and G are fitted to each set-up's 2-host
#     times (T = os + or + L + k G, one message); the model then predicts
#     the others: host based, floor(log2 P) such steps down a binomial
#     tree; in the switch, one step whatever P.
#   LoGcN (Eq. 5.1-5.3), allreduce across N switches: chains of N logical
#     switches (acis-fabric chain N, a host on each) in fidelity mode,
#     CusComNet's platform (profiles/cuscomnet.ini, dilated 1000 times), so
#     the network and not this machine's two cores sets the time;
#     acis-bench allreduce float32 of each of -m's sizes; acis-model fit
#     logcn fits T = (2o + l) + N (l_s + alpha) + m / G_eff to all of them,
#     in the platform's microseconds. The hosts resend after 1 s
#     (ACIS_RTO_MS=1000, libacis's most): timers are not dilated, and a
#     dilated collective that outlasts the default 100 ms is resent into
#     the slow links it waits on (doc/fidelity.md).
#
#   scripts/bench/thesis-models.sh [-o DIR] [-s MIN] [-S MAX] [-i ITER]
#                                  [-N "2 4 8 16"] [-m "64 1024 8192 32768"]
#                                  [-p loggp|logcn]
#
# -p runs one of the two parts (default both).
# LogGP's sizes double from MIN (default 64) to MAX (default 65536)
# bytes, ITER timed calls (default 100, after 10). Writes DIR/loggp.csv,
# logcn.csv, their fits and table.txt, and e2e/ (the bcast runs). Needs
# root and Debian's openmpi-bin and libopenmpi-dev. Not a test: nothing
# here judges.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

OUT='' MIN=64 MAX=65536 NS="2 4 8 16" ITER=100 MS="64 1024 8192 32768" PARTS="loggp logcn"
while getopts "o:s:S:N:i:m:p:h" o; do
	case $o in
	o) OUT=$OPTARG ;;
	s) MIN=$OPTARG ;;
	S) MAX=$OPTARG ;;
	N) NS=$OPTARG ;;
	i) ITER=$OPTARG ;;
	m) MS=$OPTARG ;;
	p) PARTS=$OPTARG ;;
	h) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
bench_want_int thesis-models -s "$MIN" 4
bench_want_int thesis-models -S "$MAX" "$MIN"
bench_want_ints thesis-models -N "$NS" 2
bench_want_ints thesis-models -m "$MS" 4
bench_want_int thesis-models -i "$ITER"
case $PARTS in loggp | logcn | "loggp logcn") ;;
*) echo "thesis-models: -p $PARTS: expected loggp or logcn" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "thesis-models: needs root (namespaces)" >&2; exit 1; }
BENCH=$ACIS_BUILD/tools/acis-bench
FAB=$ACIS_BUILD/tools/acis-fabric
MODEL=$ACIS_ROOT/tools/acis-model
D=$ACIS_ROOT/scripts/bench
OUT=$(bench_outdir thesis-models "$OUT")
FABRIC=$ACIS_ROOT/scripts/fabric.sh
PREFIX=tm$$

cleanup() {
	acis_kill_hosts "$PREFIX"
	"$FABRIC" down -p "$PREFIX" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_runinfo "$OUT" "$0 -o $OUT -s $MIN -S $MAX -N '$NS' -m '$MS' -i $ITER"

# ---- LogGP: bcast, 2-4 hosts, through the switch and host based ----
loggp() {
"$D/e2e.sh" -o "$OUT/e2e" -n "2 3 4" -c bcast -s "$MIN" -S "$MAX" -i "$ITER" -w 10 \
	-P ompi-bridge >"$OUT/e2e.log" 2>&1 ||
	{ echo "thesis-models: e2e.sh failed ($OUT/e2e.log)" >&2; exit 1; }
"$BENCH_PY" - "$OUT/e2e/e2e.csv" "$OUT/loggp.csv" "$OUT/loggp-fit.txt" <<'PY'
import csv, math, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["collective"] == "bcast" and r["status"] == "ok"
        and r["transport"] in ("acis", "ompi-bridge")]
fits, lines = {}, []
for tr in ("acis", "ompi-bridge"):
    # one message between two hosts: T = (os + or + L) + k G, least squares
    two = [(float(r["size_bytes"]), float(r["avg_us"])) for r in rows
           if r["transport"] == tr and r["ranks"] == "2"]
    if len(two) < 2:
        sys.exit("thesis-models: %s: fewer than two bcast sizes for 2 hosts" % tr)
    n = len(two)
    mk = sum(k for k, _ in two) / n
    mt = sum(t for _, t in two) / n
    g = sum((k - mk) * (t - mt) for k, t in two) / sum((k - mk) ** 2 for k, _ in two)
    a = mt - g * mk
    fits[tr] = (a, g)
    lines.append("%s: os + or + L = %.2f us, G = %.6f us/B (%.0f MB/s)" % (tr, a, g, 1 / g))
with open(sys.argv[3], "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
with open(sys.argv[2], "w") as f:
    f.write("setup,ranks,bytes,measured_us,loggp_us,steps\n")
    for r in rows:
        tr, p, k = r["transport"], int(r["ranks"]), int(r["size_bytes"])
        a, g = fits[tr]
        steps = 1 if tr == "acis" else math.floor(math.log2(p))
        # Eq. 3.2 (host based) and 3.4 (in the switch): the last leaf
        f.write("%s,%d,%d,%s,%.2f,%d\n" % (tr, p, k, r["avg_us"], steps * (a + k * g), steps))
PY
}

# ---- LoGcN: allreduce across chains of N switches, fidelity mode ----
logcn() {
mkdir -p "$OUT/topo"
ln -sfn "$ACIS_ROOT/topologies/profiles" "$OUT/topo/profiles"
DIL=$(awk -F' *= *' '$1 == "dilation" {print $2}' "$ACIS_ROOT/topologies/profiles/cuscomnet.ini")
echo "n,m,t_us" >"$OUT/logcn.csv"
job=1
for n in $NS; do
	topo=$OUT/topo/chain-$n.ini
	"$FAB" chain "$n" profile=cuscomnet >"$topo"
	"$FABRIC" up "$topo" -p "$PREFIX" -P logical >/dev/null
	ACIS_MBUFS=${ACIS_MBUFS:-8191} ACIS_SW_IDLE_SLEEP=0 "$FABRIC" start -p "$PREFIX" >/dev/null
	ip=$("$FAB" list "$topo" | awk '$1 == "switch" && $2 == "s0" {print $3}')
	for m in $MS; do
		pids=()
		for ((r = 0; r < n; r++)); do
			ACIS_RTO_MS=1000 ip netns exec "$PREFIX-h$r" "$BENCH" --switch "$ip" \
				--job "$job" --rank "$r" \
				--size "$n" --colls allreduce --min-size "$m" --max-size "$m" \
				--iterations 5 --warmup 1 --timeout 600000 --format csv \
				>"$OUT/bench$r.out" 2>>"$OUT/bench.log" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p" || true; done
		job=$((job + 1))
		# csv: collective,size_bytes,...,avg_us (10); the platform's time
		t=$(awk -F, -v m="$m" '$1 == "allreduce" && $2 == m && $10 != "" {print $10; exit}' "$OUT/bench0.out")
		[ -n "$t" ] || { echo "thesis-models: acis-bench gave no result for N = $n, $m B (bench.log)" >&2; exit 1; }
		awk -v n="$n" -v m="$m" -v t="$t" -v d="$DIL" 'BEGIN { printf "%s,%s,%.4f\n", n, m, t / d }' |
			tee -a "$OUT/logcn.csv"
	done
	"$FABRIC" down -p "$PREFIX" >/dev/null
done
"$MODEL" --csv fit logcn "$OUT/logcn.csv" | tee "$OUT/logcn-fit.txt"
# and with each switch storing and forwarding the first chunk (1418 bytes
# of payload a frame at MTU 1500): a term the thesis's L(N) leaves out
"$MODEL" --csv fit logcn "$OUT/logcn.csv" --chunk 1418 | tee "$OUT/logcn-fit-sf.txt"
}

for part in $PARTS; do "$part"; done

"$BENCH_PY" - "$OUT" <<'PY'
import csv, os, sys
d = sys.argv[1]
out = []
if os.path.exists(os.path.join(d, "loggp.csv")):
    out += ["# LogGP (Eq. 3.2-3.5), bcast: fitted to 2 hosts, predicted for 3 and 4",
            "| set-up | hosts | bytes | measured | LogGP | error |", "|---|---|---|---|---|---|"]
    for r in csv.DictReader(open(os.path.join(d, "loggp.csv"))):
        m, p = float(r["measured_us"]), float(r["loggp_us"])
        out.append("| %s | %s | %s | %.1f | %.1f | %+.0f %% |" % (
            r["setup"], r["ranks"], r["bytes"], m, p, 100 * (m - p) / p))
    out.append("")
if os.path.exists(os.path.join(d, "logcn-fit.txt")):
    def load(name):
        return {l.split(",")[0]: float(l.split(",")[1]) for l in open(os.path.join(d, name))}
    fit, sf = load("logcn-fit.txt"), load("logcn-fit-sf.txt")
    out += ["# LoGcN (Eq. 5.1-5.3), allreduce across N switches, CusComNet's platform (us):",
            "#   as printed:  T = %.2f + %.2f N + m / %.1f (rms %.1f)" % (
                fit["fixed_us"], fit["per_switch_us"], fit["effective_G_bytes_per_us"],
                fit["rms_residual_us"]),
            "#   store and forward: T = %.2f + %.2f N + %.5f (N - 1) min(m, 1418) + m / %.1f (rms %.1f)" % (
                sf["fixed_us"], sf["per_switch_us"], sf["per_switch_byte_us"],
                sf["effective_G_bytes_per_us"], sf["rms_residual_us"]),
            "| N | bytes | measured | LoGcN | error | with store and forward | error |",
            "|---|---|---|---|---|---|---|"]
    for r in csv.DictReader(open(os.path.join(d, "logcn.csv"))):
        n, m, t = float(r["n"]), float(r["m"]), float(r["t_us"])
        p = fit["fixed_us"] + fit["per_switch_us"] * n + m / fit["effective_G_bytes_per_us"]
        q = (sf["fixed_us"] + sf["per_switch_us"] * n + sf["per_switch_byte_us"] * (n - 1) * min(m, 1418)
             + m / sf["effective_G_bytes_per_us"])
        out.append("| %d | %d | %.2f | %.2f | %+.0f %% | %.2f | %+.0f %% |" % (
            n, m, t, p, 100 * (t - p) / p, q, 100 * (t - q) / q))
open(os.path.join(d, "table.txt"), "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration: tools/acis-model against the figures the seeds print.

The worked examples (CusComNet's 1.16 us for k = 2, 64 B at 1565 Mbit/s,
0.83 us between neighbours and +0.57 us a hop; the M/M/1 vectors of the
digest; the MPE's Eq. 5.3-5.5 for n = 4..32; the LogGP bcast times;
LoGcN), fits that recover the parameters synthetic measurements were
made with, and clear errors on bad input.
Usage: model_cli.py ACIS_MODEL
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

TOOL = sys.argv[1]


def run(*args):
    r = subprocess.run([sys.executable, TOOL, "--csv", *args], capture_output=True, text=True)
    vals = {}
    for line in r.stdout.splitlines():
        name, value, _unit = line.split(",")
        vals[name] = float(value)
    return r.returncode, vals, r.stderr


def near(a, b, tol):
    return abs(a - b) <= tol


def main():
    rc, ex, _ = run("examples")
    check("examples: exit 0", rc == 0)
    check(f"CusComNet Eq. 1, k = 2, 64 B, B = 1565 Mbit/s: 1.16 us (got {ex.get('cuscomnet_eq1_k2_64B_B1565')})",
          near(ex.get("cuscomnet_eq1_k2_64B_B1565", 0), 1.16, 0.005))
    check("CusComNet Eq. 1, zero bytes between neighbours: 0.83 us, +0.57 us a hop",
          near(ex.get("cuscomnet_eq1_k2_0B", 0), 0.83, 1e-9) and
          near(ex.get("cuscomnet_eq1_per_hop_0B", 0), 0.57, 1e-9))
    # the digest's M/M/1 vectors: B_l 1600, p 528 bits, k~ = 2
    vectors = {1: (0.0825, 0.0074, 0.0297, 0.3597, 1.1897),
               4: (0.33, 0.1625, 0.1625, 0.4925, 1.3225),
               8: (0.66, 1.2812, 0.6406, 0.9706, 1.8006)}
    for m, (rho, q, tq, tp, t) in vectors.items():
        p = f"cuscomnet_mm1_{m}M_"
        got = [ex.get(p + k, -1) for k in ("rho", "q", "t_q", "t_p", "t")]
        check(f"CusComNet Eq. 2-7 at lambda = {m}e6/s: rho {rho}, q {q}, T_q {tq}, T_p {tp}, T {t}",
              all(near(g, w, 6e-5) for g, w in zip(got, (rho, q, tq, tp, t))), f"got {got}")
    # M/G/1: packets of one size wait half as long as Eq. 5's M/M/1
    rc, v, _ = run("cuscomnet", "--k", "2", "--bits", "528", "--rate", "4e6", "--cv2", "0")
    check("CusComNet Eq. 5 with --cv2 0 (M/D/1): T_q 0.1625 / 2, q 0.1625 / 2",
          near(v.get("t_q", 0), 0.1625 / 2, 6e-5) and near(v.get("q", 0), 0.1625 / 2, 6e-5), f"{v}")
    rc, _, err = run("cuscomnet", "--k", "2", "--bits", "528", "--rate", "4e6", "--cv2", "-1")
    check("--cv2 below 0 refused", rc == 1 and "--cv2" in err, err)
    mpe_ok = True
    for n in (4, 8, 16, 32):
        lg = {4: 2, 8: 3, 16: 4, 32: 5}[n]
        want = {"bcast_linear": n + 1, "bcast_binomial": 2 + lg, "bcast_star": n + 1,
                "reduce_linear": n + 1 + n - 1, "reduce_binomial": 2 + 2 * lg,
                "reduce_star": n + 1 + n - 1}
        for k, w in want.items():
            coll, tree = k.split("_")
            mpe_ok &= near(ex.get(f"mpe_{coll}_{tree}_n{n}", -1), w, 1e-9)
    check("MPE Eq. 5.3-5.4 for n = 4..32, linear, binomial and star (P = O = 1)", mpe_ok)
    check("MPE Eq. 5.5: 3.2 Gbit/s over one stage", near(ex.get("mpe_bandwidth_1_stage", 0), 3.2, 1e-9))

    rc, v, _ = run("mpe", "reduce", "--n", "16", "--payload", "2.5", "--overhead", "0.5", "--tree", "binomial")
    check("MPE reduce, binomial, n = 16, P 2.5, O 0.5: (2 + 4) 2.5 + 4 x 0.5 = 17", near(v.get("reduce_binomial", 0), 17, 1e-9))
    rc, v, _ = run("loggp", "--p", "16", "--os", "1", "--or", "1", "--l", "2", "--g-byte", "0.001",
                   "--g", "1", "--k", "1000")
    check("LogGP Eq. 3.2-3.5, P 16: leaf 4 x 5 = 20 us, in the switch 5; root 1 + 3 + 4 = 8, in the switch 2",
          v == {"leaf_baseline": 20, "leaf_in_switch": 5, "root_baseline": 8, "root_in_switch": 2}, f"{v}")
    rc, v, _ = run("logcn", "--n", "4", "--m", "1000", "--o", "1", "--l", "2", "--l-per-switch", "0.5",
                   "--alpha", "0.25", "--beta", "0.5", "--bw", "200", "--gamma", "2")
    # 2 + 2 + 4 x 0.5 + 1000/100 + 4 x 0.25 + (2-1) 1000/100 = 27
    check("LoGcN Eq. 5.1-5.3: 2o + L(N) + m/G + N alpha + (gamma-1) m/G = 27 us", near(v.get("T_eq5_1", 0), 27, 1e-9), f"{v}")

    with tempfile.TemporaryDirectory(prefix="acis-model-") as d:
        f = os.path.join(d, "hops.csv")
        with open(f, "w") as fh:
            fh.write("# measured one-way latency against links on the path\nk,t_us\n")
            for k in (2, 3, 4, 6, 9):
                fh.write(f"{k},{(k - 1) * 0.9 + 2 * 0.13}\n")
        rc, v, _ = run("fit", "cuscomnet", f, "--bits", "528", "--bl", "1600")
        check("fit cuscomnet: per hop 0.9 us, T_a 0.13, T_r 0.9 - 0.33 = 0.57",
              rc == 0 and near(v["per_hop_us"], 0.9, 1e-9) and near(v["t_a_us"], 0.13, 1e-9) and
              near(v["t_r_us"], 0.57, 1e-9) and v["rms_residual_us"] < 1e-9, f"{v}")
        f = os.path.join(d, "scale.csv")
        with open(f, "w") as fh:
            fh.write("placement,switches,start_s,hugepage_mb,ping_rtt_ms,us_4B,us_64KiB,busbw_64KiB_GBps\n")
            for n in (4, 8, 16):
                # one way: (N/2 + 1) switches of 5 us, plus 2 x 10 us at the hosts
                fh.write(f"logical,{n},1,1,{2 * ((n / 2 + 1) * 5 + 20) / 1000},1,1,1\n")
            fh.write("process,4,1,1,9,1,1,1\n")
        rc, v, _ = run("fit", "cuscomnet", f, "--placement", "logical")
        check("fit cuscomnet on fabric-scale.sh's CSV: 5 us a switch, T_a 10 us",
              rc == 0 and near(v["per_hop_us"], 5, 1e-9) and near(v["t_a_us"], 10, 1e-9), f"{v}")
        f = os.path.join(d, "mpe.csv")
        with open(f, "w") as fh:
            fh.write("coll,tree,n,t_us\n")
            for n in (4, 8, 16):
                for tree in ("linear", "binomial"):
                    st = n - 1 if tree == "linear" else {4: 2, 8: 3, 16: 4}[n]
                    fh.write(f"bcast,{tree},{n},{(2 + st) * 1.5}\n")
                    fh.write(f"reduce,{tree},{n},{(2 + st) * 1.5 + st * 0.25}\n")
        rc, v, _ = run("fit", "mpe", f)
        check("fit mpe: P 1.5 us, O 0.25 us",
              rc == 0 and near(v["payload_stage_us"], 1.5, 1e-9) and near(v["reduce_overhead_us"], 0.25, 1e-9), f"{v}")
        f = os.path.join(d, "logcn.csv")
        with open(f, "w") as fh:
            fh.write("n,m,t_us\n")
            for n in (1, 2, 4):
                for m in (100, 1000, 10000):
                    fh.write(f"{n},{m},{3 + n * 0.75 + m / 50}\n")
        rc, v, _ = run("fit", "logcn", f)
        check("fit logcn: fixed 3 us, 0.75 us a switch, G 50 B/us",
              rc == 0 and near(v["fixed_us"], 3, 1e-9) and near(v["per_switch_us"], 0.75, 1e-9) and
              near(v["effective_G_bytes_per_us"], 50, 1e-6), f"{v}")
        f = os.path.join(d, "logcn-sf.csv")
        with open(f, "w") as fh:  # each link stores and forwards 0.01 us a byte of the first 1000
            fh.write("n,m,t_us\n")
            for n in (1, 2, 4, 8):
                for m in (100, 1000, 10000):
                    fh.write(f"{n},{m},{3 + n * 0.75 + 0.01 * (n - 1) * min(m, 1000) + m / 50}\n")
        rc, v, _ = run("fit", "logcn", f, "--chunk", "1000")
        check("fit logcn --chunk 1000: 0.01 us a byte a link of the first chunk, the rest as without",
              rc == 0 and near(v["per_switch_byte_us"], 0.01, 1e-9) and near(v["fixed_us"], 3, 1e-6) and
              near(v["per_switch_us"], 0.75, 1e-6) and near(v["effective_G_bytes_per_us"], 50, 1e-5), f"{v}")
        bad = os.path.join(d, "bad.csv")
        with open(bad, "w") as fh:
            fh.write("k,t_us\n2,1.0\n3,fast\n")
        rc, v, err = run("fit", "cuscomnet", bad)
        check("a bad measurement is refused naming file, line and column, exit 1",
              rc == 1 and f"{bad}:3: t_us: expected a number, found 'fast'" in err, err.strip())
        with open(bad, "w") as fh:
            fh.write("hops,t\n2,1\n")
        rc, v, err = run("fit", "cuscomnet", bad)
        check("a file without the model's columns is refused, naming them",
              rc == 1 and "no column 'k'" in err, err.strip())
    rc, v, err = run("cuscomnet", "--bits", "528", "--rate", "2e7")
    check("a load past saturation is refused (rho >= 1), exit 1", rc == 1 and "rho" in err, err.strip())
    r = subprocess.run([sys.executable, TOOL, "--help"], capture_output=True, text=True)
    check("--help: usage, exit 0", r.returncode == 0 and "cuscomnet" in r.stdout)
    return summary()


if __name__ == "__main__":
    sys.exit(main())

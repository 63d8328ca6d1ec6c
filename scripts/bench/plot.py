#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the comparison scripts in scripts/bench/ (matplotlib, PNG).

    plot.py fwd       fwd.csv       fwd.png
    plot.py agg       agg.csv       agg.png
    plot.py e2e       e2e.csv       e2e.png
    plot.py lookaside lookaside.csv lookaside.png
    plot.py scaling   agg.csv e2e.csv scaling.png

Each figure's title says what it measured; run.txt beside it says where.
"""
import csv
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def fwd(src, png):
    med = {}
    for r in rows(src):
        key = (r["dut"], r.get("ports", "ring"), int(r["frame_bytes"]))
        med.setdefault(key, []).append(float(r["mpps"]))
    med = {k: statistics.median(v) for k, v in med.items()}
    groups = sorted({(p, f) for _, p, f in med}, key=lambda g: (g[0] != "ring", g[1]))
    duts = ["acis-switch", "testpmd-mac", "testpmd-io", "io-loop"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    w = 0.8 / len(duts)
    for i, d in enumerate(duts):
        xs = [k + (i - (len(duts) - 1) / 2) * w for k in range(len(groups))]
        ys = [med.get((d, p, f), 0) for p, f in groups]
        bars = ax.bar(xs, ys, w, label=d)
        ax.bar_label(bars, fmt="%.1f", fontsize=7)
    ax.set_xticks(range(len(groups)), ["%s, %d B" % (p, f) for p, f in groups])
    ax.set_yscale("log")
    ax.set_ylabel("Mpps on one forwarding lcore (log)")
    ax.set_title("L2 forwarding on net_ring and net_memif ports: acis-switch vs dpdk-testpmd")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def agg(src, png):
    data = rows(src)
    workers = sorted({int(r["workers"]) for r in data})
    ranks = sorted({int(r["ranks"]) for r in data})
    modes = [m for m in ("software", "nic")
             if any(r.get("checksums", "software") == m for r in data)]
    fig, ax = plt.subplots(figsize=(10.5, 4.8))
    for P in ranks:
        for W in workers:
            color = None
            for mode in modes:
                sel = sorted((int(r["payload_bytes"]), float(r["switch_gbps_core_median"]),
                              float(r["ceiling_gbps_core_median"]),
                              float(r.get("floor_gbps_core_median") or "nan")) for r in data
                             if int(r["ranks"]) == P and int(r["workers"]) == W
                             and r.get("checksums", "software") == mode)
                if not sel:
                    continue
                xs = [s[0] for s in sel]
                tag = "%d ranks, %d worker%s" % (P, W, "s" if W > 1 else "")
                sw = "switch" if len(modes) == 1 else \
                    "switch, checksums " + ("in software" if mode == "software" else "by the NIC")
                line, = ax.plot(xs, [s[1] for s in sel], "o-" if mode == "software" else "^-.",
                                color=color, label=sw + ", " + tag)
                if any(s[3] == s[3] for s in sel):  # the floor, where measured
                    fl = "floor" if len(modes) == 1 else \
                        "floor, checksums " + ("in software" if mode == "software" else "by the NIC")
                    if any(r.get("floor_answers") == "1" for r in data):
                        fl = fl.replace("floor", "floor with answers", 1)
                    ax.plot(xs, [s[3] for s in sel], "x:" if mode == "software" else "+:",
                            color=line.get_color(), alpha=0.8, label=fl + ", " + tag)
                if color is None:
                    color = line.get_color()
                    ax.plot(xs, [s[2] for s in sel], "s--", color=color,
                            alpha=0.6, label="streaming sum, " + tag)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("contribution payload (bytes)")
    ax.set_ylabel("contribution Gb/s per core")
    ax.set_title("allreduce float32 sum: aggregation stage, bare receive-and-fold floor,\n"
                 "streaming-sum ceiling", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


# e2e.sh's set-ups as the plot names them; a transport not listed keeps
# its own name ("mpi" is that of runs before the peers had names)
E2E_LABELS = {
    "acis": "acis switch (UDP sockets)",
    "acis-memif": "acis switch (memif, kernel bypass)",
    "acis-mpi": "Open MPI + libacis-mpi (LD_PRELOAD)",
    "ompi-bridge": "Open MPI TCP, Linux bridge",
    "ompi-switch": "Open MPI TCP through the switch",
    "ompi-shm": "Open MPI shared memory",
    "mpich-bridge": "MPICH TCP, Linux bridge",
    "mpich-shm": "MPICH shared memory",
    "mpi": "Open MPI (TCP)",
}


def e2e(src, png):
    data = rows(src)
    colls, setups = [], []
    for r in data:
        if r["collective"] not in colls:
            colls.append(r["collective"])
        if r["transport"] not in setups:
            setups.append(r["transport"])
    # one colour and marker per set-up, the same in every panel and every
    # run; the switch's set-ups (acis*) solid, the peers dashed
    known = list(E2E_LABELS)
    index = {s: known.index(s) if s in known else len(known) + i
             for i, s in enumerate(setups)}
    colour = {s: "C%d" % (index[s] % 10) for s in setups}
    marker = {s: "osD^v<>px*"[index[s] % 10] for s in setups}
    style = {s: "-" if s.startswith("acis") else "--" for s in setups}
    n = len(colls)
    cols = 4 if n > 4 else n
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.4 * nrows + 0.6),
                             squeeze=False)
    for i, c in enumerate(colls):
        ax = axes[i // cols][i % cols]
        if c == "barrier":
            # no size: one bar each
            vals = [(s, float(r["avg_us"])) for s in setups for r in data
                    if r["collective"] == c and r["transport"] == s and r["avg_us"]]
            bars = ax.bar(range(len(vals)), [v[1] for v in vals],
                          color=[colour[v[0]] for v in vals])
            ax.set_xticks(range(len(vals)), [v[0] for v in vals], rotation=30,
                          ha="right", fontsize=7)
            ax.bar_label(bars, fmt="%.0f", fontsize=7)
            ax.set_title(c)
            ax.set_ylabel("avg latency (us)")
            continue
        for s in setups:
            sel = sorted((int(r["size_bytes"]), float(r["avg_us"])) for r in data
                         if r["collective"] == c and r["transport"] == s and r["avg_us"])
            if sel:
                ax.plot([max(x[0], 1) for x in sel], [x[1] for x in sel],
                        style[s], marker=marker[s], ms=3, color=colour[s])
        ax.set_title(c)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("size (B)")
        ax.set_ylabel("avg latency (us)")
        ax.grid(alpha=0.3)
    for j in range(n, nrows * cols):
        axes[j // cols][j % cols].axis("off")
    handles = [plt.Line2D([], [], ls=style[s], marker=marker[s], ms=4, color=colour[s])
               for s in setups]
    fig.legend(handles, [E2E_LABELS.get(s, s) for s in setups], loc="lower center",
               ncol=min(len(setups), 3), fontsize=8)
    P = data[0]["ranks"] if data else "?"
    # e2e.sh exports the testbed's MTU
    mtu = os.environ.get("ACIS_MTU")
    fig.suptitle("End to end on the namespace testbed, %s hosts%s: acis switch vs MPI peers"
                 % (P, ", MTU " + mtu if mtu else ""))
    fig.tight_layout(rect=(0, 0.04 + 0.03 * ((len(setups) + 2) // 3), 1, 1))
    fig.savefig(png, dpi=100)


def lookaside(src, png):
    data = rows(src)
    names = [r["program"] for r in data]
    ratio = [float(r["ratio"]) for r in data]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    bars = ax.barh(range(len(names)), ratio, color=["tab:green" if x <= 1.5 else "tab:red"
                                                    for x in ratio])
    ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.axvline(1.0, color="k", lw=0.8)
    ax.axvline(1.5, color="tab:red", lw=0.8, ls="--", label="target 1.5x")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("time on the CGRA machine / time in native C (lower is better)")
    ax.set_title("Look-aside: example CGRA programs vs the same computation in C")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def scaling(agg_src, e2e_src, png):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    data = [r for r in rows(agg_src) if r.get("checksums", "software") == "software"]
    sizes = sorted({int(r["payload_bytes"]) for r in data})
    # the smallest, a middle and the largest payload, or it is unreadable
    sizes = sorted({sizes[0], sizes[len(sizes) // 2], sizes[-1]})
    for P in sorted({int(r["ranks"]) for r in data}):
        for L in sizes:
            sel = sorted((int(r["workers"]), float(r["switch_gbps_core_median"]) * int(r["workers"]))
                         for r in data if int(r["ranks"]) == P and int(r["payload_bytes"]) == L)
            if len(sel) > 1:
                a1.plot([s[0] for s in sel], [s[1] for s in sel], "o-",
                        label="%d ranks, %d B" % (P, L))
    a1.set_xticks(sorted({int(r["workers"]) for r in data}))
    a1.set_xlabel("worker lcores")
    a1.set_ylabel("total contribution Gb/s")
    a1.set_title("aggregation throughput")
    a1.legend(fontsize=7)
    a1.grid(alpha=0.3)
    data = [r for r in rows(e2e_src)
            if r["collective"] in ("allreduce", "bcast", "allgather", "barrier")]
    for c in sorted({r["collective"] for r in data}):
        for S in sorted({int(r["size_bytes"]) for r in data}):
            sel = sorted((int(r["ranks"]), float(r["avg_us"])) for r in data
                         if r["collective"] == c and int(r["size_bytes"]) == S and r["avg_us"])
            if len(sel) > 1:
                a2.plot([s[0] for s in sel], [s[1] for s in sel], "o-",
                        label=c if c == "barrier" else "%s %d B" % (c, S))
    a2.set_xticks(sorted({int(r["ranks"]) for r in data}))
    a2.set_xlabel("hosts")
    a2.set_ylabel("avg latency (us)")
    a2.set_yscale("log")
    a2.set_title("end-to-end latency through the switch")
    a2.legend(fontsize=7, ncol=2)
    a2.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main(argv):
    kinds = {"fwd": fwd, "agg": agg, "e2e": e2e, "lookaside": lookaside,
             "scaling": scaling}
    if len(argv) < 4 or argv[1] not in kinds:
        sys.stderr.write(__doc__)
        return 2
    for src in argv[2:-1]:
        if not rows(src):
            sys.stderr.write("plot.py: %s holds no results: no %s plot\n" % (src, argv[1]))
            return 1
    kinds[argv[1]](*argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

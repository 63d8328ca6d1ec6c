#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of scripts/bench/mpe-trees.sh: a collective's time from the
first moment it can start to the last moment it ends, on one clock.

  tree_rank.py {bcast|reduce} BYTES ITERATIONS

Reads ACIS_SWITCH, ACIS_JOB, ACIS_RANK, ACIS_SIZE as libacis does (the
acis Python package, doc/python.md). Each iteration: a barrier, then
the collective (float32, sum, root 0) with every rank noting
CLOCK_REALTIME just before the call and just after it returns; then the
notes are gathered to rank 0. All ranks are namespaces of one machine,
so one clock serves them. A bcast's time runs from the root's start to
the last other rank's end; a reduce's from the last rank's start to the
root's end: the time the hardware MPE's time charts count (seed 001,
Fig. 5.14), free of the barrier's own skew. Rank 0 prints one line per
iteration, in microseconds, after checking the results (a wrong value
is an error, exit 1).
"""
import sys
import time

import numpy as np

import acis


def main(argv):
    if len(argv) != 4 or argv[1] not in ("bcast", "reduce"):
        sys.exit(__doc__)
    coll = argv[1]
    try:
        nbytes, iters = int(argv[2]), int(argv[3])
    except ValueError:
        sys.exit("tree_rank: BYTES and ITERATIONS: whole numbers")
    if nbytes < 4 or nbytes % 4 or iters < 1:
        sys.exit("tree_rank: BYTES a multiple of 4 (float32), ITERATIONS at least 1")
    n = nbytes // 4
    with acis.Context() as ctx:
        w = ctx.world
        buf = np.zeros(n, dtype=np.float32)
        out = np.zeros(n, dtype=np.float32)
        notes = np.zeros(2, dtype=np.int64)
        for it in range(iters):
            if coll == "bcast":
                buf[:] = it + 1 if w.rank == 0 else 0
            else:
                buf[:] = w.rank + it
            w.barrier()
            notes[0] = time.time_ns()
            if coll == "bcast":
                w.bcast(buf, root=0)
            else:
                w.reduce(buf, out, root=0)
            notes[1] = time.time_ns()
            if coll == "bcast" and not np.all(buf == it + 1):
                sys.exit(f"tree_rank: rank {w.rank}: bcast {it} wrong")
            want = w.size * (w.size - 1) / 2 + w.size * it
            if coll == "reduce" and w.rank == 0 and not np.all(out == want):
                sys.exit(f"tree_rank: reduce {it} wrong: {out[0]} for {want}")
            t = w.gather(notes, root=0)
            if w.rank == 0:
                if coll == "bcast":
                    # the root's own call may last longer: it ends when
                    # the switch confirms its data, not when it lands
                    us = (t[1:, 1].max() - t[0, 0]) / 1000.0
                else:
                    us = (t[0, 1] - t[:, 0].max()) / 1000.0
                print(f"{us:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of test/e2e/testbed_python.sh: the Python package through the
switch.

Joins the job the ACIS_* environment names (ACIS_SWITCH, ACIS_JOB,
ACIS_RANK, ACIS_SIZE), then runs every collective, blocking and
non-blocking (all of a case's requests in flight at once, finished by
test() and waitall), with and without acis.IN_PLACE, on several dtypes
and sizes up to 1 MiB, on the world and on split communicators (one of
them of 3 ranks). Every rank can make every rank's data (a function of
the case and the rank), so each checks its results bit for bit against
numpy: reductions folded in rank order, float16 in float32 and rounded
once, as the switch does (doc/collectives.md).
Prints a FAIL line per wrong result and "N passed, M failed" last; exits
0 only when nothing failed.
"""
import os
import sys
import time

import numpy as np

import acis

NP_OPS = {acis.SUM: np.add, acis.PROD: np.multiply, acis.MIN: np.minimum,
          acis.MAX: np.maximum, acis.BAND: np.bitwise_and,
          acis.BOR: np.bitwise_or, acis.BXOR: np.bitwise_xor}
MIB = 1 << 20

# (dtype, elements): 1 MiB ones run to hundreds of chunks
CASES = [
    (np.float32, 1), (np.float32, 1000), (np.float32, MIB // 4),
    (np.int32, 3), (np.int32, MIB // 4), (np.float64, 1000),
    (np.int64, 100), (np.uint8, 4096), (np.int16, 777), (np.float16, 500),
    (np.uint64, 64), (np.int8, 10), (np.uint16, 300), (np.uint32, 50),
]

passed = failed = 0
rank = -1


def check(what, got, want):
    """got must be want: same dtype, shape and bytes (None for none)."""
    global passed, failed
    if want is None:
        ok = got is None
        detail = f"got {type(got).__name__}, want None"
    elif got is None:
        ok, detail = False, "got None"
    elif got.dtype != want.dtype or got.shape != want.shape:
        ok = False
        detail = (f"got {got.dtype}{list(got.shape)}, want "
                  f"{want.dtype}{list(want.shape)}")
    else:
        g = got.reshape(-1).view(np.uint8)
        w = want.reshape(-1).view(np.uint8)
        ok = np.array_equal(g, w)
        detail = ""
        if not ok:
            i = int(np.flatnonzero(g != w)[0]) // want.itemsize
            detail = (f"element {i}: got {got.reshape(-1)[i]}, want "
                      f"{want.reshape(-1)[i]}")
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL - rank {rank}: {what}: {detail}", flush=True)


def data(case, world_rank, n, dt):
    """world_rank's n elements of a case (the same on every rank)."""
    rng = np.random.default_rng([case, world_rank])
    if np.dtype(dt).kind == "f":
        return rng.uniform(-4, 4, n).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def reduced(arrays, op):
    """The switch's result: arrays folded in rank order with op."""
    dt = arrays[0].dtype
    wide = np.float32 if dt == np.float16 else dt
    acc = arrays[0].astype(wide)
    for a in arrays[1:]:
        acc = NP_OPS[op](acc, a.astype(wide))
    return acc.astype(dt)


def calls(comm, members, case, dt, n):
    """[(what, name, args, want)]: every collective of one case on comm,
    whose rank r is world rank members[r]. Fresh buffers each time (the
    calls write into some)."""
    P, me = comm.size, comm.rank
    root = case % P
    full = [data(case, w, P * n, dt) for w in members]  # P blocks each
    x = [f[:n] for f in full]
    ints = np.dtype(dt).kind in "iu"
    other = [acis.PROD, acis.MIN, acis.MAX] + \
        ([acis.BAND, acis.BOR, acis.BXOR] if ints else [])
    op = other[case % len(other)]
    blk = slice(me * n, (me + 1) * n)
    at_root = me == root
    # alltoall: block me of every rank's P blocks, in rank order
    mine = np.stack([f[blk] for f in full])

    out = [
        ("allreduce sum", "allreduce", (x[me],), reduced(x, acis.SUM)),
        (f"allreduce {op.name.lower()}", "allreduce", (x[me], None, op),
         reduced(x, op)),
        (f"reduce max to {root}", "reduce", (x[me], None, acis.MAX, root),
         reduced(x, acis.MAX) if at_root else None),
        (f"bcast from {root}", "bcast",
         (x[me].copy() if at_root else np.zeros(n, dt), root), x[root]),
        (f"scatter from {root}", "scatter",
         (full[root].reshape(P, n), None, root) if at_root else
         (None, np.empty(n, dt), root), full[root][blk]),
        (f"gather to {root}", "gather", (x[me], None, root),
         np.stack(x) if at_root else None),
        ("allgather", "allgather", (x[me],), np.stack(x)),
        ("reduce_scatter sum", "reduce_scatter", (full[me],),
         reduced(full, acis.SUM)[blk]),
        ("alltoall", "alltoall", (full[me].reshape(P, n),), mine),
        ("barrier", "barrier", (), None),
    ]
    # acis.IN_PLACE: the data where MPI_IN_PLACE puts it
    gat = np.zeros(P * n, dt)
    gat[root * n:(root + 1) * n] = x[root]
    allg = np.zeros(P * n, dt)
    allg[blk] = x[me]
    out += [
        ("allreduce sum in place", "allreduce",
         (acis.IN_PLACE, x[me].copy()), reduced(x, acis.SUM)),
        (f"reduce sum to {root} in place", "reduce",
         (acis.IN_PLACE, x[root].copy(), acis.SUM, root) if at_root else
         (x[me], None, acis.SUM, root),
         reduced(x, acis.SUM) if at_root else None),
        (f"scatter from {root} in place", "scatter",
         (acis.IN_PLACE, full[root].copy(), root) if at_root else
         (None, np.empty(n, dt), root),
         full[root] if at_root else full[root][blk]),
        (f"gather to {root} in place", "gather",
         (acis.IN_PLACE, gat, root) if at_root else (x[me], None, root),
         np.concatenate(x) if at_root else None),
        ("allgather in place", "allgather", (acis.IN_PLACE, allg),
         np.concatenate(x)),
        ("reduce_scatter max in place", "reduce_scatter",
         (acis.IN_PLACE, full[me].copy(), acis.MAX),
         reduced(full, acis.MAX)[blk]),
        ("alltoall in place", "alltoall", (acis.IN_PLACE, full[me].copy()),
         mine.reshape(-1)),
    ]
    return out


def run_case(comm, members, case, dt, n, label):
    """Every collective of a case, blocking, then all at once
    non-blocking."""
    tag = f"{label} {np.dtype(dt).name} x{n}"
    for what, name, args, want in calls(comm, members, case, dt, n):
        check(f"{tag}: {what}", getattr(comm, name)(*args), want)
    todo = calls(comm, members, case, dt, n)
    reqs = [getattr(comm, "i" + name)(*args) for _, name, args, _ in todo]
    while not reqs[0].test():
        pass
    for (what, _, _, want), got in zip(todo, acis.waitall(reqs)):
        check(f"{tag}: {what} (non-blocking)", got, want)


def main():
    global rank
    t0 = time.monotonic()
    # the rest of the configuration from the environment
    with acis.Context(timeout_ms=20000) as ctx:
        world = ctx.world
        rank, P = world.rank, world.size
        everyone = list(range(P))
        for case, (dt, n) in enumerate(CASES):
            run_case(world, everyone, case, dt, n, "world")
        t_world = time.monotonic() - t0

        # two halves, each ordered by descending world rank (the key)
        half = world.split(rank % 2, key=-rank)
        members = sorted((r for r in everyone if r % 2 == rank % 2),
                         key=lambda r: -r)
        check_comm("split by parity", half, members)
        run_case(half, members, 100, np.float32, 1000, "half")
        run_case(half, members, 101, np.int16, 77, "half")
        half.free()

        # every rank but the last: 3 of 4, not a power of two
        last = P - 1
        some = world.split(acis.UNDEFINED if rank == last else 0)
        if rank == last:
            check_comm("split without the last rank", some, None)
        else:
            check_comm("split without the last rank", some, everyone[:-1])
            run_case(some, everyone[:-1], 102, np.int64, 333, "three")
            some.free()
        world.barrier()

        # the switch steering progress (doc/sync.md): an SSP loop with
        # staleness 1, then a deadline rank 0 sets and every rank hears
        done = 0
        try:
            for it in range(1, 21):
                world.ssp_done(it, staleness=1)
                done = it
        except acis.AcisError as e:
            print(f"rank {rank}: ssp_done: {e}", flush=True)
        check_true(f"20 iterations through the SSP barrier (got {done})",
                   done == 20)
        if rank == 0:
            world.deadline_set(2000)
        first = world.deadline_wait(0)
        last = world.deadline_wait(first)
        check_true(f"deadline signals in order ({first}, {last})",
                   last > first >= 1)
        check_true("a report of an epoch signalled already is late",
                   world.deadline_report(first))
        world.barrier()
        if rank == 0:
            world.deadline_set(0)
        world.barrier()

        # a user-defined op (doc/collectives.md): satsum_u8.s, assembled
        # by the test, folded in rank order by the switch
        path = os.environ.get("ACIS_TEST_OP_BIN")
        if path:
            with open(path, "rb") as f:
                op = ctx.op_create("satsum_u8", f.read())
            check_true(f"op_create gave a user op ({op!r})",
                       isinstance(op, acis.UserOp) and 128 <= op <= 255)
            xs = [((np.arange(3000) * (r + 3)) % 200).astype(np.uint8)
                  for r in everyone]
            acc = xs[0].astype(np.int32)
            for r in everyone[1:]:
                acc = np.minimum(acc + xs[r], 255)
            check("allreduce by the user op satsum_u8",
                  world.allreduce(xs[rank], None, op), acc.astype(np.uint8))
            ctx.op_free(op)
            print(f"rank {rank}: user op {op.name} was op {int(op)}",
                  flush=True)

        # a fused call (doc/fused.md): scatter_op_reduce with
        # block_sum.s, each block summed in the switch, the sums reduced
        # to the root; allreduce_op with it too
        path = os.environ.get("ACIS_TEST_FUSED_BIN")
        if path:
            with open(path, "rb") as f:
                bs = ctx.op_create("block_sum", f.read(), False)
            root = P - 1
            blocks = (np.arange(P * 300, dtype=np.int64) * 7919 %
                      100000).astype(np.int32)
            out = np.zeros(1, np.int32)
            got = world.fused("scatter_op_reduce",
                              blocks if rank == root else None, out, bs,
                              root=root)
            if rank == root:
                check("fused scatter_op_reduce by block_sum",
                      got, np.array([blocks.sum()], np.int32))
            else:
                check_true("fused scatter_op_reduce: no result off the "
                           "root", got is None)
            mine = (np.arange(512) * (rank + 1)).astype(np.int32)
            want = sum((np.arange(512) * (r + 1)).astype(np.int32)
                       for r in everyone).sum(dtype=np.int64)
            check("fused allreduce_op by block_sum",
                  world.fused("allreduce_op", mine, np.zeros(1, np.int32),
                              bs),
                  np.array([want], np.int64).astype(np.int32))
            ctx.op_free(bs)

        s = ctx.stats()
        check_true(f"stats: {s.msgs_sent} messages sent, {s.msgs_received} "
                   f"received", s.msgs_sent > 0 and s.msgs_received > 0)
    print(f"rank {rank}: world {t_world:.1f} s, all "
          f"{time.monotonic() - t0:.1f} s; {s.bytes_sent} bytes sent")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def check_true(what, ok):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL - rank {rank}: {what}", flush=True)


def check_comm(what, comm, members):
    """comm must hold members (world ranks, in rank order), or be None."""
    if members is None:
        check_true(f"{what}: no communicator (got {comm})", comm is None)
        return
    check_true(f"{what}: rank {members.index(rank)} of {len(members)} (got "
               f"{comm})", comm is not None and comm.size == len(members)
               and comm.rank == members.index(rank))


if __name__ == "__main__":
    sys.exit(main())

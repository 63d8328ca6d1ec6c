#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration: the Python package acis (python/acis) without root.

The codes of acis.Dtype, acis.Op and the errors against the C headers;
the numpy dtypes each maps to and those refused; struct acis_config's
layout (through acis_config_default and the environment); the auth
cookie in every message, and an answer without it dropped; refused
arguments, each a ValueError or TypeError that names it, before C is
called; init against nothing (TimeoutError), refused by a switch
(RefusedError) or with a bad ACIS_* variable (InvalidArgumentError), each
carrying libacis's reason; and every collective, blocking and not, in
place and not, through a switch played by a thread on loopback for a job
of one rank (whose results are its own data): the bytes come back where
they belong and the header carries the dtype and op codes; alltoall of
two ranks, the switch playing the second: each block leaves under its
receiver's chunk numbers and the other's lands at its block. Requests keep
their arrays alive until they finish; finalize abandons running ones.
Needs PYTHONPATH=<source>/python and ACIS_LIB=<libacis.so>.
Usage: python_api.py
"""
import gc
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
import weakref

import numpy as np

import acis

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# ---- a switch on loopback, enough for a job of one rank ----

# auth, 48 bits, as its 6 bytes: echoed as they came
HDR = struct.Struct(">BBBBBBHIIIIIIQHHHH6s")
assert HDR.size == 54
T_DATA, T_RESULT, T_ACK, T_NACK, T_CTRL, T_CTRL_ACK = 1, 2, 3, 4, 5, 6
C_ALLREDUCE, C_REDUCE, C_BCAST, C_SCATTER = 1, 2, 3, 4
C_GATHER, C_ALLGATHER, C_REDUCE_SCATTER, C_BARRIER = 5, 6, 7, 8
C_ALLTOALL = 9
CTRL_JOIN, CTRL_LEAVE, CTRL_SPLIT, CTRL_FREE, CTRL_QUERY = 1, 2, 3, 4, 5
F_PACKED = 0x08
S_OK, S_NO_COMM, S_MISMATCH, S_RANK_TAKEN = 0, 3, 6, 7
NONE = 0xFFFFFFFF
WORLD = 0x10001
JOB_REFUSED = 66  # JOIN refused: rank taken
JOB_MUTE = 13     # no answer to any data but barriers
JOB_NACK = 14     # every chunk but barriers refused: mismatch
JOB_FORGED = 15   # JOIN answered first without the rank's cookie
JOB_PAIR = 16     # two ranks, the switch playing rank 1 in alltoall
JOB_EAGER = 17    # two ranks: rank 1's bcast block comes before the JOIN's
                  # answer, as it may in one receive with it
UNKNOWN_COMM = 999


class FakeSwitch(threading.Thread):
    """Answers as the switch would for a job of one rank: the result of
    every reduction is the rank's own data, a gather small enough to pack
    comes back packed, and every other chunk is acknowledged. A JOIN of
    any size is answered at once (for checks that never send data). In
    an alltoall of two ranks (JOB_PAIR) it plays rank 1 too: rank 0's
    block for it is acknowledged, and its block for rank 0 is those bytes
    inverted. The DATA headers received are kept in data."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.sizes = {}
        self.data = []
        self.next_comm = 0x20002
        self.stopping = False

    def reply(self, to, h, typ, payload=b"", **changes):
        f = dict(zip(FIELDS, h))
        f.update(type=typ, hdr_len=54, payload_len=len(payload), **changes)
        self.sock.sendto(HDR.pack(*(f[k] for k in FIELDS)) + payload, to)

    def control(self, to, h):
        f = dict(zip(FIELDS, h))
        op, job = f["opcode"], f["job"]
        if op == CTRL_JOIN:
            if job == JOB_REFUSED:
                self.reply(to, h, T_CTRL_ACK, status=S_RANK_TAKEN)
                return
            self.sizes[job] = f["root"]
            if job == JOB_EAGER:
                # the world's first collective, a bcast from rank 1:
                # its block to rank 0, ahead of the JOIN's answer
                self.reply(to, h, T_RESULT, struct.pack("<2i", 7, -7),
                           opcode=C_BCAST, comm=WORLD, rank=0, root=1,
                           seq=0, chunk=0, msg_size=8, chunk_size=1416,
                           dtype=acis.dtype_code(np.int32), flags=0x02)
            if job == JOB_FORGED:
                # what another host could send in the switch's name
                self.reply(to, h, T_CTRL_ACK, comm=WORLD, status=S_OK,
                           auth=bytes(6))
            self.reply(to, h, T_CTRL_ACK, comm=WORLD, status=S_OK)
        elif op == CTRL_SPLIT:
            new = NONE if f["chunk"] == NONE else self.next_comm
            self.next_comm += 1
            self.reply(to, h, T_CTRL_ACK, msg_size=new, chunk=0, root=1,
                       status=S_OK)
        elif op == CTRL_QUERY:
            if f["comm"] == UNKNOWN_COMM:
                self.reply(to, h, T_CTRL_ACK, status=S_NO_COMM)
            else:
                self.reply(to, h, T_CTRL_ACK, rank=0, root=1, status=S_OK)
        else:  # LEAVE, COMM_FREE
            self.reply(to, h, T_CTRL_ACK, status=S_OK)

    def chunk(self, to, h, payload):
        f = dict(zip(FIELDS, h))
        coll = f["opcode"] & 0x0F
        self.data.append(f)
        if coll == C_BARRIER:
            self.reply(to, h, T_RESULT)
        elif f["job"] == JOB_MUTE:
            pass
        elif f["job"] == JOB_NACK:
            self.reply(to, h, T_NACK, status=S_MISMATCH)
        elif coll == C_ALLTOALL:
            # chunk c of block 1 comes as 1 * cpr + c; rank 1's answer
            # names its sender in rank and the chunk in the block
            cpr = max(1, -(-f["msg_size"] // f["chunk_size"]))
            self.reply(to, h, T_ACK)
            self.reply(to, h, T_RESULT, bytes(b ^ 0xFF for b in payload),
                       rank=1, chunk=f["chunk"] % cpr)
        elif coll in (C_ALLREDUCE, C_REDUCE, C_REDUCE_SCATTER):
            self.reply(to, h, T_RESULT, payload)
        elif (coll in (C_GATHER, C_ALLGATHER) and
              self.sizes.get(f["job"], 1) * f["msg_size"] <= f["chunk_size"]):
            self.reply(to, h, T_RESULT, payload, flags=F_PACKED, rank=NONE)
        else:
            self.reply(to, h, T_ACK)

    def run(self):
        while not self.stopping:
            try:
                msg, to = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            h = HDR.unpack_from(msg)
            if h[1] == T_CTRL:
                self.control(to, h)
            elif h[1] == T_DATA:
                self.chunk(to, h, msg[54:])


FIELDS = ("version", "type", "opcode", "flags", "dtype", "op", "hdr_len",
          "job", "comm", "rank", "root", "seq", "chunk", "msg_size",
          "payload_len", "chunk_size", "contributors", "status", "auth")

SWITCH = None


def context(job=1, size=1, **kw):
    kw.setdefault("timeout_ms", 2000)
    return acis.Context(switch_ip="127.0.0.1", switch_port=SWITCH.port,
                        job=job, rank=0, size=size, **kw)


def expect_raises(cls, fragment, fn, *args, **kwargs):
    """fn(*args, **kwargs) must raise cls with fragment in its message."""
    try:
        fn(*args, **kwargs)
    except cls as e:
        assert fragment in str(e), f"{cls.__name__} {str(e)!r} lacks " \
            f"{fragment!r}"
        return e
    except Exception as e:
        raise AssertionError(f"expected {cls.__name__} ({fragment!r}), got "
                             f"{type(e).__name__}: {e}") from e
    raise AssertionError(f"expected {cls.__name__} ({fragment!r}), nothing "
                         f"raised")


def c_enum(header, name):
    """{NAME: value} of enum `name` in a header of the source tree."""
    text = open(os.path.join(ROOT, header)).read()
    body = re.search(r"enum " + name + r" \{(.*?)\};", text, re.S).group(1)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"(ACIS_\w+) = (\d+)", body)}


# ---- tests: each one behaviour ----

def test_dtype_codes_are_the_headers():
    codes = c_enum("lib/proto/acis_proto.h", "acis_dtype")
    want = {k[len("ACIS_"):]: v for k, v in codes.items()
            if k != "ACIS_DTYPE_MAX"}
    assert {d.name: d.value for d in acis.Dtype} == want, want


def test_op_codes_are_the_headers():
    codes = c_enum("lib/proto/acis_proto.h", "acis_op")
    want = {k[len("ACIS_OP_"):]: v for k, v in codes.items()
            if k not in ("ACIS_OP_NONE", "ACIS_OP_MAX_")}
    assert {o.name: o.value for o in acis.Op} == want, want


def test_error_codes_are_the_headers():
    text = open(os.path.join(ROOT, "lib/client/acis.h")).read()
    codes = {m.group(1): int(m.group(2)) for m in
             re.finditer(r"#define ACIS_ERR_(\w+) \((-\d+)\)", text)}
    classes = {"INVAL": acis.InvalidArgumentError,
               "NOMEM": acis.OutOfMemoryError, "SYS": acis.SystemCallError,
               "TIMEOUT": acis.TimeoutError, "REFUSED": acis.RefusedError,
               "STATE": acis.StateError}
    assert set(codes) == set(classes), codes
    for name, cls in classes.items():
        e = acis._errors.error(codes[name], "why", "acis_x")
        assert type(e) is cls and e.code == codes[name], (name, e)
        assert e.strerror == acis.strerror(codes[name])
        assert str(e) == f"acis_x: {e.strerror}: why", str(e)


def test_numpy_dtypes_map_to_their_codes():
    want = {np.int8: "INT8", np.uint8: "UINT8", np.int16: "INT16",
            np.uint16: "UINT16", np.int32: "INT32", np.uint32: "UINT32",
            np.int64: "INT64", np.uint64: "UINT64", np.float16: "FLOAT16",
            np.float32: "FLOAT32", np.float64: "FLOAT64",
            np.intc: "INT32", np.longlong: "INT64", "<f4": "FLOAT32",
            "=u2": "UINT16", "|i1": "INT8"}
    for t, name in want.items():
        assert acis.dtype_code(t) is acis.Dtype[name], (t, name)
    # a dtype named bfloat16 (ml_dtypes' when installed) maps by name
    try:
        import ml_dtypes
        assert acis.dtype_code(ml_dtypes.bfloat16) is acis.Dtype.BFLOAT16
    except ImportError:
        pass


def test_other_dtypes_are_refused():
    for t in (np.bool_, np.complex64, np.longdouble, object, "U3",
              [("a", "i4")], ">i4", ">f8", None):
        expect_raises(TypeError, "", acis.dtype_code, t)
    expect_raises(TypeError, "big-endian", acis.dtype_code, ">i4")
    expect_raises(TypeError, "supported: int8", acis.dtype_code, np.bool_)


def test_ops_by_name_code_and_enum():
    assert acis.op_code("sum") is acis.SUM
    assert acis.op_code("BXOR") is acis.BXOR
    assert acis.op_code(4) is acis.MAX
    assert acis.op_code(acis.Op.BAND) is acis.BAND
    expect_raises(ValueError, "unknown op 'avg'", acis.op_code, "avg")
    expect_raises(ValueError, "unknown op code 9", acis.op_code, 9)
    expect_raises(TypeError, "op must be", acis.op_code, 1.0)
    expect_raises(TypeError, "op must be", acis.op_code, True)


def test_config_layout_is_struct_acis_config():
    """Every field read back through acis_config_default: a field out of
    place in the ctypes structure reads another's value."""
    env = {"ACIS_SWITCH": "10.1.2.3:4567", "ACIS_JOB": "4000000001",
           "ACIS_RANK": "5", "ACIS_SIZE": "6", "ACIS_BIND": "10.9.8.7:4321",
           "ACIS_TIMEOUT_MS": "7001", "ACIS_WINDOW": "33", "ACIS_MTU": "1400",
           "ACIS_RTO_MS": "77", "ACIS_GSO_SEGS": "9",
           "ACIS_FAULT_DROP": "0.125", "ACIS_FAULT_DUP": "0.25",
           "ACIS_FAULT_REORDER": "0.5", "ACIS_FAULT_WINDOW": "11",
           "ACIS_FAULT_SEED": "1099511627781", "ACIS_TRANSPORT": "dpdk",
           "ACIS_DPDK_PORT": "net_memif0,role=client", "ACIS_DPDK_EAL": "-x",
           "ACIS_HOST_MAC": "02:00:00:00:00:01",
           "ACIS_SWITCH_MAC": "02:00:00:00:00:02", "ACIS_POLL_US": "123",
           "ACIS_AUTH": "off"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        cfg = acis.default_config()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    want = {"switch_ip": "10.1.2.3", "switch_port": 4567, "job": 4000000001,
            "rank": 5, "size": 6, "bind_ip": "10.9.8.7", "bind_port": 4321,
            "timeout_ms": 7001, "window": 33, "mtu": 1400, "rto_ms": 77,
            "gso_segs": 9, "fault_drop": 0.125, "fault_dup": 0.25,
            "fault_reorder": 0.5, "fault_window": 11,
            "fault_seed": 1099511627781, "transport": "dpdk",
            "dpdk_port": "net_memif0,role=client", "dpdk_eal": "-x",
            "host_mac": "02:00:00:00:00:01",
            "switch_mac": "02:00:00:00:00:02", "poll_us": 123,
            "auth": "off"}
    assert cfg == want, {k: (cfg[k], want[k]) for k in want
                         if cfg[k] != want[k]}


def test_bad_configuration_is_refused_in_python():
    expect_raises(TypeError, "unknown configuration switch",
                  acis.Context, switch="10.0.0.1")
    expect_raises(ValueError, "switch_port=70000", acis.Context,
                  switch_port=70000)
    expect_raises(TypeError, "job must be an int", acis.Context, job="7")
    expect_raises(ValueError, "fault_drop=2", acis.Context, fault_drop=2)
    expect_raises(TypeError, "switch_ip must be a str", acis.Context,
                  switch_ip=b"10.0.0.1")


def test_init_with_no_switch_answering_times_out():
    # a socket that never reads: nothing answers, nothing refuses
    quiet = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    quiet.bind(("127.0.0.1", 0))
    t = time.monotonic()
    e = expect_raises(acis.TimeoutError, "no answer from the switch",
                      acis.Context, switch_ip="127.0.0.1",
                      switch_port=quiet.getsockname()[1], job=1, rank=0,
                      size=2, timeout_ms=300)
    took = time.monotonic() - t
    quiet.close()
    assert isinstance(e, TimeoutError) and isinstance(e, acis.AcisError)
    assert e.code == -4 and e.call == "acis_init", (e.code, e.call)
    assert "within 300 ms" in e.detail, e.detail
    assert took < 5, f"took {took:.1f} s"


def test_inits_in_threads_each_say_why():
    """One context per thread is allowed: joins that fail at once in
    several threads each raise their own error with its own reason
    (acis_init_error is the thread's)."""
    quiet = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    quiet.bind(("127.0.0.1", 0))
    errors = [None] * 4

    def join(i):
        try:
            # three time out, each after its own wait; one is refused
            acis.Context(switch_ip="127.0.0.1",
                         switch_port=quiet.getsockname()[1], job=1, rank=i,
                         size=4, timeout_ms=300 + 100 * i,
                         mtu=1500 if i < 3 else 100)
        except Exception as e:  # noqa: BLE001 - checked below
            errors[i] = e
    threads = [threading.Thread(target=join, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    quiet.close()
    assert all(isinstance(e, acis.TimeoutError) for e in errors[:3]), errors
    for i, e in enumerate(errors[:3]):
        assert f"within {300 + 100 * i} ms" in e.detail, (i, e.detail)
    assert isinstance(errors[3], acis.InvalidArgumentError), errors[3]
    assert "mtu 100 outside" in errors[3].detail, errors[3].detail


def test_init_refused_by_the_switch():
    e = expect_raises(acis.RefusedError, "rank taken", context,
                      job=JOB_REFUSED)
    assert e.code == -5 and "refused" in e.strerror, e


def test_bad_environment_variable_is_named():
    os.environ["ACIS_RANK"] = "three"
    try:
        e = expect_raises(acis.InvalidArgumentError, "ACIS_RANK='three'",
                          context)
    finally:
        del os.environ["ACIS_RANK"]
    assert isinstance(e, ValueError)


def test_auth_cookie_in_every_message_and_forgeries_dropped():
    """By default a rank sends a random cookie in every message and takes
    from the switch's address only what carries it; auth="off" sends
    none; another value is refused."""
    with context(job=JOB_FORGED) as ctx:
        assert ctx.config["auth"] is None
        start = len(SWITCH.data)
        ctx.world.barrier()
        ctx.world.allreduce(np.arange(4, dtype=np.int32))
        sent = {h["auth"] for h in SWITCH.data[start:]}
        s = ctx.stats()
    assert len(sent) == 1 and bytes(6) not in sent, sent
    assert s.auth_rejected == 1, s
    with context(job=8, auth="off") as ctx:
        assert ctx.config["auth"] == "off"
        start = len(SWITCH.data)
        ctx.world.allreduce(np.arange(4, dtype=np.int32))
        off = {h["auth"] for h in SWITCH.data[start:]}
        assert ctx.stats().auth_rejected == 0
    assert off == {bytes(6)}, off
    expect_raises(acis.InvalidArgumentError, "auth 'maybe': expected "
                  "cookie or off", context, auth="maybe")
    expect_raises(TypeError, "auth must be a str", context, auth=1)


def test_joined_context_and_world():
    with context(job=2, size=4) as ctx:
        w = ctx.world
        assert (w.rank, w.size, w.id) == (0, 4, WORLD), w
        assert (ctx.rank, ctx.size) == (0, 4)
        assert ctx.config["switch_port"] == SWITCH.port
        assert ctx.config["job"] == 2
        assert "world" in repr(w) and not ctx.finalized
    assert ctx.finalized and w.freed
    expect_raises(acis.StateError, "finalized", w.barrier)
    ctx.finalize()  # again: nothing


def test_bad_arguments_are_refused_before_c():
    """A communicator of 4 ranks (rank 0) whose calls must all be refused
    in Python: nothing may reach the switch."""
    with context(job=3, size=4) as ctx:
        w = ctx.world
        before = ctx.stats().msgs_sent
        x = np.arange(8, dtype=np.float32)
        ro = np.zeros(8, dtype=np.float32)
        ro.flags.writeable = False
        cases = [
            (TypeError, "allreduce: sendbuf must be a numpy array, not list",
             w.allreduce, [1.0, 2.0]),
            (ValueError, "sendbuf is not C-contiguous", w.allreduce, x[::2]),
            (ValueError, "not C-contiguous", w.allgather,
             np.zeros((4, 4), np.int32).T),
            (TypeError, "recvbuf's dtype float64 is not sendbuf's float32",
             w.allreduce, x, np.zeros(8)),
            (ValueError, "recvbuf has 9 elements; expected 8", w.allreduce,
             x, np.zeros(9, np.float32)),
            (ValueError, "recvbuf is read-only", w.allreduce, x, ro),
            (ValueError, "sendbuf and recvbuf overlap", w.allreduce, x, x),
            (ValueError, "acis.IN_PLACE needs recvbuf", w.allreduce,
             acis.IN_PLACE),
            (ValueError, "op band is not defined on float32", w.allreduce,
             x, None, "band"),
            (ValueError, "unknown op 'avg'", w.iallreduce, x, None, "avg"),
            (TypeError, "dtype bool is not one acis reduces", w.allreduce,
             np.zeros(3, bool)),
            (TypeError, "big-endian", w.bcast, np.zeros(3, ">i4")),
            (ValueError, "root 4 outside 0..3", w.reduce, x, None, "sum", 4),
            (ValueError, "root -1 outside 0..3", w.ibcast, x, -1),
            (TypeError, "root must be an int", w.gather, x, None, True),
            (ValueError, "recvbuf has 24 elements; expected 32 (4 ranks x 8)",
             w.gather, x, np.zeros(24, np.float32)),
            (ValueError, "recvbuf has 8 elements; expected 32", w.iallgather,
             x, np.zeros(8, np.float32)),
            (ValueError, "sendbuf has 10 elements, not a multiple of the "
             "communicator's 4 ranks", w.scatter, np.zeros(10)),
            (ValueError, "recvbuf has 3 elements; expected 2", w.scatter,
             x, np.zeros(3, np.float32)),
            (ValueError, "rank 0 is not the root (1): pass recvbuf",
             w.scatter, x, None, 1),
            (ValueError, "acis.IN_PLACE is for the root (1)", w.gather,
             acis.IN_PLACE, np.zeros(32, np.float32), 1),
            (ValueError, "acis.IN_PLACE is for the root (2)", w.ireduce,
             acis.IN_PLACE, x, "sum", 2),
            (ValueError, "recvbuf has 6 elements, not a multiple",
             w.allgather, acis.IN_PLACE, np.zeros(6)),
            (ValueError, "sendbuf has 6 elements, not a multiple",
             w.ireduce_scatter, np.zeros(6)),
            (ValueError, "buf is read-only", w.bcast, ro, 1),
            (ValueError, "alltoall: sendbuf has 6 elements, not a multiple "
             "of the communicator's 4 ranks", w.alltoall, np.zeros(6)),
            (ValueError, "recvbuf has 4 elements; expected 8 (4 ranks x 2, "
             "as sendbuf)", w.ialltoall, x, np.zeros(4, np.float32)),
            (TypeError, "recvbuf's dtype int32 is not sendbuf's float32",
             w.alltoall, x, np.zeros(8, np.int32)),
            (ValueError, "sendbuf and recvbuf overlap", w.alltoall, x, x),
            (ValueError, "acis.IN_PLACE needs recvbuf, holding the blocks "
             "to send", w.ialltoall, acis.IN_PLACE),
            (ValueError, "recvbuf has 7 elements, not a multiple",
             w.alltoall, acis.IN_PLACE, np.zeros(7)),
            (ValueError, "recvbuf is read-only", w.alltoall, acis.IN_PLACE,
             ro),
            (ValueError, "color -2", w.split, -2),
            (TypeError, "color must be an int", w.split, "a"),
            (ValueError, "key=4294967296", w.split, 0, 1 << 32),
            (TypeError, "comm_id must be an int", ctx.attach, "1"),
        ]
        for cls, fragment, fn, *args in cases:
            expect_raises(cls, fragment, fn, *args)
        assert ctx.stats().msgs_sent == before, "a refused call sent"


def test_every_collective_comes_back_through_the_switch():
    """A job of one rank: each result is the rank's own data, placed as
    the call says; the chunks carry the right dtype and op codes."""
    with context(job=4) as ctx:
        w = ctx.world
        rng = np.random.default_rng(1)
        for dt in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                   np.uint32, np.int64, np.uint64, np.float16, np.float32,
                   np.float64):
            x = (rng.integers(0, 100, 300) - 50).astype(dt)
            for blocking in (True, False):
                def call(name, *args, **kw):
                    if blocking:
                        return getattr(w, name)(*args, **kw)
                    return getattr(w, "i" + name)(*args, **kw).wait()
                start = len(SWITCH.data)
                op = "bxor" if np.dtype(dt).kind in "iu" else "max"
                r = call("allreduce", x, op=op)
                assert np.array_equal(r, x) and r.dtype == x.dtype
                h = SWITCH.data[start]
                assert h["dtype"] == acis.dtype_code(dt), (dt, h["dtype"])
                assert h["op"] == acis.op_code(op), h["op"]
                assert np.array_equal(call("reduce", x, op="min"), x)
                b = x.copy()
                assert call("bcast", b) is b and np.array_equal(b, x)
                assert np.array_equal(call("scatter", x), x)
                g = call("gather", x)
                assert g.shape == (1, 300) and np.array_equal(g[0], x)
                assert np.array_equal(call("allgather", x)[0], x)
                assert np.array_equal(call("reduce_scatter", x), x)
                # one rank keeps its only block: nothing is sent
                sent = len(SWITCH.data)
                a2a = call("alltoall", x)
                assert a2a.shape == x.shape and np.array_equal(a2a, x)
                assert len(SWITCH.data) == sent, SWITCH.data[sent:]
                out = np.empty_like(x)
                assert call("allreduce", x, out) is out
                assert np.array_equal(out, x)
                y = x.copy()
                call("allreduce", acis.IN_PLACE, y)
                assert np.array_equal(y, x)
                y = x.copy()
                r = call("reduce_scatter", acis.IN_PLACE, y)
                assert np.array_equal(r, x) and np.shares_memory(r, y)
                for name in ("scatter", "gather", "allgather", "alltoall"):
                    y = x.copy()
                    assert call(name, acis.IN_PLACE, y) is y
                    assert np.array_equal(y, x)
                assert call("barrier") is None
        # many chunks: 1 MiB
        big = rng.standard_normal(1 << 18).astype(np.float32)
        assert np.array_equal(w.allreduce(big), big)
        assert np.array_equal(w.iallgather(big).wait()[0], big)
        s = ctx.stats()
        assert s.msgs_sent > 740 and s.msgs_received > 740, s
        assert set(s.as_dict()) == set(acis._lib.STATS_FIELDS)


def test_alltoall_sends_each_block_to_its_rank():
    """A job of two ranks whose rank 1 the switch plays: rank 0's block 1
    leaves as chunks 1 * cpr + c of a one-block message, op and root
    none; what rank 1 sends back lands at block 1, and block 0 stays
    rank 0's own; blocking and not, in place and not."""
    with context(job=JOB_PAIR, size=2) as ctx:
        w = ctx.world
        # 4000-byte blocks: several chunks each
        x = np.arange(2000, dtype=np.int32).reshape(2, 1000) - 700
        want = x.copy()
        want[1] = ~x[1]
        start = len(SWITCH.data)
        r = w.alltoall(x)
        assert r.shape == (2, 1000) and np.array_equal(r, want), r
        hs = SWITCH.data[start:]
        cpr = -(-4000 // hs[0]["chunk_size"])
        assert cpr > 1, cpr
        assert sorted({h["chunk"] for h in hs}) == \
            [cpr + c for c in range(cpr)], [h["chunk"] for h in hs]
        for h in hs:
            assert h["opcode"] == C_ALLTOALL and h["op"] == 0, h
            assert h["root"] == NONE and h["msg_size"] == 4000, h
            assert h["dtype"] == acis.dtype_code(np.int32), h
        assert np.array_equal(w.ialltoall(x).wait(), want)
        y = x.reshape(-1).copy()
        assert w.alltoall(acis.IN_PLACE, y) is y
        assert np.array_equal(y, want.reshape(-1))
        out = np.empty(2000, np.int32)
        assert w.ialltoall(x, out).wait() is out
        assert np.array_equal(out, want.reshape(-1))


def test_a_block_before_its_communicators_answer_is_kept():
    """The first collective's block may come in the same receive as
    the JOIN's answer, ahead of it, before the world exists here: it is
    kept with the results that came early, and the bcast finds it (a
    block dropped then would wait for a resend the sender makes only
    after its RTO)."""
    with context(job=JOB_EAGER, size=2) as ctx:
        got = ctx.world.bcast(np.zeros(2, np.int32), root=1)
        assert list(got) == [7, -7], got


def test_nonblocking_requests_wait_test_and_waitall():
    with context(job=5) as ctx:
        w = ctx.world
        xs = [np.full(1000, i, np.int32) for i in range(5)]
        reqs = [w.iallreduce(x) for x in xs] + [w.ibarrier()]
        r = reqs[0]
        while not r.test():
            pass
        assert r.done and np.array_equal(r.result, xs[0])
        assert np.array_equal(r.wait(), xs[0])  # again: the same result
        results = acis.waitall(reqs)
        assert results[-1] is None
        for x, got in zip(xs, results):
            assert np.array_equal(got, x)
        assert all(q.done for q in reqs) and "done" in repr(reqs[1])
        expect_raises(TypeError, "not an acis.Request", acis.waitall, [1])


def test_request_keeps_its_arrays_until_it_finishes():
    with context(job=JOB_MUTE, timeout_ms=400) as ctx:
        x = np.ones(5000, np.float64)
        out = np.empty_like(x)
        wx, wout = weakref.ref(x), weakref.ref(out)
        req = ctx.world.iallreduce(x, out)
        del x, out
        gc.collect()
        assert wx() is not None and wout() is not None, "freed while running"
        assert not req.test() and not req.done
        expect_raises(acis.StateError, "has not finished",
                      lambda: req.result)
        e = expect_raises(acis.TimeoutError, "chunks answered", req.wait)
        assert e.call == "acis_wait"
        gc.collect()
        assert wx() is None and wout() is None, "kept after finishing"
        assert req.done and "failed" in repr(req)
        assert expect_raises(acis.TimeoutError, "", req.wait) is e
        assert expect_raises(acis.TimeoutError, "", req.test) is e


def test_refusal_of_a_chunk_raises_refused_error():
    with context(job=JOB_NACK) as ctx:
        w = ctx.world
        a = w.iallreduce(np.ones(4, np.int32))
        b = w.ibcast(np.ones(4, np.int32))
        e = expect_raises(acis.RefusedError, "mismatch with other ranks",
                          acis.waitall, [a, b])
        assert a.done and b.done
        expect_raises(acis.RefusedError, "switch refused allreduce",
                      w.allreduce, np.ones(4, np.int32))
        assert "mismatch" in ctx.last_error and e.code == -5


def test_finalize_abandons_running_requests():
    ctx = context(job=JOB_MUTE, timeout_ms=5000)
    x = np.ones(10, np.int64)
    wx = weakref.ref(x)
    req = ctx.world.iallreduce(x)
    del x
    ctx.finalize()
    gc.collect()
    assert wx() is None and req.done
    expect_raises(acis.StateError, "finalized before the request finished",
                  req.wait)
    expect_raises(acis.StateError, "finalized", ctx.stats)


def test_communicators_split_attach_detach_free():
    with context(job=6) as ctx:
        w = ctx.world
        sub = w.split(0, key=3)
        assert sub is not None and sub.size == 1 and sub.id != w.id
        assert w.split(acis.UNDEFINED) is None and w.split(None) is None
        assert np.array_equal(sub.allreduce(np.arange(3)), np.arange(3))
        sub.free()
        assert sub.freed
        expect_raises(acis.StateError, "was freed", sub.allreduce,
                      np.arange(3))
        att = ctx.attach(0x30003)
        assert (att.id, att.rank, att.size) == (0x30003, 0, 1)
        att.detach()
        assert att.freed
        e = expect_raises(acis.RefusedError, "unknown communicator",
                          ctx.attach, UNKNOWN_COMM)
        assert e.call == "acis_comm_attach"
        expect_raises(acis.StateError, "cannot be freed", w.free)
        expect_raises(acis.InvalidArgumentError, "cannot be detached",
                      w.detach)
        assert not w.freed


def test_an_error_in_a_with_block_is_the_one_raised():
    try:
        with context(job=7) as ctx:
            raise KeyError("mine")
    except KeyError as e:
        assert e.args == ("mine",)
    assert ctx.finalized


def test_library_not_found_names_acis_lib():
    code = ("import acis\n"
            "try:\n"
            "    acis.Context()\n"
            "except acis.LibraryNotFoundError as e:\n"
            "    print(e)\n")
    env = dict(os.environ, ACIS_LIB="/nonexistent/libacis.so")
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=60)
    assert "cannot load libacis" in out.stdout and \
        "/nonexistent/libacis.so (ACIS_LIB)" in out.stdout, out


def main():
    global SWITCH
    for k in [k for k in os.environ if k.startswith("ACIS_") and
              k not in ("ACIS_LIB", "ACIS_DPDK_LIB")]:
        del os.environ[k]
    print(f"libacis: {acis.library_path()}")
    SWITCH = FakeSwitch()
    SWITCH.start()
    tests = [(n, f) for n, f in globals().items() if n.startswith("test_")]
    passed = failed = 0
    for name, fn in tests:
        t = time.monotonic()
        try:
            fn()
        except Exception:  # noqa: BLE001 - reported, the next one runs
            failed += 1
            print(f"FAIL - {name}")
            traceback.print_exc(file=sys.stdout)
        else:
            passed += 1
            print(f"ok   - {name} ({time.monotonic() - t:.2f} s)")
    SWITCH.stopping = True
    SWITCH.join()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

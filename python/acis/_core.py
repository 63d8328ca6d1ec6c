# SPDX-License-Identifier: BSD-3-Clause
"""Contexts, communicators and requests over libacis.

Every argument is checked here before C sees it, so that a mistake is a
ValueError or TypeError naming the argument and what was expected, not
a corrupted buffer. libacis's own refusals become AcisError subclasses
(_errors.py).
"""
import atexit
import ctypes
import dataclasses
import operator
import os
import threading

import numpy as np

from . import _lib
from ._errors import error
from ._types import check_op, dtype_code, Op, UserOp


class _InPlace:
    """The type of IN_PLACE (one instance)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "acis.IN_PLACE"

    def __reduce__(self):
        return (_InPlace, ())


IN_PLACE = _InPlace()
"""Send buffer meaning "the receive buffer holds my contribution"
(ACIS_IN_PLACE), placed as MPI_IN_PLACE places it."""

UNDEFINED = _lib.UNDEFINED
"""Split color: this rank joins no new communicator (ACIS_UNDEFINED)."""

_STR_FIELDS = ("switch_ip", "bind_ip", "transport", "dpdk_port", "dpdk_eal",
               "host_mac", "switch_mac", "auth")
_FLOAT_FIELDS = ("fault_drop", "fault_dup", "fault_reorder")
_INT_BITS = {"switch_port": 16, "bind_port": 16, "fault_seed": 64}
CONFIG_FIELDS = tuple(name for name, _ in _lib.Config._fields_)
# acis_config_default writes ACIS_SWITCH and ACIS_BIND to static buffers
_config_lock = threading.Lock()


def _config_value(cfg, name):
    v = getattr(cfg, name)
    return v.decode() if isinstance(v, bytes) else v


def _set_config(cfg, name, value):
    """cfg.name = value, checked against the field's type and range."""
    if name in _STR_FIELDS:
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not "
                            f"{type(value).__name__}")
        if "\0" in value:
            raise ValueError(f"{name} holds a NUL character")
        setattr(cfg, name, value.encode())
    elif name in _FLOAT_FIELDS:
        if isinstance(value, bool) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a probability (a float), not "
                            f"{type(value).__name__}")
        if not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"{name}={value}: expected a probability from "
                             f"0 to 1")
        setattr(cfg, name, float(value))
    else:
        bits = _INT_BITS.get(name, 32)
        if isinstance(value, bool):
            raise TypeError(f"{name} must be an int, not bool")
        try:
            v = operator.index(value)
        except TypeError:
            raise TypeError(f"{name} must be an int, not "
                            f"{type(value).__name__}") from None
        if not 0 <= v < 1 << bits:
            raise ValueError(f"{name}={v}: expected 0 to {(1 << bits) - 1}")
        setattr(cfg, name, v)


def _make_config(overrides):
    """struct acis_config: acis_config_default (the ACIS_* environment),
    then overrides (None: keep). Every string is copied into memory owned
    by the structure, which the context keeps: libacis keeps the
    pointers, and the environment's strings may change under it."""
    unknown = sorted(set(overrides) - set(CONFIG_FIELDS))
    if unknown:
        raise TypeError(f"unknown configuration {', '.join(unknown)}; "
                        f"expected some of: {', '.join(CONFIG_FIELDS)}")
    cfg = _lib.Config()
    lib = _lib.load()
    with _config_lock:
        lib.acis_config_default(ctypes.byref(cfg))
        for name in _STR_FIELDS:
            v = getattr(cfg, name)
            if v is not None:
                setattr(cfg, name, bytes(v))
    for name, value in overrides.items():
        if value is not None:
            _set_config(cfg, name, value)
    return cfg


def default_config():
    """What acis_config_default gives: the ACIS_* environment over the
    library's defaults, as a dict of the struct acis_config fields (None:
    not set; 0 in a field acis.h gives a default for: that default)."""
    cfg = _make_config({})
    return {name: _config_value(cfg, name) for name in CONFIG_FIELDS}


def _write_stderr(text):
    if text:
        try:
            os.write(2, text.encode())
        except OSError:
            pass


@dataclasses.dataclass(frozen=True)
class Stats:
    """Counters of a context (struct acis_client_stats)."""

    msgs_sent: int
    msgs_received: int
    bytes_sent: int
    bytes_received: int
    busy_retries: int       #: chunks sent again after NACK BUSY
    retransmits: int        #: chunks sent again after the RTO
    faults_dropped: int     #: injected (ACIS_FAULT_*)
    faults_duplicated: int
    faults_reordered: int
    ctrl_retries: int       #: control requests sent again
    stray: int              #: messages for no request (late, foreign)
    unexpected: int         #: results kept until their collective began
    late_receipts: int      #: answers confirmed again after finishing
    send_batches: int
    recv_batches: int
    gso_sends: int          #: sends the kernel cut into several datagrams
    gso_refused: int        #: 1 if the kernel refused to segment
    transport_drops: int    #: DPDK transport: frames not ours, not taken
    auth_rejected: int      #: from the switch's address without our cookie

    def as_dict(self):
        """The counters as a dict."""
        return dataclasses.asdict(self)


assert tuple(f.name for f in dataclasses.fields(Stats)) == _lib.STATS_FIELDS

# Contexts not yet finalized; finalized at exit, as MPI programs are.
_live = []
_live_lock = threading.Lock()


@atexit.register
def _finalize_at_exit():
    for ctx in list(_live):
        try:
            ctx.finalize()
        except Exception as e:  # noqa: BLE001 - exiting: say it, go on
            _write_stderr(f"acis: finalize at exit: {e}\n")


class Context:
    """A joined rank of a job: acis_init on creation, acis_finalize in
    finalize() or on leaving a with block.

    Keyword arguments are struct acis_config's fields (switch_ip,
    switch_port, job, rank, size, bind_ip, bind_port, timeout_ms, window,
    mtu, rto_ms, gso_segs, fault_drop, fault_dup, fault_reorder,
    fault_window, fault_seed, transport, dpdk_port, dpdk_eal, host_mac,
    switch_mac, poll_us, auth); those not given (or None) come from the
    ACIS_* environment acis_config_default reads, else the library's
    defaults. auth is "cookie" (the default: a random cookie in every
    message, both ways) or "off". Returns once every rank of the job has
    joined; raises TimeoutError when they have not within timeout_ms,
    RefusedError when the switch refuses (size mismatch, rank taken,
    full, LIMIT, AUTH, ...).

    One context per thread, as libacis asks; calls on one context from
    several threads are serialized by a lock. A context still open when
    the interpreter exits is finalized then.
    """

    def __init__(self, **config):
        lib = _lib.load()
        self._cfg = _make_config(config)
        self._lock = threading.RLock()
        self._requests = set()
        self._h = None
        handle = ctypes.c_void_p()
        rc = lib.acis_init(ctypes.byref(self._cfg), ctypes.byref(handle))
        if rc != _lib.OK:
            # no context: the reason is the thread's (acis_init_error)
            why = lib.acis_init_error() or b""
            raise error(rc, why.decode(errors="replace"), "acis_init")
        self._h = handle.value
        #: The world communicator (every rank of the job).
        self.world = Comm(self, lib.acis_comm_world(self._h), world=True)
        with _live_lock:
            _live.append(self)

    @property
    def config(self):
        """The configuration the context was made with, as a dict (as
        default_config())."""
        return {name: _config_value(self._cfg, name)
                for name in CONFIG_FIELDS}

    @property
    def rank(self):
        """This rank in the world."""
        return self.world.rank

    @property
    def size(self):
        """The world's size."""
        return self.world.size

    @property
    def finalized(self):
        """True once finalize() ran."""
        return self._h is None

    def _handle(self):
        if self._h is None:
            raise error(_lib.ERR_STATE, "the context was finalized")
        return self._h

    def _error(self, rc, call):
        """The exception for rc, with acis_last_error's text."""
        detail = _lib.load().acis_last_error(self._h).decode(
            errors="replace")
        return error(rc, "" if detail == "no error" else detail, call)

    @property
    def last_error(self):
        """acis_last_error: what went wrong last in this context."""
        with self._lock:
            return _lib.load().acis_last_error(self._handle()).decode(
                errors="replace")

    def stats(self):
        """The context's counters (acis_get_stats) as a Stats."""
        s = _lib.ClientStats()
        with self._lock:
            _lib.load().acis_get_stats(self._handle(), ctypes.byref(s))
        return Stats(*(getattr(s, name) for name in _lib.STATS_FIELDS))

    def attach(self, comm_id):
        """A communicator made through management (acisctl comm-create),
        by its context id (acis_comm_attach)."""
        comm_id = _uint32(comm_id, "comm_id")
        out = ctypes.c_void_p()
        with self._lock:
            rc = _lib.load().acis_comm_attach(self._handle(), comm_id,
                                              ctypes.byref(out))
            if rc != _lib.OK:
                raise self._error(rc, "acis_comm_attach")
            return Comm(self, out.value)

    def op_create(self, name, program, commutative=True):
        """A user-defined reduction op (acis_op_create, doc/collectives.md):
        program is a CGRA program's words, as bytes (acis-asm's .bin) or
        integers; every rank of the job makes it with the same name and
        program. The UserOp returned is an op for allreduce, reduce and
        reduce_scatter."""
        if isinstance(program, (bytes, bytearray, memoryview)):
            w = np.frombuffer(bytes(program), dtype="<u4").astype(np.uint32)
        else:
            w = np.ascontiguousarray(program, dtype=np.uint32)
        out = ctypes.c_int(0)
        with self._lock:
            rc = _lib.load().acis_op_create(
                self._handle(), str(name).encode(),
                w.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)), w.size,
                1 if commutative else 0, ctypes.byref(out))
            if rc != _lib.OK:
                raise self._error(rc, "acis_op_create")
        return UserOp(out.value, str(name))

    def op_free(self, op):
        """This rank is done with a user op (acis_op_free)."""
        with self._lock:
            rc = _lib.load().acis_op_free(self._handle(), int(op))
            if rc != _lib.OK:
                raise self._error(rc, "acis_op_free")

    def finalize(self):
        """Leave the job (acis_finalize): collective over the world, a
        barrier first. Frees every communicator; requests still running
        are abandoned (their wait() raises StateError). Doing it again
        does nothing."""
        with self._lock:
            if self._h is None:
                return
            h, self._h = self._h, None
            with _live_lock:
                if self in _live:
                    _live.remove(self)
            for req in list(self._requests):
                req._abandon()
            self._requests.clear()
            rc = _lib.load().acis_finalize(h)
            if rc != _lib.OK:
                # the context is gone, and its message with it
                raise error(rc, "", "acis_finalize")

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.finalize()
            return
        # leaving on an error: finalize, but let that error be the one
        # raised
        try:
            self.finalize()
        except Exception:  # noqa: BLE001
            pass

    def __repr__(self):
        if self._h is None:
            return "<acis.Context finalized>"
        return (f"<acis.Context job {self._cfg.job} rank {self.rank} of "
                f"{self.size}>")


def init(**config):
    """Join a job: Context(**config)."""
    return Context(**config)


def _uint32(v, what):
    if isinstance(v, bool):
        raise TypeError(f"{what} must be an int, not bool")
    try:
        v = operator.index(v)
    except TypeError:
        raise TypeError(f"{what} must be an int, not "
                        f"{type(v).__name__}") from None
    if not 0 <= v < 1 << 32:
        raise ValueError(f"{what}={v}: expected 0 to {(1 << 32) - 1}")
    return v


def _int32(v, what):
    if isinstance(v, bool):
        raise TypeError(f"{what} must be an int, not bool")
    try:
        v = operator.index(v)
    except TypeError:
        raise TypeError(f"{what} must be an int, not "
                        f"{type(v).__name__}") from None
    if not -(1 << 31) <= v < 1 << 31:
        raise ValueError(f"{what}={v}: expected a 32-bit int")
    return v


def _addr(a):
    """An array's data address for C."""
    return a.__array_interface__["data"][0]


class _Args:
    """Checks of one collective's arguments, its name in every message."""

    def __init__(self, comm, coll):
        self.coll = coll
        self.P = comm.size
        self.me = comm.rank

    def fail(self, cls, msg):
        return cls(f"{self.coll}: {msg}")

    def array(self, x, what, writable=False):
        if not isinstance(x, np.ndarray):
            raise self.fail(TypeError, f"{what} must be a numpy array, not "
                            f"{type(x).__name__}")
        if not x.flags.c_contiguous:
            raise self.fail(ValueError, f"{what} is not C-contiguous "
                            f"(a slice with a step, a transpose?): pass "
                            f"np.ascontiguousarray({what})")
        if writable and not x.flags.writeable:
            raise self.fail(ValueError, f"{what} is read-only, and the "
                            f"result is written into it")
        return x

    def dtype(self, x, what):
        try:
            return dtype_code(x.dtype)
        except TypeError as e:
            raise self.fail(TypeError, f"{what}: {e}") from None

    def root(self, root):
        if isinstance(root, bool):
            raise self.fail(TypeError, "root must be an int, not bool")
        try:
            root = operator.index(root)
        except TypeError:
            raise self.fail(TypeError, f"root must be an int, not "
                            f"{type(root).__name__}") from None
        if not 0 <= root < self.P:
            raise self.fail(ValueError, f"root {root} outside 0..{self.P - 1}"
                            f" (communicator of {self.P} ranks)")
        return root

    def op(self, op, dt):
        try:
            return check_op(op, dt)
        except (TypeError, ValueError) as e:
            raise self.fail(type(e), str(e)) from None

    def blocks(self, x, what):
        """count when x holds P blocks of count elements."""
        if x.size % self.P != 0:
            raise self.fail(ValueError, f"{what} has {x.size} elements, not "
                            f"a multiple of the communicator's {self.P} "
                            f"ranks (it holds one block per rank)")
        return x.size // self.P

    def in_place(self, recvbuf, holds):
        """The receive buffer of an IN_PLACE call (holds: what it holds)."""
        if recvbuf is None:
            raise self.fail(ValueError, f"acis.IN_PLACE needs recvbuf, "
                            f"holding {holds}")
        return self.array(recvbuf, "recvbuf", writable=True)

    def out(self, recvbuf, send, count, shape, why=""):
        """The receive buffer: recvbuf checked against send's dtype and
        count elements, or a new array of shape."""
        if recvbuf is None:
            return np.empty(shape, dtype=send.dtype)
        r = self.array(recvbuf, "recvbuf", writable=True)
        if r.dtype != send.dtype:
            raise self.fail(TypeError, f"recvbuf's dtype {r.dtype} is not "
                            f"sendbuf's {send.dtype}")
        if r.size != count:
            raise self.fail(ValueError, f"recvbuf has {r.size} elements; "
                            f"expected {count}{why}")
        if np.may_share_memory(send, r):
            raise self.fail(ValueError, "sendbuf and recvbuf overlap; for "
                            "a collective in place pass acis.IN_PLACE as "
                            "sendbuf")
        return r

    def block_shape(self, send, count):
        """A rank's block of send (P blocks): send.shape[1:] when its
        first axis is the ranks, else flat."""
        if send.ndim >= 2 and send.shape[0] == self.P:
            return send.shape[1:]
        return (count,)


class Comm:
    """A communicator (acis_comm_t): the world, a split or an attached one.

    Collectives take numpy arrays (C-contiguous, of a dtype acis reduces,
    the send and receive buffers of one dtype) with MPI's argument order
    and meaning; a receive buffer left None is allocated and returned.
    Each has a non-blocking twin, i<name>, returning a Request.
    """

    def __init__(self, ctx, handle, world=False):
        if not handle:
            raise error(_lib.ERR_STATE, "no communicator")
        lib = _lib.load()
        self._ctx = ctx
        self._h = handle
        self._world = world
        self._rank = lib.acis_comm_rank(handle)
        self._size = lib.acis_comm_size(handle)
        self._id = lib.acis_comm_id(handle)

    @property
    def rank(self):
        """This rank in the communicator."""
        return self._rank

    @property
    def size(self):
        """The communicator's number of ranks."""
        return self._size

    @property
    def id(self):
        """The switch's context id of the communicator."""
        return self._id

    @property
    def context(self):
        """The Context the communicator belongs to."""
        return self._ctx

    @property
    def freed(self):
        """True once freed, detached, or its context finalized."""
        return self._h is None or self._ctx.finalized

    def _handle(self):
        self._ctx._handle()
        if self._h is None:
            raise error(_lib.ERR_STATE, f"communicator {self._id} was freed "
                        f"or detached")
        return self._h

    def __repr__(self):
        state = " freed" if self.freed else ""
        kind = " world" if self._world else ""
        return (f"<acis.Comm{kind} {self._id} rank {self._rank} of "
                f"{self._size}{state}>")

    # ---- communicators ----

    def split(self, color, key=0):
        """Collective, like MPI_Comm_split: ranks of one color form a new
        communicator, ordered by (key, rank). Returns it, or None for
        color UNDEFINED (or None)."""
        color = UNDEFINED if color is None else _int32(color, "color")
        if color < 0 and color != UNDEFINED:
            raise ValueError(f"split: color {color}: expected 0 or more, "
                             f"or acis.UNDEFINED")
        key = _int32(key, "key")
        out = ctypes.c_void_p()
        with self._ctx._lock:
            rc = _lib.load().acis_comm_split(self._handle(), color, key,
                                             ctypes.byref(out))
            if rc != _lib.OK:
                raise self._ctx._error(rc, "acis_comm_split")
            return Comm(self._ctx, out.value) if out.value else None

    def _release(self, fn, call):
        with self._ctx._lock:
            h = ctypes.c_void_p(self._handle())
            rc = fn(ctypes.byref(h))
            if not h.value:
                self._h = None
            if rc != _lib.OK:
                raise self._ctx._error(rc, call)

    def free(self):
        """Collective free (acis_comm_free). StateError for the world and
        while a request on the communicator runs."""
        self._release(_lib.load().acis_comm_free, "acis_comm_free")

    def detach(self):
        """Forget a communicator made through management, leaving it on
        the switch (acis_comm_detach)."""
        if self._world:
            raise error(_lib.ERR_INVAL, "the world communicator cannot be "
                        "detached", "acis_comm_detach")
        self._release(_lib.load().acis_comm_detach, "acis_comm_detach")

    # ---- the switch steering progress (doc/sync.md) ----

    def _sync(self, name, *args):
        lib = _lib.load()
        with self._ctx._lock:
            rc = getattr(lib, name)(self._handle(), *args)
            if rc != _lib.OK:
                raise self._ctx._error(rc, name)

    def deadline_set(self, period_us):
        """Set the communicator's deadline: the switch signals every
        member as each period of period_us (100 us to 1 h) expires; 0
        stops it."""
        self._sync("acis_deadline_set", int(period_us))

    def deadline_wait(self, after=None):
        """Wait for the signal of an epoch after `after` (default: the
        latest seen); returns the latest epoch signalled."""
        if after is None:
            after = self.deadline_epoch()
        epoch = ctypes.c_uint32()
        self._sync("acis_deadline_wait", int(after), ctypes.byref(epoch))
        return epoch.value

    def deadline_epoch(self):
        """The latest epoch signalled so far (0: none), without waiting."""
        with self._ctx._lock:
            return _lib.load().acis_deadline_epoch(self._handle())

    def deadline_report(self, epoch):
        """Tell the switch this member finished epoch; True if late."""
        late = ctypes.c_int()
        self._sync("acis_deadline_report", int(epoch), ctypes.byref(late))
        return bool(late.value)

    def ssp_done(self, iteration, staleness=0, quorum=0):
        """Stale-synchronous barrier: this member finished iteration
        (from 1); returns once at least quorum members (0: all) finished
        iteration - staleness."""
        self._sync("acis_ssp_done", int(iteration), int(staleness),
                   int(quorum))

    # ---- the calls into C ----

    def _call(self, name, args, keep, result, nonblocking):
        lib = _lib.load()
        with self._ctx._lock:
            h = self._handle()
            if not nonblocking:
                rc = getattr(lib, "acis_" + name)(*args, h)
                if rc != _lib.OK:
                    raise self._ctx._error(rc, "acis_" + name)
                return result
            req = ctypes.c_void_p()
            rc = getattr(lib, "acis_i" + name)(*args, h, ctypes.byref(req))
            if rc != _lib.OK:
                raise self._ctx._error(rc, "acis_i" + name)
            r = Request(self._ctx, req.value, keep, result, "i" + name)
            self._ctx._requests.add(r)
            return r

    # ---- argument checks, one per collective ----

    def _allreduce(self, sendbuf, recvbuf, op):
        a = _Args(self, "allreduce")
        if sendbuf is IN_PLACE:
            r = a.in_place(recvbuf, "this rank's contribution")
            dt = a.dtype(r, "recvbuf")
            sptr = _lib.IN_PLACE
        else:
            s = a.array(sendbuf, "sendbuf")
            dt = a.dtype(s, "sendbuf")
            r = a.out(recvbuf, s, s.size, s.shape)
            sptr = _addr(s)
        op = a.op(op, dt)
        return ((sptr, _addr(r), r.size, dt, op), (sendbuf, r), r)

    def _reduce(self, sendbuf, recvbuf, op, root):
        a = _Args(self, "reduce")
        root = a.root(root)
        if sendbuf is IN_PLACE:
            if a.me != root:
                raise a.fail(ValueError, f"acis.IN_PLACE is for the root "
                             f"({root}); rank {a.me} passes its sendbuf")
            r = a.in_place(recvbuf, "the root's contribution")
            dt = a.dtype(r, "recvbuf")
            sptr = _lib.IN_PLACE
            count = r.size
        else:
            s = a.array(sendbuf, "sendbuf")
            dt = a.dtype(s, "sendbuf")
            count = s.size
            # recvbuf matters at the root only, as in MPI
            r = a.out(recvbuf, s, count, s.shape) if a.me == root else None
            sptr = _addr(s)
        op = a.op(op, dt)
        rptr = _addr(r) if r is not None else None
        return ((sptr, rptr, count, dt, op, root), (sendbuf, r), r)

    def _bcast(self, buf, root):
        a = _Args(self, "bcast")
        root = a.root(root)
        b = a.array(buf, "buf", writable=a.me != root)
        dt = a.dtype(b, "buf")
        return ((_addr(b), b.size, dt, root), (b,), b)

    def _scatter(self, sendbuf, recvbuf, root):
        a = _Args(self, "scatter")
        root = a.root(root)
        if a.me != root:
            # sendbuf matters at the root only, as in MPI
            if recvbuf is None:
                raise a.fail(ValueError, f"rank {a.me} is not the root "
                             f"({root}): pass recvbuf, the block it receives "
                             f"(its size is the count)")
            r = a.array(recvbuf, "recvbuf", writable=True)
            dt = a.dtype(r, "recvbuf")
            return ((None, _addr(r), r.size, dt, root), (r,), r)
        if sendbuf is IN_PLACE:
            r = a.in_place(recvbuf, "every rank's block, the root's left "
                           "where it is")
            dt = a.dtype(r, "recvbuf")
            count = a.blocks(r, "recvbuf")
            return ((_lib.IN_PLACE, _addr(r), count, dt, root), (r,), r)
        s = a.array(sendbuf, "sendbuf")
        dt = a.dtype(s, "sendbuf")
        count = a.blocks(s, "sendbuf")
        r = a.out(recvbuf, s, count, a.block_shape(s, count),
                  f" (sendbuf's {s.size} / {a.P} ranks)")
        return ((_addr(s), _addr(r), count, dt, root), (s, r), r)

    def _gather(self, sendbuf, recvbuf, root):
        a = _Args(self, "gather")
        root = a.root(root)
        if sendbuf is IN_PLACE:
            if a.me != root:
                raise a.fail(ValueError, f"acis.IN_PLACE is for the root "
                             f"({root}); rank {a.me} passes its sendbuf")
            r = a.in_place(recvbuf, "every rank's block, the root's at "
                           "block root")
            dt = a.dtype(r, "recvbuf")
            count = a.blocks(r, "recvbuf")
            return ((_lib.IN_PLACE, _addr(r), count, dt, root), (r,), r)
        s = a.array(sendbuf, "sendbuf")
        dt = a.dtype(s, "sendbuf")
        count = s.size
        if a.me != root:
            # recvbuf matters at the root only, as in MPI
            return ((_addr(s), None, count, dt, root), (s,), None)
        r = a.out(recvbuf, s, a.P * count, (a.P,) + s.shape,
                  f" ({a.P} ranks x {count})")
        return ((_addr(s), _addr(r), count, dt, root), (s, r), r)

    def _allgather(self, sendbuf, recvbuf):
        a = _Args(self, "allgather")
        if sendbuf is IN_PLACE:
            r = a.in_place(recvbuf, "this rank's block at block rank")
            dt = a.dtype(r, "recvbuf")
            count = a.blocks(r, "recvbuf")
            return ((_lib.IN_PLACE, _addr(r), count, dt), (r,), r)
        s = a.array(sendbuf, "sendbuf")
        dt = a.dtype(s, "sendbuf")
        count = s.size
        r = a.out(recvbuf, s, a.P * count, (a.P,) + s.shape,
                  f" ({a.P} ranks x {count})")
        return ((_addr(s), _addr(r), count, dt), (s, r), r)

    def _reduce_scatter(self, sendbuf, recvbuf, op):
        a = _Args(self, "reduce_scatter")
        if sendbuf is IN_PLACE:
            r = a.in_place(recvbuf, "every rank's block (the result "
                           "lands at its start)")
            dt = a.dtype(r, "recvbuf")
            count = a.blocks(r, "recvbuf")
            op = a.op(op, dt)
            return ((_lib.IN_PLACE, _addr(r), count, dt, op), (r,),
                    r.reshape(-1)[:count])
        s = a.array(sendbuf, "sendbuf")
        dt = a.dtype(s, "sendbuf")
        count = a.blocks(s, "sendbuf")
        op = a.op(op, dt)
        r = a.out(recvbuf, s, count, a.block_shape(s, count),
                  f" (sendbuf's {s.size} / {a.P} ranks)")
        return ((_addr(s), _addr(r), count, dt, op), (s, r), r)

    def _alltoall(self, sendbuf, recvbuf):
        a = _Args(self, "alltoall")
        if sendbuf is IN_PLACE:
            r = a.in_place(recvbuf, "the blocks to send, block b for "
                           "rank b")
            dt = a.dtype(r, "recvbuf")
            count = a.blocks(r, "recvbuf")
            return ((_lib.IN_PLACE, _addr(r), count, dt), (r,), r)
        s = a.array(sendbuf, "sendbuf")
        dt = a.dtype(s, "sendbuf")
        count = a.blocks(s, "sendbuf")
        r = a.out(recvbuf, s, s.size, s.shape,
                  f" ({a.P} ranks x {count}, as sendbuf)")
        return ((_addr(s), _addr(r), count, dt), (s, r), r)

    # ---- collectives ----

    def allreduce(self, sendbuf, recvbuf=None, op=Op.SUM):
        """Reduce every rank's sendbuf with op; every rank gets the result
        in recvbuf (returned; allocated like sendbuf when None).
        IN_PLACE: recvbuf holds the contribution and gets the result."""
        return self._call("allreduce", *self._allreduce(sendbuf, recvbuf, op),
                          False)

    def iallreduce(self, sendbuf, recvbuf=None, op=Op.SUM):
        """allreduce, non-blocking: returns a Request."""
        return self._call("allreduce", *self._allreduce(sendbuf, recvbuf, op),
                          True)

    def reduce(self, sendbuf, recvbuf=None, op=Op.SUM, root=0):
        """allreduce whose result only root gets (returned there; None on
        the other ranks, whose recvbuf is not used). IN_PLACE at the root
        only."""
        return self._call("reduce",
                          *self._reduce(sendbuf, recvbuf, op, root), False)

    def ireduce(self, sendbuf, recvbuf=None, op=Op.SUM, root=0):
        """reduce, non-blocking: returns a Request."""
        return self._call("reduce",
                          *self._reduce(sendbuf, recvbuf, op, root), True)

    def bcast(self, buf, root=0):
        """root's buf to every rank's buf (the same size and dtype on all;
        returned)."""
        return self._call("bcast", *self._bcast(buf, root), False)

    def ibcast(self, buf, root=0):
        """bcast, non-blocking: returns a Request."""
        return self._call("bcast", *self._bcast(buf, root), True)

    def scatter(self, sendbuf, recvbuf=None, root=0):
        """root's sendbuf, size x count elements, block b to rank b's
        recvbuf (count elements; returned). The other ranks pass None as
        sendbuf and their recvbuf, whose size is the count. At the root a
        recvbuf left None is allocated: sendbuf's shape less its first
        axis if that is the ranks, else flat. IN_PLACE at the root:
        recvbuf holds all the blocks and the root's stays in place."""
        return self._call("scatter", *self._scatter(sendbuf, recvbuf, root),
                          False)

    def iscatter(self, sendbuf, recvbuf=None, root=0):
        """scatter, non-blocking: returns a Request."""
        return self._call("scatter", *self._scatter(sendbuf, recvbuf, root),
                          True)

    def gather(self, sendbuf, recvbuf=None, root=0):
        """Every rank's sendbuf (count elements) to root's recvbuf, size x
        count in rank order (returned there, allocated with shape (size,)
        + sendbuf.shape when None; None on the other ranks). IN_PLACE at
        the root: its block is already at block root of recvbuf."""
        return self._call("gather", *self._gather(sendbuf, recvbuf, root),
                          False)

    def igather(self, sendbuf, recvbuf=None, root=0):
        """gather, non-blocking: returns a Request."""
        return self._call("gather", *self._gather(sendbuf, recvbuf, root),
                          True)

    def allgather(self, sendbuf, recvbuf=None):
        """gather to every rank (recvbuf: size x count, returned;
        allocated with shape (size,) + sendbuf.shape when None).
        IN_PLACE: this rank's block is already at block rank of
        recvbuf."""
        return self._call("allgather", *self._allgather(sendbuf, recvbuf),
                          False)

    def iallgather(self, sendbuf, recvbuf=None):
        """allgather, non-blocking: returns a Request."""
        return self._call("allgather", *self._allgather(sendbuf, recvbuf),
                          True)

    def reduce_scatter(self, sendbuf, recvbuf=None, op=Op.SUM):
        """MPI_Reduce_scatter_block: sendbuf holds size blocks of count
        elements; block b reduced over the ranks goes to rank b's recvbuf
        (count elements, returned; allocated as scatter's when None).
        IN_PLACE: recvbuf holds the blocks, and the result lands at its
        start (returned: that first block, flat)."""
        return self._call("reduce_scatter",
                          *self._reduce_scatter(sendbuf, recvbuf, op), False)

    def ireduce_scatter(self, sendbuf, recvbuf=None, op=Op.SUM):
        """reduce_scatter, non-blocking: returns a Request."""
        return self._call("reduce_scatter",
                          *self._reduce_scatter(sendbuf, recvbuf, op), True)

    def alltoall(self, sendbuf, recvbuf=None):
        """MPI_Alltoall: sendbuf holds size blocks of count elements,
        block b for rank b; recvbuf gets size blocks, block b from rank b
        (returned; allocated like sendbuf when None). IN_PLACE: recvbuf
        holds the blocks to send and gets those received."""
        return self._call("alltoall", *self._alltoall(sendbuf, recvbuf),
                          False)

    def ialltoall(self, sendbuf, recvbuf=None):
        """alltoall, non-blocking: returns a Request."""
        return self._call("alltoall", *self._alltoall(sendbuf, recvbuf),
                          True)

    def barrier(self):
        """Return once every rank has entered the barrier."""
        return self._call("barrier", (), (), None, False)

    def ibarrier(self):
        """barrier, non-blocking: returns a Request."""
        return self._call("barrier", (), (), None, True)

    FUSED_PATTERNS = ("allreduce_op", "allgather_op",
                      "allreduce_op_allreduce", "scatter_op_reduce",
                      "allreduce_op_alltoall")

    def fused(self, pattern, block, out, map, inbound=None, op=Op.SUM,
              root=0):
        """A fused collective (acis_fused, doc/fused.md): stage 1 over
        every rank's block, then map -- a UserOp from op_create, run in
        the switch once per rank on what stage 1 gave it and on the
        rank's inbound buffer (an array, or None) -- then stage 2 over
        the op's outputs, with no round trip between. pattern is one of
        FUSED_PATTERNS; block's dtype is the call's; op is the
        reductions' (a built-in Op; none for allgather_op); out is the
        array the op's output fills on every rank (its bytes are the
        op's output length): returned, or None on the ranks of
        scatter_op_reduce but the root, whose block holds the size
        blocks (the others pass None)."""
        a = _Args(self, "fused")
        if pattern not in self.FUSED_PATTERNS:
            raise a.fail(ValueError, f"pattern {pattern!r}: one of "
                         f"{', '.join(self.FUSED_PATTERNS)}")
        pat = self.FUSED_PATTERNS.index(pattern) + 1
        has_root = pattern == "scatter_op_reduce"
        root = a.root(root) if has_root else -1
        o = a.array(out, "out", writable=True)
        if block is None and has_root and a.me != root:
            b, dt = None, a.dtype(o, "out")
        else:
            b = a.array(block, "block")
            dt = a.dtype(b, "block")
        ib = None if inbound is None else a.array(inbound, "inbound")
        if pattern == "allgather_op":
            opc = 0
        else:
            opc = a.op(op, dt)
            if int(opc) >= 128:
                raise a.fail(ValueError, "the stages reduce by a built-in "
                             "op, not a user op")
        args = _lib.FusedArgs(
            pattern=pat, dtype=int(dt), op=int(opc), map=int(map),
            root=root, block=None if b is None else _addr(b),
            block_bytes=0 if b is None else b.nbytes,
            inbound=None if ib is None else _addr(ib),
            inbound_bytes=0 if ib is None else ib.nbytes,
            out_bytes=o.nbytes, result=_addr(o))
        with self._ctx._lock:
            rc = _lib.load().acis_fused(self._handle(), ctypes.byref(args))
            if rc != _lib.OK:
                raise self._ctx._error(rc, "acis_fused")
        return None if has_root and a.me != root else o


class Request:
    """A non-blocking collective (acis_req_t) in flight.

    It holds the collective's arrays until it finishes, so that they
    cannot be freed while libacis reads and writes them. wait() returns
    what the blocking call returns; test() progresses it and says whether
    it finished. A failed request raises its error from wait() and
    test(), and again on every later call.
    """

    def __init__(self, ctx, handle, keep, result, name):
        self._ctx = ctx
        self._h = handle
        self._keep = keep
        self._result = result
        self._error = None
        #: The call that made it ("iallreduce", ...).
        self.name = name

    @property
    def done(self):
        """True once finished (successfully or not)."""
        return self._h is None

    def _finish(self, rc, call):
        """After acis_wait/acis_test freed the request: record rc."""
        self._h = None
        self._keep = None
        self._ctx._requests.discard(self)
        if rc != _lib.OK:
            self._error = self._ctx._error(rc, call)
            self._result = None

    def _abandon(self):
        """The context is being finalized: libacis drops the request."""
        self._h = None
        self._keep = None
        self._result = None
        self._error = error(_lib.ERR_STATE, f"{self.name}: the context was "
                            f"finalized before the request finished")

    def _outcome(self):
        if self._error is not None:
            raise self._error
        return self._result

    def wait(self):
        """Wait for the request to finish (acis_wait); returns the result
        (the receive buffer, or None where the call has none)."""
        if self._h is None:
            return self._outcome()
        with self._ctx._lock:
            if self._h is not None:
                h = ctypes.c_void_p(self._h)
                rc = _lib.load().acis_wait(ctypes.byref(h))
                self._finish(rc, "acis_wait")
        return self._outcome()

    def test(self):
        """Progress without waiting (acis_test); True once finished (then
        wait() returns the result at once)."""
        if self._h is None:
            self._outcome()
            return True
        with self._ctx._lock:
            if self._h is not None:
                h = ctypes.c_void_p(self._h)
                done = ctypes.c_int(0)
                rc = _lib.load().acis_test(ctypes.byref(h),
                                           ctypes.byref(done))
                if h.value:
                    # still running (a failed progress leaves it so)
                    if rc != _lib.OK:
                        raise self._ctx._error(rc, "acis_test")
                    return False
                self._finish(rc, "acis_test")
        self._outcome()
        return True

    @property
    def result(self):
        """The result once finished (as wait() returns it)."""
        if self._h is not None:
            raise error(_lib.ERR_STATE, f"{self.name} has not finished: "
                        f"wait() for it")
        return self._outcome()

    def __repr__(self):
        if self._h is not None:
            state = "running"
        elif self._error is not None:
            state = f"failed: {self._error}"
        else:
            state = "done"
        return f"<acis.Request {self.name} {state}>"


def waitall(requests):
    """Wait for every request, as acis_waitall: all finish, then the first
    error is raised. Returns their results, in order."""
    requests = list(requests)
    first = None
    for r in requests:
        if not isinstance(r, Request):
            raise TypeError(f"waitall: not an acis.Request: {r!r}")
    for r in requests:
        try:
            r.wait()
        except Exception as e:  # noqa: BLE001 - the first is raised
            if first is None:
                first = e
    if first is not None:
        raise first
    return [r.result for r in requests]

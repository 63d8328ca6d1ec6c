# SPDX-License-Identifier: BSD-3-Clause
"""Finding libacis and declaring its C API to ctypes.

The library is looked for, in this order:

1. the path in the environment variable ACIS_LIB (e.g. the build tree's
   build/lib/client/libacis.so);
2. the library meson installed beside this package (its libdir is written
   into _installed.py by ``meson install``);
3. ``ctypes.util.find_library('acis')`` (the linker's search path and
   ldconfig's cache);
4. the soname, libacis.so.0, as the dynamic linker finds it.

It is loaded on first use, not on import, so that ``import acis`` works
(dtype and op tables, argument checks) on a machine without libacis.
The structures below mirror struct acis_config and struct
acis_client_stats of lib/client/acis.h field for field: a change there
must be made here too (test/integration/python_api.py checks the layout
through acis_config_default).
"""
import ctypes
import ctypes.util
import os
import threading

SONAME = "libacis.so.0"

# lib/client/acis.h
OK = 0
ERR_INVAL = -1
ERR_NOMEM = -2
ERR_SYS = -3
ERR_TIMEOUT = -4
ERR_REFUSED = -5
ERR_STATE = -6
UNDEFINED = -1
IN_PLACE = ctypes.c_void_p(1)


class LibraryNotFoundError(OSError):
    """libacis could not be loaded; the message says where it looked."""


class Config(ctypes.Structure):
    """struct acis_config."""

    _fields_ = [
        ("switch_ip", ctypes.c_char_p),
        ("switch_port", ctypes.c_uint16),
        ("job", ctypes.c_uint32),
        ("rank", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("bind_ip", ctypes.c_char_p),
        ("bind_port", ctypes.c_uint16),
        ("timeout_ms", ctypes.c_uint),
        ("window", ctypes.c_uint),
        ("mtu", ctypes.c_uint),
        ("rto_ms", ctypes.c_uint),
        ("gso_segs", ctypes.c_uint),
        ("fault_drop", ctypes.c_double),
        ("fault_dup", ctypes.c_double),
        ("fault_reorder", ctypes.c_double),
        ("fault_window", ctypes.c_uint),
        ("fault_seed", ctypes.c_uint64),
        ("transport", ctypes.c_char_p),
        ("dpdk_port", ctypes.c_char_p),
        ("dpdk_eal", ctypes.c_char_p),
        ("host_mac", ctypes.c_char_p),
        ("switch_mac", ctypes.c_char_p),
        ("poll_us", ctypes.c_uint),
        ("auth", ctypes.c_char_p),
    ]


STATS_FIELDS = (
    "msgs_sent", "msgs_received", "bytes_sent", "bytes_received",
    "busy_retries", "retransmits", "faults_dropped", "faults_duplicated",
    "faults_reordered", "ctrl_retries", "stray", "unexpected",
    "late_receipts", "send_batches", "recv_batches", "gso_sends",
    "gso_refused", "transport_drops", "auth_rejected",
)


class FusedArgs(ctypes.Structure):
    """struct acis_fused_args (acis.h): one fused call."""

    _fields_ = [("pattern", ctypes.c_int), ("dtype", ctypes.c_int),
                ("op", ctypes.c_int), ("map", ctypes.c_int),
                ("root", ctypes.c_int),
                ("block", ctypes.c_void_p), ("block_bytes", ctypes.c_size_t),
                ("inbound", ctypes.c_void_p),
                ("inbound_bytes", ctypes.c_size_t),
                ("out_bytes", ctypes.c_size_t), ("result", ctypes.c_void_p)]


class ClientStats(ctypes.Structure):
    """struct acis_client_stats: every field a uint64_t."""

    _fields_ = [(name, ctypes.c_uint64) for name in STATS_FIELDS]


_vp = ctypes.c_void_p
_vpp = ctypes.POINTER(ctypes.c_void_p)
_int = ctypes.c_int
_sz = ctypes.c_size_t

# name: (restype, argtypes). Buffers are void pointers: the caller passes
# an array's address, None for NULL or IN_PLACE.
_PROTOTYPES = {
    "acis_config_default": (None, [ctypes.POINTER(Config)]),
    "acis_init": (_int, [ctypes.POINTER(Config), _vpp]),
    "acis_finalize": (_int, [_vp]),
    "acis_comm_world": (_vp, [_vp]),
    "acis_comm_rank": (_int, [_vp]),
    "acis_comm_size": (_int, [_vp]),
    "acis_comm_id": (ctypes.c_uint32, [_vp]),
    "acis_comm_split": (_int, [_vp, _int, _int, _vpp]),
    "acis_comm_attach": (_int, [_vp, ctypes.c_uint32, _vpp]),
    "acis_comm_detach": (_int, [_vpp]),
    "acis_comm_free": (_int, [_vpp]),
    "acis_allreduce": (_int, [_vp, _vp, _sz, _int, _int, _vp]),
    "acis_reduce": (_int, [_vp, _vp, _sz, _int, _int, _int, _vp]),
    "acis_bcast": (_int, [_vp, _sz, _int, _int, _vp]),
    "acis_scatter": (_int, [_vp, _vp, _sz, _int, _int, _vp]),
    "acis_gather": (_int, [_vp, _vp, _sz, _int, _int, _vp]),
    "acis_allgather": (_int, [_vp, _vp, _sz, _int, _vp]),
    "acis_reduce_scatter": (_int, [_vp, _vp, _sz, _int, _int, _vp]),
    "acis_barrier": (_int, [_vp]),
    "acis_alltoall": (_int, [_vp, _vp, _sz, _int, _vp]),
    "acis_iallreduce": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vpp]),
    "acis_ireduce": (_int, [_vp, _vp, _sz, _int, _int, _int, _vp, _vpp]),
    "acis_ibcast": (_int, [_vp, _sz, _int, _int, _vp, _vpp]),
    "acis_iscatter": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vpp]),
    "acis_igather": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vpp]),
    "acis_iallgather": (_int, [_vp, _vp, _sz, _int, _vp, _vpp]),
    "acis_ireduce_scatter": (_int, [_vp, _vp, _sz, _int, _int, _vp, _vpp]),
    "acis_ibarrier": (_int, [_vp, _vpp]),
    "acis_ialltoall": (_int, [_vp, _vp, _sz, _int, _vp, _vpp]),
    "acis_deadline_set": (_int, [_vp, ctypes.c_uint32]),
    "acis_deadline_wait": (_int, [_vp, ctypes.c_uint32,
                                  ctypes.POINTER(ctypes.c_uint32)]),
    "acis_deadline_epoch": (ctypes.c_uint32, [_vp]),
    "acis_deadline_report": (_int, [_vp, ctypes.c_uint32,
                                    ctypes.POINTER(_int)]),
    "acis_ssp_done": (_int, [_vp, ctypes.c_uint32, ctypes.c_uint32,
                             ctypes.c_uint32]),
    "acis_op_create": (_int, [_vp, ctypes.c_char_p,
                              ctypes.POINTER(ctypes.c_uint32), _sz, _int,
                              ctypes.POINTER(_int)]),
    "acis_op_free": (_int, [_vp, _int]),
    "acis_fused": (_int, [_vp, _vp]),
    "acis_wait": (_int, [_vpp]),
    "acis_test": (_int, [_vpp, ctypes.POINTER(_int)]),
    "acis_waitall": (_int, [_sz, _vpp]),
    "acis_strerror": (ctypes.c_char_p, [_int]),
    "acis_last_error": (ctypes.c_char_p, [_vp]),
    "acis_init_error": (ctypes.c_char_p, []),
    "acis_get_stats": (None, [_vp, ctypes.POINTER(ClientStats)]),
}

_lock = threading.Lock()
_lib = None
_path = None


def _candidates():
    """(where, name) pairs to try, in order."""
    env = os.environ.get("ACIS_LIB")
    if env:
        # Named explicitly: nothing else is tried, so a wrong path is
        # reported instead of silently loading another libacis.
        return [("ACIS_LIB", env)]
    found = []
    try:
        from . import _installed
        found.append(("meson install",
                      os.path.join(_installed.LIBDIR, _installed.SONAME)))
    except ImportError:
        pass
    name = ctypes.util.find_library("acis")
    if name:
        found.append(("ctypes.util.find_library('acis')", name))
    found.append(("the dynamic linker", SONAME))
    return found


def _declare(lib):
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def load():
    """The loaded libacis (a ctypes.CDLL), loading it on the first call.

    Raises LibraryNotFoundError naming every place tried.
    """
    global _lib, _path
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for where, name in _candidates():
            try:
                lib = ctypes.CDLL(name)
            except OSError as e:
                tried.append(f"{name} ({where}): {e}")
                continue
            try:
                _declare(lib)
            except AttributeError as e:
                tried.append(f"{name} ({where}): not libacis: {e}")
                continue
            _lib, _path = lib, name
            return lib
        raise LibraryNotFoundError(
            "cannot load libacis; tried:\n  " + "\n  ".join(tried) +
            "\nset ACIS_LIB to the library's path (in a build tree: "
            "build/lib/client/libacis.so), or install acis "
            "(meson install)")


def path():
    """The name or path libacis was loaded from (loading it if needed)."""
    load()
    return _path

# SPDX-License-Identifier: BSD-3-Clause
"""acis: MPI-style collectives through an acis switch, on numpy arrays.

Python bindings of libacis (lib/client/acis.h) with ctypes; doc/python.md
is the guide.

    import numpy as np
    import acis

    # ACIS_SWITCH, ACIS_JOB, ACIS_RANK, ACIS_SIZE from the environment,
    # or as keyword arguments: acis.Context(switch_ip="10.77.0.1", ...)
    with acis.Context() as ctx:
        world = ctx.world
        x = np.full(1024, world.rank, dtype=np.float32)
        total = world.allreduce(x)                  # a new array
        world.allreduce(acis.IN_PLACE, x, op="max") # in place
        req = world.iallgather(x)                   # non-blocking
        everyone = req.wait()                       # shape (size, 1024)

libacis is loaded on first use: from $ACIS_LIB if set, else where
``meson install`` put it, else as ctypes.util.find_library('acis') or
the dynamic linker finds it (library_path() says which).
"""
__all__ = [
    "AcisError", "BAND", "BOR", "BXOR", "CONFIG_FIELDS", "Comm", "Context",
    "Dtype", "IN_PLACE", "InvalidArgumentError", "LibraryNotFoundError",
    "MAX", "MIN", "Op", "OutOfMemoryError", "PROD", "RefusedError",
    "Request", "SUM", "StateError", "Stats", "SystemCallError",
    "UNDEFINED", "UserOp", "default_config", "dtype_code", "init",
    "library_path",
    "op_code", "strerror", "waitall",
]
# TimeoutError is left out of __all__: a star import would hide the
# built-in one (which it derives from) behind it. Use acis.TimeoutError.


def _load():
    """The bindings, imported on first use of one of their names: the
    scapy layer (acis.layer) needs neither numpy nor libacis."""
    from . import _core, _errors, _lib, _types
    names = {n: getattr(_core, n) for n in (
        "CONFIG_FIELDS", "IN_PLACE", "UNDEFINED", "Comm", "Context",
        "Request", "Stats", "default_config", "init", "waitall")}
    names.update({n: getattr(_errors, n) for n in (
        "AcisError", "InvalidArgumentError", "OutOfMemoryError",
        "RefusedError", "StateError", "SystemCallError", "TimeoutError",
        "strerror")})
    names.update(LibraryNotFoundError=_lib.LibraryNotFoundError,
                 library_path=_lib.path, Dtype=_types.Dtype, Op=_types.Op,
                 UserOp=_types.UserOp,
                 dtype_code=_types.dtype_code, op_code=_types.op_code)
    for op in ("SUM", "PROD", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        names[op] = getattr(_types.Op, op)
    # Tracebacks and help() name the classes as users write them.
    for v in names.values():
        if isinstance(v, type) and v.__module__.startswith(__name__ + "._"):
            v.__module__ = __name__
    globals().update(names)


def __getattr__(name):
    if name in __all__ or name == "TimeoutError":
        _load()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__ + ["TimeoutError"])

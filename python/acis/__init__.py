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
from ._core import (CONFIG_FIELDS, IN_PLACE, UNDEFINED, Comm, Context,
                    Request, Stats, default_config, init, waitall)
from ._errors import (AcisError, InvalidArgumentError, OutOfMemoryError,
                      RefusedError, StateError, SystemCallError,
                      TimeoutError, strerror)
from ._lib import LibraryNotFoundError
from ._lib import path as library_path
from ._types import Dtype, Op, dtype_code, op_code

SUM = Op.SUM
PROD = Op.PROD
MIN = Op.MIN
MAX = Op.MAX
BAND = Op.BAND
BOR = Op.BOR
BXOR = Op.BXOR

__all__ = [
    "AcisError", "BAND", "BOR", "BXOR", "CONFIG_FIELDS", "Comm", "Context",
    "Dtype", "IN_PLACE", "InvalidArgumentError", "LibraryNotFoundError",
    "MAX", "MIN", "Op", "OutOfMemoryError", "PROD", "RefusedError",
    "Request", "SUM", "StateError", "Stats", "SystemCallError",
    "UNDEFINED", "default_config", "dtype_code", "init", "library_path",
    "op_code", "strerror", "waitall",
]
# Tracebacks and help() name the classes as users write them.
for _cls in (AcisError, Comm, Context, Dtype, InvalidArgumentError,
             LibraryNotFoundError, Op, OutOfMemoryError, RefusedError,
             Request, StateError, Stats, SystemCallError, TimeoutError):
    _cls.__module__ = __name__
del _cls

# TimeoutError is left out of __all__: a star import would hide the
# built-in one (which it derives from) behind it. Use acis.TimeoutError.

# SPDX-License-Identifier: BSD-3-Clause
"""The exceptions for libacis's error codes.

Each ACIS_ERR_* code has a class of its own, under AcisError, that also
derives from the closest built-in exception, so that ``except
TimeoutError`` (the built-in) catches acis.TimeoutError as well.
"""
import builtins

from . import _lib


class AcisError(Exception):
    """A libacis call failed.

    Attributes:
        code: the negative ACIS_ERR_* code the call returned.
        strerror: acis_strerror(code), the code in words.
        detail: acis_last_error(), what went wrong ("" if unknown).
        call: the C function that failed ("acis_allreduce", ...).
    """

    def __init__(self, code, strerror, detail="", call=""):
        msg = f"{call}: {strerror}" if call else strerror
        if detail:
            msg += f": {detail}"
        # first: OSError's __init__ (TimeoutError, SystemCallError) resets
        # its own strerror
        super().__init__(msg)
        self.code = code
        self.strerror = strerror
        self.detail = detail
        self.call = call

    def __reduce__(self):
        return (type(self), (self.code, self.strerror, self.detail,
                             self.call))


class InvalidArgumentError(AcisError, ValueError):
    """ACIS_ERR_INVAL: libacis refused an argument."""


class OutOfMemoryError(AcisError, MemoryError):
    """ACIS_ERR_NOMEM."""


class SystemCallError(AcisError, OSError):
    """ACIS_ERR_SYS: a system call in libacis failed."""


class TimeoutError(AcisError, builtins.TimeoutError):
    """ACIS_ERR_TIMEOUT: no answer before the deadline (the switch or
    another rank); detail says which chunks or ranks were missing."""


class RefusedError(AcisError):
    """ACIS_ERR_REFUSED: the switch said no; detail names its status.
    JOIN: size mismatch, rank taken, bad size, table full, host at its job
    limit, no cookie where the switch requires one; split, free, attach:
    not a member, no such communicator, another operation open, table
    full; a collective: mismatch with the other ranks, or a communicator
    the switch does not know (on the world: the job is lost).
    doc/python.md lists them."""


class StateError(AcisError):
    """ACIS_ERR_STATE: the object is not usable (freed, finalized, a
    communicator with requests still running)."""


_BY_CODE = {
    _lib.ERR_INVAL: InvalidArgumentError,
    _lib.ERR_NOMEM: OutOfMemoryError,
    _lib.ERR_SYS: SystemCallError,
    _lib.ERR_TIMEOUT: TimeoutError,
    _lib.ERR_REFUSED: RefusedError,
    _lib.ERR_STATE: StateError,
}

# acis_strerror's words, for errors raised without asking the library.
_STRERROR = {
    _lib.ERR_STATE: "object not in a usable state",
}


def strerror(code):
    """acis_strerror(code)."""
    return _lib.load().acis_strerror(code).decode()


def error(code, detail="", call=""):
    """The exception for code (an ACIS_ERR_* value)."""
    cls = _BY_CODE.get(code, AcisError)
    try:
        text = strerror(code)
    except _lib.LibraryNotFoundError:
        text = _STRERROR.get(code, f"error {code}")
    return cls(code, text, detail, call)

# SPDX-License-Identifier: BSD-3-Clause
"""Datatypes and reduction ops: numpy's names to the wire codes.

The codes are enum acis_dtype and enum acis_op of lib/proto/acis_proto.h.
"""
import enum
import sys

import numpy as np


class Dtype(enum.IntEnum):
    """enum acis_dtype: the datatypes the switch reduces."""

    INT32 = 1
    INT64 = 2
    UINT32 = 3
    UINT64 = 4
    FLOAT32 = 5
    FLOAT64 = 6
    FLOAT16 = 7
    BFLOAT16 = 8
    INT8 = 9
    UINT8 = 10
    INT16 = 11
    UINT16 = 12

    @property
    def is_float(self):
        """True for the floating-point types (no bitwise ops on them)."""
        return self in (Dtype.FLOAT16, Dtype.BFLOAT16, Dtype.FLOAT32,
                        Dtype.FLOAT64)


class Op(enum.IntEnum):
    """enum acis_op: the reduction ops (bitwise ones on integers only)."""

    SUM = 1
    PROD = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    @property
    def is_bitwise(self):
        """True for BAND, BOR and BXOR."""
        return self >= Op.BAND


# numpy (kind, itemsize) to acis. bfloat16 has no numpy type of its own:
# a dtype named "bfloat16" (ml_dtypes') is taken by name.
_BY_KIND = {
    ("i", 1): Dtype.INT8, ("i", 2): Dtype.INT16,
    ("i", 4): Dtype.INT32, ("i", 8): Dtype.INT64,
    ("u", 1): Dtype.UINT8, ("u", 2): Dtype.UINT16,
    ("u", 4): Dtype.UINT32, ("u", 8): Dtype.UINT64,
    ("f", 2): Dtype.FLOAT16, ("f", 4): Dtype.FLOAT32,
    ("f", 8): Dtype.FLOAT64,
}

SUPPORTED = ("int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
             "float16, float32, float64, bfloat16")


def _big_endian(dt):
    return dt.byteorder == ">" or (dt.byteorder == "=" and
                                   sys.byteorder == "big")


def dtype_code(dtype):
    """The acis Dtype of a numpy dtype (or anything np.dtype() takes).

    Raises TypeError for a type the switch does not reduce (bool, complex,
    float128, objects, strings, structured types) and for big-endian
    types: the wire carries elements little endian.
    """
    if dtype is None:
        raise TypeError("not a numpy dtype: None")
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"not a numpy dtype: {dtype!r} ({e})") from None
    if dt.name == "bfloat16" and dt.itemsize == 2:
        return Dtype.BFLOAT16
    code = _BY_KIND.get((dt.kind, dt.itemsize))
    if code is None:
        raise TypeError(f"dtype {dt} is not one acis reduces; "
                        f"supported: {SUPPORTED}")
    if _big_endian(dt):
        raise TypeError(f"dtype {dt.str} is big-endian; acis carries "
                        f"elements little-endian: use "
                        f"arr.astype(arr.dtype.newbyteorder('<'))")
    return code


_OP_NAMES = {op.name.lower(): op for op in Op}


class UserOp(int):
    """A user-defined reduction op (Context.op_create): its number at the
    switch, 128 to 255, and its name. Collectives take it as an op."""

    def __new__(cls, code, name):
        o = int.__new__(cls, code)
        o.name = name
        return o

    def __repr__(self):
        return f"UserOp({int(self)}, {self.name!r})"


def op_code(op):
    """The acis Op of an Op, its value, or its name ("sum", "bxor", ...);
    a UserOp as it is."""
    if isinstance(op, (Op, UserOp)):
        return op
    if isinstance(op, str):
        try:
            return _OP_NAMES[op.lower()]
        except KeyError:
            raise ValueError(f"unknown op {op!r}; expected one of "
                             f"{', '.join(_OP_NAMES)}") from None
    if isinstance(op, (int, np.integer)) and not isinstance(op, bool):
        try:
            return Op(int(op))
        except ValueError:
            raise ValueError(f"unknown op code {op}; expected 1..7 "
                             f"(acis.Op)") from None
    raise TypeError(f"op must be an acis.Op or its name, not "
                    f"{type(op).__name__}")


def check_op(op, dtype):
    """The Op for op on a Dtype; ValueError for a bitwise op on floats."""
    code = op_code(op)
    if isinstance(code, UserOp):
        if dtype.name in ("FLOAT16", "BFLOAT16"):
            raise ValueError(f"user op {code.name} folds bytes: not "
                             f"{dtype.name.lower()}, which widens")
        return code
    if code.is_bitwise and dtype.is_float:
        raise ValueError(f"op {code.name.lower()} is not defined on "
                         f"{dtype.name.lower()}: bitwise ops are for "
                         f"integer types")
    return code

"""tinyarray: a tiny array-API namespace over NumPy, the example library of
examples/python-project (docs/PYTHON.md).

It has the array API's names for five element-wise functions and five dtypes, and one real
deviation, kept on purpose so that the example shows what opspec reports: `add` of two integer
arrays of different dtypes returns the dtype of its first operand (int32 + int64 is int32, where
the standard's type promotion rules say int64). Version 0.1 did that for every pair of arrays;
0.2 fixed the floating-point pairs (float32 + float64 is float64 again) and left the integers,
so the expectations file written against 0.1 now lists a check that passes (README.md).
"""

import numpy as _np

__version__ = "0.2.0"

bool = _np.bool_  # noqa: A001 - the array API's name
int32 = _np.int32
int64 = _np.int64
float32 = _np.float32
float64 = _np.float64

__all__ = ["asarray", "add", "subtract", "multiply", "negative", "sqrt",
           "bool", "int32", "int64", "float32", "float64"]


def asarray(obj, /, *, dtype=None, copy=None):
    """A tinyarray array (a NumPy ndarray) from obj."""
    if copy:
        return _np.array(obj, dtype=dtype, copy=True)
    return _np.asarray(obj, dtype=dtype)


def add(x1, x2, /):
    if (
        isinstance(x1, _np.ndarray)
        and isinstance(x2, _np.ndarray)
        and x1.dtype.kind in "iu"
        and x2.dtype.kind in "iu"
    ):
        # The deviation: the sum is computed in x1's dtype (an in-place accumulator's habit)
        # instead of the promoted dtype. Wrapping is NumPy's: int32 + int64 wraps at 2**31.
        return _np.add(x1, x2, dtype=x1.dtype, casting="unsafe")
    return _np.add(x1, x2)


def subtract(x1, x2, /):
    return _np.subtract(x1, x2)


def multiply(x1, x2, /):
    return _np.multiply(x1, x2)


def negative(x, /):
    return _np.negative(x)


def sqrt(x, /):
    return _np.sqrt(x)

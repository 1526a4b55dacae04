"""A small array-API namespace over NumPy, for the worker's tests. Each ``fake_*`` module
builds one with ``build`` and adds one problem a real library has (an export of its own,
foreign error wording, a broken ``take``, warnings, other names)."""

import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128")
FUNCTIONS = (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil", "conj", "cos",
    "cosh", "exp", "expm1", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log1p", "log2",
    "log10", "logical_not", "negative", "positive", "real", "reciprocal", "round", "sign", "signbit",
    "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
    "add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "atan2", "copysign",
    "floor_divide", "remainder", "hypot", "logaddexp", "nextafter",
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "logical_and", "logical_or", "logical_xor", "clip",
)
np.seterr(all="ignore")


class Array:
    """An array that NumPy cannot read: no __array__, no __dlpack__, no buffer."""

    def __init__(self, data):
        self._data = np.asarray(data)

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def shape(self):
        return self._data.shape

    def __repr__(self):
        return f"{type(self).__name__}({self._data!r})"


def unwrap(a):
    return getattr(a, "_data", a)


def build(ns, array=Array, names=None, skip=(), before=None):
    """Fills the module namespace ``ns``: the functions (``names`` renames them), dtypes,
    ``asarray``, ``reshape`` and ``take``; ``before(name, args)`` runs before each call."""
    names = names or {}

    def wrap(name, fn):
        def call(*args):
            if before is not None:
                before(name, args)
            return array(fn(*[unwrap(a) for a in args]))

        call.__name__ = names.get(name, name)
        return call

    for name in FUNCTIONS:
        if name not in skip:
            ns[names.get(name, name)] = wrap(name, getattr(np, name))
    for d in DTYPES:
        ns[names.get(d, d)] = np.dtype(d)
    ns["asarray"] = lambda x, dtype=None: array(np.array(unwrap(x), dtype=dtype))
    ns["reshape"] = lambda x, shape: array(np.reshape(unwrap(x), shape))
    ns["take"] = lambda x, indices, axis=None: array(np.take(unwrap(x), unwrap(indices), axis=axis))
    ns["__version__"] = "0.0-test"

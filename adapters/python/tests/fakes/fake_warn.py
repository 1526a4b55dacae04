"""Warnings, as ndonnx's: acos of float64 warns and computes in float32 (lossy); asin of float64
warns, then fails on more than two elements."""

import warnings

import numpy as np

from fakelib import build, unwrap
from fake_take import NumPyArray

build(globals(), NumPyArray)


def acos(x):
    x = unwrap(x)
    if x.dtype == np.float64:
        warnings.warn("'acos' is not implemented for 'float64' in fakeruntime. A lossy cast to 'float32' is used "
                      "instead", UserWarning)
        return NumPyArray(np.arccos(x.astype(np.float32)).astype(np.float64))
    return NumPyArray(np.arccos(x))


def asin(x):
    x = unwrap(x)
    if x.dtype == np.float64:
        warnings.warn("'asin' has no float64 kernel in fakeruntime", UserWarning)
        if x.size > 2:
            raise RuntimeError("fakeruntime: no kernel")
    return NumPyArray(np.arcsin(x))

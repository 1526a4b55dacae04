"""Functions that exist and raise, which the start-up probe must not take for unsupported:
``add`` raises RuntimeError on every call, ``clip`` raises ValueError for array bounds (as
PaddlePaddle's does), ``sign`` returns None, which no export reads (while its operands read
back). ``multiply`` refuses float16 with a TypeError naming it: a refusal of the dtype
itself, which is unsupported."""

import numpy as np

from fakelib import build
from fake_take import NumPyArray


def before(name, args):
    arrays = [a._data for a in args if isinstance(a, NumPyArray)]
    if name == "add":
        raise RuntimeError("add kernel failed to launch (code 3)")
    if name == "clip" and len(arrays) > 1:
        raise ValueError("clip: min and max must be Python numbers, not arrays")
    if name == "multiply" and any(a.dtype == np.float16 for a in arrays):
        raise TypeError("multiply does not accept dtype float16")


build(globals(), NumPyArray, before=before)


def sign(x):
    return None

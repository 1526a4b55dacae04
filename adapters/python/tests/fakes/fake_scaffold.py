"""A namespace whose ``asarray`` cannot make 0-d arrays: building such an operand is the
adapter's step and must be reported as one, not as a failure of the operation."""

import numpy as np

from fakelib import build
from fake_take import NumPyArray

build(globals(), NumPyArray)


def asarray(x, dtype=None):
    if np.ndim(x) == 0:
        raise ValueError("0-d arrays are not supported by this asarray")
    return NumPyArray(np.array(x, dtype=dtype))

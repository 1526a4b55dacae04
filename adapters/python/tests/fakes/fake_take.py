"""A namespace without strided views whose ``take`` mis-shapes a one-element index array
(it returns the whole source, as dask's take mis-declares its shape): a worker that gathers
views with the library's take blames add for it."""

import numpy as np

from fakelib import Array, build, unwrap


class NumPyArray(Array):
    def __array__(self, dtype=None, copy=None):
        return np.array(self._data, dtype=dtype)


build(globals(), NumPyArray)


def take(x, indices, axis=None):
    indices = unwrap(indices)
    if np.size(indices) == 1:
        return NumPyArray(unwrap(x))
    return NumPyArray(np.take(unwrap(x), indices, axis=axis))

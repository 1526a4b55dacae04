"""A library that is no array-API namespace, as MegEngine: its own Tensor (made from a NumPy
array, read back by ``to_host()``, a name no worker guesses), functions named its own way in
``fake_tensorlib.functional`` (mul, sub, div, neg), NumPy's dtypes, no asarray."""

import numpy as np

__version__ = "3.1-test"


class Tensor:
    def __init__(self, data):
        self._data = np.array(data)

    @property
    def dtype(self):
        return self._data.dtype

    def to_host(self):
        return self._data.copy()

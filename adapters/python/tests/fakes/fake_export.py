"""Arrays whose only way out is their own documented export, ``unwrap_numpy()`` (as
ndonnx's): no __array__, no __dlpack__. Like ndonnx's uint64 results that hold no value, a
uint64 result's export raises."""

from fakelib import Array, build


class ExportArray(Array):
    def unwrap_numpy(self):
        if self._data.dtype == "uint64":
            raise ValueError("no propagated value available")
        return self._data.copy()


build(globals(), ExportArray)

"""Functions that exist as stubs raising NotImplementedError, as ndonnx 0.23's atan2 (``raise
NotImplementedError``, no message, for every dtype), and a ``copysign`` that says what it
lacks: the library does not implement them, so the start-up probe takes their pairs as
unsupported. ``add`` raises ValueError on every call: it is implemented and broken, so its
pairs stay supported and their checks fail with the error."""

from fakelib import build
from fake_take import NumPyArray


def before(name, args):
    if name == "atan2":
        raise NotImplementedError
    if name == "copysign":
        raise NotImplementedError("copysign needs an operator this backend lacks")
    if name == "add":
        raise ValueError("add: graph construction failed (node 3)")


build(globals(), NumPyArray, before=before)

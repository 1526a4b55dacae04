"""NumPy 1's names, as TensorFlow's tf.experimental.numpy keeps them (power, arctan2, bool_),
and a setup call its users make first (as experimental_enable_numpy_behavior)."""

from fakelib import build
from fake_take import NumPyArray

ENABLED = []


def enable_behavior():
    ENABLED.append(True)


def before(name, args):
    if not ENABLED:
        raise RuntimeError("call fake_renamed.enable_behavior() first")


build(globals(), NumPyArray, before=before,
      names={"pow": "power", "atan2": "arctan2", "acos": "arccos", "bool": "bool_"})

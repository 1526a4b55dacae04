"""opspec's binding for fake_tensorlib (docs/PLUGGING_IN.md, "Binding modules"):
--adapter 'tensorlib=python:module=fake_tensorlib.functional binding=path/to/tensorlib_opspec.py'"""

import fake_tensorlib

# opspec's operation name -> the name in fake_tensorlib.functional, where they differ.
names = {"multiply": "mul", "subtract": "sub", "divide": "div", "negative": "neg"}
# fake_tensorlib has no dtype objects of its own: it takes NumPy's.
dtypes = "numpy"
# Operations that need more than a new name (positive is absent: +x is x).
functions = {"positive": lambda x: x}
version = fake_tensorlib.__version__


def asarray(array):
    """An operand, from a contiguous NumPy array of the operand's dtype."""
    return fake_tensorlib.Tensor(array)


def to_numpy(x):
    """A result, as a NumPy array."""
    return x.to_host()

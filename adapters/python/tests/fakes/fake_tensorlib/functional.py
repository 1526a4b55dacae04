"""fake_tensorlib's functions."""

import sys

from fakelib import build

from . import Tensor

build(vars(sys.modules[__name__]), Tensor,
      names={"multiply": "mul", "subtract": "sub", "divide": "div", "negative": "neg"})
for _name in ("asarray", "reshape", "take", "__version__") + tuple(
        d for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float16", "float32", "float64", "complex64", "complex128")):
    del globals()[_name]

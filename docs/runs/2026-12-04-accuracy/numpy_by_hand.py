"""NumPy's f32 results that the sweep of every f32 value found more than 2 representable steps
from the correctly rounded value (opspec's bar, the quality tier), computed in NumPy itself.

The reference is Python's double-precision math function rounded to f32: the double result is
within an ULP of double, far closer than the distances shown, so its rounding to f32 is the
correctly rounded value at these inputs. Run: python numpy_by_hand.py
"""
import math

import numpy as np
from numpy.lib.introspect import opt_func_info


def f32(bits):
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def bits(x):
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


CASES = [
    ("log", np.log, math.log, 0x3F486945),
    ("log10", np.log10, math.log10, 0x3F3FFC3A),
    ("asin", np.arcsin, math.asin, 0x3F002B43),
    ("expm1", np.expm1, math.expm1, 0x42AE125D),
    ("tan", np.tan, math.tan, 0x67997C79),
    ("exp", np.exp, math.exp, 0xC2781E37),
]
print("numpy", np.__version__)
for name, numpy_fn, exact_fn, x_bits in CASES:
    x = f32(x_bits)
    vector = numpy_fn(np.full(1024, x, dtype=np.float32))[0]  # as a sweep sends it
    scalar = numpy_fn(np.float32(x))
    exact = exact_fn(float(x))
    rounded = np.float32(exact)
    steps = abs(bits(vector) - bits(rounded))
    ulps = abs(float(vector) - exact) / float(np.spacing(abs(rounded)))
    print(
        f"{name}({x!r} = {x_bits:#010x}): vector {bits(vector):#010x}, scalar {bits(scalar):#010x}, "
        f"correctly rounded {bits(rounded):#010x}: {steps} steps, {ulps:.3f} ULP"
    )
# Which of NumPy's kernels ran (they differ by CPU: X86_V4 is AVX-512).
for name in ("log", "log10", "arcsin", "expm1", "tan", "exp"):
    print(name, "float32 kernel:", opt_func_info(func_name=f"^{name}$", signature="float32")[name]["ff"]["current"])

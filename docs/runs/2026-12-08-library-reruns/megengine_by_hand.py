# MegEngine 1.13.0 (CPU, NumPy 1.26.4, CPython 3.10): the behaviours behind the must failures of
# `opspec run --adapter 'python:megengine python=…' --suite array-api --suite megengine --no-tables`
# that are not known deviations (2026-12-08), reproduced in MegEngine itself.
# Run: ~/.cache/opspec-peers/megengine/bin/python megengine_by_hand.py 2>&1 | grep -v '^debug:'
import subprocess, sys
import numpy as np
import megengine as mge
import megengine.functional as F

N = 1024

def T(v, dt, n=N):
    return mge.Tensor(np.resize(np.array(v, dtype=dt), n))

def first(label, fn):
    try:
        r = fn().numpy()
        print(f"{label}: {r.reshape(-1)[:1]!r} shape={r.shape} dtype={r.dtype}")
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")

def child(label, code):
    p = subprocess.run([sys.executable, "-c", "import numpy as np, megengine as mge, megengine.functional as F\n" + code],
                       capture_output=True, text=True)
    print(f"{label}: exit {p.returncode}" + (" (SIGFPE)" if p.returncode == -8 else ""))

print("megengine", mge.__version__, "numpy", np.__version__)
print("== uint16: tensors are made, every function raises RuntimeError 'bad dtype' (the worker does not read it as a refusal)")
u = mge.Tensor(np.array([1, 2], np.uint16))
print("mge.Tensor(uint16 [1, 2]).dtype:", u.dtype)
first("F.add(uint16 [1, 2], same)", lambda: F.add(u, u))
print("== an error of one call is raised by a later one (MegEngine's async queue)")
first("F.cos(float32 [inf, 1, nan] * 400)", lambda: F.cos(mge.Tensor(np.array([np.inf, 1.0, np.nan] * 400, np.float32))))
first("then mge.Tensor(float32 ones(4))", lambda: mge.Tensor(np.ones(4, np.float32)))
print("== integer division by zero kills the process")
child("F.floor_div(int8 [1], int8 [0])", "print(F.floor_div(mge.Tensor(np.array([1], np.int8)), mge.Tensor(np.array([0], np.int8))).numpy())")
child("F.mod(int32 [1], int32 [0])", "print(F.mod(mge.Tensor(np.array([1], np.int32)), mge.Tensor(np.array([0], np.int32))).numpy())")
child("F.mod(int32 [-2**31], int32 [-1])", "print(F.mod(mge.Tensor(np.array([-2**31], np.int32)), mge.Tensor(np.array([-1], np.int32))).numpy())")
print("== right shift by the width or more (the array API: x1 / 2**x2 floored: 0, or -1 for negative x1)")
first("F.right_shift(int8 54, 64)", lambda: F.right_shift(T(54, np.int8), T(64, np.int8)))
first("F.right_shift(int32 2147483646, 2147483646)", lambda: F.right_shift(T(2147483646, np.int32), T(2147483646, np.int32)))
first("F.right_shift(int32 -2**31, 2147483646)", lambda: F.right_shift(T(-2**31, np.int32), T(2147483646, np.int32)))
print("== int32 remainder with a divisor near -2**31 (Python: -1563838972 % -2147483592 = -1563838972)")
first("F.mod(int32 -1563838972, -2147483592)", lambda: F.mod(T(-1563838972, np.int32), T(-2147483592, np.int32)))
first("F.mod(int32 -3, -2147483647)", lambda: F.mod(T(-3, np.int32), T(-2147483647, np.int32)))
print("== float32 floor_divide of a tiny and a huge operand of opposite signs (floor is -1)")
first("F.floor_div(1.4470903e-33, -302637216.0)", lambda: F.floor_div(T(1.4470903001988616e-33, np.float32), T(-302637216.0, np.float32)))
first("F.floor_div(-0.99999994, 3.4028233e38)", lambda: F.floor_div(T(-0.9999999403953552, np.float32), T(3.4028232635611926e38, np.float32)))
print("== logaddexp(inf, inf) (+inf)")
first("F.logaddexp(inf, inf) float32", lambda: F.logaddexp(T(np.inf, np.float32), T(np.inf, np.float32)))
print("== clip(-0, min=-1e-45, max=-0) (either zero)")
first("F.clip(-0.0, -1e-45, -0.0)", lambda: F.clip(T(-0.0, np.float32), T(-1.401298464324817e-45, np.float32), T(-0.0, np.float32)))
print("== comparisons of two 0-d float16 operands give shape [1]")
first("F.greater(float16 0-d 1, 0-d 0)", lambda: F.greater(mge.Tensor(np.array(1, np.float16)), mge.Tensor(np.array(0, np.float16))))
first("F.greater(float32 0-d 1, 0-d 0)", lambda: F.greater(mge.Tensor(np.array(1, np.float32)), mge.Tensor(np.array(0, np.float32))))
print("== pow of empty integer tensors returns float32")
first("F.pow(int8 [], int8 [])", lambda: F.pow(mge.Tensor(np.zeros(0, np.int8)), mge.Tensor(np.zeros(0, np.int8))))
first("F.pow(int8 [2], int8 [3])", lambda: F.pow(mge.Tensor(np.array([2], np.int8)), mge.Tensor(np.array([3], np.int8))))

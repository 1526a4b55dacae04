# PaddlePaddle 3.3.1 (CPU, NumPy 2.4.6): the behaviours behind the must failures of
# `opspec run --adapter 'paddle=python:module=paddle python=…' --suite array-api --no-tables`,
# each reproduced in Paddle itself, on one element and on 1024 (opspec's batches are 1024 or more).
# Run: ~/.cache/opspec-peers/paddle/bin/python paddle_by_hand.py
import warnings
warnings.filterwarnings("ignore")
import numpy as np
import paddle

def T(v, dt, n=1):
    return paddle.asarray(np.resize(np.array(v, dtype=dt), n))

def show(label, fn, *vals, dt=np.float32):
    for n in (1, 1024):
        try:
            r = fn(*(T(v, dt, n) for v in vals)).numpy()
            first = r.reshape(-1)[:1]
            bits = f" bits {first.view(f'u{first.itemsize}')[0]:#x}" if first.dtype.kind == "f" else ""
            print(f"{label} [n={n}]: {first!r}{bits} dtype={r.dtype}")
        except Exception as e:
            print(f"{label} [n={n}]: {type(e).__name__}: {str(e).splitlines()[0][:150]}")

print("paddle", paddle.__version__)
print("== float16 (and int8/int16/uint8 for some functions): no CPU kernel; RuntimeError, which the worker does not read as a dtype refusal")
show("paddle.add(f16 1, f16 2)", paddle.add, 1, 2, dt=np.float16)
show("paddle.abs(i8 -3)", paddle.abs, -3, dt=np.int8)
show("paddle.trunc(u8 3)", paddle.trunc, 3, dt=np.uint8)
print("== equal/not_equal of floats compare with a tolerance")
show("paddle.equal(-8.042449e-22, -1.2712396e-35)  [array API: False]", paddle.equal, -8.042449298067209e-22, -1.2712395997362424e-35)
show("paddle.not_equal(1.1163849e-26, -0.0)       [array API: True]", paddle.not_equal, 1.116384936749494e-26, -0.0)
show("paddle.equal(1e-9, 2e-9) f64                 [array API: False]", paddle.equal, 1e-9, 2e-9, dt=np.float64)
show("paddle.equal(1.766133e-191, 1.197208e-188) f64 [array API: False]", paddle.equal, 1.766133155629885e-191, 1.1972080188851394e-188, dt=np.float64)
print("== exp(-inf) is not +0")
show("paddle.exp(-inf) f32 [array API: +0]", paddle.exp, -np.inf)
show("paddle.exp(-inf) f64 [array API: +0]", paddle.exp, -np.inf, dt=np.float64)
print("== sqrt special cases (f32)")
show("paddle.sqrt(inf)   [+inf]", paddle.sqrt, np.inf)
show("paddle.sqrt(-0.0)  [-0]", paddle.sqrt, -0.0)
show("paddle.sqrt(-1.1754942e-38) [NaN]", paddle.sqrt, -1.1754942106924411e-38)
show("paddle.sqrt(1.1175871e-07) [0.00033430333 = 0x39af456f correctly rounded]", paddle.sqrt, 1.1175870895385742e-7)
print("== hypot")
show("paddle.hypot(inf, 1.259e-15) f32 [+inf]", paddle.hypot, np.inf, 1.2590549720289728e-15)
show("paddle.hypot(0, 3.4028235e38) f32 [3.4028235e38]", paddle.hypot, 0.0, 3.4028234663852886e38)
show("paddle.hypot(inf, nan) f64 [+inf]", paddle.hypot, np.inf, np.nan, dt=np.float64)
show("paddle.hypot(-0, -1.7976931348623155e308) f64 [1.7976931348623155e308]", paddle.hypot, -0.0, -1.7976931348623155e308, dt=np.float64)
show("paddle.hypot(2.0654575814789315e-220, 0) f64 [2.0654575814789315e-220]", paddle.hypot, 2.0654575814789315e-220, 0.0, dt=np.float64)
print("== logaddexp(inf, inf)")
show("paddle.logaddexp(inf, inf) f32 [+inf]", paddle.logaddexp, np.inf, np.inf)
show("paddle.logaddexp(inf, inf) f64 [+inf]", paddle.logaddexp, np.inf, np.inf, dt=np.float64)
print("== remainder signs of zero")
show("paddle.remainder(-0.0, 2.28e25) f32 [+0]", paddle.remainder, -0.0, 2.279793670154306e25)
show("paddle.remainder(0.0, -0.3667) f32 [-0]", paddle.remainder, 0.0, -0.36665621399879456)
show("paddle.remainder(-3.414e40, 3.414e40) f64 [+0, Python's %]", paddle.remainder, -3.41400326033893e40, 3.41400326033893e40, dt=np.float64)
show("paddle.remainder(0.0, -2.94e104) f64 [-0]", paddle.remainder, 0.0, -2.943723422998026e104, dt=np.float64)
print("== int64 trunc and pow through float64")
show("paddle.trunc(i64 2**62-1) [2**62-1]", paddle.trunc, 2**62 - 1, dt=np.int64)
show("paddle.pow(i64 29, 11) [12200509765705829]", paddle.pow, 29, 11, dt=np.int64)
print("== mixed integer dtypes and Python scalars")
try:
    print("paddle.add(i8, i16):", paddle.add(T(1, np.int8), T(1, np.int16)).dtype)
except Exception as e:
    print("paddle.add(i8, i16):", type(e).__name__, str(e).splitlines()[0][:160])
try:
    print("paddle.add(f32, 1.0):", paddle.add(T(1, np.float32), 1.0))
except Exception as e:
    print("paddle.add(f32, 1.0):", type(e).__name__, str(e).splitlines()[0][:160])
print("== clip with array bounds")
for dt in (np.float16, np.float32, np.float64):
    try:
        print(paddle.clip(T(1, dt, 4), T(0, dt, 4), T(2, dt, 4)))
    except Exception as e:
        print(f"paddle.clip(x, min_array, max_array) {np.dtype(dt)}:", type(e).__name__, str(e).splitlines()[0][:160])
print("== integer remainder: INT_MIN % -1 (SIGFPE kills the process; run last, in a child)")
import subprocess, sys
code = "import paddle, numpy as np; print(paddle.remainder(paddle.to_tensor(np.array([-2**31], np.int32)), paddle.to_tensor(np.array([-1], np.int32))))"
p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
print("paddle.remainder(i32 -2**31, -1): exit", p.returncode, [l.strip() for l in p.stderr.splitlines() if "SIGFPE" in l][:1])
p = subprocess.run([sys.executable, "-c", code.replace("np.int32", "np.int64").replace("-2**31", "-2**63")], capture_output=True, text=True)
print("paddle.remainder(i64 -2**63, -1): exit", p.returncode, [l.strip() for l in p.stderr.splitlines() if "SIGFPE" in l][:1])

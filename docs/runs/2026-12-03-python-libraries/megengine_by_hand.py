# Each MegEngine 1.13.0 behaviour behind expectations/megengine.yaml, reproduced in MegEngine itself
# (CPU, numpy 1.26.4). Run: ~/.cache/opspec-megengine/bin/python megengine_by_hand.py
import subprocess, sys
import numpy as np
import megengine as mge
import megengine.functional as F

N = 1024  # MegEngine's CPU kernels take a vectorised path on long tensors; some results differ on 1 element

def T(v, dt):
    """A tensor of N elements repeating v (the harness's checks pass 1024 or more)."""
    v = np.array(v, dtype=dt).reshape(-1)
    return mge.Tensor(np.resize(v, max(N, v.size)) if v.size else v)

def show(label, t):
    a = t.numpy()
    print(f"{label}: {a[:3]!r} (first of {a.size}) dtype={a.dtype}")

f32, f16 = np.float32, np.float16
print("== subnormals flushed (f32)")
show("F.add(0, 1e-45)      [docstring: x is +0, y nonzero finite -> y]", F.add(T([0.0], f32), T([1e-45], f32)))
show("F.add(1.1754942e-38, 1.0341053e-38) [exact 2.2095995e-38, normal]", F.add(T([1.1754942e-38], f32), T([1.0341053e-38], f32)))
show("F.mul(1e-45, 3.4028233e38) [exact 0.4768...]", F.mul(T([1e-45], f32), T([3.4028233e38], f32)))
show("F.mul(inf, -1.0015994e-38) [docstring: signed infinity]", F.mul(T([np.inf], f32), T([-1.0015994e-38], f32)))
show("F.log(-5.513452e-39) [array API: x < 0 -> NaN]", F.log(T([-5.513452e-39], f32)))
show("F.equal(0, 1e-45)", F.equal(T([0.0], f32), T([1e-45], f32)))
show("F.div(0, 7.4e-40) [array API: +0 / positive -> +0]", F.div(T([0.0], f32), T([7.4e-40], f32)))

print("== float16 add/mul/sub/div/square: every difference from ties-to-even is a tie rounded away from zero")
rng = np.random.default_rng(1)
bits = rng.integers(0, 0x7c00, size=(2, 200000), dtype=np.uint16) | (rng.integers(0, 2, size=(2, 200000), dtype=np.uint16) << 15)
a, b = bits[0].view(f16), bits[1].view(f16)
for name, fn, exact in [("add", F.add, lambda x, y: x + y), ("sub", F.sub, lambda x, y: x - y),
                        ("mul", F.mul, lambda x, y: x * y), ("div", F.div, lambda x, y: x / y)]:
    got = fn(mge.Tensor(a), mge.Tensor(b)).numpy()
    ex = exact(a.astype(np.float64), b.astype(np.float64))      # exact for add/sub/mul of f16
    rte = ex.astype(f16)                                         # numpy: round to nearest, ties to even
    diff = (got.view(np.uint16) != rte.view(np.uint16)) & ~np.isnan(got) & np.isfinite(ex)
    lo = np.nextafter(rte, -np.sign(ex).astype(f16) * f16(np.inf))
    hi = np.nextafter(rte, np.sign(ex).astype(f16) * f16(np.inf))
    away = np.where(np.abs(hi.astype(np.float64)) > np.abs(rte.astype(np.float64)), hi, lo)
    tie = np.abs(ex - rte.astype(np.float64)) == np.abs(ex - got.astype(np.float64))
    n = int(diff.sum()); t = int((diff & tie & (got.view(np.uint16) == away.view(np.uint16))).sum())
    note = " (div: ex is the double quotient; a true f16 tie needs an exact quotient)" if name == "div" else ""
    print(f"  {name}: {n} of {a.size} random f16 pairs differ from ties-to-even; {t} of them are exact ties rounded away from zero{note}")
show("F.add(-1, -1.0009765625) [exact -2.0009765625, a tie; even: -2.0]", F.add(T([-1.0], f16), T([-1.0009765625], f16)))
show("F.mul(5.96e-8, 0.5) [exact 2^-25, a tie between 0 and 2^-24; even: 0]", F.mul(T([5.960464477539063e-8], f16), T([0.5], f16)))

print("== int32 multiply through float32 (on 1 element the product is exact)")
a1 = F.mul(mge.Tensor(np.array([99049636], np.int32)), mge.Tensor(np.array([6], np.int32))).numpy()
print(f"F.mul(99049636, 6) on 1 element: {a1!r}")
show("F.mul(99049636, 6) [exact 594297816]", F.mul(T([99049636], np.int32), T([6], np.int32)))
show("F.mul(1, 1073741823) [exact 1073741823]", F.mul(T([1], np.int32), T([1073741823], np.int32)))
show("F.mul(-3, 209606194) [exact -628818582]", F.mul(T([-3], np.int32), T([209606194], np.int32)))

print("== round: ties away from zero")
show("F.round([0.5, 8.5, -2.5]) [standard: the even integer]", F.round(T([0.5, 8.5, -2.5], f32)))
print("== sign of NaN")
show("F.sign(NaN)", F.sign(T([np.nan], f32)))
print("== maximum/minimum/clip ignore a NaN")
show("F.maximum(NaN, 1)", F.maximum(T([np.nan], f32), T([1.0], f32)))
show("F.minimum(NaN, 1)", F.minimum(T([np.nan], f32), T([1.0], f32)))
show("F.clip(NaN, -1, 1)", F.clip(T([np.nan], f32), -1.0, 1.0))
show("F.clip(0.5, NaN, 1)", F.clip(T([0.5], f32), T([np.nan], f32), T([1.0], f32)))
print("== exp of +inf and NaN")
show("F.exp([inf, nan, 16777216])", F.exp(T([np.inf, np.nan, 16777216.0], f32)))
print("== logaddexp(+inf, +inf)")
show("F.logaddexp(inf, inf)", F.logaddexp(T([np.inf], f32), T([np.inf], f32)))
print("== remainder: sign of the dividend (C fmod), not Python's %")
show("F.mod(-0., 3.) [standard: +0]", F.mod(T([-0.0], f32), T([3.0], f32)))
show("F.mod(0., -3.) [standard: -0]", F.mod(T([0.0], f32), T([-3.0], f32)))
show("F.mod(5., -inf) [standard: -inf]", F.mod(T([5.0], f32), T([-np.inf], f32)))
show("F.mod(1.9274003e-8, -1.6320539e-15) [Python %: negative]", F.mod(T([1.9274003e-8], f32), T([-1.6320539e-15], f32)))
print("== floor_divide f16")
show("F.floor_div(60160, -1.666015625) [floor of exact -36110.3 in f16: -36128]", F.floor_div(T([60160.0], f16), T([-1.666015625], f16)))
print("== atan of float16, pow of integers: result dtypes")
show("F.atan(f16 0.5)", F.atan(T([0.5], f16)))
show("F.pow(int32 3, int32 2)", F.pow(T([3], np.int32), T([2], np.int32)))
show("F.pow(int8 3, int8 2)", F.pow(T([3], np.int8), T([2], np.int8)))
print("== mixed signedness and missing dtypes")
for l, r in [(np.uint8, np.int8), (np.int32, np.uint16)]:
    try:
        show(f"F.add({l.__name__}, {r.__name__})", F.add(T([1], l), T([1], r)))
    except Exception as e:
        print(f"F.add({l.__name__}, {r.__name__}) raises {type(e).__name__}: {str(e).splitlines()[0]}")
for dt in (np.int64, np.float64, np.uint32):
    try:
        print(f"mge.Tensor({dt.__name__}) stores", mge.Tensor(np.array([1], dtype=dt)).dtype)
    except Exception as e:
        print(f"mge.Tensor({dt.__name__}) raises {type(e).__name__}: {str(e).splitlines()[0]}")
print("== broadcasting [0] against [2]")
try:
    show("F.add(zeros(0), ones(2)) [array API: an error]", F.add(T(np.zeros(0), f32), T(np.ones(2), f32)))
except Exception as e:
    print("raises", type(e).__name__)
print("== sin/cos of infinity (in a child process: MKL aborts it)", flush=True)
for fn in ("sin", "cos"):
    p = subprocess.run([sys.executable, "-c", "import numpy as np, megengine as m, megengine.functional as F;"
                        f"print(F.{fn}(m.Tensor(np.array([np.inf], dtype=np.float32))).numpy())"],
                       capture_output=True, text=True)
    err = [l for l in p.stderr.splitlines() if "what()" in l or "MKL" in l][:1]
    print(f"  F.{fn}(inf): exit status {p.returncode}, stdout {p.stdout.strip()!r}, {err}")
print("== integer remainder by zero (in a child process)", flush=True)
p = subprocess.run([sys.executable, "-c", "import numpy as np, megengine as m, megengine.functional as F;"
                    "print(F.mod(m.Tensor(np.array([3], dtype=np.int32)), m.Tensor(np.array([0], dtype=np.int32))).numpy())"],
                   capture_output=True, text=True)
print(f"  F.mod(int32 3, int32 0): exit status {p.returncode}")

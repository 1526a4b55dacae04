"""MindSpore's complex results, by hand: each behaviour behind a failing complex check of the
array-api suite (expectations/mindspore.yaml), called through mindspore.ops directly, with no
opspec code in between. Run with the MindSpore venv:

    ~/.cache/opspec-peers/mindspore/bin/python docs/runs/2026-12-03-python-libraries/mindspore_complex_by_hand.py

Output: mindspore_complex_by_hand.txt beside this file. Operands are 1024-element tensors
(the size the harness calls with) unless a line says otherwise; each line prints the operand,
MindSpore's result (repr and the parts' bit patterns) and what the array API's bullet gives.
"""

import os
import sys
import warnings

import numpy as np

os.environ.setdefault("GLOG_v", "3")
warnings.filterwarnings("ignore")
import mindspore as ms  # noqa: E402
import mindspore.ops as ops  # noqa: E402

np.seterr(all="ignore")
N = 1024
C = {"c64": np.complex64, "c128": np.complex128}
R = {"c64": np.float32, "c128": np.float64}
SUB = {"c64": np.float32(5.877472e-39), "c128": np.float64(1.1125369292536007e-308)}  # subnormals


def bits(v):
    v = np.asarray(v)
    if v.dtype == np.float32:
        return f"0x{int(v.view(np.uint32)):08x}"
    return f"0x{int(v.view(np.uint64)):016x}"


def show(z):
    z = np.asarray(z)
    if np.iscomplexobj(z):
        return f"{z.real!r} {'+' if not np.signbit(z.imag) else '-'} {abs(z.imag)!r}j [{bits(z.real)}, {bits(z.imag)}]"
    return f"{z!r} [{bits(z)}]"


def cplx(dt, re, im):
    out = np.empty((), dtype=C[dt])
    out.real, out.imag = R[dt](re), R[dt](im)
    return out


def unary(fn, dt, re, im, n=N):
    x = np.full(n, cplx(dt, re, im))
    try:
        return fn(ms.Tensor(x)).asnumpy(), None
    except Exception as e:  # noqa: BLE001
        drain()
        return None, f"{type(e).__name__}: {str(e).strip().splitlines()[0][:160]}"


def line(label, x, y, err, want):
    got = err if err is not None else f"{show(y[0])}  (dtype {y.dtype}, all {N} equal: {bool(np.all((y == y[0]) | (np.isnan(y) & np.isnan(y[0]))))})"
    print(f"  {label}({show(x)}) = {got}\n      document: {want}")


def section(title):
    print(f"\n== {title}")


print(f"mindspore {ms.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}; device CPU")
ms.set_context(device_target="CPU")  # as opspec's worker does

# MindSpore 2.10.0 ships a module built against NumPy 1.x: with NumPy 2 the first Python-level
# tensor division in a process (ops.log2 and ops.log10 on complex tensors divide by log(2) in
# Python) fails once with "SystemError: ... returned a result with an exception set" (an
# ImportError inside), and works from then on. Called once here so that it is out of the way.
try:
    ops.log2(ms.Tensor(np.ones(2, np.complex64)))
    print("warm-up ops.log2: ok")
except Exception as e:  # noqa: BLE001
    print(f"warm-up ops.log2 (first call in the process): {type(e).__name__}: {str(e).splitlines()[0][:90]}")


def drain():
    """MindSpore runs kernels asynchronously: a refused call's error can surface at the next
    asnumpy(). Reads back small results until one comes back clean, returning the late errors."""
    late = []
    for _ in range(200):
        try:
            ops.add(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float32))).asnumpy()
            return late
        except Exception as e:  # noqa: BLE001
            late.append(str(e).strip().splitlines()[0][:60])
    return late


def flush_state():
    """A kernel after which MindSpore's CPU thread pool reads subnormal operands as zero in some
    later calls (found by trial: after ops.tanh on complex64, ops.add(0, 5.9e-39) gives 0 in
    float32); whether a given later call flushes still varies from call to call."""
    ops.tanh(ms.Tensor(np.ones(N, np.complex64)))


def tries(fn, dt, re, im, k=60):
    """fn on N copies of re + im j, k times (the first half back to back, the second half with
    flush_state() before each): the distinct results of a call over its N elements (bits, and
    how many elements gave each where they differ), and how many calls gave each such set."""
    seen = {}
    for i in range(k):
        if i >= k // 2:
            flush_state()
        y = fn(ms.Tensor(np.full(N, cplx(dt, re, im)))).asnumpy()
        u = np.uint32 if y.dtype == np.complex64 else np.uint64
        parts = y.view(u).reshape(N, 2)
        distinct, first, counts = np.unique(parts, axis=0, return_index=True, return_counts=True)
        key = " and ".join(f"{show(y[i])} in {c} of {N} elements" if c < N else show(y[i])
                           for i, c in sorted(zip(first, counts), key=lambda t: -t[1]))
        seen[key] = seen.get(key, 0) + 1
    return "\n      ".join(f"{v} of {k} calls: {key}" for key, v in seen.items())

# ---------------------------------------------------------------------------------------
section("abs: a complex tensor in, a complex tensor out (imaginary part +0), in complex64 and complex128")
for dt, re, im, want in [
    ("c128", 3.0, 4.0, "5.0 as float64 (Returns: a real-valued floating-point data type whose precision matches)"),
    ("c128", np.inf, np.nan, "+infinity (bullet 1), float64"),
    ("c128", np.nan, 2.0, "NaN (bullet 5), float64"),
    ("c128", -0.0, -7.5, "abs(b) = 7.5 (bullet 3), float64"),
    ("c64", 3.0, 4.0, "5.0 as float32"),
]:
    y, err = unary(ops.abs, dt, re, im)
    line("ops.abs", cplx(dt, re, im), y, err, want)

# ---------------------------------------------------------------------------------------
section("add of a real and a complex tensor (component table: a + (c + dj) = (a+c) + dj)")
for dt in ("c64", "c128"):
    s = SUB[dt]
    for a, c, d in [(1.0, 2.0, -0.0), (1.0, 2.0, 3.0), (-0.0, -0.0, -0.0), (1.0, 2.0, s), (1.0, 2.0, -s), (np.nan, 2.0, s)]:
        xr = np.full(N, R[dt](a))
        xc = np.full(N, cplx(dt, c, d))
        y1 = ops.add(ms.Tensor(xr), ms.Tensor(xc)).asnumpy()
        y2 = ops.add(ms.Tensor(xc), ms.Tensor(xr)).asnumpy()
        print(f"  ops.add({R[dt].__name__} {a!r}, {show(xc[0])}) = {show(y1[0])} ({y1.dtype});"
              f" reversed = {show(y2[0])}\n      document: imaginary part d = {d!r} [{bits(R[dt](d))}]")
    # d over ten classes on one 1024-element call: which imaginary parts come back changed.
    rng = np.random.default_rng(1)
    vals = np.array([0.0, -0.0, 1.0, -2.5, s, -s, np.inf, -np.inf, np.nan, 3e38], dtype=R[dt])
    a_, c_, d_ = (rng.choice(vals, N) for _ in range(3))
    x2 = np.empty(N, C[dt])
    x2.real, x2.imag = c_, d_
    y = ops.add(ms.Tensor(a_), ms.Tensor(x2)).asnumpy()
    u = np.uint32 if dt == "c64" else np.uint64
    changed = (y.imag.view(u) != d_.view(u)) & ~(np.isnan(y.imag) & np.isnan(d_))
    print(f"  one call, a, c, d drawn from {list(map(float, vals))}: imaginary part != d in {int(changed.sum())} of {N};"
          f" d of those: {sorted(set(bits(v) for v in d_[changed]))} -> {sorted(set(bits(v) for v in y.imag[changed]))}")
    # The same subnormal imaginary part with a complex operand on both sides.
    xc = np.full(N, cplx(dt, 2.0, s))
    y = ops.add(ms.Tensor(np.full(N, cplx(dt, 1.0, 0.0))), ms.Tensor(xc)).asnumpy()
    print(f"  ops.add({show(cplx(dt, 1.0, 0.0))}, {show(xc[0])}) = {show(y[0])}  (both complex: the subnormal kept?)")

# ---------------------------------------------------------------------------------------
section("multiply and divide of a complex and a real tensor")
for dt in ("c64", "c128"):
    xc, xr = ms.Tensor(np.full(N, cplx(dt, 2.0, 3.0))), ms.Tensor(np.full(N, R[dt](4.0)))
    for name, fn, args, want in [
        ("ops.mul(complex, real)", ops.mul, (xc, xr), "(a*c) + (b*c)j = 8 + 12j"),
        ("ops.mul(real, complex)", ops.mul, (xr, xc), "(a*c) + (a*d)j = 8 + 12j"),
        ("ops.div(complex, real)", ops.div, (xc, xr), "(a/c) + (b/c)j = 0.5 + 0.75j"),
    ]:
        try:
            y = fn(*args).asnumpy()
            got = f"{show(y[0])} ({y.dtype})"
        except Exception as e:  # noqa: BLE001
            got = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:120]}"
            late = drain()
            got += f" ({len(late)} later read-backs raised {sorted(set(late)) or 'nothing'} before one came back clean)"
        print(f"  {name} with {dt} (2+3j) and {R[dt].__name__} 4.0: {got}\n      document: {want}")
    try:
        y = ops.add(xc, xr).asnumpy()
        print(f"  ops.add(complex, real) with the same operands: {show(y[0])} ({y.dtype})")
    except Exception as e:  # noqa: BLE001
        print(f"  ops.add(complex, real) with the same operands: {type(e).__name__}: {str(e).splitlines()[0][:80]} (a refused call's error, raised late)")
        drain()

# ---------------------------------------------------------------------------------------
section("subnormal parts read as zero in some calls: 60 calls each (30 back to back, 30 after ops.tanh on complex64)")
for fn, dt, re, im, want in [
    (ops.asinh, "c64", np.nan, SUB["c64"], "NaN + NaN j (bullet 7: b a nonzero finite number); with b read as +0: NaN + 0j (bullet 6)"),
    (ops.asinh, "c128", np.nan, -SUB["c128"], "NaN + NaN j (bullet 7); with b read as -0: NaN - 0j (bullet 6, conjugated)"),
    (ops.tanh, "c64", np.nan, SUB["c64"], "NaN + NaN j (bullet 10); with b read as +0: NaN + 0j (bullet 9)"),
    (ops.tanh, "c128", np.nan, -SUB["c128"], "NaN + NaN j (bullet 10); with b read as -0: NaN - 0j"),
    (ops.tanh, "c64", SUB["c64"], np.nan, "NaN + NaN j (bullet 4); with a read as +0: +0 + NaN j (bullet 5)"),
    (ops.tanh, "c128", SUB["c128"], np.nan, "NaN + NaN j (bullet 4); with a read as +0: +0 + NaN j (bullet 5)"),
    (ops.tanh, "c128", np.nan, SUB["c128"], "NaN + NaN j (bullet 10); with b read as +0: NaN + 0j (bullet 9)"),
    (ops.exp, "c128", np.inf, SUB["c128"], "+infinity * cis(b) = +inf + inf j (bullet 6); with b read as +0: infinity + 0j (bullet 4)"),
    (ops.exp, "c128", np.inf, -SUB["c128"], "+inf - inf j (bullet 6); with b read as -0: infinity - 0j"),
    (ops.log, "c64", 0.0, 1.4389079138088308e-39, "-89.4369 + 1.5708j (random check); with b read as +0: -infinity + 0j (bullet 2)"),
    (ops.log, "c64", -0.0, 6.946364005818372e-39, "-87.8626 + 1.5708j; with b read as +0: -infinity + πj (bullet 1)"),
    (ops.log, "c128", 0.0, 1.5636212606787637e-308, "-708.749 + 1.5708j; with b read as +0: -infinity + 0j (bullet 2)"),
    (ops.log, "c128", -52.396222610111984, 1.43048567583496e-309, "3.95883 + πj (b > 0); with b read as +0: 3.95883 + πj as well"),
    (ops.sqrt, "c64", 1.1558047061000595e-38, 0.0, "1.0750836e-19 + 0j; with a read as +0: +0 + 0j (bullet 1)"),
    (ops.sqrt, "c128", -1.802515325937719e-308, 1.3549532378172337e-305, "2.6011073809512606e-153 + 2.604569976118611e-153j; with a read as -0: 2.6028e-153 (1 + j)"),
    (ops.tanh, "c64", 5.167918671506709e-39, 0.0, "5.167918671506709e-39 + 0j; with a read as +0: +0 + 0j (bullet 1)"),
    (ops.exp, "c128", -723.3416688204586, 1389584.4663316938, "6.0189217e-316 + 7.16436091e-315j (subnormal parts; flushed: 0 + 0j)"),
]:
    print(f"  ops.{fn.__name__}[{dt}]({show(cplx(dt, re, im))}):\n      {tries(fn, dt, re, im)}\n      document: {want}")

# ---------------------------------------------------------------------------------------
section("tanh(+inf + bj) for positive finite b: 1 - 0j wherever sin(2b) < 0")
for dt in ("c64", "c128"):
    for b in (1.0, 2.0, 3.0, 294.7746887207031):
        y, err = unary(ops.tanh, dt, np.inf, b)
        line(f"ops.tanh[{dt}]", cplx(dt, np.inf, b), y, err, "1 + 0j (bullet 6)")
    bs = np.arange(1, 1001, dtype=R[dt])
    x = np.empty(bs.size, dtype=C[dt])
    x.real, x.imag = np.inf, bs
    y = ops.tanh(ms.Tensor(x)).asnumpy()
    neg = np.signbit(y.imag)
    print(f"  ops.tanh[{dt}](+inf + bj), b = 1, 2, ..., 1000 in one call: real parts all 1: {bool(np.all(y.real == 1))};"
          f" imaginary parts all zero: {bool(np.all(y.imag == 0))}, -0 for {int(neg.sum())} of 1000;"
          f" -0 exactly where sin(2b) < 0: {bool(np.array_equal(neg, np.sin(2 * bs.astype(np.float64)) < 0))}")

# ---------------------------------------------------------------------------------------
section("sqrt(NaN - inf j): +inf - inf j")
for dt in ("c64", "c128"):
    for re, im, want in [(np.nan, -np.inf, "NaN + NaN j (bullet 8: a is NaN and b is any value)"),
                         (np.nan, np.inf, "+infinity + infinity j (bullet 2)"),
                         (1.0, -np.inf, "no bullet for b = -infinity with a finite a"),
                         (np.nan, 1.0, "NaN + NaN j (bullet 8)")]:
        y, err = unary(ops.sqrt, dt, re, im)
        line(f"ops.sqrt[{dt}]", cplx(dt, re, im), y, err, want)

# ---------------------------------------------------------------------------------------
section("log2 and log10 against log(x) / log(2): an infinite real part of log(x) makes the imaginary part NaN")
for dt in ("c64", "c128"):
    for re, im in [(np.inf, 2.0), (-np.inf, 1.0), (2.0, np.inf), (0.0, 0.0), (1.0, 1.0)]:
        x = ms.Tensor(np.full(N, cplx(dt, re, im)))
        l, l2, l10 = ops.log(x).asnumpy()[0], ops.log2(x).asnumpy()[0], ops.log10(x).asnumpy()[0]
        ln2, ln10 = R[dt](np.log(2.0)), R[dt](np.log(10.0))
        print(f"  [{dt}] x = {show(cplx(dt, re, im))}: ops.log = {show(l)}; ops.log2 = {show(l2)}"
              f" (log / log(2) = {l.real / ln2!r} + {l.imag / ln2!r}j); ops.log10 = {show(l10)}"
              f" (log / log(10) = {l.real / ln10!r} + {l.imag / ln10!r}j)")

# ---------------------------------------------------------------------------------------
section("reciprocal(x) against divide(1 + 0j, x) at the special operands")
for dt in ("c64", "c128"):
    for re, im in [(0.0, 0.0), (-0.0, -0.0), (np.inf, 1.0), (1.0, np.nan), (2.0, 1.0)]:
        x = np.full(N, cplx(dt, re, im))
        r = ops.reciprocal(ms.Tensor(x)).asnumpy()
        q = [ops.div(ms.Tensor(np.full(N, cplx(dt, 1.0, 0.0))), ms.Tensor(x)).asnumpy() for _ in range(3)]
        print(f"  [{dt}] x = {show(x[0])}: ops.reciprocal = {show(r[0])};"
              f" ops.div(1+0j, x), three calls, element 0: {show(q[0][0])} | {show(q[1][0])} | {show(q[2][0])};"
              f" distinct values in one call: {len(set(map(complex, q[0])))}")
print("  document (divide): \"If a, b, c, and d are all NaN, the result is NaN + NaN j.\" and"
      " \"In the remaining cases, the result is implementation dependent.\"")

# ---------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------
section("expm1 (complex128) and log1p: small parts computed with too few bits")
for fn, dt, re, im, want in [
    (ops.expm1, "c128", 1.1194576996423705e-6, 0.0013307234746285433, "2.340449827486165e-7 + 0.00133072457157122j"),
    (ops.expm1, "c128", -2.2711280506638623e-169, 0.0, "-2.2711280506638623e-169 + 0j"),
    (ops.expm1, "c64", 1.0, 1.0, "(e cos 1 - 1) + (e sin 1)j"),
    (ops.log1p, "c64", -1.2680992860576743e-19, 0.0, "-1.2680992860576743e-19 + 0j"),
    (ops.log1p, "c64", 1.0046555871667806e-05, 0.0, "1.0046505849459209e-05 + 0j"),
    (ops.log1p, "c128", 1.6828877922494122e-112, 0.0, "1.6828877922494122e-112 + 0j"),
    (ops.log1p, "c128", 3.9116515884605576e-115, -2.8795425247122416e-148, "3.9116515884605576e-115 - 2.8795425247122416e-148j"),
]:
    y, err = unary(fn, dt, re, im)
    line(f"ops.{fn.__name__}[{dt}]", cplx(dt, re, im), y, err, want)

# ---------------------------------------------------------------------------------------
section("sign (x / |x|): subnormal and huge operands")
for dt, re, im, want in [
    ("c64", -1.401298464324817e-45, -2.802596928649634e-45, "-0.4472136 - 0.8944272j"),
    ("c128", 3.01284550085858e-309, 8.9014240089043e-310, "0.9590191349735465 + 0.28334131141538565j"),
    ("c128", -7.149634170208372e305, 1.7976931348623157e308, "-0.003977084568957648 + 0.9999920913678925j"),
    ("c128", 3.0, 4.0, "0.6 + 0.8j"),
]:
    y, err = unary(ops.sign, dt, re, im)
    line(f"ops.sign[{dt}]", cplx(dt, re, im), y, err, want)

# ---------------------------------------------------------------------------------------
section("refusals: the run's hello probe asks each function for every dtype in turn; once a call is refused, later calls of that function raise the same error (complex included)")
def attempt(fn, arr):
    try:
        fn(ms.Tensor(arr)).asnumpy()
        return "ok"
    except Exception as e:  # noqa: BLE001
        drain()
        return f"{type(e).__name__}: {str(e).strip().splitlines()[0][:90]}"


print(f"  ops.cosh on complex64 [1, 2], first call of cosh: {attempt(ops.cosh, np.array([1, 2], np.complex64))}")
for dt in (np.float16, np.float32, np.int8, np.uint16, np.bool_, np.complex64, np.complex128):
    try:
        ops.sinh(ms.Tensor(np.array([1, 2]).astype(dt))).asnumpy()
        r = "ok"
    except Exception as e:  # noqa: BLE001 (no drain here: as the worker's probe calls them)
        r = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:70]}"
    print(f"  ops.sinh on {np.dtype(dt).name} [1, 2], in this order: {r}")
section("the functions the run skipped, called first on complex in this process: 1 + 1j")
for name in ("expm1", "atanh", "cos", "sin", "isinf", "isnan", "isfinite"):
    for dt in ("c64", "c128"):
        y, err = unary(getattr(ops, name), dt, 1.0, 1.0)
        print(f"  ops.{name}[{dt}](1 + 1j): {err if err is not None else show(y[0])}")

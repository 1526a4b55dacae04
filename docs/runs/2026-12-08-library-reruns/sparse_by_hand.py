# pydata sparse 0.19.3 (NumPy 2.4.6): each behaviour behind expectations/sparse.yaml, reproduced in
# sparse itself with an input from the failure records of
# `opspec run --adapter 'sparse=python:module=sparse export=todense python=…' --suite array-api --no-tables`.
# sparse applies NumPy's ufuncs to its stored values, so each is NumPy's (expectations/numpy.yaml).
# Run: ~/.cache/opspec-peers/sparse/bin/python sparse_by_hand.py
import numpy as np
import sparse
np.seterr(all="ignore")

def S(*vals, dt):
    return sparse.asarray(np.array(vals, dtype=dt))

def show(label, r, table):
    print(f"{label} -> {r.todense()!r}   (the standard: {table})")

c64, c128, f32, f64, f16 = np.complex64, np.complex128, np.float32, np.float64, np.float16
nan = np.nan
print("sparse", sparse.__version__, "numpy", np.__version__)
print("== real operand promoted to a + 0j (add, multiply, divide)")
show("add(f32 -1.0, c64 3.4028233e38-0j)", sparse.add(S(-1.0, dt=f32), S(complex(3.4028232635611926e38, -0.0), dt=c64)), "(a+c) + dj: 3.4028233e38-0j")
show("add(c64 3.9285767e-39-0j, f32 8.192769e-07)", sparse.add(S(complex(3.928576678494697e-39, -0.0), dt=c64), S(8.192768632397929e-7, dt=f32)), "(a+c) + bj: 8.192769e-07-0j")
show("multiply(c64 nan+233.57584j, f32 1.9126659e28)", sparse.multiply(S(complex(nan, 233.57583618164063), dt=c64), S(1.9126658593996916e28, dt=f32)), "ac + bcj: nan+4.467525e30j")
show("divide(c64 2.481502e33+6.608062e-27j, f32 2.984083e-36)", sparse.divide(S(complex(2.481502183259175e33, 6.608062084046934e-27), dt=c64), S(2.9840828818753887e-36, dt=f32)), "a/c + (b/c)j: inf+2.2144366e9j")
print("== expm1 special values (c128)")
for z, t in [((np.inf, 0.0), "+inf + 0j"), ((-np.inf, np.inf), "-1 + 0j"), ((np.inf, np.inf), "inf + nan j"),
             ((-np.inf, nan), "-1 + 0j"), ((np.inf, nan), "inf + nan j"), ((nan, 0.0), "nan + 0j"),
             ((-np.inf, 3.0), "+0*cis(3) - 1 = -1 + 0j")]:
    show(f"expm1({complex(*z)})", sparse.expm1(S(complex(*z), dt=c128)), t)
show("expm1(c64 -inf+2.1535464e37j)", sparse.expm1(S(complex(-np.inf, 2.153546447486887e37), dt=c64)), "+0*cis(b) - 1.0: real part -1")
print("== log1p, reciprocal, sign, sqrt, tanh, cosh, sin (c128)")
z = np.zeros(1, c64)  # inf + NaN(0x1f2601) j: the record's NaN has no quiet bit
z.view(f32)[:] = np.array([0x7f800000, 0x7f9f2601], np.uint32).view(f32)
show("log1p(c64 inf + NaN(0x1f2601) j)", sparse.log1p(sparse.asarray(z)), "+inf + nan j")
show("log1p(c64 inf + nan j), a quiet NaN", sparse.log1p(S(complex(np.inf, nan), dt=c64)), "+inf + nan j (right)")
show("reciprocal(0+0j)", sparse.reciprocal(S(complex(0.0, 0.0), dt=c128)), "1/x: inf + nan j")
print("   divide(1, 0+0j) ->", sparse.divide(S(1 + 0j, dt=c128), S(0j, dt=c128)).todense())
show("sign(inf+nan j)", sparse.sign(S(complex(np.inf, nan), dt=c128)), "nan + nan j")
show("sqrt(nan-inf j)", sparse.sqrt(S(complex(nan, -np.inf), dt=c128)), "nan + nan j (nan-any row)")
show("tanh(inf+3j)", sparse.tanh(S(complex(np.inf, 3.0), dt=c128)), "1 + 0j")
show("cosh(-0-inf j)", sparse.cosh(S(complex(-0.0, -np.inf), dt=c128)),
     f"conj(cosh(conj(x))) = {np.conj(sparse.cosh(S(complex(-0.0, np.inf), dt=c128)).todense())}")
show("sin(nan+inf j)", sparse.sin(S(complex(nan, np.inf), dt=c128)),
     f"-1j * sinh(x * 1j), sinh(-inf + nan j) = {sparse.sinh(S(complex(-np.inf, nan), dt=c128)).todense()}, "
     "so -1j * (-inf + nan j) = nan - inf j, the record's expected value")
print("== nextafter float16 signed zeros")
show("nextafter(f16 -0, +0)", sparse.nextafter(S(-0.0, dt=f16), S(0.0, dt=f16)), "+0")
show("nextafter(f16 +0, -0)", sparse.nextafter(S(0.0, dt=f16), S(-0.0, dt=f16)), "-0")
show("nextafter(f32 +0, -0)", sparse.nextafter(S(0.0, dt=f32), S(-0.0, dt=f32)), "-0 (float32 is right)")

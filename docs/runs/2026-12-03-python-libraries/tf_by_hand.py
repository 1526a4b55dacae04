# Each TensorFlow 2.21.0 behaviour behind expectations/tf.yaml, reproduced in TensorFlow itself through
# tf.experimental.numpy after experimental_enable_numpy_behavior() (tensorflow-cpu, numpy 2.4.6, CPython 3.11).
# Run: ~/.cache/opspec-tensorflow/bin/python tf_by_hand.py 2>/dev/null
import numpy as np, ml_dtypes
import tensorflow.experimental.numpy as tnp
tnp.experimental_enable_numpy_behavior()

N = 1024  # the checks call with 1024 elements or more; some kernels differ on one element
bf16, f16, f32, f64 = ml_dtypes.bfloat16, np.float16, np.float32, np.float64

def T(v, dt, n=N):
    """An operand made as opspec's worker makes it (tnp.asarray of a NumPy array), repeating v to n elements."""
    v = np.array(v, dtype=dt).reshape(-1)
    return tnp.asarray(np.resize(v, max(n, v.size)))

def bits(b, dt):
    return np.array(b, dtype={bf16: np.uint16, f16: np.uint16, f32: np.uint32, f64: np.uint64}[dt]).view(dt)

def show(label, t, k=3):
    a = np.asarray(t)
    print(f"{label}: {a.reshape(-1)[:k]!r} (shape {a.shape}, dtype {a.dtype})")

def hexs(label, t, dt, k=1):
    a = np.asarray(t).reshape(-1)[:k]
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    print(f"{label}: {a!r} bits {[hex(int(x)) for x in a.view(u)]} dtype {a.dtype}")

print("== 1. bfloat16 operands: the functions return float64")
x = T([0.5], bf16)
for name in ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cos", "cosh", "exp", "expm1", "log",
             "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan", "tanh", "ceil", "floor", "fix"):
    print(f"  tnp.{name}(bf16 0.5) -> dtype {np.asarray(getattr(tnp, name)(x)).dtype}")
print(f"  tnp.hypot(bf16, bf16) -> dtype {np.asarray(tnp.hypot(x, x)).dtype}")
print(f"  tnp.logaddexp(bf16, bf16) -> dtype {np.asarray(tnp.logaddexp(x, x)).dtype}")
print(f"  (tnp.add(bf16, bf16) -> dtype {np.asarray(tnp.add(x, x)).dtype}, for comparison)")

print("== 2. ceil, floor, trunc (fix) of integers return float64")
for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
    v = T([3], dt)
    print(f"  {dt.__name__}: ceil -> {np.asarray(tnp.ceil(v)).dtype}, floor -> {np.asarray(tnp.floor(v)).dtype}, "
          f"fix -> {np.asarray(tnp.fix(v)).dtype}")

print("== 3. log2 and log10 of float16/float32 return float64, of complex64 complex128")
for dt in (f16, f32, np.complex64):
    show(f"  tnp.log2({np.dtype(dt).name} 8)", tnp.log2(T([8], dt)))
    show(f"  tnp.log10({np.dtype(dt).name} 100)", tnp.log10(T([100], dt)))
show("  (tnp.log(float32 8), for comparison)", tnp.log(T([8], f32)))

print("== 4. isinf of integer and complex arrays is a 0-d False")
for dt in (np.int32, np.uint8, np.complex64, np.complex128):
    show(f"  tnp.isinf({np.dtype(dt).name} array of {N})", tnp.isinf(T([3], dt)))
show("  tnp.isinf(complex64 inf+0j, 1024 elements) [isinf bullet 1: True]", tnp.isinf(T([complex(np.inf, 0)], np.complex64)))

print("== 5. signbit ignores the sign of -0, of a NaN and of negative subnormals")
show("  tnp.signbit(float32 [-0., -NaN, -1e-39, -1.0])", tnp.signbit(T([-0.0, -np.nan, -1e-39, -1.0], f32)), 4)
print("  (the -NaN operand's bits:", hex(int(np.array([-np.nan], f32).view(np.uint32)[0])), ")")
show("  tnp.signbit(float16 [-0., -NaN])", tnp.signbit(T([-0.0, -np.nan], f16)), 2)
show("  tnp.signbit(float64 [-0., -NaN])", tnp.signbit(T([-0.0, -np.nan], f64)), 2)

print("== 6. remainder: a zero result takes the sign of x1 (C fmod), not of x2")
show("  tnp.remainder(f32 -0., 1.)  [remainder: x1 -0, x2 > 0 -> +0]", tnp.remainder(T([-0.0], f32), T([1.0], f32)))
show("  tnp.remainder(f32 0., -313.)  [x1 +0, x2 < 0 -> -0]", tnp.remainder(T([0.0], f32), T([-313.0], f32)))
show("  tnp.remainder(f16 0.29541015625, -0.29541015625)  [Python %: -0.0]", tnp.remainder(T([0.29541015625], f16), T([-0.29541015625], f16)))
show("  tnp.remainder(f64 -0., 1.)", tnp.remainder(T([-0.0], f64), T([1.0], f64)))
show("  tnp.remainder(bf16 -0., 1.)", tnp.remainder(T([-0.0], bf16), T([1.0], bf16)))
print("  Python: -0.0 % 1.0 =", -0.0 % 1.0, "; 0.0 % -313.0 =", 0.0 % -313.0, "; 0.29541015625 % -0.29541015625 =", 0.29541015625 % -0.29541015625)

print("== 7. floor_divide: the floor of the rounded quotient, not of the exact one")
show("  tnp.floor_divide(f16 0.0249481201171875, 4.744529724121094e-05)  [exact quotient 525.83..., floor 525]",
     tnp.floor_divide(T([0.0249481201171875], f16), T([4.744529724121094e-05], f16)))
print("   exact:", 0.0249481201171875 / 4.744529724121094e-05)
show("  tnp.floor_divide(f32 1.5646551e-37, -3.4028233e38)  [exact -4.6e-76, floor -1]",
     tnp.floor_divide(T([1.5646551130631755e-37], f32), T([-3.4028232635611926e38], f32)))
show("  tnp.floor_divide(f64 1.0316374660711424e-208, -1.7976931348623157e308)  [floor -1]",
     tnp.floor_divide(T([1.0316374660711424e-208], f64), T([-1.7976931348623157e308], f64)))
show("  tnp.floor_divide(f32 218425824., 3.33053429280028e-09)  [floor 6.558281487509094e16]",
     tnp.floor_divide(T([218425824.0], f32), T([3.33053429280028e-09], f32)))

print("== 8. hypot: sqrt(x1*x1 + x2*x2) in the operands' precision, and NaN beats infinity")
show("  tnp.hypot(f16 0, 65504)  [hypot bullet: x1 zero -> abs(x2) = 65504]", tnp.hypot(T([0.0], f16), T([65504.0], f16)))
show("  tnp.hypot(f32 5.08111975e29, -1.14982416e30)  [1.2570893e30]", tnp.hypot(T([5.08111975331211e29], f32), T([-1.1498241563767641e30], f32)))
show("  tnp.hypot(f64 6835880.54, -1.6757473799901046e203)  [1.6757473799901046e203]", tnp.hypot(T([6835880.540605387], f64), T([-1.6757473799901046e203], f64)))
show("  tnp.hypot(f32 -inf, NaN)  [bullet 1: +infinity]", tnp.hypot(T([-np.inf], f32), T([np.nan], f32)))
show("  tnp.hypot(f64 NaN, inf)  [bullet 2: +infinity]", tnp.hypot(T([np.nan], f64), T([np.inf], f64)))
show("  tnp.hypot(f16 0, 0.0004096031188964844)  [0.0004096]", tnp.hypot(T([0.0], f16), T([0.0004096031188964844], f16)))
show("  tnp.hypot(f16 0, -9.310245513916016e-05)  [9.31e-05, a normal f16]", tnp.hypot(T([0.0], f16), T([-9.310245513916016e-05], f16)))
show("  tnp.hypot(f32 0, 1e-30)  [1e-30]", tnp.hypot(T([0.0], f32), T([1e-30], f32)))

print("== 9. round of int64/uint64 goes through float64")
show("  tnp.round(int64 4611686018427387903)", tnp.round(T([4611686018427387903], np.int64)))
show("  tnp.round(int64 9223372036854775806)", tnp.round(T([9223372036854775806], np.int64)))
show("  tnp.round(uint64 18446744073709551614)", tnp.round(T([18446744073709551614], np.uint64)))

print("== 10. subnormals compared as zero (DAZ) but returned as they are")
show("  tnp.sign(f32 [1.4e-45, -9.918e-39, -1.0])  [sign: 1, -1, -1]", tnp.sign(T([1.4e-45, -9.918e-39, -1.0], f32)))
show("  tnp.sign(f32 -9.918e-39) on one element", tnp.sign(T([-9.918e-39], f32, 1)))
show("  tnp.sign(f64 5e-324)", tnp.sign(T([5e-324], f64)))
show("  tnp.sign(bf16 0x0001 = 9.18e-41)", tnp.sign(T(bits([0x0001], bf16), bf16)))
hexs("  tnp.maximum(bf16 -1.1663108e-38, 1.1663108e-38)  [1.1663108e-38]", tnp.maximum(T(bits([0x807f], bf16), bf16), T(bits([0x007f], bf16), bf16)), bf16)
hexs("  tnp.maximum(bf16 -1.8367e-40, -0.)  [-0]", tnp.maximum(T(bits([0x8002], bf16), bf16), T([-0.0], bf16)), bf16)
hexs("  tnp.minimum(bf16 -1.8367e-40, -9.459e-39)  [-9.459e-39]", tnp.minimum(T(bits([0x8002], bf16), bf16), T(bits([0x8067], bf16), bf16)), bf16)
hexs("  tnp.clip(bf16 1.1663108e-38, -1.1846779e-38, 1.8367e-40)  [1.8367e-40]",
     tnp.clip(T(bits([0x007f], bf16), bf16), T(bits([0x8081], bf16), bf16), T(bits([0x0002], bf16), bf16)), bf16)
print("  maximum/minimum of bfloat16 at the tail of a 53-, 55- or 511-element call (past the vectorised blocks):")
for n in (53, 55, 511):
    a = np.resize(bits([0xbf00], bf16), n); b = a.copy()
    a[-1], b[-1] = bits([0x807f], bf16)[0], bits([0x007f], bf16)[0]
    mx, mn = np.asarray(tnp.maximum(tnp.asarray(a), tnp.asarray(b))), np.asarray(tnp.minimum(tnp.asarray(b), tnp.asarray(a)))
    print(f"   n={n}: maximum(-1.1663108e-38, 1.1663108e-38) = {mx[-1]!r} [1.1663108e-38]; minimum(1.1663108e-38, -1.1663108e-38) = {mn[-1]!r} [-1.1663108e-38]")
    x, lo, hi = np.resize(bits([0x3f00], bf16), n), np.resize(bits([0xbf80], bf16), n), np.resize(bits([0x3f80], bf16), n)
    x[-1], lo[-1], hi[-1] = bits([0x007f], bf16)[0], bits([0x8081], bf16)[0], bits([0x0002], bf16)[0]
    c = np.asarray(tnp.clip(tnp.asarray(x), tnp.asarray(lo), tnp.asarray(hi)))
    print(f"   n={n}: clip(1.1663108e-38, -1.1846779e-38, 1.8367099e-40) = {c[-1]!r} [1.8367099e-40]")
show("  tnp.nextafter(f32 0, 2.8e-45)  [1.4e-45]", tnp.nextafter(T([0.0], f32), T([2.8e-45], f32)))
show("  tnp.nextafter(f32 3.3846164e-39, 2.9651658e-39)  [3.384615e-39]", tnp.nextafter(T([3.3846164367176966e-39], f32), T([2.965165767391349e-39], f32)))
show("  tnp.nextafter(f64 0, 1e-323)  [5e-324]", tnp.nextafter(T([0.0], f64), T([1e-323], f64)))
show("  tnp.remainder(f32 1.469368e-39, -inf)  [remainder: positive finite, -inf -> -inf]", tnp.remainder(T([1.4693679385278594e-39], f32), T([-np.inf], f32)))
show("  tnp.remainder(f64 -2e-310, inf)  [negative finite, +inf -> +inf]", tnp.remainder(T([-2e-310], f64), T([np.inf], f64)))
show("  tnp.remainder(f32 5., -inf)  (a normal x1: -inf, as the standard says)", tnp.remainder(T([5.0], f32), T([-np.inf], f32)))
show("  tnp.arctan2(f32 0, 1.4e-45)  [atan2: +0, positive -> +0]", tnp.arctan2(T([0.0], f32), T([1.4e-45], f32)))
show("  tnp.arctan2(f32 -0., 2.8e-45)  [-0 , positive -> -0]", tnp.arctan2(T([-0.0], f32), T([2.8e-45], f32)))
show("  tnp.arctan2(f64 0, 5e-324)  [+0]", tnp.arctan2(T([0.0], f64), T([5e-324], f64)))
show("  tnp.arctan2(bf16 9.18e-41, 9.18e-41)  [pi/4 = 0.785]", tnp.arctan2(T(bits([0x0001], bf16), bf16), T(bits([0x0001], bf16), bf16)))
show("  tnp.arctan2(f32 -9.4751766e-39, -8.3993059e-39)  [-2.296]", tnp.arctan2(T([-9.475176641806687e-39], f32), T([-8.399305923747416e-39], f32)))

print("== 11. reciprocal on 1024 elements is not correctly rounded (on one element it is)")
for label, v, dt in (("f32 1.1754949e-38 (0x00800004) [exact 8.507055e37 = 0x7e7ffff8]", bits([0x00800004], f32), f32),
                     ("bf16 8.0318342e33 (0x77c6) [correctly rounded 0x0725]", bits([0x77c6], bf16), bf16),
                     ("bf16 6.9771489e33 (0x77ac) [correctly rounded 0x073f]", bits([0x77ac], bf16), bf16)):
    hexs(f"  tnp.reciprocal({label}), 1024 elements", tnp.reciprocal(T(v, dt)), dt)
    hexs(f"  tnp.reciprocal({label}), 1 element", tnp.reciprocal(T(v, dt, 1)), dt)
    print("   exact 1/x:", 1.0 / float(v[0]), " correctly rounded:", hex(int(np.array([1.0 / float(v[0])]).astype(dt).view(np.uint16 if dt is bf16 else np.uint32)[0])))

print("== 12. subnormals flushed in operands and results (x86 DAZ/FTZ), f16/bf16/f32/f64")
show("  tnp.add(f32 0, 1e-45)", tnp.add(T([0.0], f32), T([1e-45], f32)))
show("  tnp.add(f64 0, 5e-324)", tnp.add(T([0.0], f64), T([5e-324], f64)))
show("  tnp.add(f16 0, 6e-08)", tnp.add(T([0.0], f16), T([6e-08], f16)))
show("  tnp.add(bf16 -0, 5.14e-39)", tnp.add(T([-0.0], bf16), T(bits([0x0038], bf16), bf16)))
show("  tnp.multiply(f32 1e-20, 1e-20)  [1e-40]", tnp.multiply(T([1e-20], f32), T([1e-20], f32)))
show("  tnp.equal(f32 0, 1e-45)", tnp.equal(T([0.0], f32), T([1e-45], f32)))
show("  tnp.divide(f32 0, 7.4e-40)  [+0]", tnp.divide(T([0.0], f32), T([7.4e-40], f32)))
show("  tnp.log(f32 -5.5e-39)  [NaN]", tnp.log(T([-5.5e-39], f32)))

print("== 13. complex")
c64, c128 = np.complex64, np.complex128
show("  tnp.expm1(c64 inf+0j)  [expm1: +infinity + 0j]", tnp.expm1(T([complex(np.inf, 0)], c64)))
show("  tnp.expm1(c128 -inf+infj)  [-1 + 0j]", tnp.expm1(T([complex(-np.inf, np.inf)], c128)))
show("  tnp.expm1(c64 NaN+0j)  [NaN + 0j]", tnp.expm1(T([complex(np.nan, 0)], c64)))
show("  tnp.log1p(c64 -1+0j)  [log1p: -infinity + 0j]", tnp.log1p(T([complex(-1, 0)], c64)))
show("  tnp.log1p(c128 inf+1e29j)  [+infinity + 0j]", tnp.log1p(T([complex(np.inf, 2.9e29)], c128)))
show("  tnp.abs(c64 inf+NaNj)  [abs: +infinity]", tnp.abs(T([complex(np.inf, np.nan)], c64)))
show("  tnp.abs(c128 NaN+infj)  [+infinity]", tnp.abs(T([complex(np.nan, np.inf)], c128)))
show("  tnp.sqrt(c64 NaN-infj)  [sqrt: NaN + NaN j ... see the row]", tnp.sqrt(T([complex(np.nan, -np.inf)], c64)))
show("  tnp.multiply(c64 (NaN+1j), f32 2.0)  [table: NaN + 2j]", tnp.multiply(T([complex(np.nan, 1)], c64), T([2.0], f32)))
show("  tnp.add(f32 1.0, c64 2-0j)  [table: 3 - 0j]", tnp.add(T([1.0], f32), T([complex(2, -0.0)], c64)))
print("   imag sign bit:", np.signbit(np.asarray(tnp.add(T([1.0], f32), T([complex(2, -0.0)], c64))).imag[:1]))
show("  tnp.divide(c64 (NaN+1j), f32 2.0)  [table: NaN + 0.5j]", tnp.divide(T([complex(np.nan, 1)], c64), T([2.0], f32)))
show("  tnp.cosh(c64 NaN+1j)  [cosh: NaN + NaN j]", tnp.cosh(T([complex(np.nan, 1)], c64)))
show("  tnp.cosh(c64 inf+1j)  [inf*cis(1) = inf + inf j]", tnp.cosh(T([complex(np.inf, 1)], c64)))
show("  tnp.sinh(c64 1+NaNj)  [sinh: NaN + NaN j]", tnp.sinh(T([complex(1, np.nan)], c64)))
show("  tnp.tanh(c64 inf+5.8e37j)  [tanh: 1 + 0j (sin(2b) of sign +)]", tnp.tanh(T([complex(np.inf, 5.783278e37)], c64)))
print("   imag sign bit:", np.signbit(np.asarray(tnp.tanh(T([complex(np.inf, 5.783278e37)], c64))).imag[:1]), " sin(2b) =", np.sin(2 * np.float64(np.float32(5.783278e37))))
show("  tnp.exp(c64 inf-9.8e-39j)  [exp: inf*cis(b)]", tnp.exp(T([complex(np.inf, -9.78483697775165e-39)], c64)))
show("  tnp.exp(c128 inf+1j)  [inf*cis(1)]", tnp.exp(T([complex(np.inf, 1)], c128)))
show("  tnp.arccos(c64 1+NaNj)  [acos: NaN + NaN j]", tnp.arccos(T([complex(1, np.nan)], c64)))
show("  tnp.arctanh(c64 1+NaNj)  [atanh: NaN + NaN j]", tnp.arctanh(T([complex(1, np.nan)], c64)))

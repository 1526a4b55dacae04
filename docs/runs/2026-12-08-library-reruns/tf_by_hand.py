# TensorFlow 2.21.0 (tensorflow-cpu, tf.experimental.numpy with numpy behaviour; NumPy 2.4.6): the
# behaviours behind the must failures of the 2026-12-08 rerun that are not known deviations, reproduced
# in TensorFlow itself. Run: ~/.cache/opspec-peers/tensorflow/bin/python tf_by_hand.py
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp
tnp.experimental_enable_numpy_behavior()

def show(label, fn, n=1024):
    try:
        r = np.asarray(fn())
        first = r.reshape(-1)[:1]
        bits = f" bits {first.view(f'u{first.itemsize}')[0]:#x}" if first.dtype.kind == "f" else ""
        print(f"{label}: {first!r}{bits} shape={r.shape} dtype={r.dtype}")
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0][:170]}")

def A(v, dt, n=1024):
    return tnp.asarray(np.resize(np.array(v, dtype=dt), n))

print("tensorflow", tf.__version__)
print("== unsigned integers: abs, negative, sign, pow raise InvalidArgumentError (the worker does not read it as a refusal)")
show("tnp.abs(uint8 [1, 2])", lambda: tnp.abs(tnp.asarray(np.array([1, 2], np.uint8))))
show("tnp.negative(uint16 [1, 2])", lambda: tnp.negative(tnp.asarray(np.array([1, 2], np.uint16))))
show("tnp.power(uint32 [1, 2], same)", lambda: tnp.power(tnp.asarray(np.array([1, 2], np.uint32)), tnp.asarray(np.array([1, 2], np.uint32))))
print("== nextafter of float16 and bfloat16, isnan/isfinite of complex: InvalidArgumentError")
show("tnp.nextafter(float16 [1, 2], same)", lambda: tnp.nextafter(tnp.asarray(np.array([1, 2], np.float16)), tnp.asarray(np.array([1, 2], np.float16))))
show("tnp.isnan(complex64 [1+1j])", lambda: tnp.isnan(tnp.asarray(np.array([1 + 1j], np.complex64))))
show("tnp.isfinite(complex128 [1+1j])", lambda: tnp.isfinite(tnp.asarray(np.array([1 + 1j], np.complex128))))
print("== atan2 with a subnormal operand and a zero (pi/2 or pi; read as zero it would be +-0 or pi: TF gives pi/4 or 3pi/4)")
show("tnp.arctan2(float32 7.236716e-39, +0)", lambda: tnp.arctan2(A(7.236715850223403e-39, np.float32), A(0.0, np.float32)))
show("tnp.arctan2(float32 +0, -2.8e-45)", lambda: tnp.arctan2(A(0.0, np.float32), A(-2.802596928649634e-45, np.float32)))
show("tnp.arctan2(float64 2.094352e-308, +0)", lambda: tnp.arctan2(A(2.094352074585346e-308, np.float64), A(0.0, np.float64)))
print("== float32 floor_divide of a small and a huge operand of opposite signs (floor is -1)")
show("tnp.floor_divide(float32 -2.1772237e-05, 4.6285394e36)", lambda: tnp.floor_divide(A(-2.1772237232653424e-5, np.float32), A(4.628539360785078e36, np.float32)))
print("== isinf of integers: one 0-d False (tf.yaml's entry; the check now reads it as a shape failure)")
show("tnp.isinf(int8 [1, 2, 3])", lambda: tnp.isinf(tnp.asarray(np.array([1, 2, 3], np.int8))))
print("== complex operands with a subnormal part: TF reads the part as zero (daz)")
show("tnp.abs(complex64 -0 + 6.2415179e-39j)  [abs(b)]", lambda: tnp.abs(A(complex(-0.0, 6.24151788475531e-39), np.complex64)))
show("tnp.arccos(complex64 1.4e-45 + NaN j)  [NaN + NaN j; pi/2 + NaN j for a = 0]", lambda: tnp.arccos(A(complex(1.401298464324817e-45, np.nan), np.complex64)))

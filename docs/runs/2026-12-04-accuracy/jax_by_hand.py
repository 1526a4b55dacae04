"""JAX's f32 results where the exhaustive sweep found its largest errors (not subnormal), against
float64 NumPy rounded to float32, in ULPs of the float32 result."""
import struct
import jax
import jax.numpy as jnp
import numpy as np

cases = [("acosh", 0x3F8AFEC5), ("tanh", 0x40A40883), ("expm1", 0x3CFBE6A8), ("cosh", 0x42867876),
         ("log10", 0x3FAA55A0), ("log2", 0x3FB2F722), ("acos", 0x3F781EBD)]
print("jax", jax.__version__, "numpy", np.__version__, jax.devices())
for name, bits in cases:
    x = np.frombuffer(struct.pack("<I", bits), dtype=np.float32)
    got = np.asarray(getattr(jnp, name)(jnp.asarray(x)))[0]
    exact = getattr(np, name)(x.astype(np.float64))[0]
    ulp = float(np.spacing(np.float32(exact)))
    print(f"{name}({float(x[0])!r} = {bits:#010x}): jax {float(got)!r} "
          f"({struct.unpack('<I', got.tobytes())[0]:#010x}), float64 {exact!r}, "
          f"error {abs(float(got) - exact) / ulp:.2f} ULP")

# ndonnx 0.23.0 (onnx reference evaluator, no onnxruntime; NumPy 2.4.6): the behaviours behind the must
# failures of `opspec run --adapter 'ndonnx=python:module=ndonnx python=…' --suite array-api --no-tables`
# that are not known deviations (2026-12-08), reproduced in ndonnx itself.
# Run: ~/.cache/opspec-peers/ndonnx/bin/python ndonnx_by_hand.py
import inspect
import warnings
warnings.simplefilter("ignore")
import numpy as np
import ndonnx as nd

print("ndonnx", nd.__version__)
print("== stubs: the function exists and raises NotImplementedError() with no message, for every dtype")
for name in ["atan2", "copysign", "hypot", "nextafter", "signbit", "real", "conj"]:
    fn = getattr(nd, name)
    args = [nd.asarray(np.array([1.0, 2.0]))] * (2 if name in ("atan2", "copysign", "hypot", "nextafter") else 1)
    try:
        fn(*args)
        print(f"nd.{name}: returned")
    except NotImplementedError as e:
        print(f"nd.{name}(float64 [1, 2]): NotImplementedError({str(e)!r})")
print(inspect.getsource(nd.atan2))
print("== pow of uint64 with an exponent >= 2**63: no value (the graph casts uint64 to int64: a negative exponent)")
e = np.array([0, 1, 2, 3, 2**63, 2**64 - 1], np.uint64)
for x1, x2 in [(3, 2), (3, 2**63), (2, 2**64 - 1)]:
    try:
        r = nd.pow(nd.asarray(np.array([x1], np.uint64)), nd.asarray(np.array([x2], np.uint64)))
        print(f"nd.pow(uint64 {x1}, {x2}).unwrap_numpy() ->", r.unwrap_numpy())
    except Exception as ex:
        print(f"nd.pow(uint64 {x1}, {x2}).unwrap_numpy(): {type(ex).__name__}: {ex}")
r = nd.pow(nd.asarray(np.array([3], np.uint64)), nd.asarray(np.array([2**63], np.uint64)))
for how, f in [("numpy.from_dlpack", lambda: np.from_dlpack(r)), ("np.asarray", lambda: np.asarray(r))]:
    try:
        print(how, f())
    except Exception as ex:
        print(f"{how}: {type(ex).__name__}: {ex}")

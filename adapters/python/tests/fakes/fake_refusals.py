"""Dtype refusals in the words of real libraries, which the start-up probe must read as
unsupported, next to errors of the same libraries that are not refusals of the probed dtype
(their pairs stay supported, and their checks fail with the error). The messages are the
libraries' own (PaddlePaddle 3.3.1, TensorFlow 2.21.0, MegEngine 1.13.0;
docs/runs/2026-12-08-library-reruns):

- ``add`` of float16: PaddlePaddle's "kernel … is not registered. Selected wrong DataType
  `float16`";
- ``abs`` of uint8 and ``nextafter`` of float16: TensorFlow's "Value for attr 'T' of uint8
  (half) is not in the list of allowed values";
- ``negative`` of uint16: MegEngine's "bad dtype";
- ``multiply`` of uint16: MegEngine's "dtype promotion rule between different signedness is
  undefined", which refuses no dtype of the probe's;
- ``atan2`` of int8: TensorFlow's refusal of int64, a dtype the probe's operands do not have."""

from fakelib import build
from fake_take import NumPyArray


class InvalidArgumentError(Exception):
    """TensorFlow's (``tensorflow.errors.InvalidArgumentError``, an ``OpError``)."""


PADDLE_F16 = ("(NotFound) The kernel with key (CPU, Undefined(AnyLayout), float16) of kernel `add` is not registered. "
              "Selected wrong DataType `float16`. Paddle support following DataTypes: int16, float64, complex128, "
              "int32, uint8, float32, complex64, bool, int64, int8.\n  [Hint: Expected kernel_iter == "
              "iter->second.end() && kernel_key.backend() == Backend::CPU != true, but received kernel_iter == "
              "iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.] (at "
              "/paddle/paddle/phi/core/kernel_factory.cc:317)\n")
TF_ABS_U8 = ("Value for attr 'T' of uint8 is not in the list of allowed values: bfloat16, half, float, double, int8, "
             "int16, int32, int64\n\t; NodeDef: {{node Abs}}; Op<name=Abs; signature=x:T -> y:T; "
             "attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32, "
             "DT_INT64]> [Op:Abs] name: ")
TF_NEXTAFTER_F16 = ("Value for attr 'T' of half is not in the list of allowed values: double, float\n\t; NodeDef: "
                    "{{node NextAfter}}; Op<name=NextAfter; signature=x1:T, x2:T -> output:T; "
                    "attr=T:type,default=DT_FLOAT,allowed=[DT_DOUBLE, DT_FLOAT]> [Op:NextAfter] name: ")
TF_ATAN2_I64 = "Value for attr 'T' of int64 is not in the list of allowed values: bfloat16, half, float, double"
MEGENGINE_BAD_DTYPE = ("bad dtype\n\nbacktrace:\n/root/.cache/opspec-peers/megengine/lib/python3.10/site-packages/"
                       "megengine/core/lib/libmegengine_shared.so(_ZN3mgb13MegBrainErrorC1ERKSs+0x4a) "
                       "[0x7ffb0504686a]\n")
MEGENGINE_SIGNEDNESS = "dtype promotion rule between different signedness is undefined: Uint16 Int8"


def before(name, args):
    dtypes = {a._data.dtype.name for a in args if isinstance(a, NumPyArray)}
    if name == "add" and "float16" in dtypes:
        raise RuntimeError(PADDLE_F16)
    if name == "abs" and "uint8" in dtypes:
        raise InvalidArgumentError(TF_ABS_U8)
    if name == "nextafter" and "float16" in dtypes:
        raise InvalidArgumentError(TF_NEXTAFTER_F16)
    if name == "atan2" and "int8" in dtypes:
        raise InvalidArgumentError(TF_ATAN2_I64)
    if name == "negative" and "uint16" in dtypes:
        raise RuntimeError(MEGENGINE_BAD_DTYPE)
    if name == "multiply" and "uint16" in dtypes:
        raise RuntimeError(MEGENGINE_SIGNEDNESS)


build(globals(), NumPyArray, before=before)

"""The libraries opspec drives: one class per library, each calling the library's public API
as its users do. Operands reach a library as its own arrays, made from the host's bit patterns
through NumPy (the one format every library here accepts); results come back the same way."""

import importlib
import warnings

from .protocol import Refused

# The array API's dtype names; bfloat16 is not in the standard, but JAX, PyTorch, MLX and
# MindSpore name it so.
API_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool",
    "c64": "complex64", "c128": "complex128",
}
UNARY = (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil", "conj", "cos",
    "cosh", "exp", "expm1", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log1p", "log2",
    "log10", "logical_not", "negative", "positive", "real", "reciprocal", "round", "sign", "signbit",
    "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
)
BINARY = (
    "add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "atan2", "copysign",
    "floor_divide", "remainder", "hypot", "logaddexp", "nextafter",
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "logical_and", "logical_or", "logical_xor",
)
TERNARY = ("fused_mul_add", "fused_add_mul")
# Three-operand array API functions, called as the library's function of that name with the
# operands in order (``clip(x, min, max)``).
FUNCTIONS3 = ("clip",)
# The layout traits of docs/PROTOCOL.md ("Views"): how an operand with each reaches a library.
TRAITS = ("offset", "negative", "zero", "permuted", "gaps")


def version_of(module):
    return getattr(module, "__version__", "unknown")


class Host:
    """NumPy dtypes for opspec's, and NumPy arrays back to opspec dtype names."""

    def __init__(self):
        import numpy

        numpy.seterr(all="ignore")
        self.np = numpy
        self.dtypes = {n: numpy.dtype(a) for n, a in API_DTYPES.items() if n != "bf16"}
        try:
            import ml_dtypes

            self.dtypes["bf16"] = numpy.dtype(ml_dtypes.bfloat16)
            self.ml_dtypes = ml_dtypes.__version__
        except ImportError:
            self.ml_dtypes = None
        self.names = {d: n for n, d in self.dtypes.items()}

    def dtype(self, name):
        if name not in self.dtypes:
            raise Refused("unsupported", "bfloat16 needs ml_dtypes, which is not installed")
        return self.dtypes[name]

    def result(self, array):
        """(contiguous array, opspec dtype name) of a NumPy-convertible result."""
        array = self.np.asarray(array)
        if not array.flags.c_contiguous:
            array = array.copy(order="C")  # ascontiguousarray would make a 0-d array 1-d
        name = self.names.get(array.dtype)
        if name is None:
            raise Refused("other", f"the result's dtype {array.dtype} is not one the protocol carries")
        return array, name


class Backend:
    """A library whose functions are named as opspec's operations (the array API's names),
    taking arrays made from NumPy arrays and giving arrays NumPy can read."""

    has_out = False
    # opspec name -> the library's name, where they differ.
    renamed = {}
    # Layout trait -> "view" or "copy" (the hello's `views`): ``array`` gathers every view
    # that is not its whole buffer with ``take``.
    views = {t: "copy" for t in TRAITS}

    def __init__(self, host, name, module, options):
        self.host, self.name, self.np = host, name, host.np
        self.xp = importlib.import_module(module)
        self.module = module
        if options:
            raise SystemExit(f"opspec_worker: {name} takes no options, got {options}")

    def version(self):
        root = importlib.import_module(self.module.split(".")[0])
        return version_of(root)

    def function(self, op):
        attr = self.renamed.get(op, op)
        fn = getattr(self.xp, attr, None)
        if fn is None:
            raise Refused("unsupported", f"{self.module} has no {attr}")
        return fn

    def library_dtype(self, name):
        dtype = getattr(self.xp, API_DTYPES[name], None)
        if dtype is None:
            raise Refused("unsupported", f"{self.module} has no {API_DTYPES[name]}")
        return dtype

    def array(self, layout):
        """The layout as a library array: a whole buffer is converted; a view is gathered
        from the whole buffer with the library's own ``take`` (the array API has no strided
        views)."""
        want = self.library_dtype(layout.dtype)
        if layout.is_whole():
            x = self.xp.asarray(layout.flat.reshape(layout.shape))
        else:
            base = self.xp.asarray(layout.flat)
            index = self.xp.asarray(layout.positions(self.np).reshape(-1))
            x = self.xp.reshape(self.xp.take(base, index, axis=0), tuple(layout.shape))
        if x.dtype != want:
            raise Refused("unsupported", f"{self.module} stores {API_DTYPES[layout.dtype]} as {x.dtype}")
        return x

    def to_host(self, x):
        try:
            return self.host.result(self.np.asarray(x))
        except (TypeError, ValueError):
            return self.host.result(self.np.from_dlpack(x))

    def call(self, op, args):
        return self.function(op)(*args)

    def probe(self, fn, args):
        """What the hello probe runs: ``fn`` on small operands, its result read back."""
        return self.to_host(fn(*args))

    def call_out(self, op, args, out):
        raise Refused("unsupported", f"{self.module}'s functions take no out= argument")

    def fused(self, op):
        what = {"fused_mul_add": "fused multiply-add", "fused_add_mul": "fused add-multiply"}[op]
        raise Refused("unsupported", f"{self.module} has no {what}")

    def scatter_add(self, data, indices, updates, mode):
        raise Refused("unsupported", f"{self.module} has no scatter-add (the array API standard has none)")


class NumPy(Backend):
    """NumPy's ufuncs (np.add, np.pow, np.atan2, … as NumPy 2 names them), on strided views
    made with ``np.lib.stride_tricks.as_strided``; ``out=`` for the out form; ``np.add.at``
    as scatter-add."""

    has_out = True
    views = {t: "view" for t in TRAITS}

    def version(self):
        extra = f" (ml_dtypes {self.host.ml_dtypes})" if self.host.ml_dtypes else ""
        return version_of(self.xp) + extra

    def array(self, layout):
        return layout.numpy_view(self.np)

    def call_out(self, op, args, out):
        view = self.np.lib.stride_tricks.as_strided(
            out.flat.copy()[out.offset:], out.shape, [s * out.flat.itemsize for s in out.strides]
        )
        self.function(op)(*args, out=view)
        return view

    def scatter_add(self, data, indices, updates, mode):
        # np.add.at has no mode: out-of-range indices raise IndexError, negative ones wrap.
        result = data.copy()
        self.np.add.at(result, tuple(indices[..., j] for j in range(indices.shape[-1])), updates)
        return result


class Jax(Backend):
    """jax.numpy (jnp.add, jnp.atan2, …); views are gathered with jnp.take (JAX arrays have
    no strides); scatter-add is ``x.at[idx].add(updates, mode=…)``. ``x64=1`` turns on
    64-bit mode (``jax_enable_x64``); without it JAX keeps f64, i64 and u64 as 32-bit types,
    and those dtypes are reported unsupported."""

    MODES = {"ignore": "drop", "clip": "clip"}

    def __init__(self, host, name, module, options):
        x64 = options.pop("x64", "0")
        if x64 not in ("0", "1"):
            raise SystemExit(f"opspec_worker: jax: x64 is 0 or 1, got {x64}")
        import jax

        jax.config.update("jax_enable_x64", x64 == "1")
        jax.config.update("jax_platforms", options.pop("platform", "cpu"))
        self.jax, self.x64 = jax, x64 == "1"
        super().__init__(host, name, "jax.numpy", options)

    def version(self):
        import jaxlib

        device = self.jax.devices()[0].platform
        return f"{self.jax.__version__} (jaxlib {version_of(jaxlib)}, {device}, jax_enable_x64={int(self.x64)})"

    def probe(self, fn, args):
        # Tracing finds what JAX refuses without compiling each of several hundred probes.
        slots = [i for i, a in enumerate(args) if not isinstance(a, (int, float))]

        def traced(*tensors):
            full = list(args)
            for i, t in zip(slots, tensors):
                full[i] = t
            return fn(*full)

        result = self.jax.eval_shape(traced, *[args[i] for i in slots])
        return self.host.result(self.np.zeros(result.shape, result.dtype))

    def scatter_add(self, data, indices, updates, mode):
        if mode not in self.MODES:
            raise Refused("unsupported", "jax's .at[].add cannot raise on an out-of-range index")
        index = tuple(indices[..., j] for j in range(indices.shape[-1]))
        return data.at[index].add(updates, mode=self.MODES[mode])


class Torch(Backend):
    """torch functions (torch.add, torch.atan2, torch.eq, …) on views made with
    ``as_strided`` (and ``flip`` for negative strides, which torch views cannot have);
    Python operators for a scalar operand where torch's functions want a tensor first;
    ``out=``; ``torch.addcmul`` as fused multiply-add; ``index_put_(accumulate=True)`` as
    scatter-add."""

    has_out = True
    views = {**{t: "view" for t in TRAITS}, "negative": "copy"}
    renamed = {"equal": "eq", "not_equal": "ne", "greater": "gt", "greater_equal": "ge",
               "less": "lt", "less_equal": "le", "bitwise_invert": "bitwise_not",
               # torch.conj only sets a lazy conjugate bit, which .numpy() refuses.
               "conj": "conj_physical"}
    OPERATORS = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__",
                 "divide": "__truediv__", "pow": "__pow__", "floor_divide": "__floordiv__",
                 "remainder": "__mod__", "equal": "__eq__", "not_equal": "__ne__",
                 "greater": "__gt__", "greater_equal": "__ge__", "less": "__lt__",
                 "less_equal": "__le__"}

    def __init__(self, host, name, module, options):
        super().__init__(host, name, "torch", options)
        self.xp.set_num_threads(1)

    def array(self, layout):
        torch, flat = self.xp, layout.flat
        if layout.dtype == "bf16":
            base = torch.from_numpy(flat.view(self.np.int16).copy()).view(torch.bfloat16)
        else:
            base = torch.from_numpy(flat.copy())
        dims = [a for a, (d, s) in enumerate(zip(layout.shape, layout.strides)) if s < 0 and d > 1]
        start = layout.offset + sum((layout.shape[a] - 1) * layout.strides[a] for a in dims)
        view = base.as_strided(layout.shape, [abs(s) for s in layout.strides], start)
        return view.flip(dims) if dims else view

    def to_host(self, x):
        x = x.contiguous()
        if x.dtype == self.xp.bfloat16:
            return x.view(self.xp.int16).numpy().view(self.host.dtype("bf16")), "bf16"
        return self.host.result(x.numpy())

    def call(self, op, args):
        scalars = [not isinstance(a, self.xp.Tensor) for a in args]
        if any(scalars) and op in self.OPERATORS:
            a, b = args
            if scalars[0]:
                # `3 - x` is x.__rsub__(3).
                return getattr(b, "__r" + self.OPERATORS[op][2:])(a)
            return getattr(a, self.OPERATORS[op])(b)
        return self.function(op)(*args)

    def call_out(self, op, args, out):
        view = self.array(out)
        self.function(op)(*args, out=view)
        return view

    def fused(self, op):
        if op != "fused_mul_add":
            return super().fused(op)
        return lambda a, b, c: self.xp.addcmul(c, a, b)

    def scatter_add(self, data, indices, updates, mode):
        # index_put_ has no mode: out-of-range indices raise, negative ones wrap.
        index = tuple(indices[..., j] for j in range(indices.shape[-1]))
        return data.clone().index_put_(index, updates, accumulate=True)


class Mlx(Backend):
    """mlx.core (mx.add, mx.arctan2, …) on views made with ``mx.as_strided``; scatter-add is
    ``x.at[idx].add(updates)``."""

    renamed = {"pow": "power", "atan2": "arctan2", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin",
               "asinh": "arcsinh", "atan": "arctan", "atanh": "arctanh",
               "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift"}
    # mx.as_strided's handling of each trait is not documented: the hello does not say.
    views = {}

    def __init__(self, host, name, module, options):
        super().__init__(host, name, "mlx.core", options)

    def version(self):
        return version_of(self.xp)

    def array(self, layout):
        mx, flat = self.xp, layout.flat
        if layout.dtype == "bf16":
            base = mx.array(flat.view(self.np.uint16)).view(mx.bfloat16)
        else:
            # Without dtype=, mx.array makes float32 of a float64 array.
            base = mx.array(flat, dtype=self.library_dtype(layout.dtype))
        if layout.is_whole():
            return base.reshape(layout.shape)
        return mx.as_strided(base, layout.shape, layout.strides, layout.offset)

    def to_host(self, x):
        if x.dtype == self.xp.bfloat16:
            return self.np.array(x.view(self.xp.uint16)).view(self.host.dtype("bf16")), "bf16"
        return self.host.result(self.np.array(x))

    def scatter_add(self, data, indices, updates, mode):
        index = tuple(indices[..., j] for j in range(indices.shape[-1]))
        return data.at[index].add(updates)


class MindSpore(Backend):
    """mindspore.ops (ops.add, ops.atan2, ops.tensor_scatter_add, …) on tensors made from
    NumPy views (MindSpore copies them)."""

    renamed = {"subtract": "sub", "multiply": "mul", "divide": "div", "not_equal": "ne",
               "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le"}

    def __init__(self, host, name, module, options):
        import mindspore

        mindspore.set_context(device_target=options.pop("device", "CPU"))
        self.ms = mindspore
        super().__init__(host, name, "mindspore.ops", options)

    def version(self):
        return version_of(self.ms)

    def library_dtype(self, name):
        dtype = getattr(self.ms, API_DTYPES[name], None)
        if dtype is None:
            raise Refused("unsupported", f"mindspore has no {API_DTYPES[name]}")
        return dtype

    def array(self, layout):
        view = self.np.array(layout.numpy_view(self.np), order="C")  # keeps 0-d arrays 0-d
        if layout.dtype == "bf16":
            return self.ms.Tensor(view.astype(self.np.float32)).astype(self.ms.bfloat16)
        return self.ms.Tensor(view)

    def to_host(self, x):
        if x.dtype == self.ms.bfloat16:
            return self.host.result(x.astype(self.ms.float32).asnumpy().astype(self.host.dtype("bf16")))
        return self.host.result(x.asnumpy())

    def scatter_add(self, data, indices, updates, mode):
        # TensorScatterAdd skips out-of-range index vectors (its documented semantics).
        return self.xp.tensor_scatter_add(data, indices, updates)


BACKENDS = {
    "numpy": (NumPy, "numpy"),
    "array_api_strict": (Backend, "array_api_strict"),
    "jax": (Jax, "jax.numpy"),
    "torch": (Torch, "torch"),
    "mlx": (Mlx, "mlx.core"),
    "mindspore": (MindSpore, "mindspore.ops"),
}


def make(argv):
    """The backend ``argv`` names: ``NAME [KEY=VALUE ...]`` or ``module=PATH`` (any array-API
    namespace). Exits with a message on stderr when it cannot be had."""
    if not argv:
        raise SystemExit(f"opspec_worker: name a backend ({', '.join(BACKENDS)}) or module=PATH")
    options = dict(a.split("=", 1) for a in argv[1:] if "=" in a)
    if any("=" not in a for a in argv[1:]):
        raise SystemExit(f"opspec_worker: options are KEY=VALUE, got {argv[1:]}")
    warnings.simplefilter("ignore")
    try:
        host = Host()
    except ImportError as e:
        raise SystemExit(f"opspec_worker: cannot import numpy, which every backend needs: {e}") from e
    if argv[0].startswith("module="):
        module = argv[0].split("=", 1)[1]
        cls, name = Backend, module
    elif argv[0] in BACKENDS:
        cls, module = BACKENDS[argv[0]]
        name = argv[0]
    else:
        raise SystemExit(f"opspec_worker: unknown backend {argv[0]!r} ({', '.join(BACKENDS)}, or module=PATH)")
    try:
        return cls(host, name, module, options)
    except ImportError as e:
        raise SystemExit(f"opspec_worker: cannot import {module}: {e}") from e


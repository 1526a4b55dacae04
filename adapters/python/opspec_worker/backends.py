"""The libraries opspec drives: one class per library, each calling the library's public API
as its users do. Operands reach a library as its own arrays, made from the host's bit patterns
through NumPy (the one format every library here accepts); results come back the same way."""

import importlib
import os
import re
import sys

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


def describe(e):
    """``Type: first line of the message`` of an exception."""
    first = str(e).strip().splitlines()[0] if str(e).strip() else "(no message)"
    return f"{type(e).__name__}: {first[:300]}"


def type_name(x):
    """``module.Class`` of an object, as its users know the type (``ndonnx.Array``)."""
    cls = type(x)
    module = cls.__module__.split(".")[0]
    return f"{module}.{cls.__qualname__}" if module != "builtins" else cls.__qualname__


class Scaffolding(Exception):
    """A step of the adapter's own failed (building an operand, converting a result): the
    reply is an adapter error naming the step, never a failure of the operation."""

    def __init__(self, step, why):
        super().__init__(f"{step}: {why}")
        self.step, self.why = step, why


def resolve(path, option):
    """The object a dotted path names (``tensorflow.experimental.numpy.float32``): the
    longest importable module prefix, then attributes. Exits naming ``option`` if it cannot."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and name.startswith(e.name):
                continue
            raise SystemExit(f"opspec_worker: {option}={path}: importing {name} failed: {describe(e)}") from e
        except Exception as e:
            raise SystemExit(f"opspec_worker: {option}={path}: importing {name} failed: {describe(e)}") from e
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                raise SystemExit(f"opspec_worker: {option}={path}: {'.'.join(parts[:i])} has no {attr}")
            obj = getattr(obj, attr)
        return obj
    raise SystemExit(f"opspec_worker: {option}={path}: no module {parts[0]} (is it installed in this "
                     "interpreter, or on path=?)")


def pairs(option, value):
    """``A:B,C:D`` as {A: B, C: D}; exits on anything else."""
    if not value:
        return {}
    out = {}
    for item in value.split(","):
        key, sep, val = item.partition(":")
        if not (sep and key and val):
            raise SystemExit(f"opspec_worker: {option}= takes OPSPEC_NAME:LIBRARY_NAME pairs separated by commas "
                             f"({option}=pow:power,atan2:arctan2), got {item!r}")
        out[key] = val
    return out


def load_binding(spec):
    """A binding module (docs/PLUGGING_IN.md): a ``.py`` file's path or an importable name."""
    if spec.endswith(".py"):
        import importlib.util
        import os

        path = os.path.abspath(spec)
        if not os.path.isfile(path):
            raise SystemExit(f"opspec_worker: binding={spec}: no such file ({path})")
        name = "opspec_binding_" + os.path.splitext(os.path.basename(path))[0]
        loader = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(loader)
        try:
            loader.loader.exec_module(module)
        except Exception as e:
            raise SystemExit(f"opspec_worker: binding={spec}: running it failed: {describe(e)}") from e
        return module
    try:
        return importlib.import_module(spec)
    except Exception as e:
        raise SystemExit(f"opspec_worker: binding={spec}: cannot import it: {describe(e)}") from e


class Host:
    """NumPy dtypes for opspec's, and NumPy arrays back to opspec dtype names."""

    def __init__(self):
        import numpy

        # NumPy's floating-point warnings (divide by zero, overflow, invalid) are the IEEE
        # flags of the special cases every suite feeds on purpose, not news about the library.
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
        """(contiguous array, opspec dtype name) of a NumPy result."""
        array = self.np.asarray(array)
        if array.dtype == object:
            raise Scaffolding("converting the result", "it became a NumPy object array (the library's "
                              "array is not readable as numbers)")
        if not array.flags.c_contiguous:
            array = array.copy(order="C")  # ascontiguousarray would make a 0-d array 1-d
        name = self.names.get(array.dtype)
        if name is None:
            raise Refused("other", f"the result's dtype {array.dtype} is not one the protocol carries")
        return array, name


class Backend:
    """A library whose functions are named as opspec's operations (the array API's names),
    taking arrays made from NumPy arrays and giving arrays NumPy can read. Options
    (``docs/PLUGGING_IN.md``) and a binding module say where a library differs."""

    has_out = False
    # opspec name -> the library's name, where they differ.
    renamed = {}
    # Layout trait -> "view" or "copy" (the hello's `views`). The array API has no strided
    # views: a view is laid out by NumPy (``as_strided`` over the buffer, then a contiguous
    # copy) and that copy is what the library gets. Not the library's own ``take``: a gather
    # is a second operation under test (dask's take mis-shapes one-element index arrays), and
    # a bug in it would be blamed on ``add``.
    views = {t: "copy" for t in TRAITS}
    # The options this backend takes besides path= and setup= (which make() handles).
    OPTIONS = ("names", "dtypes", "asarray", "export", "binding", "device")
    # Methods that libraries document for handing out a NumPy array, tried in order when a
    # result has neither __dlpack__ nor __array__.
    EXPORTS = ("unwrap_numpy", "numpy", "asnumpy", "to_numpy", "get")

    def __init__(self, host, name, module, options):
        self.host, self.name, self.np = host, name, host.np
        self.module = module
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            takes = ", ".join(f"{o}=" for o in self.OPTIONS + ("path", "setup"))
            raise SystemExit(f"opspec_worker: {name} takes {takes}; not {', '.join(unknown)} "
                             f"(docs/PLUGGING_IN.md lists the options)")
        self.xp = importlib.import_module(module)
        b = load_binding(options["binding"]) if "binding" in options else None
        self.binding = b
        self.renamed = {**self.renamed, **dict(getattr(b, "names", {})), **pairs("names", options.get("names"))}
        self.functions = dict(getattr(b, "functions", {}))
        self.errors = dict(getattr(b, "errors", {}))
        bound = getattr(b, "dtypes", {})
        self.numpy_dtypes = options.get("dtypes", bound) == "numpy"
        named = {} if options.get("dtypes") == "numpy" else pairs("dtypes", options.get("dtypes"))
        self.dtype_map = dict(bound) if isinstance(bound, dict) else {}
        for api, lib in named.items():
            if api not in API_DTYPES.values():
                raise SystemExit(f"opspec_worker: dtypes={options['dtypes']}: {api} is not an array API dtype name "
                                 f"({', '.join(API_DTYPES.values())})")
            self.dtype_map[api] = resolve(lib, "dtypes") if "." in lib else self.attribute(lib, "dtypes")
        if "asarray" in options:
            self.make_array, self.make_name = resolve(options["asarray"], "asarray"), options["asarray"]
        elif hasattr(b, "asarray"):
            self.make_array, self.make_name = b.asarray, f"the binding's asarray"
        else:
            self.make_array, self.make_name = self.default_asarray()
        if self.make_array is None:
            raise SystemExit(f"opspec_worker: {module} has no asarray to make its arrays from NumPy arrays: pass "
                             f"asarray=DOTTED.PATH (a function taking a NumPy array, e.g. asarray=megengine.Tensor) "
                             f"or a binding module with asarray(array) (docs/PLUGGING_IN.md)")
        self.export_fn, self.export_name = None, None
        if hasattr(b, "to_numpy"):
            self.export_fn, self.export_name = b.to_numpy, "the binding's to_numpy"
        if "export" in options:
            method = options["export"]
            if "." in method:
                self.export_fn, self.export_name = resolve(method, "export"), method
            else:
                self.export_fn, self.export_name = (lambda x: getattr(x, method)()), f"the result's {method}()"
        self.device = self.find_device(options["device"]) if "device" in options else None

    def devices(self):
        """The namespace's devices, from the array API's inspection API, or None without it."""
        info = getattr(self.xp, "__array_namespace_info__", None)
        return None if info is None else [d for d in info().devices() if d is not None]

    def find_device(self, name):
        """The device ``device=NAME`` names among ``__array_namespace_info__().devices()``: the
        one whose text is NAME or holds NAME as a whole word (``device1`` in
        ``array_api_strict.Device('device1')``), or the NAME-th. Exits listing them otherwise."""
        devices = self.devices()
        if devices is None:
            raise SystemExit(f"opspec_worker: device={name}: {self.module} has no __array_namespace_info__ "
                             f"(the array API's inspection API) to list its devices; a binding module's "
                             f"asarray(array) can place operands instead (docs/PLUGGING_IN.md)")
        if name.isdigit() and int(name) < len(devices):
            return devices[int(name)]
        word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        found = [d for d in devices if name in (str(d), repr(d))] or [d for d in devices if word.search(str(d))]
        if len(found) == 1:
            return found[0]
        listing = "; ".join(f"{i}: {d}" for i, d in enumerate(devices))
        raise SystemExit(f"opspec_worker: device={name} names {'several' if found else 'none'} of "
                         f"{self.module}'s devices ({listing}); give its text or its number")

    def host_devices(self):
        """What ``to_device`` is given to bring a result to the host: ``"cpu"``, then the
        namespace's devices whose text says CPU."""
        return ["cpu"] + [d for d in self.devices() or [] if "cpu" in str(d).lower()]

    def default_asarray(self):
        """(function, its name) that makes an operand from a NumPy array without options."""
        return getattr(self.xp, "asarray", None), f"{self.module}.asarray"

    def attribute(self, attr, option):
        if not hasattr(self.xp, attr):
            raise SystemExit(f"opspec_worker: {option}=…:{attr}: {self.module} has no {attr} (give a dotted path "
                             f"for an attribute of another module)")
        return getattr(self.xp, attr)

    def version(self):
        if self.binding is not None and hasattr(self.binding, "version"):
            v = self.binding.version
            return str(v() if callable(v) else v) + self.on()
        root = importlib.import_module(self.module.split(".")[0])
        return version_of(root) + self.on()

    def on(self):
        """`` on DEVICE`` for the version text when ``device=`` was given."""
        return "" if self.device is None else f" on {self.device}"

    def function(self, op):
        if op in self.functions:
            return self.functions[op]
        attr = self.renamed.get(op, op)
        fn = getattr(self.xp, attr, None)
        if fn is None:
            what = f"{self.module} has no {attr}" + (f" (opspec's {op})" if attr != op else "")
            if "names" in self.OPTIONS:
                what += f"; if the library has it under another name, pass names={op}:ITS_NAME"
            raise Refused("unsupported", what)
        return fn

    def library_dtype(self, name):
        api = API_DTYPES[name]
        if api in self.dtype_map:
            return self.dtype_map[api]
        if self.numpy_dtypes:
            return self.host.dtype(name)
        dtype = getattr(self.xp, api, None)
        if dtype is None:
            what = f"no dtype {api}: looked for {self.module}.{api}"
            if "dtypes" in self.OPTIONS:
                what += (f"; if the library names it otherwise pass dtypes={api}:NAME (or a dotted path), "
                         f"or dtypes=numpy if it takes NumPy's dtypes")
            raise Refused("unsupported", what)
        return dtype

    def same_dtype(self, x, want):
        try:
            return bool(x.dtype == want)
        except Exception:
            return False

    def array(self, layout):
        """The layout as a library array, made by ``make_array`` from a NumPy array: the
        whole buffer as it is, a view laid out anew by NumPy (see ``views``)."""
        want = self.library_dtype(layout.dtype)
        host = layout.numpy_view(self.np)
        if not layout.is_whole():
            host = self.np.array(host, order="C")  # keeps 0-d arrays 0-d
        try:
            x = self.make_array(host) if self.device is None else self.on_device(host)
        except Exception as e:
            where = "" if self.device is None else f" on {self.device}"
            raise Scaffolding(f"building an operand ({layout.describe()}) with {self.make_name}{where}",
                              describe(e)) from e
        if not self.same_dtype(x, want):
            got = getattr(x, "dtype", type_name(x))
            raise Refused("unsupported", f"{self.module} stores {API_DTYPES[layout.dtype]} as {got} "
                          f"(an operand made with {self.make_name})")
        return x

    def on_device(self, host):
        """An operand on ``device=``'s device: the standard's ``asarray(x, device=…)``, or the
        array ``asarray=`` or a binding made, moved with the standard's ``to_device``."""
        if self.make_name == f"{self.module}.asarray":
            return self.make_array(host, device=self.device)
        return self.make_array(host).to_device(self.device)

    def export(self, x):
        """A NumPy array of a library result: the export the options or binding name, else
        DLPack (the standard's ``from_dlpack``), ``__array__``, the methods of ``EXPORTS``,
        then ``to_device("cpu")`` and those again. Never a silent object array."""
        np = self.np
        if isinstance(x, (np.ndarray, np.generic, bool, int, float, complex)):
            return np.asarray(x)
        if self.export_fn is not None:
            try:
                out = np.asarray(self.export_fn(x))
            except Exception as e:
                raise Scaffolding(f"converting the result ({type_name(x)}) with {self.export_name}", describe(e)) from e
            if out.dtype == object:
                raise Scaffolding(f"converting the result ({type_name(x)}) with {self.export_name}",
                                  "it gave an object array")
            return out
        tried, absent = [], []

        def attempt(label, get):
            try:
                out = get()
            except Exception as e:
                tried.append(f"{label}: {describe(e)}")
                return None
            if not isinstance(out, (np.ndarray, np.generic)) or out.dtype == object:
                tried.append(f"{label}: gave {type_name(out)}"
                             + (" of objects" if isinstance(out, np.ndarray) else ""))
                return None
            return out

        def standard(y, where=""):
            for attr, label, get in (("__dlpack__", "numpy.from_dlpack", lambda: np.from_dlpack(y)),
                                     ("__array__", "numpy.asarray", lambda: np.asarray(y))):
                if hasattr(y, attr):
                    out = attempt(label + where, get)
                    if out is not None:
                        return out
                elif not where:
                    absent.append(attr)
            return None

        out = standard(x)
        if out is not None:
            return out
        for method in self.EXPORTS:
            if callable(getattr(x, method, None)):
                out = attempt(f"{method}()", getattr(x, method))
                if out is not None:
                    return out
        if callable(getattr(x, "to_device", None)):
            for target in self.host_devices():
                try:
                    moved = x.to_device(target)
                except Exception as e:
                    tried.append(f"to_device({target!r}): {describe(e)}")
                    continue
                out = standard(moved, f" after to_device({target!r})")
                if out is not None:
                    return out
        looked = absent + [f"{m}()" for m in self.EXPORTS if not hasattr(x, m)]
        looked += [] if hasattr(x, "to_device") else ["to_device('cpu')"]
        supply = ("name the method that gives a NumPy array with export=METHOD (or a function: export=DOTTED.PATH), "
                  "or write a binding module with to_numpy(x) (docs/PLUGGING_IN.md)")
        if tried:
            # The library's own exports exist and failed on this result: say so first.
            raise Scaffolding("converting the result",
                              f"every export of {type_name(x)} this result has failed: {'; '.join(tried)}"
                              + (f" (it has no {', '.join(looked)})" if looked else "")
                              + f"; if another one works, {supply}")
        raise Scaffolding("converting the result",
                          f"results of type {type_name(x)} have neither {' nor '.join(looked)}; {supply}")

    def to_host(self, x):
        return self.host.result(self.export(x))

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

    OPTIONS = ()

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
    """jax.numpy (jnp.add, jnp.atan2, …); views are laid out by NumPy (JAX arrays have no
    strides); scatter-add is ``x.at[idx].add(updates, mode=…)``. ``x64=1`` turns on 64-bit
    mode (``jax_enable_x64``); without it JAX keeps f64, i64 and u64 as 32-bit types, and
    those dtypes are reported unsupported. ``device=cuda:0`` (a JAX device's text) puts the
    operands there, and starts JAX with that platform unless ``platform=`` says otherwise."""

    OPTIONS = ("device",)

    MODES = {"ignore": "drop", "clip": "clip"}

    def __init__(self, host, name, module, options):
        x64 = options.pop("x64", "0")
        if x64 not in ("0", "1"):
            raise SystemExit(f"opspec_worker: jax: x64 is 0 or 1, got {x64}")
        import jax

        jax.config.update("jax_enable_x64", x64 == "1")
        kind = options.get("device", "cpu").split(":")[0]  # device=cuda:0 starts JAX's cuda platform
        jax.config.update("jax_platforms", options.pop("platform", "cpu" if kind.isdigit() else kind))
        self.jax, self.x64 = jax, x64 == "1"
        super().__init__(host, name, "jax.numpy", options)

    def version(self):
        import jaxlib

        device = self.device or self.jax.devices()[0]
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
    scatter-add. ``device=cuda:0`` (any ``torch.device`` text) moves each operand's buffer
    there before the view is made, and results back with ``.cpu()``."""

    OPTIONS = ("device",)

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

    def find_device(self, name):
        try:
            return self.xp.device(name)
        except Exception as e:
            raise SystemExit(f"opspec_worker: device={name}: not a torch.device: {describe(e)}") from e

    def __init__(self, host, name, module, options):
        super().__init__(host, name, "torch", options)
        self.xp.set_num_threads(1)

    def version(self):
        return version_of(self.xp) + self.on()

    def array(self, layout):
        torch, flat = self.xp, layout.flat
        if layout.dtype == "bf16":
            base = torch.from_numpy(flat.view(self.np.int16).copy()).view(torch.bfloat16)
        else:
            base = torch.from_numpy(flat.copy())
        if self.device is not None:
            try:
                base = base.to(self.device)
            except Exception as e:
                raise Scaffolding(f"moving an operand ({layout.describe()}) to {self.device}", describe(e)) from e
        dims = [a for a, (d, s) in enumerate(zip(layout.shape, layout.strides)) if s < 0 and d > 1]
        start = layout.offset + sum((layout.shape[a] - 1) * layout.strides[a] for a in dims)
        view = base.as_strided(layout.shape, [abs(s) for s in layout.strides], start)
        return view.flip(dims) if dims else view

    def to_host(self, x):
        x = x.contiguous().cpu()
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
    ``x.at[idx].add(updates)``. ``device=cpu`` or ``device=gpu[:N]`` is MLX's default device
    (``mx.set_default_device``), where its operations run."""

    OPTIONS = ("device",)

    renamed = {"pow": "power", "atan2": "arctan2", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin",
               "asinh": "arcsinh", "atan": "arctan", "atanh": "arctanh",
               "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift"}
    # mx.as_strided's handling of each trait is not documented: the hello does not say.
    views = {}

    def __init__(self, host, name, module, options):
        super().__init__(host, name, "mlx.core", options)
        if self.device is not None:
            self.xp.set_default_device(self.device)

    def default_asarray(self):
        return self.xp.array, "mlx.core.array"

    def find_device(self, name):
        kind, _, index = name.partition(":")
        if kind not in ("cpu", "gpu") or not (index.isdigit() or index == ""):
            raise SystemExit(f"opspec_worker: device={name}: MLX's devices are cpu and gpu[:N]")
        return self.xp.Device(getattr(self.xp, kind), int(index or 0))

    def version(self):
        return version_of(self.xp) + self.on()

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

    OPTIONS = ()

    renamed = {"subtract": "sub", "multiply": "mul", "divide": "div", "not_equal": "ne",
               "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le"}

    def __init__(self, host, name, module, options):
        import mindspore

        mindspore.set_context(device_target=options.pop("device", "CPU"))
        self.ms = mindspore
        super().__init__(host, name, "mindspore.ops", options)

    def default_asarray(self):
        return self.ms.Tensor, "mindspore.Tensor"

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


class MegEngine(Backend):
    """megengine.functional as its users call it (``F.add``, ``F.mul``, ``F.sub``, ``F.div``,
    ``F.floor_div``, ``F.mod``, ``F.neg``, ``F.pow``, …) on ``megengine.Tensor``s made from
    NumPy arrays, with Python scalars as they are; MegEngine has no dtype objects of its own
    and takes NumPy's; results come back by ``Tensor.numpy()``. A dtype MegEngine does not
    store (float64 and the 64-bit integers become 32-bit) is reported unsupported, naming what
    it became. MegEngine runs at ``async_level`` 0 (its own advice, "You may call
    `megengine.config.async_level = 0 to get better error reporting"): at its default, an
    error of one call (MKL's ``VML_STATUS_ERRDOM`` from ``cos`` of inf) is raised by a later
    one, and would be charged to another check."""

    OPTIONS = ()
    renamed = {"subtract": "sub", "multiply": "mul", "divide": "div", "floor_divide": "floor_div",
               "remainder": "mod", "negative": "neg", "bitwise_left_shift": "left_shift",
               "bitwise_right_shift": "right_shift"}

    def __init__(self, host, name, module, options):
        import megengine

        self.mge = megengine
        megengine.config.async_level = 0
        super().__init__(host, name, "megengine.functional", options)
        self.numpy_dtypes = True

    def default_asarray(self):
        return self.mge.Tensor, "megengine.Tensor"

    def version(self):
        return version_of(self.mge)

    def to_host(self, x):
        try:
            out = x.numpy()
        except Exception as e:
            raise Scaffolding(f"converting the result ({type_name(x)}) with Tensor.numpy()", describe(e)) from e
        return self.host.result(out)


BACKENDS = {
    "numpy": (NumPy, "numpy"),
    "array_api_strict": (Backend, "array_api_strict"),
    "jax": (Jax, "jax.numpy"),
    "torch": (Torch, "torch"),
    "mlx": (Mlx, "mlx.core"),
    "mindspore": (MindSpore, "mindspore.ops"),
    "megengine": (MegEngine, "megengine.functional"),
}


def make(argv):
    """The backend ``argv`` names: ``NAME [KEY=VALUE ...]`` or ``module=PATH`` (any array-API
    namespace). ``path=DIR[:DIR…]`` is put in front of ``sys.path`` and ``setup=DOTTED[,…]``
    is called (no arguments) before the library is imported. Exits with a message on stderr
    when it cannot be had."""
    if not argv:
        raise SystemExit(f"opspec_worker: name a backend ({', '.join(BACKENDS)}) or module=PATH")
    if any("=" not in a for a in argv[1:]):
        raise SystemExit(f"opspec_worker: options are KEY=VALUE, got {argv[1:]}")
    options = dict(a.split("=", 1) for a in argv[1:])
    if "path" in options:
        sys.path[:0] = [os.path.abspath(p) for p in options.pop("path").split(os.pathsep) if p]
    try:
        host = Host()
    except ImportError as e:
        raise SystemExit(f"opspec_worker: cannot import numpy, which every backend needs: {e}") from e
    for path in filter(None, options.pop("setup", "").split(",")):
        fn = resolve(path, "setup")
        try:
            fn()
        except Exception as e:
            raise SystemExit(f"opspec_worker: setup={path}: calling it failed: {describe(e)}") from e
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

"""The request loop: hello (with the probed support map), call, scatter_add, shutdown."""

import platform
import re
import sys
import traceback
import warnings

from . import backends
from .backends import Scaffolding, describe
from .protocol import (
    CODES, PROTOCOL, Layout, ProtocolError, Refused, dtype_name, read_frame, result_message,
    scalar, write_frame,
)

# How a library's exception becomes one of opspec's error kinds, in this order:
#  1. the operands' shapes do not broadcast: the array API says only that "an exception
#     should be raised", so any exception is that one (shape_mismatch), whatever its wording;
#  2. a binding module's `errors` (exception class -> kind);
#  3. the exception's type (TYPES, through its MRO), which WORDS may refine (REFINES);
#  4. the words of its message (WORDS), first match;
#  5. else `other`.
# The reply's message says which rule decided (`[taken as shape_mismatch: ...]`), so that an
# unrecognised message shows in the check with the kind it was taken for.
TYPES = [
    ("NotImplementedError", "unsupported"),
    ("IndexError", "out_of_range"),
    ("TypeError", "dtype_mismatch"),
]
WORDS = [
    ("could not be broadcast", "shape_mismatch"),
    ("incompatible shapes", "shape_mismatch"),
    ("incompatible dimensions", "shape_mismatch"),
    ("must match the size", "shape_mismatch"),
    ("shape mismatch", "shape_mismatch"),
    ("cannot be broadcast", "shape_mismatch"),
    ("cannot broadcast", "shape_mismatch"),
    ("need to broadcast", "shape_mismatch"),
    ("not broadcastable", "shape_mismatch"),
    ("bad input shape", "shape_mismatch"),
    ("unsupported data type", "unsupported"),
    ("too many indices", "rank"),
    ("must be integral", "index_dtype"),
    ("input[indices type] supports", "index_dtype"),
    ("dimension of 'indices'", "rank"),
    ("did not contain a loop", "unsupported"),
    ("not implemented for", "unsupported"),
    ("not supported for", "unsupported"),
    ("must be of integer", "index_dtype"),
    ("indexer must", "index_dtype"),
    ("used as indices must be", "index_dtype"),
    ("out of bounds", "out_of_range"),
    ("cannot cast", "dtype_mismatch"),
]
# The narrower kinds a message may turn a type's kind into (NumPy raises IndexError for a
# float index array, TypeError for a dtype it has no loop for).
REFINES = {"out_of_range": ("index_dtype", "rank"), "dtype_mismatch": ("index_dtype", "unsupported")}
# What the hello probe and every request pass to each warning (shown, never dropped).
ELEMENTWISE = backends.UNARY + backends.BINARY + backends.TERNARY + backends.FUNCTIONS3


def error_kind(e, mismatch=None, by_class=None):
    """(kind, why that kind) of the library's exception ``e``; ``mismatch`` says why the
    operands' shapes do not broadcast, ``by_class`` a binding's exception classes."""
    if mismatch:
        return "shape_mismatch", f"{mismatch}, and the array API says only that an exception is raised"
    for cls, kind in (by_class or {}).items():
        if isinstance(e, cls):
            return kind, f"the binding's errors[{cls.__name__}]"
    classes = [c.__name__ for c in type(e).__mro__]
    text = str(e).lower()
    word = next(((w, k) for w, k in WORDS if w in text), None)
    for cls, kind in TYPES:
        if cls in classes:
            if word and word[1] in REFINES.get(kind, ()):
                return word[1], f"a {cls} saying {word[0]!r}"
            return kind, f"the exception type {cls}"
    if word:
        return word[1], f"the words {word[0]!r}"
    return "other", "neither its type nor its message is one the worker knows"


# How libraries word the refusal of a dtype itself, whatever the exception's class: NumPy's
# ufuncs without a loop for it, PyTorch's kernels (``"abs_cpu" not implemented for 'Half'``),
# array-api-strict's dtype checks.
DTYPE_REFUSALS = (
    "not supported for the input types",
    "did not contain a loop with signature matching types",
    "not implemented for '",
    "dtypes are allowed in",
    "unsupported data type",
)
# Refusals that name the refused dtype (the pattern's group, in lower case): a refusal only
# where that name is the probed dtype's (``DTYPE_ALIASES``).
NAMED_REFUSALS = (
    # PaddlePaddle: "(NotFound) The kernel with key (CPU, Undefined(AnyLayout), float16) of
    # kernel `add` is not registered. Selected wrong DataType `float16`. …"
    ("PaddlePaddle's", r"is not registered\. selected wrong datatype `(\w+)`"),
    # TensorFlow: "Value for attr 'T' of uint8 is not in the list of allowed values: …"
    ("TensorFlow's", r"value for attr '\w+' of (\w+) is not in the list of allowed values"),
)
# Names a library gives a dtype besides its array API name (TensorFlow's C type names).
DTYPE_ALIASES = {"f16": ("half",), "f32": ("float",), "f64": ("double",)}
# First lines that, whole, refuse the dtype of the probe's operands without naming it
# (MegEngine's kernels for uint16; a backtrace follows): every tensor operand of the probe has
# the probed dtype.
UNNAMED_REFUSALS = ("bad dtype",)
# Why a probe whose call raised NotImplementedError makes the pair unsupported.
NOT_IMPLEMENTED = "raises NotImplementedError: the library does not implement it"


def dtype_refusal(e, dtype, by_class=None):
    """How the library's exception ``e``, raised by the start-up probe's call on operands of
    ``dtype`` (all of them), refuses that dtype itself, or None: a binding's ``errors`` class
    for ``unsupported``, the words of ``DTYPE_REFUSALS``, a library's refusal that names this
    dtype (``NAMED_REFUSALS``) or names none (``UNNAMED_REFUSALS``, the first line), a
    TypeError whose message names the dtype (JAX: "bitwise_and does not accept dtype
    float32"), or a ValueError naming a bool or complex one (JAX: "jnp.hypot is not well
    defined for complex-valued inputs"). A float or integer dtype named in a ValueError is
    too often the function's complaint about an argument (PaddlePaddle's clip). (A
    NotImplementedError never gets here: ``Worker.try_probe`` takes it as absence.)"""
    for cls, kind in (by_class or {}).items():
        if isinstance(e, cls) and kind == "unsupported":
            return f"the binding's errors[{cls.__name__}]"
    text = str(e).lower()
    words = next((w for w in DTYPE_REFUSALS if w in text), None)
    if words:
        return f"its message says {words!r}"
    for library, pattern in NAMED_REFUSALS:
        found = re.search(pattern, text)
        if found and found.group(1) in (backends.API_DTYPES[dtype],) + DTYPE_ALIASES.get(dtype, ()):
            return f"{library} refusal of {found.group(1)}"
    first = text.strip().splitlines()[0] if text.strip() else ""
    if first in UNNAMED_REFUSALS:
        return f"its message's first line is {first!r}"
    classes = (TypeError,) + ((ValueError,) if dtype in ("bool", "c64", "c128") else ())
    named = dtype_named(text, dtype)
    if named and isinstance(e, classes):
        return f"a {type(e).__name__} naming {named}"
    return None


def dtype_named(text, dtype):
    """The word of ``text`` (lower case) that names ``dtype``: its array API name (``float16``),
    ``bool`` or ``boolean`` for bool, any word starting with ``complex`` (``complex-valued``)
    for a complex dtype; None if none does."""
    words = {"bool": r"bool(ean)?\b", "c64": r"complex[\w-]*", "c128": r"complex[\w-]*"}
    pattern = words.get(dtype, backends.API_DTYPES[dtype] + r"\b")
    found = re.search(r"(?<!\w)" + pattern, text)
    return found and found.group(0)


def broadcast_mismatch(np, shapes):
    """Why tensor operands of these shapes do not broadcast, or None."""
    if len(shapes) < 2:
        return None
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return f"the operand shapes {' and '.join(str(list(s)) for s in shapes)} do not broadcast"
    return None


class Warnings:
    """The library's warnings: each request's go into its reply; each new one is also written
    to stderr (the host shows it, prefixed with the adapter's name), and a count of each at
    the end."""

    def __init__(self):
        self.seen = {}

    def take(self, caught, context):
        texts = []
        for w in caught:
            text = f"{w.category.__name__}: {str(w.message).strip()}"
            if text not in texts:
                texts.append(text)
        for text in texts:
            if text not in self.seen:
                print(f"opspec_worker: library warning during {context}: {text}", file=sys.stderr)
                self.seen[text] = 0
            self.seen[text] += 1
        return texts

    def summary(self):
        if self.seen:
            print(f"opspec_worker: {len(self.seen)} distinct library warning(s) in this worker:", file=sys.stderr)
            for text, n in self.seen.items():
                print(f"opspec_worker:   {n} request(s): {text}", file=sys.stderr)


def with_warnings(message, texts):
    return message + (f" (library warnings: {'; '.join(texts)})" if texts else "")


class Worker:
    def __init__(self, backend):
        self.backend = backend
        self.np = backend.np
        self.warnings = Warnings()

    def layout(self, desc, buffers, data):
        return Layout(desc, buffers, data, self.np, self.backend.host.dtype)

    def compute(self, op, args, out=None, probe=False):
        b = self.backend
        if out is not None:
            return b.to_host(b.call_out(op, args, out))
        if op in backends.TERNARY:
            fn = b.fused(op)
        elif op in backends.BINARY or op in backends.UNARY or op in backends.FUNCTIONS3:
            fn = lambda *a: b.call(op, list(a))  # noqa: E731
        else:
            raise Refused("unsupported", f"this worker does not know the operation {op!r}")
        return b.probe(fn, args) if probe else b.to_host(fn(*args))

    def operands(self, message, data):
        """The call's operands as the library's arrays (Python scalars as they are), and why
        the tensor operands' shapes do not broadcast (None if they do)."""
        buffers, args, shapes = message.get("buffers", []), [], []
        for i, a in enumerate(message["args"]):
            if "scalar" in a:
                args.append(scalar(a["scalar"]))
                continue
            layout = self.layout(a, buffers, data)
            shapes.append(layout.shape)
            try:
                args.append(self.backend.array(layout))
            except Scaffolding as e:
                raise Scaffolding(e.step.replace("an operand", f"operand x{i + 1}", 1), e.why) from e
        mismatch = broadcast_mismatch(self.np, shapes) if message["op"] in ELEMENTWISE else None
        return args, mismatch

    def call(self, message, data, probe=False):
        args, mismatch = self.operands(message, data)
        self.mismatch = mismatch
        out = message.get("out")
        buffers = message.get("buffers", [])
        return self.compute(message["op"], args, out and self.layout(out, buffers, data), probe)

    def scatter_add(self, message, data):
        buffers, b = message.get("buffers", []), self.backend
        self.mismatch = None
        data_, indices, updates = (b.array(self.layout(message[k], buffers, data))
                                   for k in ("input", "indices", "updates"))
        return b.to_host(b.scatter_add(data_, indices, updates, message["mode"]))

    def probe_arg(self, dtype):
        host = self.np.array([1, 2] if dtype != "bool" else [True, False], dtype=self.backend.host.dtype(dtype))
        desc = {"dtype": CODES[dtype], "shape": [2], "strides": [1], "byte_offset": 0, "buffer": 0}
        return desc, host.tobytes()

    def probe(self, op, form, dtype):
        """(why (op, form, dtype) is unsupported or None, the probe's error where the pair is
        supported all the same or None), from a call on a small input."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            why, error = self.try_probe(op, form, dtype)
        texts = self.warnings.take(caught, f"the start-up probe of {op} ({form}, {dtype})")
        return (None if why is None else with_warnings(why, texts)), error

    def try_probe(self, op, form, dtype):
        """``probe`` without the warnings. A pair is unsupported only when the namespace lacks
        the function (or this form), or its call raises NotImplementedError, or the library
        refuses the dtype itself: it has no such dtype, cannot make or read back an array of
        it, or the function's error is a dtype refusal (``dtype_refusal``). Any other error
        leaves the pair supported: its checks run and fail with that error (docs/PROTOCOL.md,
        "What unsupported means")."""
        try:
            self.probe_call(op, form, dtype)
        except Refused as e:
            # The worker's own refusals: no such function, form or dtype in the namespace, or
            # an operand made in another dtype. A result of a dtype the protocol does not
            # carry is the function's doing.
            return (str(e), None) if e.kind == "unsupported" else (None, str(e))
        except Scaffolding as e:
            why = f"adapter error at step {e.step}: {e.why}"
            if e.step.startswith(("building", "moving")):
                return why, None
            if self.readable(dtype):
                return None, why
            return f"{why} (an operand of {dtype}, as the adapter makes it, cannot be read back either)", None
        except NotImplementedError as e:
            # Python's word for "this operation is not implemented" (ndonnx's atan2 is
            # ``raise NotImplementedError``): the library lacks the function, whatever the message.
            return f"{describe(e)} [taken as unsupported: {NOT_IMPLEMENTED}]", None
        except Exception as e:
            refusal = dtype_refusal(e, dtype, self.backend.errors)
            return (f"{describe(e)} [taken as unsupported: {refusal}]", None) if refusal else (None, describe(e))
        return None, None

    def probe_call(self, op, form, dtype):
        desc, data = self.probe_arg(dtype)
        buffers = [{"offset": 0, "len": len(data)}]
        if op == "scatter_add":
            index = self.np.array([[1], [1]], dtype=self.np.int64)
            bufs = [{"offset": 0, "len": len(data)}, {"offset": len(data), "len": 16}]
            message = {"input": desc, "indices": {"dtype": CODES["i64"], "shape": [2, 1], "strides": [1, 1],
                                                  "byte_offset": 0, "buffer": 1},
                       "updates": desc, "mode": "ignore", "buffers": bufs}
            self.scatter_add(message, data + index.tobytes())
            return
        arity = 3 if op in backends.TERNARY + backends.FUNCTIONS3 else 1 if op in backends.UNARY else 2
        args = [desc] * arity
        if form == "scalar":
            args[1] = {"scalar": {"int": 1}}
        message = {"op": op, "args": args, "buffers": buffers}
        if form == "out":
            message["out"] = desc
        self.call(message, data, probe=True)

    def readable(self, dtype):
        """Whether an operand of ``dtype``, made as the calls make it, can be read back (if
        not, no result of that dtype can reach the host)."""
        desc, data = self.probe_arg(dtype)
        try:
            self.backend.to_host(self.backend.array(self.layout(desc, [{"offset": 0, "len": len(data)}], data)))
        except Exception:
            return False
        return True

    def hello(self, message):
        b = self.backend
        support, raised = [], {}
        for op in message.get("ops", []):
            if op in backends.BINARY:
                forms = ["tensors", "scalar"] + (["out"] if b.has_out else [])
            elif op in backends.UNARY or op in backends.TERNARY + backends.FUNCTIONS3 or op == "scatter_add":
                forms = ["tensors"]
            else:
                continue
            for code in message.get("dtypes", []):
                try:
                    dtype = dtype_name(code)
                except Refused:
                    continue
                for form in forms:
                    entry = {"op": op, "dtype": code}
                    if form != "tensors":
                        entry["form"] = form
                    why, error = self.probe(op, form, dtype)
                    if why is not None:
                        entry["unsupported"] = why
                    if error is not None:
                        raised.setdefault((op, error), []).append(dtype if form == "tensors" else f"{dtype} {form}")
                    support.append(entry)
        for (op, error), where in raised.items():
            print(f"opspec_worker: the start-up probe of {op} raised {error} for {', '.join(where)}: not a refusal "
                  f"of the dtype, so {op} is supported there and its checks fail with the error", file=sys.stderr)
        python = f"{platform.python_implementation()} {platform.python_version()}"
        return {
            "type": "hello", "id": message.get("id", 0), "protocol": PROTOCOL, "name": b.name,
            "version": b.version(), "platform": f"{sys.platform}-{platform.machine()}, {python}",
            "support": support, "checker": False, "views": dict(b.views),
        }

    def answer(self, message, data):
        """(reply, data chunks) for one request other than shutdown."""
        kind, id_ = message.get("type"), message.get("id", 0)
        self.mismatch = None
        if kind == "hello":
            if message.get("protocol") != PROTOCOL:
                print(f"opspec_worker: the host speaks protocol {message.get('protocol')}, "
                      f"this worker {PROTOCOL}", file=sys.stderr)
            try:
                return self.hello(message), ()
            except Exception as e:
                traceback.print_exc(limit=5, file=sys.stderr)
                return {"type": "error", "id": id_, "kind": "other", "message": f"hello failed: {describe(e)}"}, ()
        context = f"{kind} {message.get('op', '')}".strip()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if kind not in ("call", "scatter_add"):
                    raise Refused("unsupported", f"this worker does not answer {kind!r} requests")
                array, dtype = (self.call if kind == "call" else self.scatter_add)(message, data)
                reply = result_message(id_, dtype, array.shape)
                reply["buffers"][0]["len"] = array.nbytes
                chunks = (array.reshape(-1).view(self.np.uint8),)
            except Refused as e:
                reply, chunks = {"type": "error", "id": id_, "kind": e.kind, "message": str(e)}, ()
            except Scaffolding as e:
                # The adapter's own step, named: not the operation's failure.
                reply = {"type": "error", "id": id_, "kind": "other", "step": e.step,
                         "message": f"adapter error (its own step failed, not {message.get('op', kind)}): {e}"}
                chunks = ()
            except Exception as e:  # the library's own error, mapped onto opspec's kinds
                mapped, why = error_kind(e, self.mismatch, self.backend.errors)
                if mapped == "other":
                    traceback.print_exc(limit=3, file=sys.stderr)
                reply = {"type": "error", "id": id_, "kind": mapped,
                         "message": f"{describe(e)} [taken as {mapped}: {why}]"}
                chunks = ()
        texts = self.warnings.take(caught, context)
        if texts:
            reply["warnings"] = texts  # the host records them with the check (docs/PROTOCOL.md)
        return reply, chunks


def serve(argv, out):
    """Answers requests on stdin until shutdown or the end of stdin; returns the exit status."""
    worker = Worker(backends.make(argv))
    stdin = sys.stdin.buffer
    try:
        while True:
            try:
                frame = read_frame(stdin)
            except (ProtocolError, ValueError) as e:
                print(f"opspec_worker: cannot read a request: {e}", file=sys.stderr)
                return 3
            if frame is None or frame[0].get("type") == "shutdown":
                return 0
            reply, chunks = worker.answer(*frame)
            try:
                write_frame(out, reply, chunks)
            except BrokenPipeError:
                return 0
    finally:
        worker.warnings.summary()

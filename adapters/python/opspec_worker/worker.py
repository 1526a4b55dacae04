"""The request loop: hello (with the probed support map), call, scatter_add, shutdown."""

import platform
import sys
import traceback

from . import backends
from .protocol import (
    CODES, PROTOCOL, Layout, ProtocolError, Refused, dtype_name, read_frame, result_message,
    scalar, write_frame,
)

# (exception class name in the MRO or None, words in the lowercased message, error kind),
# first match wins. The libraries raise these for shapes, dtypes and indices.
ERRORS = [
    ("NotImplementedError", "", "unsupported"),
    (None, "could not be broadcast", "shape_mismatch"),
    (None, "incompatible shapes", "shape_mismatch"),
    (None, "must match the size", "shape_mismatch"),
    (None, "shape mismatch", "shape_mismatch"),
    (None, "cannot be broadcast", "shape_mismatch"),
    (None, "cannot broadcast", "shape_mismatch"),
    (None, "need to broadcast", "shape_mismatch"),
    (None, "unsupported data type", "unsupported"),
    (None, "too many indices", "rank"),
    (None, "must be integral", "index_dtype"),
    (None, "input[indices type] supports", "index_dtype"),
    (None, "dimension of 'indices'", "rank"),
    (None, "did not contain a loop", "unsupported"),
    (None, "not implemented for", "unsupported"),
    (None, "not supported for", "unsupported"),
    (None, "must be of integer", "index_dtype"),
    (None, "indexer must", "index_dtype"),
    (None, "used as indices must be", "index_dtype"),
    ("IndexError", "", "out_of_range"),
    (None, "out of bounds", "out_of_range"),
    (None, "cannot cast", "dtype_mismatch"),
    ("TypeError", "", "dtype_mismatch"),
]


def error_kind(e):
    classes = {c.__name__ for c in type(e).__mro__}
    text = str(e).lower()
    for cls, words, kind in ERRORS:
        if (cls is None or cls in classes) and words in text:
            return kind
    return "other"


def describe(e):
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {first[:300]}"


class Worker:
    def __init__(self, backend):
        self.backend = backend
        self.np = backend.np

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

    def call(self, message, data, probe=False):
        buffers = message.get("buffers", [])
        args = [
            scalar(a["scalar"]) if "scalar" in a else self.backend.array(self.layout(a, buffers, data))
            for a in message["args"]
        ]
        out = message.get("out")
        return self.compute(message["op"], args, out and self.layout(out, buffers, data), probe)

    def scatter_add(self, message, data):
        buffers, b = message.get("buffers", []), self.backend
        data_, indices, updates = (b.array(self.layout(message[k], buffers, data))
                                   for k in ("input", "indices", "updates"))
        return b.to_host(b.scatter_add(data_, indices, updates, message["mode"]))

    def probe_arg(self, dtype):
        host = self.np.array([1, 2] if dtype != "bool" else [True, False], dtype=self.backend.host.dtype(dtype))
        desc = {"dtype": CODES[dtype], "shape": [2], "strides": [1], "byte_offset": 0, "buffer": 0}
        return desc, host.tobytes()

    def probe(self, op, form, dtype):
        """None if (op, form, dtype) works on a small input, else why not."""
        try:
            desc, data = self.probe_arg(dtype)
            buffers = [{"offset": 0, "len": len(data)}]
            if op == "scatter_add":
                index = self.np.array([[1], [1]], dtype=self.np.int64)
                bufs = [{"offset": 0, "len": len(data)}, {"offset": len(data), "len": 16}]
                message = {"input": desc, "indices": {"dtype": CODES["i64"], "shape": [2, 1], "strides": [1, 1],
                                                      "byte_offset": 0, "buffer": 1},
                           "updates": desc, "mode": "ignore", "buffers": bufs}
                self.scatter_add(message, data + index.tobytes())
                return None
            arity = 3 if op in backends.TERNARY + backends.FUNCTIONS3 else 1 if op in backends.UNARY else 2
            args = [desc] * arity
            if form == "scalar":
                args[1] = {"scalar": {"int": 1}}
            message = {"op": op, "args": args, "buffers": buffers}
            if form == "out":
                message["out"] = desc
            self.call(message, data, probe=True)
            return None
        except Refused as e:
            return str(e)
        except Exception as e:
            return describe(e)

    def hello(self, message):
        b = self.backend
        support = []
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
                    why = self.probe(op, form, dtype)
                    if why is not None:
                        entry["unsupported"] = why
                    support.append(entry)
        python = f"{platform.python_implementation()} {platform.python_version()}"
        return {
            "type": "hello", "id": message.get("id", 0), "protocol": PROTOCOL, "name": b.name,
            "version": b.version(), "platform": f"{sys.platform}-{platform.machine()}, {python}",
            "support": support, "checker": False, "views": dict(b.views),
        }


def serve(argv, out):
    """Answers requests on stdin until shutdown or the end of stdin; returns the exit status."""
    worker = Worker(backends.make(argv))
    stdin = sys.stdin.buffer
    while True:
        try:
            frame = read_frame(stdin)
        except (ProtocolError, ValueError) as e:
            print(f"opspec_worker: cannot read a request: {e}", file=sys.stderr)
            return 3
        if frame is None:
            return 0
        message, data = frame
        kind, id_ = message.get("type"), message.get("id", 0)
        if kind == "shutdown":
            return 0
        chunks = ()
        try:
            if kind == "hello":
                if message.get("protocol") != PROTOCOL:
                    print(f"opspec_worker: the host speaks protocol {message.get('protocol')}, "
                          f"this worker {PROTOCOL}", file=sys.stderr)
                reply = worker.hello(message)
            elif kind in ("call", "scatter_add"):
                array, dtype = (worker.call if kind == "call" else worker.scatter_add)(message, data)
                chunks = (array.reshape(-1).view(worker.np.uint8),)
                reply = result_message(id_, dtype, array.shape)
                reply["buffers"][0]["len"] = array.nbytes
            else:
                raise Refused("unsupported", f"this worker does not answer {kind!r} requests")
        except Refused as e:
            reply = {"type": "error", "id": id_, "kind": e.kind, "message": str(e)}
        except Exception as e:  # the library's own error, mapped onto opspec's kinds
            if error_kind(e) == "other":
                traceback.print_exc(limit=3, file=sys.stderr)
            reply = {"type": "error", "id": id_, "kind": error_kind(e), "message": describe(e)}
        try:
            write_frame(out, reply, chunks)
        except BrokenPipeError:
            return 0

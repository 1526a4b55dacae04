"""Frames, dtypes, tensors and scalars of the wire protocol (docs/PROTOCOL.md, version 1)."""

import json
import struct

PROTOCOL = 1
MAGIC = b"OPSP"
HEADER = struct.Struct("<4sIQ")
MAX_META = 16 << 20

# DLPack (code, bits) of each opspec dtype.
DTYPES = {
    (2, 16): "f16",
    (4, 16): "bf16",
    (2, 32): "f32",
    (2, 64): "f64",
    (0, 8): "i8",
    (0, 16): "i16",
    (0, 32): "i32",
    (0, 64): "i64",
    (1, 8): "u8",
    (1, 16): "u16",
    (1, 32): "u32",
    (1, 64): "u64",
    (6, 8): "bool",
    (5, 64): "c64",
    (5, 128): "c128",
}
CODES = {name: [code, bits, 1] for (code, bits), name in DTYPES.items()}
FLOATS = ("f16", "bf16", "f32", "f64")


class ProtocolError(Exception):
    """The stream cannot be read: the worker stops."""


class Refused(Exception):
    """A request this worker cannot serve, answered with an error of ``kind``."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def read_exact(stream, n):
    data = stream.read(n)
    if len(data) != n:
        raise ProtocolError(f"the stream ended inside a frame ({len(data)} of {n} bytes)")
    return data


def read_frame(stream):
    """The next (message, data) pair, or None at the end of the stream."""
    header = stream.read(HEADER.size)
    if not header:
        return None
    if len(header) != HEADER.size:
        raise ProtocolError("the stream ended inside a frame header")
    magic, meta_len, data_len = HEADER.unpack(header)
    if magic != MAGIC:
        raise ProtocolError(f"bad magic {magic!r}")
    if meta_len > MAX_META:
        raise ProtocolError(f"meta length {meta_len} is over 16 MiB")
    message = json.loads(read_exact(stream, meta_len))
    if not isinstance(message, dict):
        raise ProtocolError("the message is not a JSON object")
    return message, read_exact(stream, data_len)


def write_frame(stream, message, chunks=()):
    """Writes one frame; ``chunks`` are the data section's pieces (bytes-like)."""
    meta = json.dumps(message, separators=(",", ":")).encode()
    chunks = [memoryview(c).cast("B") for c in chunks]
    stream.write(HEADER.pack(MAGIC, len(meta), sum(c.nbytes for c in chunks)))
    stream.write(meta)
    for c in chunks:
        stream.write(c)
    stream.flush()


def dtype_name(code):
    """The opspec name of a DLPack ``[code, bits, lanes]``."""
    if not (isinstance(code, list) and len(code) == 3 and code[2] == 1):
        raise Refused("unsupported", f"dtype {code} is not one this worker knows")
    name = DTYPES.get((code[0], code[1]))
    if name is None:
        raise Refused("unsupported", f"dtype {code} is not one this worker knows")
    return name


def scalar(value):
    """A host scalar as a Python int or float (the float's bits travel as 16 hex digits)."""
    if "int" in value:
        return int(value["int"])
    bits = value["float"]
    if not (isinstance(bits, str) and bits.startswith("0x") and len(bits) == 18):
        raise Refused("other", f"float scalar {bits!r} is not 0x and 16 hex digits")
    return struct.unpack("<d", int(bits, 16).to_bytes(8, "little"))[0]


class Layout:
    """A tensor of a request: a flat NumPy array over its buffer, and the view's shape,
    element strides and element offset into it (checked to stay inside the buffer)."""

    def __init__(self, desc, buffers, data, numpy, host_dtype):
        self.dtype = dtype_name(desc["dtype"])
        self.shape = [int(d) for d in desc["shape"]]
        self.strides = [int(s) for s in desc["strides"]]
        np_dtype = host_dtype(self.dtype)
        size = np_dtype.itemsize
        buffer = buffers[desc["buffer"]]
        offset, length = int(buffer["offset"]), int(buffer["len"])
        if offset + length > len(data) or length % size or desc["byte_offset"] % size:
            raise Refused("other", f"buffer {buffer} does not hold whole {self.dtype} elements")
        if len(self.strides) != len(self.shape):
            raise Refused("other", f"shape {self.shape} and strides {self.strides} differ in rank")
        self.flat = numpy.frombuffer(data, dtype=np_dtype, count=length // size, offset=offset)
        self.offset = desc["byte_offset"] // size
        if all(self.shape):
            low = self.offset + sum(min(0, (d - 1) * s) for d, s in zip(self.shape, self.strides))
            high = self.offset + sum(max(0, (d - 1) * s) for d, s in zip(self.shape, self.strides))
            if low < 0 or high >= len(self.flat):
                raise Refused("other", f"the view reaches outside its buffer of {len(self.flat)} elements")

    def is_whole(self):
        """True when the view is its whole buffer, row-major."""
        step, strides = 1, []
        for d in reversed(self.shape):
            strides.append(step)
            step *= max(d, 1)
        count = 1
        for d in self.shape:
            count *= d
        return self.offset == 0 and self.strides == strides[::-1] and count == len(self.flat)

    def traits(self):
        """The layout traits of docs/PROTOCOL.md ("Views") this view has."""
        long = [(d, s) for d, s in zip(self.shape, self.strides) if d > 1]
        out = []
        if self.offset + sum(min(0, (d - 1) * s) for d, s in long) > 0:
            out.append("offset")
        out += [t for t, hit in (("negative", any(s < 0 for _, s in long)), ("zero", any(s == 0 for _, s in long)))
                if hit]
        steps = [abs(s) for _, s in long if s]
        if steps != sorted(steps, reverse=True):
            out.append("permuted")
        span = 1 + sum((d - 1) * abs(s) for d, s in long)
        count = 1
        for d, s in long:
            count *= d if s else 1
        if all(self.shape) and span > count:
            out.append("gaps")
        return out

    def describe(self):
        """``f32 [2, 3]``, and its layout traits when it is a view (``f32 [2, 3] view: offset, gaps``)."""
        traits = self.traits() if not self.is_whole() else []
        return f"{self.dtype} {self.shape}" + (f" view: {', '.join(traits)}" if traits else "")

    def positions(self, numpy):
        """The buffer position of every element, as an int64 array of the view's shape."""
        pos = numpy.full(self.shape, self.offset, dtype=numpy.int64)
        for axis, (d, s) in enumerate(zip(self.shape, self.strides)):
            index = [1] * len(self.shape)
            index[axis] = d
            pos = pos + (numpy.arange(d, dtype=numpy.int64) * s).reshape(index)
        return pos

    def numpy_view(self, numpy):
        """The view as NumPy strided array over the buffer (read-only, no copy)."""
        if self.is_whole():
            return self.flat.reshape(self.shape)
        size = self.flat.itemsize
        start = self.flat[self.offset:] if self.offset < len(self.flat) else self.flat[:0]
        return numpy.lib.stride_tricks.as_strided(
            start, self.shape, [s * size for s in self.strides], writeable=False
        )


def result_message(id_, dtype, shape):
    """A ``result`` reply for one contiguous row-major tensor in buffer 0."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return {
        "type": "result",
        "id": id_,
        "result": {"dtype": CODES[dtype], "shape": list(shape), "strides": strides[::-1],
                   "byte_offset": 0, "buffer": 0},
        "buffers": [{"offset": 0, "len": None}],
    }

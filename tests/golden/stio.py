"""stio.py - read and write safetensors files with numpy, json and struct only.

The format: 8-byte little-endian unsigned header length N, then N bytes of
JSON header (an object mapping tensor name -> {"dtype", "shape",
"data_offsets": [begin, end]} plus an optional "__metadata__" mapping of
strings to strings), then the raw little-endian data; offsets are relative
to the first byte after the header.

read(path)  -> (tensors: dict name -> numpy array, metadata: dict str -> str)
write(path, tensors, metadata=None)

Reading supports F64, F32, F16, BF16, I64, I32, I16, I8, U8 and BOOL.
Writing supports float32 (F32), float64 (F64), int32 (I32) and int64 (I64);
other float arrays must be converted by the caller (write() refuses to
guess).
"""

import json
import struct

import numpy as np

_READ_DTYPES = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}

_WRITE_DTYPES = {
    np.dtype("float32"): "F32",
    np.dtype("float64"): "F64",
    np.dtype("int32"): "I32",
    np.dtype("int64"): "I64",
}


class SafetensorsError(Exception):
    pass


def read(path):
    """Return (tensors, metadata) of the safetensors file at path."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise SafetensorsError("%s: shorter than the 8-byte header length" % path)
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise SafetensorsError("%s: header length %d past end of file" % (path, n))
    try:
        header = json.loads(blob[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SafetensorsError("%s: bad JSON header: %s" % (path, e))
    if not isinstance(header, dict):
        raise SafetensorsError("%s: header is not a JSON object" % path)
    data = blob[8 + n:]
    meta = header.pop("__metadata__", None) or {}
    tensors = {}
    for name, info in header.items():
        dt = info.get("dtype")
        shape = tuple(int(s) for s in info.get("shape", []))
        begin, end = (int(o) for o in info["data_offsets"])
        count = 1
        for s in shape:
            count *= s
        if not 0 <= begin <= end <= len(data):
            raise SafetensorsError("%s: %s: data_offsets [%d, %d] outside data (%d bytes)"
                                   % (path, name, begin, end, len(data)))
        raw = data[begin:end]
        if dt == "BF16":
            if end - begin != 2 * count:
                raise SafetensorsError("%s: %s: %d bytes for %d BF16 values"
                                       % (path, name, end - begin, count))
            u = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            arr = u.view(np.float32).reshape(shape)
        elif dt in _READ_DTYPES:
            npdt = _READ_DTYPES[dt]
            if end - begin != npdt.itemsize * count:
                raise SafetensorsError("%s: %s: %d bytes for %d %s values"
                                       % (path, name, end - begin, count, dt))
            arr = np.frombuffer(raw, dtype=npdt).reshape(shape).copy()
        else:
            raise SafetensorsError("%s: %s: unsupported dtype %r" % (path, name, dt))
        tensors[name] = arr
    return tensors, meta


def dtype_name(arr):
    """The safetensors dtype string write() would use for arr."""
    return _WRITE_DTYPES[np.asarray(arr).dtype]


def write(path, tensors, metadata=None):
    """Write tensors (dict name -> numpy array of float32/float64/int32/int64)
    and optional string metadata to path, in sorted name order, with the
    header padded with spaces to a multiple of 8 bytes."""
    header = {}
    chunks = []
    offset = 0
    for name in sorted(tensors):
        arr = np.asarray(tensors[name])
        if arr.dtype not in _WRITE_DTYPES:
            raise SafetensorsError("%s: cannot write dtype %s" % (name, arr.dtype))
        raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {
            "dtype": _WRITE_DTYPES[arr.dtype],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        chunks.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    hjson = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hjson += b" " * ((8 - len(hjson) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for c in chunks:
            f.write(c)

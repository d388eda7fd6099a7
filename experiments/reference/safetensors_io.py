"""safetensors files as dicts of torch tensors: the `safetensors` package when it is installed,
otherwise a small reader and writer of the format (core/runs/safetensors.hpp):
    8 bytes   N, the header's length, unsigned little-endian
    N bytes   JSON {"name": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}, "__metadata__": {...}}
    the rest  the tensors' bytes, little-endian, row-major; [b, e) relative to the data's start
"""
import ctypes
import json
import struct
import sys

import torch

assert sys.byteorder == "little", "the format is little-endian; this reader copies raw bytes"

try:
    import safetensors.torch as _package
except ImportError:
    _package = None

_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
    "BOOL": torch.bool,
}
_NAMES = {v: k for k, v in _DTYPES.items()}


def backend_name():
    return "the safetensors package" if _package else "the built-in reader"


def load(path):
    """{name: tensor} on the CPU, every tensor of the file (metadata left out)."""
    if _package:
        return _package.load_file(path)
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ValueError(f"{path}: header length {n} runs past the end of the file")
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(entry["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor '{name}': dtype {entry['dtype']} is not supported here")
        b, e = entry["data_offsets"]
        shape = entry["shape"]
        raw = bytes(body[b:e])  # a copy: frombuffer over immutable bytes would warn
        t = torch.frombuffer(bytearray(raw), dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(shape)
    return out


def save(path, tensors, metadata=None):
    """Writes {name: tensor} (contiguous CPU copies) in the format, tensors in name order."""
    tensors = {k: v.detach().cpu().contiguous() for k, v in tensors.items()}
    if _package:
        _package.save_file(tensors, path, metadata=metadata)
        return
    header, offset, blobs = {}, 0, []
    if metadata:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        t = tensors[name]
        raw = _tensor_bytes(t)
        header[name] = {"dtype": _NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


def _tensor_bytes(t):
    """A contiguous CPU tensor's bytes (the host is little-endian), without numpy."""
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size()) if t.numel() else b""

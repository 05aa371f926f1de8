"""A torch ``state_dict`` as JSON: base64 of each tensor's little-endian bytes, with dtype and shape."""

from __future__ import annotations

import base64

import numpy as np

from ._torch import require_torch

__all__ = ["decode_state_dict", "encode_state_dict"]


def encode_state_dict(state_dict) -> dict:
    """``{name: {"dtype", "shape", "data"}}``, exact to the bit."""
    out = {}
    for name, tensor in state_dict.items():
        arr = tensor.detach().cpu().numpy()
        le = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        out[name] = {"dtype": arr.dtype.str.lstrip("<>|="), "shape": list(arr.shape),
                     "data": base64.b64encode(np.ascontiguousarray(le).tobytes()).decode("ascii")}
    return out


def decode_state_dict(encoded: dict) -> dict:
    """Inverse of :func:`encode_state_dict` (tensors on the CPU)."""
    torch = require_torch()
    out = {}
    for name, entry in encoded.items():
        dtype = np.dtype("<" + entry["dtype"])
        raw = base64.b64decode(entry["data"].encode("ascii"), validate=True)
        arr = np.frombuffer(raw, dtype=dtype).reshape(entry["shape"]).astype(dtype.newbyteorder("="))
        out[name] = torch.from_numpy(arr.copy())
    return out

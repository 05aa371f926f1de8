"""Versioned, atomic, checksummed model files: one JSON document per model.

The envelope is ``{"format": "metricrank-model", "format_version": 2,
"model": <class name>, "metricrank_version": ..., "state_sha256": ...,
"state": {...}}``. Loading checks the format and version and names what it
found, so an old or foreign file fails clearly instead of loading wrongly.

Integrity (format version 2): ``state_sha256`` is the SHA-256 of the state
serialised canonically (:func:`state_digest`: sorted keys, no spaces). A file
whose state does not hash to it raises ``ValueError("model file ... is
corrupted (checksum mismatch)")`` before any of the state is used -- a
corrupted LightGBM booster string would otherwise reach LightGBM's parser,
which can abort the Python process. Version 1 files (no checksum, written
before this) are still read; :func:`validate_booster_text` is the structural
check for booster text whatever the file's version.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

from .._io import atomic_write, open_read

FORMAT = "metricrank-model"
FORMAT_VERSION = 2
#: versions this code reads (1: no checksum)
READABLE_VERSIONS = (1, 2)

__all__ = ["FORMAT", "FORMAT_VERSION", "READABLE_VERSIONS", "read_model_file", "state_digest",
           "validate_booster_text", "write_model_file"]


def _version() -> str:
    from .. import __version__

    return __version__


def state_digest(state: dict) -> str:
    """SHA-256 (hex) of ``state`` serialised canonically (sorted keys, compact separators).

    JSON round-trips Python floats exactly, so the digest of the state read
    back from a file equals the digest of the state that was written.
    """
    text = json.dumps(state, sort_keys=True, separators=(",", ":"), allow_nan=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_model_file(path: str | os.PathLike, model_name: str, state: dict) -> None:
    """Write ``state`` atomically (temporary file, then rename); ``.gz``/``.bz2`` compress."""
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "model": model_name,
           "metricrank_version": _version(), "state_sha256": state_digest(state), "state": state}
    payload = json.dumps(doc, indent=1, allow_nan=True).encode("utf-8")
    with atomic_write(path) as fh:
        fh.write(payload)


def read_model_file(path: str | os.PathLike, expected_model: str | None = None) -> tuple[str, dict]:
    """``(model name, state)`` of a model file; ValueError naming the file when it is not one
    or when its checksum does not match (a corrupted file)."""
    try:
        with open_read(path) as fh:
            doc = json.loads(fh.read().decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, EOFError, OSError) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise ValueError(f"{path}: not a metricrank model file ({err})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a metricrank model file (no '{FORMAT}' header)")
    version = doc.get("format_version")
    if version not in READABLE_VERSIONS:
        raise ValueError(f"{path}: model format version {version!r} is not supported "
                         f"(this metricrank reads versions {', '.join(map(str, READABLE_VERSIONS))})")
    name = doc.get("model")
    if expected_model is not None and name != expected_model:
        raise ValueError(f"{path}: holds a {name} model, not a {expected_model}")
    state = doc.get("state")
    if not isinstance(state, dict):
        raise ValueError(f"model file {path} is corrupted (no state)")
    if version >= 2:
        recorded = doc.get("state_sha256")
        if not isinstance(recorded, str) or recorded != state_digest(state):
            raise ValueError(f"model file {path} is corrupted (checksum mismatch)")
    return name, state


_TREE_HEADER = re.compile(rb"^Tree=(\d+)$", re.M)


def validate_booster_text(text: str) -> None:
    """Check a LightGBM model string's structure before LightGBM parses it.

    LightGBM's parser can abort the whole Python process on malformed text, so
    call this first (``LambdaMART``/``GBRanker`` ``_from_state``). It checks
    that the text starts with ``tree``, has a ``tree_sizes=`` header, that
    the ``Tree=i`` sections are numbered ``0 .. n-1``, that their count
    matches the number of sizes, that each section is exactly its declared
    size in bytes (sections are contiguous) and that ``end of trees`` follows
    the last one. Raises ValueError saying what is wrong; returns None.
    """
    if not isinstance(text, str):
        raise ValueError(f"booster text must be a string, got {type(text).__name__}")
    data = text.encode("utf-8")
    if not data.startswith(b"tree\n"):
        raise ValueError("booster text is corrupted: it does not start with a 'tree' line")
    m = re.search(rb"^tree_sizes=([0-9 ]*)$", data, re.M)
    if m is None:
        raise ValueError("booster text is corrupted: no tree_sizes= header")
    try:
        sizes = [int(v) for v in m.group(1).split()]
    except ValueError:  # pragma: no cover - the regex admits digits only
        raise ValueError("booster text is corrupted: bad tree_sizes= header") from None
    for key in (b"version=", b"num_class=", b"max_feature_idx="):
        if re.search(rb"^" + re.escape(key), data, re.M) is None:
            raise ValueError(f"booster text is corrupted: no {key.decode()} header")
    headers = list(_TREE_HEADER.finditer(data))
    if len(headers) != len(sizes):
        raise ValueError(f"booster text is corrupted: {len(headers)} Tree= sections but tree_sizes= "
                         f"lists {len(sizes)}")
    end = data.find(b"\nend of trees")
    if sizes and end < 0:
        raise ValueError("booster text is corrupted: no 'end of trees' line")
    for i, (head, size) in enumerate(zip(headers, sizes)):
        if int(head.group(1)) != i:
            raise ValueError(f"booster text is corrupted: section {i} is headed Tree={head.group(1).decode()}")
        stop = headers[i + 1].start() if i + 1 < len(headers) else end + 1
        if stop - head.start() != size:
            raise ValueError(f"booster text is corrupted: Tree={i} is {stop - head.start()} bytes, "
                             f"tree_sizes= says {size}")
    params_at = data.find(b"\nparameters:\n")
    if params_at >= 0 and data.find(b"\nend of parameters", params_at) < 0:
        raise ValueError("booster text is corrupted: the parameters section is truncated")

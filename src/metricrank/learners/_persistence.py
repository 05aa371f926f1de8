"""Versioned, atomic model files: one JSON document per model.

The envelope is ``{"format": "metricrank-model", "format_version": 1,
"model": <class name>, "metricrank_version": ..., "state": {...}}``. Loading
checks the format and version and names what it found, so an old or foreign
file fails clearly instead of loading wrongly.
"""

from __future__ import annotations

import json
import os

from .._io import atomic_write, open_read

FORMAT = "metricrank-model"
FORMAT_VERSION = 1

__all__ = ["FORMAT", "FORMAT_VERSION", "read_model_file", "write_model_file"]


def _version() -> str:
    from .. import __version__

    return __version__


def write_model_file(path: str | os.PathLike, model_name: str, state: dict) -> None:
    """Write ``state`` atomically (temporary file, then rename); ``.gz``/``.bz2`` compress."""
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "model": model_name,
           "metricrank_version": _version(), "state": state}
    payload = json.dumps(doc, indent=1, allow_nan=True).encode("utf-8")
    with atomic_write(path) as fh:
        fh.write(payload)


def read_model_file(path: str | os.PathLike, expected_model: str | None = None) -> tuple[str, dict]:
    """``(model name, state)`` of a model file; ValueError naming the file when it is not one."""
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
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: model format version {version!r} is not supported "
                         f"(this metricrank reads version {FORMAT_VERSION})")
    name = doc.get("model")
    if expected_model is not None and name != expected_model:
        raise ValueError(f"{path}: holds a {name} model, not a {expected_model}")
    return name, doc["state"]

"""File helpers shared by the data layer, the CLI and model saving.

Reading transparently decompresses ``.gz``/``.bz2``; writing goes to a
temporary file in the target directory and is renamed into place only on
success, so a crash never leaves a half-written file.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import os
import tempfile
from typing import IO, Iterator

__all__ = ["atomic_write", "compression_of", "open_read"]


def compression_of(path) -> str | None:
    """``"gz"``, ``"bz2"`` or ``None`` from the file name."""
    name = os.fspath(path)
    if name.endswith(".gz"):
        return "gz"
    if name.endswith(".bz2"):
        return "bz2"
    return None


def open_read(path) -> IO[bytes]:
    """Open ``path`` for binary reading, decompressing ``.gz`` / ``.bz2``."""
    comp = compression_of(path)
    if comp == "gz":
        return gzip.open(path, "rb")
    if comp == "bz2":
        return bz2.open(path, "rb")
    return open(path, "rb")


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path) -> Iterator[IO[bytes]]:
    """Binary stream whose content replaces ``path`` atomically on success.

    The data go to a temporary file in the same directory (so the final
    :func:`os.replace` is a rename within one file system), compressed when
    ``path`` ends in ``.gz`` or ``.bz2``. On any exception the temporary file
    is removed and ``path`` is left untouched.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw:
            comp = compression_of(path)
            if comp == "gz":
                # mtime=0 and no file name: identical input gives identical bytes.
                stream = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
            elif comp == "bz2":
                stream = bz2.BZ2File(raw, "wb")
            else:
                stream = None
            if stream is None:
                yield raw
            else:
                with stream:
                    yield stream
            raw.flush()
            os.fsync(raw.fileno())
        if os.path.exists(path):
            mode = os.stat(path).st_mode & 0o7777
        else:
            mode = 0o666 & ~_current_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

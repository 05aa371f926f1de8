"""File helpers shared by the data layer, the CLI and model saving.

Reading transparently decompresses ``.gz``/``.bz2``; writing goes to a
temporary file in the target directory and is renamed into place only on
success, so a crash never leaves a half-written file.

What is never replaced: ``-`` means standard output; a device, FIFO or
socket (``/dev/stdout``, ``/dev/null``, a named pipe) is written through
directly; a symbolic link is followed and its *target* is replaced
atomically, so the link itself stays a link.
"""

from __future__ import annotations

import bz2
import contextlib
import errno
import gzip
import json
import math
import os
import stat
import sys
import tempfile
from typing import IO, Iterator

__all__ = ["atomic_write", "check_writable", "compression_of", "is_stdout", "open_read", "save_figure"]


def is_stdout(path) -> bool:
    """Whether ``path`` is ``-`` (standard output)."""
    return isinstance(path, str) and path == "-"


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


def _starts_with_a_number(piece: bytes) -> bool:
    """Whether the first token of ``piece`` reads as a number (a LETOR row's label)."""
    tokens = piece.split(None, 1)
    if not tokens:
        return False
    try:
        float(tokens[0])
    except ValueError:
        return False
    return True


def _same_fields_as_another(pieces: list) -> bool:
    """Whether two of ``pieces`` that are not comments have as many fields (rows of a one-record-a-line file)."""
    counts = [len(p.split()) for p in pieces if p.strip() and not p.lstrip().startswith(b"#")]
    return len(counts) != len(set(counts))


def refuse_lone_carriage_return(line: bytes, path, lineno: int, *, letor: bool = False) -> None:
    """A ValueError naming the file and line where ``line`` (read in binary) holds rows split by carriage returns.

    A file whose lines end with ``\\r`` alone (classic Mac OS, or Excel for Mac) is one line to a reader that
    splits at ``\\n``: a LETOR file's rows after a ``#`` would be lost and the next row's label read as a feature.
    Such a line is told from a ``\\r`` that only ends a line (CRLF) or precedes a comment or a column pasted
    onto a CRLF file by the text after it: with ``letor``, a piece that starts with a number (the next row's
    label); otherwise (files of one record a line: sizes, weights, pairs, scores) two pieces, comments aside,
    with as many fields.

    >>> refuse_lone_carriage_return(b"1 qid:1 1:0.5\\r\\n", "a.txt", 1, letor=True)
    >>> refuse_lone_carriage_return(b"1 qid:1 1:0.5\\r #docid = a\\n", "a.txt", 1, letor=True)  # a pasted column
    >>> refuse_lone_carriage_return(b"1 qid:1 1:0.5 # x\\r0 qid:1 1:0.2\\r", "a.txt", 1, letor=True)
    Traceback (most recent call last):
    ...
    ValueError: a.txt, line 1: carriage returns (\\r) split the line into rows: the file ends its lines with \\r alone (classic Mac OS); convert its line endings to \\n
    >>> refuse_lone_carriage_return(b"0\\t1\\r\\t0.5\\n", "pairs.txt", 1)  # a weight pasted onto a CRLF pair
    """
    if b"\r" not in line:  # most lines of most files: nothing to split
        return
    pieces = line.rstrip(b"\r\n").split(b"\r")
    if len(pieces) < 2:
        return
    rows = (any(_starts_with_a_number(p) for p in pieces[1:]) if letor else _same_fields_as_another(pieces))
    if rows:
        raise ValueError(f"{path}, line {lineno}: carriage returns (\\r) split the line into rows: the file ends its "
                         "lines with \\r alone (classic Mac OS); convert its line endings to \\n")


def input_file_problem(path, read_twice: bool = True) -> str | None:
    """Why ``path`` cannot be read as a data file (None when it can): missing, a directory, no regular file
    where it is ``read_twice`` (a pipe: the data readers read a file twice), or not readable. For checks
    before long work."""
    if not os.path.exists(path):
        return "no such file"
    if os.path.isdir(path):
        return "is a directory, not a file"
    if read_twice and not os.path.isfile(path):
        return "is not a regular file (a pipe or a device), and the file is read twice; write it to a file first"
    if not os.access(path, os.R_OK):
        return "permission denied"
    return None


#: The command line's options that name a data file, which the LETOR reader reads twice (a pipe will not do);
#: the others (sidecars, scores, models) are read once.
DATA_FILE_OPTIONS = ("--train", "--valid", "--data")


def check_readable(path, name: str) -> None:
    """A ValueError ``"{name} {path}: {problem}"`` where :func:`input_file_problem` finds one; None is no file.
    A pipe is refused for the options of :data:`DATA_FILE_OPTIONS` only."""
    problem = None if path is None else input_file_problem(path, read_twice=name in DATA_FILE_OPTIONS)
    if problem is not None:
        raise ValueError(f"{name} {path}: {problem}")


def json_line(payload: dict) -> str:
    """``payload`` as one line of strict JSON (RFC 8259 has no NaN or infinity: they are written null).

    >>> json_line({"MAP": float("nan"), "NDCG": 0.5})
    '{"MAP": null, "NDCG": 0.5}'
    """
    def strict(value):
        return None if isinstance(value, float) and not math.isfinite(value) else value

    return json.dumps({key: strict(value) for key, value in payload.items()}, allow_nan=False)


def same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name one file (through links too); stdout ("-") and None are no file.

    >>> same_file("x.txt", "./x.txt"), same_file("-", "-")
    (True, False)
    """
    if a is None or b is None or is_stdout(a) or is_stdout(b):
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return os.path.realpath(a) == os.path.realpath(b)


def check_writable(path: str, name: str) -> None:
    """A ValueError naming ``name`` (an option or a parameter) unless ``path`` can be written: its directory
    exists and is writable, and ``path`` is not a directory. For checks before long work."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"{name} {path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK):
        raise ValueError(f"{name} {path}: directory {directory} is not writable")
    if os.path.isdir(path):
        raise ValueError(f"{name} {path} is a directory; give a file name")


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_through(path: str) -> bool:
    """Whether ``path`` must be written in place: it is (or a symlink leads to)
    ``/dev/...``, ``/proc/...`` or anything that exists and is not a regular file."""
    p = os.path.abspath(path)
    for _ in range(40):
        if p.startswith(("/dev/", "/proc/")):
            return True
        if not os.path.islink(p):
            break
        p = os.path.abspath(os.path.join(os.path.dirname(p), os.readlink(p)))
    try:
        st = os.stat(p)
    except OSError:
        return False
    return not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode))


@contextlib.contextmanager
def _compressed(raw, path) -> Iterator[IO[bytes]]:
    comp = compression_of(path)
    if comp == "gz":
        # mtime=0 and no file name: identical input gives identical bytes.
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as stream:
            yield stream
    elif comp == "bz2":
        with bz2.BZ2File(raw, "wb") as stream:
            yield stream
    else:
        yield raw


class _Unclosed:
    """Write-through view of a stream that must stay open (standard output)."""

    def __init__(self, raw):
        self._raw = raw

    def __getattr__(self, name):
        return getattr(self._raw, name)

    def write(self, data):
        return self._raw.write(data)

    def writable(self):
        return True

    def close(self):
        self._raw.flush()

    @property
    def closed(self):
        return False


@contextlib.contextmanager
def atomic_write(path) -> Iterator[IO[bytes]]:
    """Binary stream whose content replaces ``path`` atomically on success.

    The data go to a temporary file in the same directory (so the final
    :func:`os.replace` is a rename within one file system), compressed when
    ``path`` ends in ``.gz`` or ``.bz2``. On any exception the temporary file
    is removed and ``path`` is left untouched.

    ``path == "-"`` writes to standard output. A path that is a device, a
    FIFO or a socket is opened and written directly (it cannot be replaced,
    and must not be: replacing ``/dev/stdout`` as root would turn it into a
    regular file). A symbolic link is resolved first, so its target is
    replaced and the link is kept.
    """
    if is_stdout(path):
        out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
        if out is None:  # pragma: no cover - stdout replaced by a text-only object
            raise OSError("standard output does not accept bytes")
        sys.stdout.flush()
        with _compressed(_Unclosed(out), "") as stream:
            yield stream
        out.flush()
        return
    path = os.fspath(path)
    if _write_through(path):
        # device, FIFO, socket, /dev/stdout: append through it, never replace it
        with open(path, "ab") as raw, _compressed(raw, path) as stream:
            yield stream
        return
    if os.path.islink(path):
        path = os.path.realpath(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{path} is a directory, not a file")
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.", suffix=".tmp")
    except FileNotFoundError:  # mkstemp's message names its own temporary file, not the caller's
        raise FileNotFoundError(errno.ENOENT, f"cannot write {path}: directory {directory} does not exist") from None
    except PermissionError:
        raise PermissionError(errno.EACCES, f"cannot write {path}: directory {directory} is not writable") from None
    try:
        with os.fdopen(fd, "wb") as raw:
            with _compressed(raw, path) as stream:
                yield stream
            raw.flush()
            os.fsync(raw.fileno())
        if st is not None:
            mode = st.st_mode & 0o7777
        else:
            mode = 0o666 & ~_current_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def figure_format(path) -> str:
    """The format :func:`save_figure` writes ``path`` in: its suffix (before ``.gz``/``.bz2``), PNG without one."""
    name = os.fspath(path)
    for packed in (".gz", ".bz2"):  # atomic_write compresses these; the figure's format is the suffix before
        if name.endswith(packed):
            name = name[: -len(packed)]
    return os.path.splitext(name)[1].lstrip(".").lower() or "png"


def check_figure_path(path, option: str) -> None:
    """A ValueError naming ``option`` unless ``path`` can be written and matplotlib writes its format: checked
    before the work whose figure it is."""
    from matplotlib.figure import Figure

    check_writable(path, option)
    formats = Figure().canvas.get_supported_filetypes()
    if figure_format(path) not in formats:
        raise ValueError(f"{option} {path}: matplotlib writes no '{figure_format(path)}' figure; use one of the "
                         f"suffixes {', '.join('.' + f for f in sorted(formats))}")


def refuse_overwriting(output_option: str, output, inputs, what: str) -> None:
    """A ValueError when ``output`` names the file of one of ``inputs`` (``(option, path)`` pairs, None skipped):
    ``what`` would replace it."""
    for option, path in inputs:
        if same_file(path, output):
            raise ValueError(f"{output_option} {output} is {option}'s file: {what} would replace it; name another "
                             "file")


def save_figure(fig, path, dpi: int) -> None:
    """Save a pyplot figure through :func:`atomic_write`, then close it.

    A failed save leaves ``path`` as it was, and closes the figure too (pyplot keeps open figures alive).
    The format is the file's suffix (``.png``, ``.pdf``, ``.svg``, ...), as ``fig.savefig(path)`` reads it;
    PNG without one. A binary stream (``path`` with a ``write`` method) is written directly, as PNG.
    """
    import matplotlib.pyplot as plt

    try:
        if hasattr(path, "write"):
            fig.savefig(path, format="png", dpi=dpi)
            return
        with atomic_write(path) as fh:
            fig.savefig(fh, format=figure_format(path), dpi=dpi)
    finally:
        plt.close(fig)

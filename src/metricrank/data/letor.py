"""Reading and writing LETOR / SVMlight ranking files.

A line of such a file is::

    <label> [qid:<int>] <index>:<value> <index>:<value> ... [# comment]

with strictly increasing feature indices (1-based in LETOR, MSLR and the
LightGBM examples). LETOR 4.0 comments carry the document id:
``#docid = GX004-93-7097963 inc = 0.04 prob = 0.86``.

The features are parsed by :func:`sklearn.datasets.load_svmlight_file`; a light
pass over the raw lines supplies what sklearn does not: the 1-based line
number of every data row (for precise error messages), the query ids (read
here rather than through sklearn's ``query_id=True``, whose cost grows
quadratically with the number of rows in scikit-learn <= 1.9) and the doc ids
from the comments.
"""

from __future__ import annotations

import operator
import os
import re
import warnings
from array import array

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from .._checks import check_flag, is_integer
from .._groups import NonContiguousQueryError, group_ptr_from_qid, group_ptr_from_sizes
from .dataset import RankingDataset
from .._io import atomic_write, compression_of, open_read, refuse_lone_carriage_return
from .sidecars import load_query_file, save_query_file

__all__ = ["OneQueryWarning", "UnreadWeightFileWarning", "load_letor", "save_letor"]


class OneQueryWarning(UserWarning):
    """A file without ``qid`` and without a query file was read as a single query."""


class UnreadWeightFileWarning(UserWarning):
    """LightGBM's weight file ``DATA.weight`` lies beside the data and :func:`load_letor` did not read it."""


_DOCID_RE = re.compile(rb"docid\s*=\s*(\S+)")


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


class _Scan:
    """What the raw-line pass learned about a file."""

    __slots__ = ("lines", "qid", "doc_ids", "has_qid")

    def __init__(self, lines, qid, doc_ids, has_qid):
        self.lines = lines  # int64 (n_rows,): 1-based line number of each row
        self.qid = qid  # int64 (n_rows,) or None
        self.doc_ids = doc_ids  # object (n_rows,) or None
        self.has_qid = has_qid


def _scan(path) -> _Scan:
    with open_read(path) as fh:
        state = _ScanState()
        try:
            state.run(fh, path)
        except (EOFError, OSError) as exc:  # truncated or corrupt .gz / .bz2
            raise ValueError(f"{path}, line {state.lineno + 1}: cannot read the file: {exc}") from exc
    n = len(state.lines)
    return _Scan(
        lines=np.frombuffer(state.lines, dtype=np.int64) if n else np.zeros(0, dtype=np.int64),
        qid=(np.frombuffer(state.qids, dtype=np.int64).copy() if state.has_qid else None),
        doc_ids=(np.asarray(state.doc_ids, dtype=object) if state.any_doc else None),
        has_qid=bool(state.has_qid),
    )


class _ScanState:
    def __init__(self):
        self.lines = array("q")
        self.qids = array("q")
        self.doc_ids: list = []
        self.any_doc = False
        self.has_qid = None  # decided by the first data row
        self.lineno = 0

    def run(self, fh, path):
        lines, qids, doc_ids = self.lines, self.qids, self.doc_ids
        for lineno, raw in enumerate(fh, 1):
            self.lineno = lineno
            refuse_lone_carriage_return(raw, path, lineno, letor=True)
            hash_pos = raw.find(b"#")
            body = raw if hash_pos < 0 else raw[:hash_pos]
            parts = body.split(None, 2)
            if not parts:
                continue
            if b"_" in body:  # Python reads "1_0" as 10; SVMlight has no digit separators
                token = next(t for t in body.split() if b"_" in t).decode(errors="replace")
                raise ValueError(f"{path}, line {lineno}: {token!r} holds a '_', which is no part of an SVMlight "
                                 "number; write the number without it")
            row_has_qid = len(parts) > 1 and parts[1].startswith(b"qid")
            if row_has_qid and not parts[1].startswith(b"qid:"):
                raise ValueError(
                    f"{path}, line {lineno}: malformed query id token "
                    f"{parts[1].decode(errors='replace')!r} (expected qid:<integer>)"
                )
            if not row_has_qid and len(parts) > 2 and b"qid:" in parts[2]:
                tok = next(t for t in parts[2].split() if t.startswith(b"qid:"))
                raise ValueError(
                    f"{path}, line {lineno}: query id token {tok.decode(errors='replace')!r} "
                    "must directly follow the label"
                )
            if self.has_qid is None:
                self.has_qid = row_has_qid
            elif row_has_qid != self.has_qid:
                raise ValueError(
                    f"{path}, line {lineno}: "
                    + ("row has a qid" if row_has_qid else "row has no qid")
                    + f" but the first data row (line {lines[0]}) "
                    + ("does not" if row_has_qid else "does")
                    + "; either every row or no row must have one"
                )
            if row_has_qid:
                token = parts[1][4:]
                try:
                    value = int(token)
                except ValueError:
                    raise ValueError(
                        f"{path}, line {lineno}: query id {token.decode(errors='replace')!r} "
                        "is not an integer"
                    ) from None
                try:
                    qids.append(value)
                except OverflowError:  # the array of qids is int64
                    raise ValueError(
                        f"{path}, line {lineno}: query id {value} is outside the 64-bit signed integers "
                        f"({-2**63} to {2**63 - 1}) that qids are read as"
                    ) from None
            doc = None
            if hash_pos >= 0:
                m = _DOCID_RE.search(raw, hash_pos)
                if m is not None:
                    doc = m.group(1).decode("utf-8", errors="replace")
                    self.any_doc = True
            doc_ids.append(doc)
            lines.append(lineno)


#: The largest feature index :func:`sklearn.datasets.load_svmlight_file` reads (a C int; above, OverflowError).
_MAX_INDEX = 2**31 - 1


def _check_line(body: bytes, allow_zero: bool) -> str | None:
    """Reason why a data line cannot be parsed, or None if it is fine."""
    parts = body.split()
    if not parts:
        return None
    try:
        float(parts[0])
    except ValueError:
        return f"label {parts[0].decode(errors='replace')!r} is not a number"
    feats = parts[1:]
    if feats and feats[0].startswith(b"qid"):
        if not feats[0].startswith(b"qid:"):
            return f"malformed query id token {feats[0].decode(errors='replace')!r}"
        try:
            int(feats[0][4:])
        except ValueError:
            return f"query id in {feats[0].decode(errors='replace')!r} is not an integer"
        feats = feats[1:]
    prev = -1
    for tok in feats:
        text = tok.decode(errors="replace")
        if b":" not in tok:
            return f"token {text!r} is not of the form index:value"
        idx_s, val_s = tok.split(b":", 1)
        try:
            idx = int(idx_s)
        except ValueError:
            return f"feature index in {text!r} is not an integer"
        try:
            float(val_s)
        except ValueError:
            return f"feature value in {text!r} is not a number"
        if idx < 0 or (idx == 0 and not allow_zero):
            return f"invalid feature index {idx} in {text!r}"
        if idx > _MAX_INDEX:
            return f"feature index {idx} in {text!r} is above {_MAX_INDEX}, the largest scikit-learn's reader takes"
        if idx <= prev:
            return (
                f"feature index {idx} is not greater than the previous index {prev} "
                "(indices must be sorted and unique)"
            )
        prev = idx
    return None


def _locate_bad_line(path, allow_zero: bool):
    with open_read(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            hash_pos = raw.find(b"#")
            body = raw if hash_pos < 0 else raw[:hash_pos]
            reason = _check_line(body, allow_zero)
            if reason is not None:
                return lineno, reason
    return None


def _query_file_for(path, query_file):
    if query_file is not None:
        return os.fspath(query_file)
    path = os.fspath(path)
    candidates = [path + ".query", path + ".group"]
    if compression_of(path):
        stem = path.rsplit(".", 1)[0]
        candidates += [stem + ".query", stem + ".group"]
    for cand in candidates:
        if os.path.isfile(cand):
            return cand
    return None


def _noncontiguous_error(path, qid, lines):
    starts = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    bounds = np.concatenate(([0], starts))
    run_ids = qid[bounds]
    _, first = np.unique(run_ids, return_index=True)
    repeat = np.ones(run_ids.size, dtype=bool)
    repeat[first] = False
    k = int(np.flatnonzero(repeat)[0])
    row = int(bounds[k])
    q = int(run_ids[k])
    first_row = int(np.flatnonzero(qid == q)[0])
    return NonContiguousQueryError(
        f"{path}, line {int(lines[row])}: query id {q} reappears after rows of other queries "
        f"(its rows start on line {int(lines[first_row])}); rows of a query must be contiguous. "
        "Sort the file by query, or pass stable_sort=True to reorder the rows stably by first "
        "appearance."
    )


def load_letor(
    path,
    *,
    n_features=None,
    dtype=np.float64,
    dense=None,
    stable_sort=False,
    query_file=None,
    zero_based=False,
) -> RankingDataset:
    """Load a LETOR / SVMlight ranking file.

    Parameters
    ----------
    path : str or path-like
        The file; ``.gz`` and ``.bz2`` files are decompressed.
    n_features : int, optional
        Number of feature columns. Use the same value for the train,
        validation and test files so their columns line up: missing trailing
        columns are padded with zeros, and a feature index beyond
        ``n_features`` is an error. By default, the largest index in the file.
    dtype : numpy dtype, default=np.float64
        dtype of ``X`` (labels are always float64).
    dense : bool, optional
        ``True`` returns ``X`` as an ndarray, ``False`` as a CSR matrix;
        ``None`` (default) chooses dense when the file has at most 1000
        features or more than 30% of the entries are non-zero.
    stable_sort : bool, default=False
        With ``qid``: if False, the rows of each query must be contiguous
        (otherwise :class:`~metricrank._groups.NonContiguousQueryError`,
        naming the file, the query id and the line); if True, the rows are
        reordered stably by the query's first appearance. Files that index
        the file's rows (CatBoost pairs, LightGBM weights) then no longer
        line up with the data set's rows: sort the file itself by query to
        use them.
    query_file : str or path-like, optional
        Query sizes (one per line) for a file without ``qid``. By default
        ``<path>.query`` or ``<path>.group`` is used when it exists (LightGBM's
        convention; for ``x.gz``, ``x.query`` is tried too). A file without
        ``qid`` and without a query file is treated as ONE query and a
        :class:`OneQueryWarning` says so (the CLI prints it as one line on
        stderr). If the file
        has ``qid`` and ``query_file`` is given explicitly, both must agree;
        an adjacent query file is ignored. An adjacent ``<path>.weight``
        (LightGBM's row weights) is not read, and an :class:`UnreadWeightFileWarning` (a UserWarning) says so.
    zero_based : bool or "auto", default=False
        Whether feature indices start at 0. The default follows SVMlight and
        LETOR (1-based; an index 0 is an error naming the line), so that
        train, validation and test files always map index ``j`` to the same
        column. ``"auto"`` (sklearn's heuristic) decides per file: 0-based if
        an index 0 occurs, which can shift columns between files.

    Returns
    -------
    RankingDataset
        With ``qid`` (if the file has query ids), ``doc_ids`` (if the
        comments carry ``docid = ...``) and ``source`` set to ``path``.

    Raises
    ------
    ValueError
        For a malformed line, a feature index beyond ``n_features``, an
        index 0 with ``zero_based=False``, a non-finite label, a mix of rows
        with and without ``qid``, query sizes that do not match the rows, or
        a file without data rows. Messages name the file and the line. Also
        for a bad option (a non-floating ``dtype``, a flag that is not a bool),
        before the file is read.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> _ = open(p, "w").write(
    ...     "2 qid:10 1:0.5 3:1 #docid = a\\n"
    ...     "0 qid:10 2:0.25 #docid = b\\n"
    ...     "1 qid:11 1:1 #docid = c\\n")
    >>> ds = load_letor(p, n_features=4)
    >>> ds.X.tolist()
    [[0.5, 0.0, 1.0, 0.0], [0.0, 0.25, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]
    >>> ds.y.tolist(), ds.qid.tolist(), ds.doc_ids.tolist(), ds.group_ptr.tolist()
    ([2.0, 0.0, 1.0], [10, 10, 11], ['a', 'b', 'c'], [0, 2, 3])
    """
    path = os.fspath(path)
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    if not (n_features is None or (is_integer(n_features) and n_features >= 0)):
        raise ValueError(f"n_features must be None or a non-negative integer, got {n_features!r}")
    try:
        floating = np.dtype(dtype).kind == "f"
    except TypeError:
        floating = False
    if not floating:  # an integer dtype would truncate the feature values
        raise ValueError(f"dtype must be a floating-point dtype such as numpy.float32 or numpy.float64, got {dtype!r}")
    if dense is not None:
        check_flag(dense, "dense")
    check_flag(stable_sort, "stable_sort")

    scan = _scan(path)
    n_rows = scan.lines.shape[0]
    if n_rows == 0:
        raise ValueError(f"{path}: file contains no data rows")

    # Parse with raw (0-or-more) indices; the 1-based shift is applied below
    # so that errors can quote the indices as written in the file.
    try:
        X, y = load_svmlight_file(path, dtype=dtype, zero_based=True, query_id=False)
    except (ValueError, OverflowError) as exc:  # OverflowError: an index beyond a C int
        located = _locate_bad_line(path, allow_zero=zero_based is not False)
        if located is not None:
            lineno, reason = located
            raise ValueError(f"{path}, line {lineno}: {reason}") from exc
        raise ValueError(f"{path}: {exc}") from exc
    if X.shape[0] != n_rows:  # pragma: no cover - both passes skip the same lines
        raise RuntimeError(f"{path}: sklearn read {X.shape[0]} rows but the file has {n_rows} data rows")
    X = sp.csr_matrix(X)

    # Labels.
    bad = ~np.isfinite(y)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{path}, line {int(scan.lines[i])}: label {float(y[i])} is not finite")

    # Feature indices: zero- or one-based, and the column count.
    indices = X.indices
    if zero_based is False and indices.size and indices.min() == 0:
        k = int(np.flatnonzero(indices == 0)[0])
        row = int(np.searchsorted(X.indptr, k, side="right") - 1)
        raise ValueError(
            f"{path}, line {int(scan.lines[row])}: feature index 0 in a file read with zero_based=False "
            "(SVMlight indices start at 1); pass zero_based=True for 0-based files"
        )
    one_based = zero_based is False or (zero_based == "auto" and indices.size > 0 and indices.min() > 0)
    offset = 1 if one_based else 0
    width = int(indices.max()) + 1 - offset if indices.size else 0
    if n_features is None:
        n_features = width
    n_features = int(n_features)
    if width > n_features:
        k = int(np.flatnonzero(indices - offset >= n_features)[0])
        row = int(np.searchsorted(X.indptr, k, side="right") - 1)
        raise ValueError(
            f"{path}, line {int(scan.lines[row])}: feature index {int(indices[k])} exceeds "
            f"n_features={n_features}"
            + (" (indices are 1-based)" if one_based else " (indices are 0-based)")
        )
    X = sp.csr_matrix(
        (X.data, (indices - offset) if offset else indices, X.indptr), shape=(n_rows, n_features)
    )

    # Queries.
    qid = scan.qid
    doc_ids = scan.doc_ids
    order = None  # the file's rows in the data set's order, where stable_sort moved them
    if qid is not None:
        try:
            group_ptr, order = group_ptr_from_qid(qid, stable_sort=stable_sort, source=path)
        except NonContiguousQueryError as exc:
            raise _noncontiguous_error(path, qid, scan.lines) from exc
        if order is not None:
            X = X[order]
            y = y[order]
            qid = qid[order]
            if doc_ids is not None:
                doc_ids = doc_ids[order]
        if query_file is not None:
            sizes = load_query_file(query_file)
            if not np.array_equal(sizes, np.diff(group_ptr)):
                raise ValueError(
                    f"{path}: the query sizes in {os.fspath(query_file)} do not match the file's qid"
                )
    else:
        qf = _query_file_for(path, query_file)
        if qf is not None:
            sizes = load_query_file(qf)
            try:
                group_ptr = group_ptr_from_sizes(sizes, n_rows=n_rows)
            except ValueError as exc:
                raise ValueError(f"{path} with query file {qf}: {exc}") from None
        else:
            if n_rows > 1:
                warnings.warn(
                    f"{path} has no qid and no query file ({os.path.basename(path)}.query): "
                    f"all {n_rows} rows are treated as one query",
                    OneQueryWarning, stacklevel=2,
                )
            group_ptr = np.array([0, n_rows], dtype=np.int64)

    # Storage.
    if dense is None:
        cells = n_rows * n_features
        dense = n_features <= 1000 or (cells > 0 and X.nnz / cells > 0.3)
    if dense:
        X = X.toarray()

    beside = f"{os.fspath(path)}.weight"
    if os.path.isfile(beside):  # LightGBM would weigh the rows by it; a switch from LightGBM must not lose them
        how = (f"to weigh the rows, pass weight=metricrank.data.load_weights({beside!r}, n_rows={n_rows}) to a "
               "RankingDataset of these arrays, or sample_weight= to fit" if order is None else
               "its weights follow the file's rows, which stable_sort reordered: sort the file by query to use it")
        warnings.warn(f"{beside} is not read (LightGBM reads it by default): {how}", UnreadWeightFileWarning,
                      stacklevel=2)
    return RankingDataset(X, y, group_ptr=group_ptr, qid=qid, doc_ids=doc_ids, source=path)


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _as_dataset(data) -> RankingDataset:
    if isinstance(data, RankingDataset):
        return data
    if isinstance(data, tuple) and len(data) in (2, 3):
        X, y = data[0], data[1]
        qid = data[2] if len(data) == 3 else None
        return RankingDataset(X, y, qid=qid)
    raise TypeError("data must be a RankingDataset or a tuple (X, y) or (X, y, qid)")


def _format_values(values: np.ndarray) -> list[str]:
    """Shortest round-trip text of each value (C-level maps: this is the hot loop)."""
    if values.dtype == np.float32:
        # 9 significant digits always read back as the same float32.
        return list(map("%.9g".__mod__, values.tolist()))
    return list(map(_strip_zero_fraction, map(repr, values.astype(np.float64, copy=False).tolist())))


_strip_zero_fraction = operator.methodcaller("removesuffix", ".0")


def save_letor(
    data,
    path,
    *,
    zero_based=False,
    write_qid=True,
    write_doc_ids=True,
    query_file=None,
    comment=None,
    chunk_rows=65536,
) -> None:
    """Write a data set as a LETOR / SVMlight file, atomically.

    Values are written with the shortest text that reads back as the same
    number (``repr``; 9 significant digits for float32), so
    ``load_letor(path, n_features=ds.n_features)`` reproduces ``X`` and ``y``
    exactly. Zero features are omitted (so without ``n_features`` trailing
    all-zero columns are not read back). Weights, group weights and pairs
    have no place in the format: a UserWarning names those the data set
    holds, and :func:`save_weights`, :func:`save_group_weights` and
    :func:`save_pairs` write them beside it.

    Parameters
    ----------
    data : RankingDataset or tuple
        The data set, or ``(X, y)`` / ``(X, y, qid)``.
    path : str or path-like
        Destination; ``.gz`` / ``.bz2`` compress. The file is written to a
        temporary file in the same directory and moved into place.
    zero_based : bool, default=False
        Write feature indices from 0 instead of LETOR's 1.
    write_qid : bool, default=True
        Write ``qid:`` tokens: the data set's integer ``qid``, or the query
        index when it has none.
    write_doc_ids : bool, default=True
        Append ``#docid = <id>`` to rows that have a doc id.
    query_file : str, path-like or True, optional
        Also write the query sizes (LightGBM ``.query`` file) to this path;
        ``True`` means ``<path>.query``.
    comment : str, optional
        Header text, written as ``#`` lines at the top of the file.
    chunk_rows : int, default=65536
        Rows formatted at a time (bounds memory on big data).

    Raises
    ------
    ValueError
        If ``qid`` is not integer, or a doc id is empty or contains
        whitespace (it could not be read back); for a bad option (a flag that
        is not a bool, ``chunk_rows < 1``, a ``comment`` that is not a string),
        before anything is written.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> ds = RankingDataset(np.array([[0.5, 0.0], [0.0, 2.0]]), [1, 0], qid=[3, 3],
    ...                     doc_ids=["d1", "d2"])
    >>> p = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> save_letor(ds, p)
    >>> print(open(p).read(), end="")
    1 qid:3 1:0.5 #docid = d1
    0 qid:3 2:2 #docid = d2
    >>> load_letor(p, n_features=2).X.tolist()
    [[0.5, 0.0], [0.0, 2.0]]
    """
    for name, flag in (("zero_based", zero_based), ("write_qid", write_qid), ("write_doc_ids", write_doc_ids)):
        check_flag(flag, name)
    if not (is_integer(chunk_rows) and chunk_rows >= 1):
        raise ValueError(f"chunk_rows must be an integer >= 1, got {chunk_rows!r}")
    if not (comment is None or isinstance(comment, str)):
        raise ValueError(f"comment must be a string or None, got {comment!r}")
    ds = _as_dataset(data)
    n = ds.n_docs
    unwritten = [f"{what} ({writer})" for what, held, writer in (
        ("weights", ds.weight, "save_weights"), ("group weights", ds.group_weight, "save_group_weights"),
        ("pairs", ds.pairs, "save_pairs")) if held is not None]
    if unwritten:
        warnings.warn(f"save_letor writes no {', '.join(unwritten)}: the LETOR format has no place for them; "
                      "write them beside the file with the functions named", UserWarning, stacklevel=2)
    qid = None
    if write_qid:
        if ds.qid is None:
            qid = np.repeat(np.arange(ds.n_queries, dtype=np.int64), ds.query_sizes)
        else:
            qid = np.asarray(ds.qid)
            if not np.issubdtype(qid.dtype, np.integer):
                as_int = None
                try:
                    as_int = qid.astype(np.int64)
                except (TypeError, ValueError):
                    pass
                if as_int is None or not np.array_equal(as_int.astype(qid.dtype), qid):
                    raise ValueError("SVMlight qid must be integers; this data set has non-integer query ids")
                qid = as_int
            elif qid.dtype == np.uint64 and qid.size and qid.max() > np.iinfo(np.int64).max:
                raise ValueError(f"query id {qid.max()} is above {np.iinfo(np.int64).max}: load_letor reads qids "
                                 "as 64-bit signed integers, so the file could not be read back; renumber the "
                                 "queries (or pass write_qid=False with query_file=)")
    doc_ids = None
    if write_doc_ids and ds.doc_ids is not None:
        doc_ids = []
        for i, d in enumerate(ds.doc_ids.tolist()):
            if d is None:
                doc_ids.append("")
                continue
            d = str(d)
            if not d or any(c.isspace() for c in d) or "#" in d:
                raise ValueError(f"doc id of row {i} ({d!r}) is empty or contains whitespace or '#'")
            doc_ids.append(f" #docid = {d}")

    X = ds.X if sp.issparse(ds.X) else None
    base = 0 if zero_based else 1
    prefix = [f"{j + base}:" for j in range(ds.n_features)]
    y_text = _format_values(ds.y)
    qid_text = None if qid is None else [f" qid:{q}" for q in qid.tolist()]

    with atomic_write(path) as fh:
        if comment:
            fh.write("".join(f"# {line}\n" for line in str(comment).splitlines()).encode("utf-8"))
        for start in range(0, n, chunk_rows):
            stop = min(n, start + chunk_rows)
            if X is not None:
                block = sp.csr_matrix(X[start:stop], copy=True)
            else:
                block = sp.csr_matrix(ds.X[start:stop])
            block.eliminate_zeros()
            block.sort_indices()
            names = map(prefix.__getitem__, block.indices.tolist())
            tokens = list(map(operator.add, names, _format_values(block.data)))
            ptr = block.indptr.tolist()
            out = []
            for r in range(stop - start):
                g = start + r
                line = y_text[g]
                if qid_text is not None:
                    line += qid_text[g]
                feats = tokens[ptr[r] : ptr[r + 1]]
                if feats:
                    line += " " + " ".join(feats)
                if doc_ids is not None:
                    line += doc_ids[g]
                out.append(line + "\n")
            fh.write("".join(out).encode("utf-8"))

    if query_file is not None and query_file is not False:
        target = os.fspath(path) + ".query" if query_file is True else query_file
        save_query_file(target, ds.query_sizes)

"""Side files that accompany a ranking data file.

* ``.query`` / ``.group`` files (LightGBM): one query size per line, in row
  order.
* pairs files (CatBoost): ``winner<TAB>loser[<TAB>weight]`` per line, 0-based
  row indices into the data set; the first object is preferred over the
  second.
* group-weight files (CatBoost): ``group_id<TAB>weight`` per line.
* weight files (LightGBM's ``.weight``): one row weight per line, in row order.

All readers accept plain, ``.gz`` and ``.bz2`` files (chosen by extension),
report malformed input as :class:`ValueError` naming the file and the 1-based
line number, and all writers are atomic: they write a temporary file in the
target's directory and move it into place with :func:`os.replace`, so a
reader never sees a half-written file.
"""

from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from .._checks import is_integer
from .._groups import as_pair_array, group_ptr_from_sizes, name_two_queries
from .._io import atomic_write, open_read, refuse_lone_carriage_return

__all__ = [
    "load_group_weights",
    "load_pairs",
    "load_query_file",
    "load_weights",
    "save_group_weights",
    "save_pairs",
    "save_query_file",
    "save_weights",
]


def _iter_data_lines(path) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for the non-blank, non-comment lines."""
    with open_read(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            refuse_lone_carriage_return(raw, path, lineno)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{path}, line {lineno}: not valid UTF-8 ({exc})") from None
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            yield lineno, text.split()


def _parse_int(token: str, path, lineno: int, what: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise ValueError(f"{path}, line {lineno}: {what} {token!r} is not an integer") from None


def _parse_weight(token: str, path, lineno: int) -> float:
    try:
        w = float(token)
    except ValueError:
        raise ValueError(f"{path}, line {lineno}: weight {token!r} is not a number") from None
    if not math.isfinite(w) or w < 0:
        raise ValueError(f"{path}, line {lineno}: weight {token!r} must be finite and >= 0")
    return w


def _fmt_float(v: float) -> str:
    """Shortest text that reads back as exactly ``v`` (integers without ``.0``)."""
    s = repr(float(v))
    return s[:-2] if s.endswith(".0") else s


# ---------------------------------------------------------------------------
# Query (group size) files
# ---------------------------------------------------------------------------


def _check_n_rows(n_rows) -> None:
    if not (n_rows is None or (is_integer(n_rows) and n_rows >= 0)):
        raise ValueError(f"n_rows must be None or an integer >= 0; got {n_rows!r}")


def load_query_file(path, *, n_rows=None) -> np.ndarray:
    """Read a LightGBM ``.query`` / ``.group`` file of query sizes.

    Parameters
    ----------
    path : str or path-like
        File with one positive integer per line: the number of rows of each
        query, in row order. Blank lines and ``#`` comment lines are skipped.
    n_rows : int, optional
        If given, the sizes must add up to it.

    Returns
    -------
    sizes : ndarray of int64, shape (n_queries,)

    Raises
    ------
    ValueError
        If a line is not a single positive integer (the message names the
        file and the line), the file holds no sizes, or the sizes do not add
        up to ``n_rows``.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "train.query")
    >>> save_query_file(p, [2, 3])
    >>> load_query_file(p).tolist()
    [2, 3]
    """
    _check_n_rows(n_rows)
    sizes = []
    for lineno, fields in _iter_data_lines(path):
        if len(fields) != 1:
            raise ValueError(f"{path}, line {lineno}: expected one query size per line, got {len(fields)} fields")
        size = _parse_int(fields[0], path, lineno, "query size")
        if size < 1:
            raise ValueError(f"{path}, line {lineno}: query size must be >= 1, got {size}")
        sizes.append(size)
    if not sizes:
        raise ValueError(f"{path}: query file contains no query sizes")
    out = np.asarray(sizes, dtype=np.int64)
    if n_rows is not None and int(out.sum()) != n_rows:
        raise ValueError(
            f"{path}: query sizes add up to {int(out.sum())} rows but the data has {n_rows} rows"
        )
    return out


def save_query_file(path, sizes) -> None:
    """Write query sizes, one per line (atomically).

    Parameters
    ----------
    path : str or path-like
        Destination; ``.gz`` / ``.bz2`` compress.
    sizes : array-like of int or RankingDataset
        Query sizes in row order, or a data set whose ``query_sizes`` are
        written.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.query")
    >>> save_query_file(p, [1, 4])
    >>> open(p).read()
    '1\\n4\\n'
    """
    if hasattr(sizes, "query_sizes"):
        sizes = sizes.query_sizes
    sizes = np.asarray(sizes)
    group_ptr_from_sizes(sizes)  # validates: 1-D, integer, >= 1
    text = "".join(f"{int(s)}\n" for s in sizes.tolist())
    with atomic_write(path) as fh:
        fh.write(text.encode("ascii"))


# ---------------------------------------------------------------------------
# Pairs files
# ---------------------------------------------------------------------------


def load_pairs(path, *, n_rows=None, group_ptr=None, qid=None):
    """Read a CatBoost pairs file.

    Each line is ``winner<TAB>loser[<TAB>weight]``: 0-based indices of two
    rows of the data set, the first preferred over the second, and an
    optional non-negative pair weight (default 1). Any whitespace separates
    fields; blank and ``#`` lines are skipped.

    Parameters
    ----------
    path : str or path-like
    n_rows : int, optional
        Number of rows of the data set; an index ``>= n_rows`` is an error.
    group_ptr : array-like of int, optional
        Query offsets of the data set; when given, both rows of a pair must
        belong to the same query (and ``n_rows`` defaults to
        ``group_ptr[-1]``).
    qid : array-like, optional
        The data set's query id of each row, to name the queries of a pair
        that crosses two (by position without it).

    Returns
    -------
    pairs : ndarray of int64, shape (n_pairs, 2)
        ``pairs[k] = (winner, loser)``.
    weights : ndarray of float64, shape (n_pairs,), or None
        ``None`` if no line carries a weight; otherwise lines without a weight
        get 1.

    Raises
    ------
    ValueError
        For a malformed line, a negative or out-of-range index, a pair of a
        row with itself, a pair across two queries, or a negative/non-finite
        weight; the message names the file and the line.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "train.pairs")
    >>> _ = open(p, "w").write("0\\t1\\n2\\t1\\t0.5\\n")
    >>> pairs, w = load_pairs(p, n_rows=3)
    >>> pairs.tolist(), w.tolist()
    ([[0, 1], [2, 1]], [1.0, 0.5])
    """
    _check_n_rows(n_rows)
    ptr = None
    if group_ptr is not None:
        ptr = np.asarray(group_ptr, dtype=np.int64)
        if n_rows is None:
            n_rows = int(ptr[-1])
        elif ptr.size and n_rows != int(ptr[-1]):
            raise ValueError(f"n_rows={n_rows} but group_ptr ends at {int(ptr[-1])} rows; give one of them, or "
                             "both of the same data set")
    winners: list[int] = []
    losers: list[int] = []
    weights: list[float] = []
    lines: list[int] = []
    any_weight = False
    for lineno, fields in _iter_data_lines(path):
        if len(fields) not in (2, 3):
            raise ValueError(
                f"{path}, line {lineno}: expected 'winner<TAB>loser[<TAB>weight]', got {len(fields)} fields"
            )
        w_idx = _parse_int(fields[0], path, lineno, "winner index")
        l_idx = _parse_int(fields[1], path, lineno, "loser index")
        for name, idx in (("winner", w_idx), ("loser", l_idx)):
            if idx < 0:
                raise ValueError(f"{path}, line {lineno}: {name} index {idx} is negative")
            if n_rows is not None and idx >= n_rows:
                raise ValueError(
                    f"{path}, line {lineno}: {name} index {idx} is out of range for a data set of {n_rows} rows"
                )
        if w_idx == l_idx:
            raise ValueError(f"{path}, line {lineno}: pair of row {w_idx} with itself")
        if len(fields) == 3:
            weights.append(_parse_weight(fields[2], path, lineno))
            any_weight = True
        else:
            weights.append(1.0)
        winners.append(w_idx)
        losers.append(l_idx)
        lines.append(lineno)
    pairs = np.empty((len(winners), 2), dtype=np.int64)
    pairs[:, 0] = winners
    pairs[:, 1] = losers
    if ptr is not None and len(pairs):
        q = np.searchsorted(ptr, pairs, side="right") - 1
        bad = np.flatnonzero(q[:, 0] != q[:, 1])
        if bad.size:
            k = int(bad[0])
            raise ValueError(
                f"{path}, line {lines[k]}: rows {int(pairs[k, 0])} and {int(pairs[k, 1])} belong to "
                f"different queries ({name_two_queries(pairs[k], q[k], qid)})"
            )
    return pairs, (np.asarray(weights, dtype=np.float64) if any_weight else None)


def save_pairs(path, pairs, weights=None) -> None:
    """Write a CatBoost pairs file (atomically).

    Parameters
    ----------
    path : str or path-like
    pairs : array-like of int, shape (n_pairs, 2)
        ``(winner, loser)`` 0-based row indices.
    weights : array-like of float, shape (n_pairs,), optional
        Written as a third column when given.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "train.pairs")
    >>> save_pairs(p, [[0, 1], [2, 1]], [1.0, 0.5])
    >>> open(p).read()
    '0\\t1\\t1\\n2\\t1\\t0.5\\n'
    """
    pairs = as_pair_array(pairs)
    if np.any(pairs < 0):
        raise ValueError(f"pair {int(np.flatnonzero((pairs < 0).any(axis=1))[0])} has a negative index")
    if weights is None:
        text = "".join(f"{a}\t{b}\n" for a, b in pairs.tolist())
    else:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (pairs.shape[0],):
            raise ValueError(f"weights must have shape ({pairs.shape[0]},), got {weights.shape}")
        if not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise ValueError("pair weights must be finite and >= 0")
        text = "".join(
            f"{a}\t{b}\t{_fmt_float(w)}\n" for (a, b), w in zip(pairs.tolist(), weights.tolist())
        )
    with atomic_write(path) as fh:
        fh.write(text.encode("ascii"))


# ---------------------------------------------------------------------------
# Group-weight files
# ---------------------------------------------------------------------------


def _query_ids_of(dataset_or_ids) -> np.ndarray:
    if hasattr(dataset_or_ids, "query_ids"):
        return np.asarray(dataset_or_ids.query_ids)
    return np.asarray(dataset_or_ids)


def load_group_weights(path, query_ids) -> np.ndarray:
    """Read a CatBoost group-weights file and align it with the queries.

    Each line is ``group_id<TAB>weight``. Every query of the data set must
    appear exactly once, and no other group id may appear.

    Parameters
    ----------
    path : str or path-like
    query_ids : RankingDataset or array-like, shape (n_queries,)
        The data set (its ``query_ids`` are used: the ``qid`` of each query,
        or ``0 .. n_queries - 1`` when it has no ``qid``), or the id of each
        query in query order. With integer ids, the file's group ids are
        parsed as integers (so ``"007"`` matches 7); otherwise they are
        compared as strings.

    Returns
    -------
    group_weight : ndarray of float64, shape (n_queries,)
        Weight of each query, in query order.

    Raises
    ------
    ValueError
        For a malformed line, a non-finite or negative weight, a group id that
        is unknown or repeated (naming file and line), or a query missing
        from the file (naming the query ids).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "train.group_weights")
    >>> _ = open(p, "w").write("20\\t0.5\\n10\\t2\\n")
    >>> load_group_weights(p, [10, 20]).tolist()
    [2.0, 0.5]
    """
    ids = _query_ids_of(query_ids)
    if ids.ndim != 1:
        raise ValueError(f"query ids must be one-dimensional, got shape {ids.shape}")
    integer_ids = np.issubdtype(ids.dtype, np.integer)
    keys = ids.tolist() if integer_ids else [str(v) for v in ids.tolist()]
    position = {}
    for q, key in enumerate(keys):
        if key in position:
            raise ValueError(f"query id {key!r} occurs for more than one query")
        position[key] = q
    out = np.full(len(keys), np.nan)
    seen_line = {}
    for lineno, fields in _iter_data_lines(path):
        if len(fields) != 2:
            raise ValueError(f"{path}, line {lineno}: expected 'group_id<TAB>weight', got {len(fields)} fields")
        key = _parse_int(fields[0], path, lineno, "group id") if integer_ids else fields[0]
        if key not in position:
            raise ValueError(f"{path}, line {lineno}: group id {fields[0]!r} is not a query of the data set")
        if key in seen_line:
            raise ValueError(
                f"{path}, line {lineno}: group id {fields[0]!r} already given on line {seen_line[key]}"
            )
        seen_line[key] = lineno
        out[position[key]] = _parse_weight(fields[1], path, lineno)
    missing = np.flatnonzero(np.isnan(out))
    if missing.size:
        shown = ", ".join(repr(keys[i]) for i in missing[:5].tolist())
        more = f" and {missing.size - 5} more" if missing.size > 5 else ""
        raise ValueError(f"{path}: no weight for query id(s) {shown}{more}")
    return out


def save_group_weights(path, query_ids, weights) -> None:
    """Write a CatBoost group-weights file (atomically).

    Parameters
    ----------
    path : str or path-like
    query_ids : RankingDataset or array-like, shape (n_queries,)
        Data set (its ``query_ids``) or the id of each query.
    weights : array-like of float, shape (n_queries,)

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "gw.tsv")
    >>> save_group_weights(p, [10, 20], [2.0, 0.5])
    >>> load_group_weights(p, [10, 20]).tolist()
    [2.0, 0.5]
    """
    ids = _query_ids_of(query_ids)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != ids.shape or ids.ndim != 1:
        raise ValueError(f"need one weight per query: {ids.shape} ids, {weights.shape} weights")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("group weights must be finite and >= 0")
    parts = []
    for gid, w in zip(ids.tolist(), weights.tolist()):
        gid = str(gid)
        if not gid or any(c.isspace() for c in gid):
            raise ValueError(f"group id {gid!r} is empty or contains whitespace")
        parts.append(f"{gid}\t{_fmt_float(w)}\n")
    with atomic_write(path) as fh:
        fh.write("".join(parts).encode("utf-8"))


# ---------------------------------------------------------------------------
# Row weight files
# ---------------------------------------------------------------------------


def load_weights(path, *, n_rows=None) -> np.ndarray:
    """Read a LightGBM weight file: one row weight per line, in row order.

    Parameters
    ----------
    path : str or path-like
        Blank lines and ``#`` comment lines are skipped.
    n_rows : int, optional
        If given, the file must hold exactly this many weights.

    Returns
    -------
    weight : ndarray of float64, shape (n_rows,)

    Raises
    ------
    ValueError
        If a line is not a single finite number >= 0 (naming the file and the
        line), or the number of weights is not ``n_rows``.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "train.txt.weight")
    >>> save_weights(p, [1.0, 0.5, 2.0])
    >>> load_weights(p, n_rows=3).tolist()
    [1.0, 0.5, 2.0]
    """
    _check_n_rows(n_rows)
    weights = []
    for lineno, fields in _iter_data_lines(path):
        if len(fields) != 1:
            raise ValueError(f"{path}, line {lineno}: expected one weight per line, got {len(fields)} fields")
        weights.append(_parse_weight(fields[0], path, lineno))
    if n_rows is not None and len(weights) != n_rows:
        raise ValueError(f"{path}: {len(weights)} weights for {n_rows} rows; give one weight per row, in row order")
    return np.asarray(weights, dtype=np.float64)


def save_weights(path, weights) -> None:
    """Write row weights, one per line (atomically): a LightGBM weight file.

    Parameters
    ----------
    path : str or path-like
    weights : array-like of float, shape (n_rows,)

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.weight")
    >>> save_weights(p, [2, 0.25])
    >>> open(p).read()
    '2\\n0.25\\n'
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1:
        raise ValueError(f"weights must be one-dimensional; got shape {weights.shape}")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("weights must be finite and >= 0")
    with atomic_write(path) as fh:
        fh.write("".join(f"{_fmt_float(w)}\n" for w in weights.tolist()).encode("ascii"))

"""Group offsets: the one representation of queries used everywhere.

A ranking data set of ``n`` rows with ``Q`` queries is described by
``group_ptr``, an int64 array of length ``Q + 1`` with ``group_ptr[0] == 0``,
``group_ptr[-1] == n`` and query ``q`` occupying rows
``group_ptr[q]:group_ptr[q + 1]``. Every kernel in the package iterates over
these offsets.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "NonContiguousQueryError",
    "as_pair_array",
    "check_group_ptr",
    "check_query_ids",
    "check_pairs",
    "first_reappearance",
    "group_ptr_from_qid",
    "group_ptr_from_sizes",
    "holds_two_labels",
    "query_runs",
    "resolve_groups",
]


class NonContiguousQueryError(ValueError):
    """Rows of one query are split by rows of other queries."""


def group_ptr_from_sizes(sizes, *, n_rows=None) -> np.ndarray:
    """Offsets from query sizes (LightGBM's ``group`` / ``.query`` convention).

    Parameters
    ----------
    sizes : array-like of int
        Number of rows of each query, in row order. Every size must be >= 1.
    n_rows : int, optional
        If given, the sizes must add up to it.

    Returns
    -------
    group_ptr : ndarray of int64, shape (n_queries + 1,)

    Examples
    --------
    >>> group_ptr_from_sizes([2, 3]).tolist()
    [0, 2, 5]
    """
    sizes = np.asarray(sizes)
    if sizes.ndim != 1:
        raise ValueError(f"group sizes must be one-dimensional, got shape {sizes.shape}")
    if sizes.size and not np.issubdtype(sizes.dtype, np.integer):
        as_int = sizes.astype(np.int64)
        if not np.array_equal(as_int, sizes):
            raise ValueError("group sizes must be integers")
        sizes = as_int
    if np.any(sizes < 1):
        bad = int(np.flatnonzero(sizes < 1)[0])
        raise ValueError(f"group sizes must be >= 1; group {bad} has size {int(sizes[bad])}")
    ptr = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    if n_rows is not None and ptr[-1] != n_rows:
        raise ValueError(f"group sizes add up to {int(ptr[-1])} rows but the data has {n_rows} rows")
    return ptr


def _is_missing(value) -> bool:
    if value is None or isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return True
    try:
        return bool(value != value)  # other NaN-like objects (Decimal's); pandas.NA raises TypeError
    except TypeError:
        return True
    except ValueError:  # an array as an id: not missing (and not an id either; later checks say so)
        return False


def check_query_ids(bounds: np.ndarray, run_ids: np.ndarray, where: str = "") -> None:
    """Refuse missing query ids (NaN, inf, None, pandas.NA), which would each form a query of their own,
    and object ids mixing strings and numbers, which cannot be compared.

    Reads the runs of :func:`query_runs` (every id a row has is the id of its run), so that
    object ids cost a Python loop over the queries, not over the rows.

    Examples
    --------
    >>> check_query_ids(*query_runs(np.array([1.0, 1.0, float("nan")])))
    Traceback (most recent call last):
    ...
    ValueError: qid must not be missing; row 2 is nan (NaN, inf and None are not query ids)
    """
    if run_ids.dtype.kind in "fc":
        bad = np.flatnonzero(~np.isfinite(run_ids))
    elif run_ids.dtype.kind == "O":
        values = run_ids.tolist()
        bad = np.flatnonzero([_is_missing(v) for v in values])
        is_text = np.array([isinstance(v, (str, bytes)) for v in values])
        if not bad.size and 0 < is_text.sum() < is_text.size:  # ids that neither sort nor compare
            text, other = int(np.argmax(is_text)), int(np.argmin(is_text))
            raise ValueError(f"qid{where} mixes strings and numbers (row {bounds[text]} is {values[text]!r}, "
                             f"row {bounds[other]} is {values[other]!r}); give every query id the same type")
    else:
        return
    if bad.size:
        run = int(bad[0])
        raise ValueError(f"qid{where} must not be missing; row {bounds[run]} is {run_ids[run]} "
                         "(NaN, inf and None are not query ids)")


def query_runs(qid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First row and query id of each run of equal consecutive ids in a non-empty ``qid``.

    Examples
    --------
    >>> bounds, ids = query_runs(np.array([7, 7, 3, 7]))
    >>> bounds.tolist(), ids.tolist()
    ([0, 2, 3], [7, 3, 7])
    """
    try:
        changed = qid[1:] != qid[:-1]
    except TypeError:  # pandas.NA among object ids: its comparisons have no truth value
        changed = np.array([_differ(a, b) for a, b in zip(qid[1:].tolist(), qid[:-1].tolist())], dtype=bool)
    bounds = np.concatenate(([0], np.flatnonzero(changed) + 1)).astype(np.int64)
    return bounds, qid[bounds]


def _differ(a, b) -> bool:
    try:
        return bool(a != b)
    except TypeError:
        return True


def first_reappearance(bounds: np.ndarray, run_ids: np.ndarray):
    """``(query id, row)`` of the first run whose id an earlier run had, or None when every query is contiguous.

    Examples
    --------
    >>> first_reappearance(*query_runs(np.array([7, 7, 3, 7])))
    (7, 3)
    """
    if np.unique(run_ids).size == run_ids.size:
        return None
    seen = set()
    for run, row in zip(run_ids.tolist(), bounds.tolist()):
        if run in seen:
            return run, row
        seen.add(run)
    return None  # unreachable: a repeated id has a first reappearance


def group_ptr_from_qid(qid, *, stable_sort=False, source=None):
    """Offsets from per-row query ids.

    Parameters
    ----------
    qid : array-like, shape (n_rows,)
        Query id of each row (integers or strings).
    stable_sort : bool, default=False
        If False, the rows of each query must be contiguous, and a query id
        that reappears after another query raises
        :class:`NonContiguousQueryError`. If True, rows are reordered by a
        stable sort on the query's first appearance and the permutation is
        returned so the caller can reorder the other arrays.
    source : str, optional
        File name used in error messages.

    Returns
    -------
    group_ptr : ndarray of int64
    order : ndarray of int64 or None
        Row permutation applied (``None`` when the rows were already contiguous).

    Examples
    --------
    >>> ptr, order = group_ptr_from_qid([7, 7, 3, 3, 3])
    >>> ptr.tolist(), order
    ([0, 2, 5], None)
    """
    qid = np.asarray(qid)
    if qid.ndim != 1:
        raise ValueError(f"qid must be one-dimensional, got shape {qid.shape}")
    n = qid.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64), None
    bounds, run_ids = query_runs(qid)
    check_query_ids(bounds, run_ids, f" in {source}" if source else "")
    repeat = first_reappearance(bounds, run_ids)
    if repeat is None:
        return np.append(bounds, n).astype(np.int64), None
    if not stable_sort:
        run, row = repeat
        where = f" in {source}" if source else ""
        raise NonContiguousQueryError(
            f"query id {run!r} reappears at row {row} (line {row + 1}){where} after rows "
            "of other queries; rows of a query must be contiguous. Sort the rows by query id first "
            "(a stable sort, e.g. order = numpy.argsort(qid, kind='stable'), keeps each query's rows "
            "in their order)."
        )
    # Stable sort by order of first appearance.
    _, first_row, inverse = np.unique(qid, return_index=True, return_inverse=True)
    rank_of_query = np.argsort(np.argsort(first_row, kind="stable"), kind="stable")
    order = np.argsort(rank_of_query[inverse.ravel()], kind="stable").astype(np.int64)
    sizes = np.bincount(rank_of_query[inverse.ravel()])
    return group_ptr_from_sizes(sizes), order


def holds_two_labels(y: np.ndarray, starts: np.ndarray) -> bool:
    """Whether some query (rows ``starts[q]`` up to the next start) holds two different labels ``y``."""
    return not np.array_equal(np.minimum.reduceat(y, starts), np.maximum.reduceat(y, starts))


def check_group_ptr(group_ptr, n_rows: int) -> np.ndarray:
    """Validate offsets and return them as contiguous int64.

    Empty queries (two equal consecutive offsets) are rejected because no
    convention assigns them a metric value.
    """
    ptr = np.ascontiguousarray(group_ptr, dtype=np.int64)
    if ptr.ndim != 1 or ptr.size < 1:
        raise ValueError("group_ptr must be a one-dimensional array of length n_queries + 1")
    if ptr[0] != 0 or ptr[-1] != n_rows:
        raise ValueError(
            f"group_ptr must start at 0 and end at the number of rows ({n_rows}); "
            f"got {int(ptr[0])} .. {int(ptr[-1])}"
        )
    if np.any(np.diff(ptr) < 1):
        bad = int(np.flatnonzero(np.diff(ptr) < 1)[0])
        raise ValueError(f"group_ptr must be strictly increasing; query {bad} is empty")
    return ptr


def resolve_groups(n_rows: int, *, qid=None, group_ptr=None, group=None) -> np.ndarray:
    """Group offsets from whichever of ``qid``, ``group_ptr`` or ``group`` is given.

    With none of them, all rows form a single query.
    """
    given = [name for name, v in (("qid", qid), ("group_ptr", group_ptr), ("group", group)) if v is not None]
    if len(given) > 1:
        raise ValueError(f"pass only one of qid, group_ptr and group; got {', '.join(given)}")
    if qid is not None:
        shape = np.shape(qid)
        if len(shape) != 1:  # read before its length: a (4, 10) array has 4
            raise ValueError(f"qid must be one-dimensional, got shape {shape}")
        if len(qid) != n_rows:
            raise ValueError(f"qid has {len(qid)} entries but there are {n_rows} rows")
        return group_ptr_from_qid(qid)[0]
    if group is not None:
        return group_ptr_from_sizes(group, n_rows=n_rows)
    if group_ptr is not None:
        return check_group_ptr(group_ptr, n_rows)
    return np.array([0, n_rows], dtype=np.int64)


def as_pair_array(pairs, where: str = "") -> np.ndarray:
    """Pairs as a contiguous int64 array of shape (n_pairs, 2); integral floats are accepted."""
    pairs = np.asarray(pairs)
    if pairs.size == 0:
        pairs = pairs.reshape(0, 2)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"pairs must have shape (n_pairs, 2), got {pairs.shape}{where}")
    if not np.issubdtype(pairs.dtype, np.integer):
        as_int = pairs.astype(np.int64)
        if not np.array_equal(as_int, pairs):
            raise ValueError(f"pair indices must be integers{where}")
        pairs = as_int
    return np.ascontiguousarray(pairs, dtype=np.int64)


def name_two_queries(rows, positions, qid=None) -> str:
    """How an error names the queries of two ``rows`` at query ``positions``: by id where ``qid`` (one id a
    row) is known, else by position."""
    if qid is not None:
        return f"query ids {qid[rows[0]]} and {qid[rows[1]]}"
    return f"queries at positions {int(positions[0])} and {int(positions[1])}"


def check_pairs(pairs, group_ptr: np.ndarray, where: str = "", qid=None) -> np.ndarray:
    """Validate explicit (winner row, loser row) pairs against query offsets.

    Every index must be an integer row of the data, both rows of a pair must
    belong to the same query, and a row cannot be paired with itself.
    ``where`` is appended to error messages (e.g. `` in train.txt``); with
    ``qid`` (one id a row) a pair across queries names their ids, else their
    positions.
    Returns the pairs as a contiguous int64 array of shape (n_pairs, 2).
    """
    pairs = as_pair_array(pairs, where)
    n = int(group_ptr[-1])
    out = ((pairs < 0) | (pairs >= n)).any(axis=1)
    if out.any():
        k = int(np.flatnonzero(out)[0])
        raise ValueError(f"pair {k} = {pairs[k].tolist()} has a row index outside 0..{n - 1}{where}")
    q = np.searchsorted(group_ptr, pairs, side="right") - 1
    cross = q[:, 0] != q[:, 1]
    if cross.any():
        k = int(np.flatnonzero(cross)[0])
        raise ValueError(f"pair {k} = {pairs[k].tolist()} joins rows of different queries "
                         f"({name_two_queries(pairs[k], q[k], qid)}){where}")
    same = pairs[:, 0] == pairs[:, 1]
    if same.any():
        k = int(np.flatnonzero(same)[0])
        raise ValueError(f"pair {k} = {pairs[k].tolist()} pairs a row with itself{where}")
    return pairs

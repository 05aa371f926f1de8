"""Batches of whole queries: the rows they cover and their local query offsets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Batch", "make_batch"]


@dataclass(frozen=True)
class Batch:
    """Queries ``queries`` of a data set, their rows in order, and offsets into those rows."""

    queries: np.ndarray  # int64, query indices into the data set
    rows: np.ndarray  # int64, global row indices, query after query
    ptr: np.ndarray  # int64, len(queries) + 1 offsets into ``rows``


def make_batch(group_ptr: np.ndarray, queries) -> Batch:
    """The batch of ``queries`` (indices into ``group_ptr``).

    Examples
    --------
    >>> import numpy as np
    >>> b = make_batch(np.array([0, 2, 5, 6]), [2, 0])
    >>> b.rows.tolist(), b.ptr.tolist()
    ([5, 0, 1], [0, 1, 3])
    """
    queries = np.asarray(queries, dtype=np.int64)
    starts = group_ptr[queries]
    sizes = group_ptr[queries + 1] - starts
    ptr = np.zeros(queries.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    rows = np.repeat(starts - ptr[:-1], sizes) + np.arange(ptr[-1], dtype=np.int64)
    return Batch(queries, rows, ptr)

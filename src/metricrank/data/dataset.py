"""The in-memory container for a learning-to-rank data set."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import DataConversionWarning

from .._arrays import float64_array, numeric_array
from .._groups import check_group_ptr, check_pairs, group_ptr_from_qid, group_ptr_from_sizes

__all__ = ["RankingDataset", "warn_label_column"]


def warn_label_column(shape: tuple) -> None:
    """Say that a one-column ``y`` (an (n, 1) array or a one-column frame) is read as the labels' vector, as
    scikit-learn's and LightGBM's estimators read it (with scikit-learn's warning class)."""
    warnings.warn(f"y has shape {shape}, one column: it is read as the vector of labels (pass y.ravel() or a "
                  "Series to say so)", DataConversionWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """``warnings.warn``'s stacklevel, from its caller, of the first frame outside metricrank: the user's line,
    however deep in the library the check ran."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(2), 2  # warnings.warn counts its caller (warn_label_column) as level 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def _where(source) -> str:
    return f" in {source}" if source else ""


def _per_row_float(name, values, n, source, *, finite_nonneg=True):
    if values is None:
        return None
    arr = np.ascontiguousarray(numeric_array(values, name), dtype=np.float64)
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}{_where(source)}")
    if finite_nonneg:
        bad = ~np.isfinite(arr) | (arr < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name} must be finite and >= 0; entry {i} is {arr[i].item()!r}{_where(source)}"
            )
        if arr.size and not arr.any():  # a metric would be 0 / 0 (NaN) and no tree would learn
            raise ValueError(f"{name} is 0 for every entry{_where(source)}: every weighted metric and gradient "
                             "would be 0 / 0; give some entry a positive weight")
    return arr


class RankingDataset:
    """Feature matrix, graded labels and query structure of a ranking data set.

    Rows of a query are contiguous: query ``q`` occupies rows
    ``group_ptr[q]:group_ptr[q + 1]``.

    Parameters
    ----------
    X : array-like of shape (n_docs, n_features) or scipy.sparse matrix
        Features. Dense input becomes a C-contiguous float ndarray (float32
        and float64 are kept, anything else becomes float64); sparse input
        becomes CSR.
    y : array-like of shape (n_docs,)
        Relevance labels; stored as float64 and must be finite.
    group_ptr : array-like of int, shape (n_queries + 1,), optional
        Query offsets. If omitted they come from ``group`` or ``qid``; with
        none of the three the whole data set is one query.
    qid : array-like of shape (n_docs,), optional
        Query id of each row (integers or strings). Rows of a query must be
        contiguous and each query has a distinct id; when ``group_ptr`` is
        given too, the two must agree.
    group : array-like of int, optional
        Query sizes (alternative to ``group_ptr``).
    weight : array-like of shape (n_docs,), optional
        Per-row weights, finite and >= 0.
    group_weight : array-like of shape (n_queries,), optional
        Per-query weights, finite and >= 0.
    pairs : array-like of int, shape (n_pairs, 2), optional
        Preference pairs ``(winner, loser)`` as global row indices; both rows
        of a pair belong to the same query.
    pair_weight : array-like of shape (n_pairs,), optional
        Per-pair weights, finite and >= 0 (requires ``pairs``).
    doc_ids : array-like of shape (n_docs,), optional
        Document identifiers (stored as an object array).
    source : str, optional
        Where the data came from; used in error messages.

    Raises
    ------
    ValueError
        On inconsistent lengths, non-finite labels (naming the row), invalid
        weights, invalid offsets, or a pair out of range / across queries
        (naming the pair index).

    Examples
    --------
    >>> import numpy as np
    >>> ds = RankingDataset(np.eye(5), [2, 0, 1, 0, 1], qid=[7, 7, 7, 9, 9])
    >>> ds.n_queries, ds.n_docs, ds.n_features
    (2, 5, 5)
    >>> ds.group_ptr.tolist(), ds.query_sizes.tolist()
    ([0, 3, 5], [3, 2])
    >>> sub = ds.subset_queries([1])
    >>> sub.qid.tolist(), sub.y.tolist()
    ([9, 9], [0.0, 1.0])
    """

    __slots__ = (
        "X",
        "y",
        "group_ptr",
        "qid",
        "weight",
        "group_weight",
        "pairs",
        "pair_weight",
        "doc_ids",
        "source",
    )

    def __init__(
        self,
        X,
        y,
        *,
        group_ptr=None,
        qid=None,
        group=None,
        weight=None,
        group_weight=None,
        pairs=None,
        pair_weight=None,
        doc_ids=None,
        source=None,
    ):
        source = None if source is None else str(source)
        where = _where(source)
        # --- X -------------------------------------------------------------
        X = X if sp.issparse(X) else np.asarray(X)
        if np.iscomplexobj(X):  # the cast below would drop the imaginary parts, with a mere ComplexWarning
            raise ValueError(f"Complex data not supported in X (dtype {X.dtype}){where}; it must be real numbers")
        if sp.issparse(X):
            X = X.tocsr()
            if X.dtype not in (np.float32, np.float64):
                X = X.astype(np.float64)
        else:
            if X.dtype not in (np.float32, np.float64):
                X = X.astype(np.float64)
            X = np.ascontiguousarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be two-dimensional, got shape {X.shape}{where}")
        n = X.shape[0]
        # --- y -------------------------------------------------------------
        y = float64_array(numeric_array(y, "y (labels)"))
        if y.ndim == 2 and y.shape == (n, 1):
            warn_label_column(y.shape)
            y = y[:, 0]
        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(f"y must have shape ({n},) to match X, got {y.shape}{where}")
        finite = np.isfinite(y)
        if not finite.all():
            i = int(np.flatnonzero(~finite)[0])
            raise ValueError(f"label of row {i} is {y[i].item()!r}; labels must be finite{where}")
        # --- queries -------------------------------------------------------
        if qid is not None:
            qid = np.asarray(qid)
            if qid.ndim != 1 or qid.shape[0] != n:
                raise ValueError(f"qid must have shape ({n},), got {qid.shape}{where}")
        if group_ptr is not None and group is not None:
            raise ValueError("pass at most one of group_ptr and group")
        if group is not None:
            group_ptr = group_ptr_from_sizes(group, n_rows=n)
        if group_ptr is not None:
            group_ptr = check_group_ptr(group_ptr, n)
            if qid is not None:
                self._check_qid_matches(qid, group_ptr, where)
        elif qid is not None:
            group_ptr, _ = group_ptr_from_qid(qid, source=source)
        else:
            group_ptr = np.array([0, n], dtype=np.int64)
            if n == 0:
                group_ptr = np.zeros(1, dtype=np.int64)
        n_queries = group_ptr.shape[0] - 1
        # --- weights -------------------------------------------------------
        weight = _per_row_float("weight", weight, n, source)
        group_weight = _per_row_float("group_weight", group_weight, n_queries, source)
        # --- pairs ---------------------------------------------------------
        if pairs is not None:
            pairs = check_pairs(pairs, group_ptr, where, qid=qid)
            pair_weight = _per_row_float("pair_weight", pair_weight, pairs.shape[0], source)
        elif pair_weight is not None:
            raise ValueError("pair_weight given without pairs")
        # --- doc ids -------------------------------------------------------
        if doc_ids is not None:
            doc_ids = np.asarray(doc_ids, dtype=object)
            if doc_ids.shape != (n,):
                raise ValueError(f"doc_ids must have shape ({n},), got {doc_ids.shape}{where}")

        self.X = X
        self.y = y
        self.group_ptr = group_ptr
        self.qid = qid
        self.weight = weight
        self.group_weight = group_weight
        self.pairs = pairs
        self.pair_weight = pair_weight
        self.doc_ids = doc_ids
        self.source = source

    @staticmethod
    def _check_qid_matches(qid, group_ptr, where):
        n = qid.shape[0]
        if n == 0:
            return
        change = np.zeros(n, dtype=bool)
        change[0] = True
        change[1:] = qid[1:] != qid[:-1]
        boundary = np.zeros(n, dtype=bool)
        boundary[group_ptr[:-1]] = True
        diff = np.flatnonzero(change != boundary)
        if diff.size:
            row = int(diff[0])
            raise ValueError(f"qid and group_ptr disagree at row {row}{where}")
        firsts = qid[group_ptr[:-1]]
        if np.unique(firsts).size != firsts.size:
            raise ValueError(f"the same query id is used by two separate queries{where}")

    # ------------------------------------------------------------------
    # Shape
    # ------------------------------------------------------------------
    @property
    def n_queries(self) -> int:
        """Number of queries."""
        return int(self.group_ptr.shape[0] - 1)

    @property
    def n_docs(self) -> int:
        """Number of rows (documents)."""
        return int(self.X.shape[0])

    def __len__(self) -> int:
        return self.n_docs

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    @property
    def query_sizes(self) -> np.ndarray:
        """Number of rows of each query (int64, shape ``(n_queries,)``)."""
        return np.diff(self.group_ptr)

    @property
    def query_ids(self) -> np.ndarray:
        """Id of each query: ``qid`` of its first row, or ``0 .. n_queries - 1``."""
        if self.qid is None:
            return np.arange(self.n_queries, dtype=np.int64)
        return self.qid[self.group_ptr[:-1]]

    @property
    def row_qid(self) -> np.ndarray:
        """Query id of every row: ``qid`` when given, else the query's position (offsets-only data)."""
        if self.qid is not None:
            return np.asarray(self.qid)
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.query_sizes)

    @property
    def is_sparse(self) -> bool:
        """Whether ``X`` is a scipy.sparse matrix."""
        return sp.issparse(self.X)

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        extras = [
            name
            for name in ("qid", "weight", "group_weight", "pairs", "doc_ids")
            if getattr(self, name) is not None
        ]
        src = f", source={self.source!r}" if self.source else ""
        return (
            f"RankingDataset(n_queries={self.n_queries}, n_docs={self.n_docs}, "
            f"n_features={self.n_features}, X={kind} {self.X.dtype}"
            + (f", with {'/'.join(extras)}" if extras else "")
            + f"{src})"
        )

    def replace(self, **changes) -> "RankingDataset":
        """A copy with some fields replaced, checked as the constructor checks them.

        Every field not named keeps its value (arrays are shared, not copied), so
        nothing is dropped by accident: adding pairs keeps the query ids, doc ids and source.
        Fields checked against each other change together: new ``pairs`` with their
        ``pair_weight`` (or ``pair_weight=None``), a new ``qid`` with its ``group_ptr``.

        Parameters
        ----------
        **changes
            New values of fields (``X``, ``y``, ``group_ptr``, ``qid``, ``weight``,
            ``group_weight``, ``pairs``, ``pair_weight``, ``doc_ids``, ``source``).

        Raises
        ------
        TypeError
            For a name that is not a field.
        ValueError
            Where the new values do not fit the others (as the constructor raises).

        Examples
        --------
        >>> import numpy as np
        >>> ds = RankingDataset(np.zeros((3, 1)), [1, 0, 1], qid=[4, 4, 5], doc_ids=["a", "b", "c"])
        >>> with_pairs = ds.replace(pairs=[[0, 1]])
        >>> with_pairs.pairs.tolist(), with_pairs.qid.tolist(), with_pairs.doc_ids.tolist()
        ([[0, 1]], [4, 4, 5], ['a', 'b', 'c'])
        >>> ds.replace(weight=[1.0, -1.0, 1.0])
        Traceback (most recent call last):
        ...
        ValueError: weight must be finite and >= 0; entry 1 is -1.0
        """
        fields = {name: getattr(self, name) for name in self.__slots__}
        unknown = sorted(set(changes) - fields.keys())
        if unknown:
            raise TypeError(f"RankingDataset.replace() got {unknown[0]!r}, which is not a field; the fields are "
                            f"{', '.join(self.__slots__)}")
        fields.update(changes)
        return RankingDataset(fields.pop("X"), fields.pop("y"), **fields)

    # ------------------------------------------------------------------
    # Queries
    # ------------------------------------------------------------------
    def iter_queries(self):
        """Iterate over the queries as ``(query_index, rows)`` with ``rows`` a slice.

        Examples
        --------
        >>> import numpy as np
        >>> ds = RankingDataset(np.zeros((3, 1)), [1, 0, 1], group=[2, 1])
        >>> [(q, ds.y[rows].tolist()) for q, rows in ds.iter_queries()]
        [(0, [1.0, 0.0]), (1, [1.0])]
        """
        ptr = self.group_ptr.tolist()
        for q in range(len(ptr) - 1):
            yield q, slice(ptr[q], ptr[q + 1])

    def subset_queries(self, indices) -> "RankingDataset":
        """New data set with the chosen queries, in the order given.

        Parameters
        ----------
        indices : array-like of int or bool mask of shape (n_queries,)
            Query indices (positions, not query ids). Repeats are not allowed.

        Returns
        -------
        RankingDataset
            With rows, weights, doc ids and group weights of the chosen
            queries; pairs inside them are kept and re-indexed to the new rows.

        Examples
        --------
        >>> import numpy as np
        >>> ds = RankingDataset(np.arange(5.0)[:, None], [1, 0, 0, 1, 2], group=[2, 3],
        ...                     pairs=[[0, 1], [4, 2]])
        >>> sub = ds.subset_queries([1])
        >>> sub.X.ravel().tolist(), sub.pairs.tolist()
        ([2.0, 3.0, 4.0], [[2, 0]])
        """
        idx = np.asarray(indices)
        if idx.dtype == bool:
            if idx.shape != (self.n_queries,):
                raise ValueError(f"boolean mask must have shape ({self.n_queries},), got {idx.shape}")
            idx = np.flatnonzero(idx)
        if idx.size and not np.issubdtype(idx.dtype, np.integer):  # as NumPy indexing: 1.5 is no position
            raise ValueError(f"query indices must be integers or a boolean mask; got dtype {idx.dtype}")
        idx = idx.astype(np.int64, copy=False).ravel()
        if idx.size and (idx.min() < -self.n_queries or idx.max() >= self.n_queries):
            raise IndexError(f"query index out of range for {self.n_queries} queries")
        idx = np.where(idx < 0, idx + self.n_queries, idx)
        if np.unique(idx).size != idx.size:
            raise ValueError("query indices must not repeat")
        starts = self.group_ptr[:-1][idx]
        sizes = self.query_sizes[idx]
        new_ptr = np.zeros(idx.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=new_ptr[1:])
        total = int(new_ptr[-1])
        rows = np.repeat(starts - new_ptr[:-1], sizes) + np.arange(total, dtype=np.int64)

        pairs = pair_weight = None
        if self.pairs is not None:
            new_index = np.full(self.n_docs, -1, dtype=np.int64)
            new_index[rows] = np.arange(total, dtype=np.int64)
            mapped = new_index[self.pairs]
            keep = mapped[:, 0] >= 0  # both rows share a query, so one test suffices
            pairs = mapped[keep]
            if self.pair_weight is not None:
                pair_weight = self.pair_weight[keep]

        def take(a):
            return None if a is None else a[rows]

        return RankingDataset(
            self.X[rows],
            self.y[rows],
            group_ptr=new_ptr,
            qid=take(self.qid),
            weight=take(self.weight),
            group_weight=None if self.group_weight is None else self.group_weight[idx],
            pairs=pairs,
            pair_weight=pair_weight,
            doc_ids=take(self.doc_ids),
            source=self.source,
        )

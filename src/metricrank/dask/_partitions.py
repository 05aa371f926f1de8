"""Queries and partitions: every query inside one partition, its rows contiguous there.

LightGBM's Dask training concatenates, on each worker, the partitions that
worker holds, and calls the objective on that worker's rows only. A ranking
objective needs every document of a query at once (the λ of a document
depends on all its competitors), so a query split between two partitions
would be split between two objective calls, possibly on two machines, and
the gradients would silently be those of two smaller queries. Hence the rule
checked here: a query lies in exactly one partition. Inside a partition the
single-machine rule applies (rows of a query contiguous, as in
:func:`metricrank._groups.group_ptr_from_qid`): out-of-order rows are
rejected, not silently reordered; :func:`partition_by_query` sorts them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arrays import numeric_array
from .._checks import is_integer
from .._groups import check_query_ids, first_reappearance, group_ptr_from_qid, holds_two_labels, query_runs
from .._row_refs import ROW
from ..data.dataset import warn_label_column

__all__ = ["QueryLayout", "QuerySplitError", "as_dask_inputs", "check_query_layout", "metric_order_moves",
           "partition_by_query", "scatter_by_query"]


class QuerySplitError(ValueError):
    """A query's rows are in more than one partition (or out of order within one)."""


_ADVICE = ("repartition with metricrank.dask.partition_by_query(X, y, qid) or fit with "
           "repartition_by_query=True")


@dataclass
class QueryLayout:
    """Queries of each partition, in row order.

    Attributes
    ----------
    query_ids : list of ndarray
        Query id of every query of partition ``i``.
    sizes : list of ndarray of int64
        Rows of every query of partition ``i``.
    min_label : float
        The least training label (``inf`` without rows): whether a stand-in NDCG
        must read the labels as DCG (:meth:`~metricrank.objectives.Objective.eval_spec_for`).
    max_label : float
        The greatest training label (``-inf`` without rows).
    ordered : bool
        Whether some query holds two different labels (else there is no order to learn).
    """

    query_ids: list
    sizes: list
    min_label: float = np.inf
    max_label: float = -np.inf
    ordered: bool = False

    @property
    def group_sizes(self) -> np.ndarray:
        """Sizes of every query, partition after partition (LightGBM's ``group``)."""
        return np.concatenate(self.sizes) if self.sizes else np.zeros(0, dtype=np.int64)

    @property
    def queries_per_partition(self) -> tuple:
        return tuple(int(s.size) for s in self.sizes)


def _is_dask(obj) -> bool:
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")


def _is_dask_frame(obj) -> bool:
    # by ndim: a dask Series has ``columns`` too (dask 2026.8)
    return _is_dask(obj) and hasattr(obj, "map_partitions") and getattr(obj, "ndim", None) == 2


def _is_dask_series(obj) -> bool:
    return _is_dask(obj) and hasattr(obj, "map_partitions") and getattr(obj, "ndim", None) == 1


def _vector(values, row_chunks: tuple, name: str, n_rows: int):
    """A 1-D dask array with the given row chunks from a dask array/Series or an in-memory vector."""
    import dask.array as da

    if values is None:
        return None
    if _is_dask_series(values) or (name == "y" and _is_dask_frame(values) and len(values.columns) == 1):
        values = values.to_dask_array(lengths=True)
    elif not _is_dask(values):
        values = np.asarray(values)
    if name == "y" and values.ndim == 2 and values.shape[1] == 1:  # read as the in-memory rankers read it
        warn_label_column(values.shape)
        values = values[:, 0]
    if not _is_dask(values):
        if values.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional; got shape {values.shape}")
        return da.from_array(values, chunks=(row_chunks,)) if values.shape[0] == n_rows else _wrong_length(
            name, values.shape[0], n_rows)
    if values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got a dask array of shape {values.shape}")
    if any(np.isnan(c) for c in values.chunks[0]):
        values = values.compute_chunk_sizes()
    if values.shape[0] != n_rows:
        _wrong_length(name, values.shape[0], n_rows)
    # same rows per block as X: rechunking moves block boundaries, never the row order
    return values.rechunk((row_chunks,))


def _numeric_vector(values, name: str):
    """``values`` (a 1-D dask array or None) with numbers only, as the in-memory rankers take them.

    The dtype is read on the client, so text (a label column read as strings) is refused before any
    work; an object array is checked block by block, when the partitions are computed.
    """
    if values is None or values.dtype.kind in "fiub":
        return values
    if values.dtype.kind == "O":
        return values.map_blocks(_numeric_block, name, dtype=np.float64)
    return numeric_array(np.empty(0, dtype=values.dtype), name)  # raises: text or complex, named


def _numeric_block(block, name: str, block_info=None):
    where = f"{name} of partition {block_info[0]['chunk-location'][0]}" if block_info else name
    return numeric_array(block, where).astype(np.float64)


def _wrong_length(name: str, got: int, n_rows: int):
    raise ValueError(f"{name} has {got} entries but X has {n_rows} rows")


def as_dask_inputs(X, y, qid, sample_weight=None, init_score=None):
    """``(X, y, qid, sample_weight, init_score, feature names)`` as dask arrays sharing X's row blocks.

    ``X`` is a 2-D dask array or a dask DataFrame. With a DataFrame, ``qid``
    (and ``y``) may be column names; ``qid=None`` takes the column ``"qid"``.
    Those columns are not features. Empty row blocks are dropped.
    """
    names = None
    if _is_dask_frame(X):
        columns = [str(c) for c in X.columns]
        if qid is None:
            if "qid" not in columns:
                raise ValueError("X is a dask DataFrame without a 'qid' column; pass qid= (a column name, a dask "
                                 "Series or a dask array)")
            qid = "qid"
        taken = [c for c in (qid, y) if isinstance(c, str)]
        for column in taken:
            if column not in columns:
                raise ValueError(f"column {column!r} is not in X; columns are {', '.join(columns)}")
        features = [c for c in X.columns if str(c) not in taken]
        for column in features:
            if X[column].dtype.kind not in "fiub":
                raise ValueError(f"X column {column!r} has dtype {X[column].dtype}; DaskGBRanker takes numeric "
                                 "features only (encode categories as numbers first)")
        lengths = tuple(int(n) for n in X.map_partitions(len).compute())
        qid = X[qid].to_dask_array(lengths=lengths) if isinstance(qid, str) else qid
        y = X[y].to_dask_array(lengths=lengths) if isinstance(y, str) else y
        names = [str(c) for c in features]
        X = X[features].to_dask_array(lengths=lengths).astype(np.float64)
    elif not (_is_dask(X) and hasattr(X, "chunks")):
        raise ValueError(f"X must be a dask array or a dask DataFrame, got {type(X).__name__}; wrap in-memory data "
                         "with dask.array.from_array (then partition_by_query), or use metricrank.GBRanker")
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional; got a dask array of shape {X.shape}")
    if X.dtype.kind not in "fiub":
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if y is None:
        raise ValueError("y is required: pass relevance labels (a dask array or Series)")
    if qid is None:
        raise ValueError("qid is required: pass the query id of every row (a dask array or Series)")
    rows = tuple(c for c in X.chunks[0] if c > 0)
    n = int(sum(rows))
    # one column block: LightGBM's Dask interface wants whole rows in each partition
    X = X.rechunk((rows, X.shape[1])) if len(X.chunks[1]) > 1 or rows != X.chunks[0] else X
    y = _numeric_vector(_vector(y, rows, "y", n), "y")
    qid = _vector(qid, rows, "qid", n)
    sample_weight = _numeric_vector(_vector(sample_weight, rows, "sample_weight", n), "sample_weight")
    init_score = _numeric_vector(_vector(init_score, rows, "init_score", n), "init_score")
    if n and X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return X, y, qid, sample_weight, init_score, names


def _in_partition(err: ValueError, index: int) -> ValueError:
    """``err`` with each "row N" (a row of partition ``index``, counted from 0 there) said to be of that partition."""
    return ValueError(ROW.sub(lambda m: f"{m.group(0)} of partition {index}", str(err)))


def _summarise(qid, y, index: int, objective, weight=None):
    """One partition's queries, checked: rows contiguous, labels finite and in the objective's domain, weights
    finite and >= 0 (their sum returned, so the client sees whether all are 0)."""
    qid = np.asarray(qid)
    weight_sum = 0.0
    if weight is not None:
        weight = np.asarray(weight, dtype=np.float64)
        bad = ~np.isfinite(weight) | (weight < 0)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"sample_weight must be finite and >= 0; row {row} of partition {index} is "
                             f"{weight[row]:g}")
        weight_sum = float(weight.sum())
    if qid.size == 0:
        return qid[:0], np.zeros(0, dtype=np.int64), np.inf, -np.inf, False, weight_sum
    bounds, run_ids = query_runs(qid)
    check_query_ids(bounds, run_ids, f" of partition {index}")
    repeat = first_reappearance(bounds, run_ids)
    if repeat is not None:
        run, row = repeat
        raise QuerySplitError(
            f"query id {run!r} reappears at row {row} of partition {index} after rows of other queries; "
            f"rows of a query must be contiguous within a partition (as for metricrank.GBRanker); "
            f"{_ADVICE} (both sort them)")
    y = np.asarray(y, dtype=np.float64)
    if not np.all(np.isfinite(y)):
        raise ValueError(f"labels must be finite; row {int(np.flatnonzero(~np.isfinite(y))[0])} of partition "
                         f"{index} is not")
    if objective is not None:
        try:
            objective.check_labels(y)
        except ValueError as err:  # its rows are this partition's
            raise _in_partition(err, index) from None
    sizes = np.diff(np.concatenate((bounds, [qid.size]))).astype(np.int64)
    return run_ids, sizes, float(y.min()), float(y.max()), holds_two_labels(y, bounds), weight_sum


def check_query_layout(client, qid, y, objective=None, sample_weight=None) -> QueryLayout:
    """Check that no query is split across partitions; return each partition's queries.

    One task per partition summarises it (query ids and sizes; contiguity,
    labels and ``sample_weight`` checked there, so only the summaries travel
    to the client).

    Raises
    ------
    QuerySplitError
        Naming the query id and the two partitions holding it, or the
        partition in which its rows are not contiguous.
    ValueError
        For a label outside the objective's domain or a bad weight (naming the row of its partition), or
        weights that are all 0, as in memory.
    """
    from dask import delayed

    q_blocks = qid.to_delayed().ravel().tolist()
    y_blocks = y.to_delayed().ravel().tolist()
    w_blocks = [None] * len(q_blocks) if sample_weight is None else sample_weight.to_delayed().ravel().tolist()
    tasks = [delayed(_summarise, pure=True)(q, yb, i, objective, wb)
             for i, (q, yb, wb) in enumerate(zip(q_blocks, y_blocks, w_blocks))]
    summaries = client.compute(tasks, sync=True)
    if sample_weight is not None and any(s[1].size for s in summaries) and not any(s[5] for s in summaries):
        raise ValueError("training data: sample weights are all zero: every row would count for nothing")
    ids = [s[0] for s in summaries]
    sizes = [s[1] for s in summaries]
    if ids:
        all_ids = np.concatenate(ids)
        part = np.repeat(np.arange(len(ids)), [a.size for a in ids])
        if np.unique(all_ids).size != all_ids.size:
            # the first row-order query seen twice: report it with both partitions
            owner: dict = {}
            for q, p in zip(all_ids.tolist(), part.tolist()):
                if q in owner:
                    raise QuerySplitError(
                        f"query id {q!r} is split across partitions {owner[q]} and {p}: each worker computes the "
                        f"objective over whole queries of its own partitions; {_ADVICE}")
                owner[q] = p
    return QueryLayout(ids, sizes, min((s[2] for s in summaries), default=np.inf),
                       max((s[3] for s in summaries), default=-np.inf), any(s[4] for s in summaries))


def _partition_order_moves(qid, y, spec, preset):
    """One partition's part of :func:`order_moves`: ``(moved, sum of its queries' values at the best order, their
    count, its largest query)``, or None where the metric reads more than the order or the labels leave its
    domain."""
    from ..data import RankingDataset
    from ..learners._inputs import order_moves

    qid = np.asarray(qid)
    if qid.size == 0:
        return False, 0.0, 0, 0
    ds = RankingDataset(np.zeros((qid.size, 1)), np.asarray(y, dtype=np.float64), qid=qid)
    judged = order_moves(ds, spec, preset)
    if judged is None:
        return None
    moved, best = judged
    return moved, float(np.nansum(best.per_query)), int(best.n_counted), int(ds.query_sizes.max())


def metric_order_moves(client, qid, y, spec, preset=None):
    """:func:`~metricrank.learners._inputs.order_moves` over the partitions of Dask arrays ``qid`` and ``y``, each
    query in one partition: ``(moved, unweighted mean value at the best order, largest query)``, or None where the
    metric reads more than the order, is defined on the whole data set (AUC) or finds labels outside its domain."""
    from dask import delayed

    from ..metrics.registry import get_metric

    if not get_metric(spec, preset).definition.per_query:  # a partition holds part of the one "query"
        return None
    tasks = [delayed(_partition_order_moves, pure=True)(q, yb, spec, preset)
             for q, yb in zip(qid.to_delayed().ravel().tolist(), y.to_delayed().ravel().tolist())]
    parts = client.compute(tasks, sync=True)
    if any(part is None for part in parts):
        return None
    counted = sum(part[2] for part in parts)
    return (any(part[0] for part in parts), sum(part[1] for part in parts) / counted if counted else np.nan,
            max(part[3] for part in parts))


def _query_aligned_cuts(group_ptr: np.ndarray, npartitions: int) -> np.ndarray:
    """Partition boundaries on query boundaries, as close as possible to equal row counts."""
    n = int(group_ptr[-1])
    targets = np.round(np.arange(1, npartitions) * n / npartitions)
    idx = np.clip(np.searchsorted(group_ptr, targets), 1, group_ptr.size - 1)
    lower, upper = group_ptr[idx - 1], group_ptr[idx]
    cuts = np.where(targets - lower <= upper - targets, lower, upper)
    return np.unique(np.concatenate(([0], cuts, [n])))


def _check_npartitions(npartitions) -> int:
    if not (is_integer(npartitions) and npartitions >= 1):
        raise ValueError(f"npartitions must be an integer >= 1; got {npartitions!r}")
    return int(npartitions)


def _layout(qid: np.ndarray, npartitions: int):
    """``(row order or None, partition sizes)``: queries made contiguous, then cut on query boundaries."""
    group_ptr, order = group_ptr_from_qid(np.asarray(qid), stable_sort=True)
    cuts = _query_aligned_cuts(group_ptr, _check_npartitions(npartitions))
    return order, tuple(int(c) for c in np.diff(cuts))


def partition_by_query(X, y, qid, *, sample_weight=None, init_score=None, npartitions=None):
    """Repartition so that every query lies in one partition, its rows contiguous.

    Query ids are read to the client (one integer per row). When the rows of
    each query are already contiguous, only the partition boundaries move to
    the nearest query boundary (neighbouring blocks are split and joined, no
    shuffle). Otherwise rows are first reordered by a stable sort on each
    query's first appearance, as :func:`metricrank._groups.group_ptr_from_qid`
    does with ``stable_sort=True``, which is a shuffle of X.

    Parameters
    ----------
    X : dask array or ndarray of shape (n, n_features)
    y, qid : dask arrays or ndarrays of shape (n,)
    sample_weight : dask array or ndarray of shape (n,), optional
        Row weights, moved with their rows.
    init_score : dask array or ndarray of shape (n,), optional
        Raw starting scores, moved with their rows.
    npartitions : int, optional
        Number of partitions (default: X's current number of row blocks, 1
        for an in-memory X). Fewer are returned when there are fewer queries.

    Returns
    -------
    X, y, qid : dask arrays with the same row blocks
        Followed by ``sample_weight`` and then ``init_score``, each when it was given.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from metricrank.dask import partition_by_query
    >>> qid = np.array([1, 1, 2, 2, 2, 3])
    >>> X = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(3, 2))  # query 2 is split
    >>> X2, y2, q2 = partition_by_query(X, np.zeros(6), qid)
    >>> X2.chunks[0]
    (2, 4)
    """
    import dask.array as da

    if npartitions is None:
        npartitions = X.numblocks[0] if _is_dask(X) else 1
    _check_npartitions(npartitions)
    if not _is_dask(X):
        X = np.asarray(X)
        X = da.from_array(X, chunks=(max(X.shape[0], 1), X.shape[1]))
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional; got shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    n = X.shape[0]
    rows = X.chunks[0]
    vectors = [_vector(v, rows, name, n) for v, name in ((y, "y"), (qid, "qid"), (sample_weight, "sample_weight"),
                                                         (init_score, "init_score"))]
    order, chunks = _layout(vectors[1].compute(), npartitions)
    if order is not None:
        X = X[order]
        vectors = [None if v is None else v[order] for v in vectors]
    X = X.rechunk((chunks, X.shape[1]))
    out = [X] + [v.rechunk((chunks,)) for v in vectors if v is not None]
    return tuple(out)


def cluster_workers(client) -> list[str]:
    """The addresses of ``client``'s workers, asked of the scheduler now (sorted).

    ``Client.scheduler_info()`` is not used: when its fetch fails it returns the client's cached
    identity, which the periodic refresh keeps without workers (distributed 2026.8), so a cluster
    with workers could look empty.

    Raises
    ------
    ValueError
        When the cluster has no worker.
    """
    workers = sorted(client.nthreads())
    if not workers:
        raise ValueError(f"the Dask cluster at {client.scheduler.address} has no workers; start some, "
                         "or wait for them with client.wait_for_workers(n)")
    return workers


def scatter_by_query(X, y, qid, *, sample_weight=None, npartitions=None, client=None):
    """In-memory data to dask arrays partitioned by query, partition ``i`` on worker ``i mod n_workers``.

    For data that starts on the client (a LETOR file read there, a benchmark):
    rows are grouped by query as :func:`partition_by_query` does, cut into
    ``npartitions`` query-aligned partitions (default: one per worker) and
    sent to the workers round-robin, so every worker trains on a share.
    (A dask array built with ``dask.array.from_array`` is placed wherever the
    scheduler likes, often all on one worker for small data.)

    Parameters
    ----------
    X : ndarray of shape (n, n_features)
    y, qid : ndarray of shape (n,)
    sample_weight : ndarray of shape (n,), optional
    npartitions : int, optional
    client : distributed.Client, optional
        Default: the active client.

    Returns
    -------
    X, y, qid (, sample_weight) : dask arrays with the same row blocks

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client, LocalCluster
    >>> from metricrank.dask import scatter_by_query
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
    ...                   dashboard_address=None) as cluster, Client(cluster) as client:
    ...     X, y, qid = scatter_by_query(np.ones((6, 2)), np.zeros(6), [1, 1, 2, 2, 2, 3])
    ...     print(X.chunks[0], len(client.who_has(X)))
    (2, 4) 2
    """
    import dask.array as da

    if client is None:
        from distributed import default_client

        client = default_client()
    workers = cluster_workers(client)
    if npartitions is None:
        npartitions = len(workers)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional; got shape {X.shape}")
    arrays = [np.asarray(v) for v in (y, qid, sample_weight) if v is not None]
    for name, v in zip(("y", "qid", "sample_weight"), arrays):
        if v.shape != (X.shape[0],):
            raise ValueError(f"{name} must have shape ({X.shape[0]},); got {v.shape}")
    order, chunks = _layout(arrays[1], npartitions)
    bounds = np.concatenate(([0], np.cumsum(chunks)))
    out = []
    for arr in (X, *arrays):
        rows = arr if order is None else arr[order]
        blocks = []
        for i in range(len(chunks)):
            block = rows[bounds[i]:bounds[i + 1]]
            future = client.scatter(block, workers=[workers[i % len(workers)]], hash=False)
            blocks.append(da.from_delayed(future, shape=block.shape, dtype=block.dtype))
        out.append(da.concatenate(blocks, axis=0))
    return tuple(out)

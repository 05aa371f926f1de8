"""A metricrank objective as LightGBM's callable objective, shipped to every Dask worker.

LightGBM's scikit-learn interface (which ``lightgbm.dask`` runs on each
worker) calls a callable objective as ``f(y_true, y_pred, weight, group)``
with the labels, current raw scores, row weights (or None) and query sizes
of that worker's rows only. :class:`WorkerObjective` binds the metricrank
objective to those rows on the first call (caching generated pairs and
per-query constants, as the single-machine engine does) and returns the
loss gradient and hessian. Because no query is split across partitions
(:mod:`metricrank.dask._partitions`), each worker's gradients are exactly
the single-machine gradients of its rows.
"""

from __future__ import annotations

import threading
import zlib

import numpy as np

from .._groups import group_ptr_from_sizes
from ..learners._boosting import ModelGradients, numba_threads
from ..learners._gbdt import first_hessian_mass
from ..objectives._base import Objective, as_training_data

__all__ = ["WorkerObjective", "check_distributable", "hessian_mass_of_partitions", "worker_seed"]


def check_distributable(objective: Objective, pairs=None) -> None:
    """Raise ValueError for what cannot train distributed: pairwise leaves and explicit pairs.

    ``*Pairwise`` objectives rewrite each tree's leaf values by solving one
    pairwise Newton system over all training rows after LightGBM grew the
    tree; LightGBM's distributed learner has no hook for that. Explicit pairs
    are global row indices into one in-memory training set.
    """
    if objective.pairwise_leaves:
        plain = objective.name[: -len("Pairwise")] if objective.name.endswith("Pairwise") else "PairLogit"
        raise ValueError(
            f"objective {objective.spec} cannot train distributed: its leaf values are re-solved after every tree "
            f"from a pairwise Newton system over all training rows on one machine. Use objective={plain!r} (same "
            f"loss, LightGBM's Newton leaves) with DaskGBRanker, or metricrank.GBRanker on one machine")
    if pairs is not None:
        raise ValueError("explicit pairs cannot be used with DaskGBRanker (they index rows of one in-memory training "
                         "set); use metricrank.GBRanker with pairs=, or let PairLogit/YetiRank generate pairs from "
                         "the labels")


def worker_seed(random_state, y: np.ndarray, group_sizes: np.ndarray):
    """The seed of a stochastic objective on one worker.

    ``SeedSequence([random_state, crc32(query sizes), crc32(labels)])``: a
    function of the user's seed and of the worker's own rows, so workers draw
    different streams, and a rerun with the same data on the same partition
    placement draws the same ones. ``None`` is seed 0, as for GBRanker. A
    one-worker fit therefore draws a different stream from
    ``GBRanker(random_state=...)``, which seeds with ``random_state`` itself.
    """
    if random_state is None:
        random_state = 0
    sizes = np.ascontiguousarray(group_sizes, dtype=np.int64)
    labels = np.ascontiguousarray(y, dtype=np.float64)
    entropy = [int(random_state), zlib.crc32(sizes.tobytes()), zlib.crc32(labels.tobytes())]
    return int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint64)[0])


def hessian_mass_of_partitions(client, y, sizes: list, sample_weight, objective: Objective, random_state,
                               init_score) -> float:
    """``objective``'s hessian at the starting scores (``init_score``, or 0), summed over every row: divided by the
    rows, the mean that bounds ``lambda_l2="auto"`` (:func:`metricrank.learners._gbdt.auto_lambda_l2`). One task per
    partition (``sizes``: its query sizes, as :func:`~metricrank.dask._partitions.check_query_layout` returns them);
    only the partitions' sums travel.
    Whole queries per partition make it the single-machine mass for objectives that draw nothing; a stochastic
    one draws each partition's pairs from its :func:`worker_seed` stream."""
    from dask import delayed

    y_blocks = y.to_delayed().ravel().tolist()
    w_blocks, s_blocks = ([None] * len(y_blocks) if v is None else v.to_delayed().ravel().tolist()
                          for v in (sample_weight, init_score))
    tasks = [delayed(_partition_mass, pure=True)(yb, part, wb, sb, objective, random_state)
             for yb, part, wb, sb in zip(y_blocks, sizes, w_blocks, s_blocks)]
    return float(sum(client.compute(tasks, sync=True)))


def _partition_mass(y, sizes, weight, raw, objective: Objective, random_state) -> float:
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.size == 0:
        return 0.0
    data = as_training_data(y, group_ptr_from_sizes(sizes, n_rows=len(y)),
                            weights=None if weight is None else np.asarray(weight, dtype=np.float64))
    with numba_threads(_worker_threads()):
        base = None if raw is None else np.ascontiguousarray(raw, dtype=np.float64)
        return first_hessian_mass(objective, data, base, worker_seed(random_state, y, sizes))


def _worker_threads():
    """Threads of the Dask worker running this task (None outside a worker): the λ kernels use as many."""
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return None


class WorkerObjective:
    """LightGBM callable objective ``(y_true, y_pred, weight, group) -> (grad, hess)``.

    Parameters
    ----------
    objective : Objective
        The resolved metricrank objective (it pickles, so it travels to workers).
    random_state : int or None
        User seed; each worker derives its own with :func:`worker_seed`.

    Examples
    --------
    >>> import numpy as np
    >>> from metricrank.objectives import get_objective
    >>> f = WorkerObjective(get_objective("lambda:NDCG:top=10"), random_state=0)
    >>> grad, hess = f(np.array([2.0, 0.0, 1.0]), np.zeros(3), None, np.array([3]))
    >>> bool(grad[0] < 0 < grad[1])  # the relevant document is pushed up
    True
    """

    def __init__(self, objective: Objective, random_state=None):
        self.objective = objective
        self.random_state = random_state
        self._bound = {}
        self._lock = threading.Lock()

    def __getstate__(self):
        # bound objectives hold one worker's buffers: never ship them
        return {"objective": self.objective, "random_state": self.random_state}

    def __setstate__(self, state):
        self.__init__(state["objective"], state["random_state"])

    def __call__(self, y_true, y_pred, weight, group):
        sizes = np.asarray(group, dtype=np.int64)
        # With an in-process cluster the workers may share this object: bind per thread and data.
        key = (threading.get_ident(), len(y_true), zlib.crc32(sizes.tobytes()))
        with self._lock:
            bound = self._bound.get(key)
        if bound is None:
            data = as_training_data(y_true, group_ptr_from_sizes(sizes, n_rows=len(y_true)), weights=weight)
            bound = self.objective.bind(data, worker_seed(self.random_state, data.y, sizes))
            with self._lock:
                self._bound[key] = bound
        with numba_threads(_worker_threads()):
            y_pred = np.asarray(y_pred, dtype=np.float64)
            if y_pred.ndim == 2:  # n_models > 1: LightGBM's score columns, one model each
                return ModelGradients(bound)(y_pred)
            return bound(np.ascontiguousarray(y_pred))

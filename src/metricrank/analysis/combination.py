"""The best linear combination ``α s_a + (1 - α) s_b`` of two rankers, exactly (Burges, sec. 7.1).

As α sweeps [0, 1], a query's ranking changes only where two of its documents swap
order, so a rank-based metric is piecewise constant in α. :func:`optimal_combination`
collects every crossing ``α*`` (see :mod:`._crossings`), sorts them, evaluates each
query with the metric's own definition at its own breakpoints and at the midpoints of
the intervals between them (no other query is re-evaluated there), and sums the
per-query parts ``(num, den)`` over the sweep. The cost is ``O(P log P)`` for ``P``
crossings plus one per-query evaluation per breakpoint and per interval.

At a breakpoint the documents that cross are tied; their mixed scores are made exactly
equal (floating point would otherwise break the tie arbitrarily), so the metric's tie
policy decides the value there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ..metrics import evaluate, get_metric
from ..metrics._base import MetricInput
from ..metrics.evaluate import _as_float_vector
from .._groups import resolve_groups
from .._io import save_figure
from ..learners._boosting import numba_threads
from ._crossings import order_crossings, sign_crossings

__all__ = ["CombinationResult", "optimal_combination"]

#: metrics whose value depends on score magnitudes, not on the ranking: no finite sweep exists
SCORE_VALUED = frozenset({"PairLogit", "PairLogitPairwise", "QueryCrossEntropy", "QueryRMSE", "QuerySoftMax"})
#: metrics that read the sign of each score (documents with score >= 0), not the order
SIGN_VALUED = frozenset({"FilteredDCG"})

_MAX_ROWS = 2_000_000  # rows per batch of per-query evaluations
_TIE_RTOL = 1e-9  # values this close (relative) count as equal when choosing the best α


@dataclass(frozen=True)
class CombinationResult:
    """Outcome of :func:`optimal_combination`.

    Attributes
    ----------
    alpha : float
        The best weight of ranker ``a``.
    value : float
        The metric at ``alpha``.
    higher_is_better : bool
    metric : str
    breakpoints : ndarray of shape (K,)
        Sorted distinct α in (0, 1) where some query's ranking changes.
    values : ndarray of shape (K + 1,)
        The metric on the open intervals ``(0, b_1), (b_1, b_2), ..., (b_K, 1)``, summed query by query along
        the sweep (so equal to :func:`~metricrank.metrics.evaluate` up to rounding, about 1e-15).
    breakpoint_values : ndarray of shape (K,)
        The metric at each breakpoint (crossing documents tied), summed as ``values``.
    value_at_0, value_at_1 : float
        Ranker ``b`` alone (α = 0) and ranker ``a`` alone (α = 1), ties as given: ``evaluate`` of its scores.
    n_crossings : int
        Number of document pairs (or signs) that cross inside (0, 1).
    """

    alpha: float
    value: float
    higher_is_better: bool
    metric: str
    breakpoints: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    breakpoint_values: np.ndarray = field(repr=False)
    value_at_0: float = float("nan")
    value_at_1: float = float("nan")
    n_crossings: int = 0

    def plot(self, path) -> None:
        """Draw the piecewise-constant curve (intervals as steps, breakpoints as dots) to ``path``."""
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        edges = np.concatenate([[0.0], self.breakpoints, [1.0]])
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.hlines(self.values, edges[:-1], edges[1:], color="C0", label="on intervals")
        points = np.concatenate([[0.0], self.breakpoints, [1.0]])
        point_values = np.concatenate([[self.value_at_0], self.breakpoint_values, [self.value_at_1]])
        ax.plot(points, point_values, ".", color="C1", markersize=3, label="at breakpoints")
        ax.axvline(self.alpha, color="C2", linestyle="--", label=f"best α = {self.alpha:.4g}")
        ax.set_xlabel("α  (score = α·s_a + (1 − α)·s_b)")
        ax.set_ylabel(self.metric)
        ax.set_title(f"{self.metric}: best {self.value:.5f} at α = {self.alpha:.4g}")
        ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        save_figure(fig, path, dpi=120)


def _validate(scores_a, scores_b, y):
    y = _as_float_vector(y, "y")
    a = _as_float_vector(scores_a, "scores_a")
    b = _as_float_vector(scores_b, "scores_b")
    if a.shape[0] != y.shape[0] or b.shape[0] != y.shape[0]:
        raise ValueError(f"scores_a has {a.shape[0]} entries, scores_b {b.shape[0]} and y {y.shape[0]}; "
                         f"they must have the same length")
    if y.shape[0] == 0:
        raise ValueError("y is empty: there is nothing to combine")
    return a, b, y


def _events(defn, sa, sb, y, ptr):
    if defn.name in SIGN_VALUED:
        return sign_crossings(sa, sb, ptr)
    return order_crossings(sa, sb, y, ptr)


def _points(ev_q, ev_alpha, nq):
    """Per-query sorted points ``0, crossings..., 1`` and the point index of every event."""
    order = np.lexsort((ev_alpha, ev_q))
    q_sorted, a_sorted = ev_q[order], ev_alpha[order]
    new = np.ones(q_sorted.shape[0], dtype=bool)
    new[1:] = (q_sorted[1:] != q_sorted[:-1]) | (a_sorted[1:] != a_sorted[:-1])
    unique_id = np.cumsum(new) - 1  # interior point number of every sorted event
    u_q, u_alpha = q_sorted[new], a_sorted[new]
    per_q = np.bincount(u_q, minlength=nq)
    pts_ptr = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(per_q + 2, out=pts_ptr[1:])
    pts = np.empty(int(pts_ptr[-1]))
    pts[pts_ptr[:-1]] = 0.0
    pts[pts_ptr[1:] - 1] = 1.0
    interior_pos = np.arange(u_q.shape[0]) + 2 * u_q + 1  # 0 and 1 of earlier queries, then own 0
    pts[interior_pos] = u_alpha
    event_point = np.empty(ev_q.shape[0], dtype=np.int64)
    event_point[order] = interior_pos[unique_id]
    return pts, pts_ptr, event_point


def _evaluate_batches(defn, params, sa, sb, y, ptr, eval_q, eval_alpha, tie_eval, tie_i, tie_j):
    """``(num, den)`` of query ``eval_q[e]`` at ``eval_alpha[e]``, for every evaluation ``e``.

    Events ``(tie_eval, tie_i, tie_j)`` say which documents are tied in evaluation
    ``tie_eval`` (``tie_j == -1``: document ``tie_i`` has score exactly 0).
    """
    sizes = (ptr[1:] - ptr[:-1])[eval_q]
    n_eval = eval_q.shape[0]
    num, den = np.empty(n_eval), np.empty(n_eval)
    ends = np.cumsum(sizes)
    tie_order = np.argsort(tie_eval, kind="stable")
    tie_eval, tie_i, tie_j = tie_eval[tie_order], tie_i[tie_order], tie_j[tie_order]
    start = 0
    while start < n_eval:
        base = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, base + _MAX_ROWS, side="right")))
        e_sizes = sizes[start:stop]
        bptr = np.zeros(stop - start + 1, dtype=np.int64)
        np.cumsum(e_sizes, out=bptr[1:])
        n_rows = int(bptr[-1])
        e_of_row = np.repeat(np.arange(stop - start), e_sizes)
        rows = ptr[eval_q[start:stop]][e_of_row] + (np.arange(n_rows) - bptr[:-1][e_of_row])
        alpha = eval_alpha[start:stop][e_of_row]
        score = alpha * sa[rows] + (1.0 - alpha) * sb[rows]
        lo, hi = np.searchsorted(tie_eval, [start, stop])
        if hi > lo:
            e = tie_eval[lo:hi]
            offset = bptr[e - start]
            ri, rj = offset + tie_i[lo:hi], tie_j[lo:hi]
            zero = rj < 0
            score[ri[zero]] = 0.0
            ri, rj = ri[~zero], offset[~zero] + rj[~zero]
            if ri.shape[0]:
                graph = coo_matrix((np.ones(ri.shape[0]), (ri, rj)), shape=(n_rows, n_rows))
                _, comp = connected_components(graph, directed=False)
                low = np.full(int(comp.max()) + 1, np.inf)
                np.minimum.at(low, comp, score)
                score = low[comp]
        inp = MetricInput(y[rows], np.ascontiguousarray(score), bptr, np.ones(n_rows), np.ones(stop - start))
        num[start:stop], den[start:stop] = defn.compute(inp, params)
        start = stop
    return num, den


def _finalize(defn, num, den):
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return defn.finalize(value) if defn.finalize is not None else value


def optimal_combination(scores_a, scores_b, y, *, qid=None, group_ptr=None, metric="NDCG:top=10",
                        preset=None, n_jobs=None) -> CombinationResult:
    """Best α for the ranker ``α·scores_a + (1 - α)·scores_b``, exact over α ∈ [0, 1].

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n,)
        The two rankers' scores (finite).
    y : array-like of shape (n,)
        Relevance labels.
    qid : array-like of shape (n,), optional
        Query of each row (rows of a query contiguous).
    group_ptr : array-like of int, optional
        Query offsets instead of ``qid``. With neither, all rows are one query.
    metric : str or Metric, default="NDCG:top=10"
        Any rank-based metric of the catalogue. Metrics defined on the whole data set
        (``AUC``) are allowed, but then every document pair of the data set can cross
        and the metric is re-evaluated globally at every breakpoint: ``O(P·n)``.
        ``FilteredDCG`` sweeps the α where scores change sign. Metrics of score values
        (``PairLogit``, ``QueryRMSE``, ...) are not piecewise constant and are refused.
    preset : str, optional
        Metric convention preset.
    n_jobs : int, optional
        Threads for the metric kernels (restored afterwards); default the caller's numba setting.

    Returns
    -------
    CombinationResult
        The best α and the whole curve. The best value is the best over the open
        intervals *and* the breakpoints (with pessimistic ties a breakpoint is never
        better than both neighbours, but with other tie policies it can be). Among
        equal best values (relative tolerance 1e-9) an interval wins over a
        breakpoint, and the widest interval wins; its midpoint is returned, with the value
        :func:`~metricrank.metrics.evaluate` gives there.

    Examples
    --------
    >>> r = optimal_combination([2, 1, 0], [0, 2, 1], [1, 2, 0], metric="NDCG")
    >>> r.breakpoints.round(4).tolist(), r.alpha, r.value
    ([0.3333, 0.6667], 0.5, 1.0)
    >>> bool(r.value > max(r.value_at_0, r.value_at_1))  # better than either ranker alone
    True
    """
    sa, sb, y = _validate(scores_a, scores_b, y)
    m = get_metric(metric, preset)
    defn, params = m.definition, m.params
    if defn.name in SCORE_VALUED:
        raise ValueError(f"metric {m.spec!r} depends on score values, not on the ranking, so it is not "
                         f"piecewise constant in α; use a rank-based metric (NDCG, MAP, MRR, ERR, ...)")
    if defn.check_labels is not None:
        defn.check_labels(y, params)
    ptr = resolve_groups(y.shape[0], qid=qid, group_ptr=group_ptr)
    if not defn.per_query:
        ptr = np.array([0, y.shape[0]], dtype=np.int64)
    nq = ptr.shape[0] - 1

    ev_q, ev_i, ev_j, ev_alpha = _events(defn, sa, sb, y, ptr)
    pts, pts_ptr, event_point = _points(ev_q, ev_alpha, nq)
    n_pts = pts.shape[0]
    pts_q = np.repeat(np.arange(nq), np.diff(pts_ptr))
    inner = pts_q[1:] == pts_q[:-1]  # consecutive points of one query bound one of its intervals
    mid_q = pts_q[:-1][inner]
    mid_lo, mid_hi = pts[:-1][inner], pts[1:][inner]
    eval_q = np.concatenate([pts_q, mid_q])
    eval_alpha = np.concatenate([pts, 0.5 * (mid_lo + mid_hi)])
    with numba_threads(n_jobs):
        num, den = _evaluate_batches(defn, params, sa, sb, y, ptr, eval_q, eval_alpha, event_point,
                                     ev_i - ptr[ev_q], np.where(ev_j < 0, -1, ev_j - ptr[ev_q]))

    # Sweep: the global points are the union of every query's points.
    grid = np.unique(pts)
    g_pt = np.searchsorted(grid, pts)
    g_lo, g_hi = np.searchsorted(grid, mid_lo), np.searchsorted(grid, mid_hi)
    n_grid = grid.shape[0]
    totals = []
    for part in (num, den):
        p_part, i_part = part[:n_pts], part[n_pts:]
        on_interval = np.zeros(n_grid)
        np.add.at(on_interval, g_lo, i_part)
        np.add.at(on_interval, g_hi, -i_part)
        at_point = np.zeros(n_grid + 1)
        np.add.at(at_point, g_lo + 1, i_part)
        np.add.at(at_point, g_hi, -i_part)
        at_point = np.cumsum(at_point[:-1])
        np.add.at(at_point, g_pt, p_part)
        totals.append((np.cumsum(on_interval)[:-1], at_point))
    interval_values = _finalize(defn, totals[0][0], totals[1][0])
    point_values = _finalize(defn, totals[0][1], totals[1][1])

    alpha, value = _best(grid, interval_values, point_values, defn.higher_is_better)
    # The two rankers alone, and an interval's midpoint (where no pair ties), are read directly, not through the
    # sweep's running sums, whose rounding can put NDCG a few ulps above 1 or a perfect ranker's below.
    with numba_threads(n_jobs):
        at_0, at_1 = (float(evaluate(y, s, group_ptr=ptr, metric=m)) for s in (sb, sa))
        if np.isfinite(value) and alpha not in grid:
            value = float(evaluate(y, alpha * sa + (1 - alpha) * sb, group_ptr=ptr, metric=m))
    value = {0.0: at_0, 1.0: at_1}.get(alpha, value)
    return CombinationResult(
        alpha=alpha, value=value, higher_is_better=defn.higher_is_better, metric=m.spec,
        breakpoints=grid[1:-1], values=interval_values, breakpoint_values=point_values[1:-1],
        value_at_0=at_0, value_at_1=at_1, n_crossings=int(ev_q.shape[0]),
    )


def _best(grid, interval_values, point_values, higher_is_better):
    sign = 1.0 if higher_is_better else -1.0
    iv = np.where(np.isnan(interval_values), -np.inf, sign * interval_values)
    pv = np.where(np.isnan(point_values), -np.inf, sign * point_values)
    best = max(iv.max(), pv.max())
    if not np.isfinite(best):
        return 0.5, float("nan")
    tol = _TIE_RTOL * max(1.0, abs(best))
    candidates = np.flatnonzero(iv >= best - tol)
    if candidates.shape[0]:
        widths = grid[candidates + 1] - grid[candidates]
        k = int(candidates[np.argmax(widths)])
        return float(0.5 * (grid[k] + grid[k + 1])), float(interval_values[k])
    k = int(np.flatnonzero(pv >= best - tol)[0])
    return float(grid[k]), float(point_values[k])

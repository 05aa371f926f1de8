"""PairLogit and PairLogitPairwise: the pairwise logistic loss as a training objective.

The loss is the *numerator* of the catalogue metric of the same name
(:mod:`metricrank.metrics._pairwise`)::

    L(a) = sum over pairs (p, n) of  w_pn * log(1 + exp(-(a_p - a_n)))

(the metric divides by ``sum w_pn``; a Newton leaf ``-sum g / sum h`` does not
change under that scale, and these are the unnormalised derivatives). With
``s = 1 - sigmoid(a_p - a_n)`` a pair adds

* ``grad_p -= w s`` and ``grad_n += w s``;
* ``w s (1 - s)`` to ``hess_p`` and ``hess_n`` (the exact diagonal).

Pairs
-----
* Explicit pairs (``TrainingData.pairs``) are used as they are, with
  ``pair_weight`` (1 when none), whatever the labels.
* Otherwise every ``(i, j)`` of a query with ``y_i > y_j`` is a pair of weight
  ``group_weight[q] * weight[first row of q]``: the metric's (and CatBoost's)
  convention. ``use_weights=false`` sets every pair weight (explicit ones
  included, as the metric does) to 1.
* ``max_pairs=k`` keeps at most ``k`` generated pairs per query, a uniform
  sample *without repetition* drawn with ``numpy.random.Generator.choice``
  (Floyd's algorithm when the query has more than 50 k pairs, so memory is
  O(n + k) per query, never O(number of pairs)). A drawn index is mapped to
  its ``(winner, loser)`` through the query sorted by label and the
  cumulative count of losers. The draw is seeded by ``random_state`` of
  :meth:`PairLogit.bind` and happens once: pairs depend only on the labels.
  (The metric ``PairLogit:max_pairs=k`` draws its own fixed-seed sample; to
  evaluate exactly the trained pairs pass :meth:`BoundPairLogit.pairs` to
  ``evaluate(..., pairs=...)``.)

PairLogitPairwise has the same gradient and pairs; it differs only in
``pairwise_leaves = True`` (the engine solves the pairwise Newton system for a
tree's leaf values from :meth:`BoundPairLogit.pairs`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..metrics._base import USE_WEIGHTS_TRUE
from ..metrics._pairwise import MAX_PAIRS, _check_max_pairs
from .._seeds import as_generator
from ._base import BoundObjective, Objective, ObjectiveDef, TrainingData
from ._judged import JudgedByMetric

__all__ = ["DEFINITIONS", "BoundPairLogit", "PairLogit", "PairLogitPairwise", "generate_pairs",
           "pairlogit_grad_hess"]


# --- kernels ----------------------------------------------------------------------------------

@njit(cache=True, nogil=True, inline="always")
def pair_terms(d, w):
    """``(w s, w s (1 - s))`` with ``s = 1 - sigmoid(d) = sigmoid(-d)``, computed without overflow:
    minus the derivative of ``w log(1 + e^{-d})`` and its second derivative."""
    if d >= 0.0:
        ex = math.exp(-d)
        s = ex / (1.0 + ex)
    else:
        s = 1.0 / (1.0 + math.exp(d))
    g = w * s
    return g, g * (1.0 - s)


@njit(cache=True, nogil=True, inline="always")
def one_label(label, start, stop):
    """Whether rows ``start:stop`` all have the same label: then no pair of them has a gradient, and the
    pairwise kernels skip the query (a quarter of MQ2008's training queries)."""
    for t in range(start + 1, stop):
        if label[t] != label[start]:
            return False
    return True


@njit(cache=True, nogil=True)
def _sorted_group(y, s, e):
    """Rows of ``s:e`` by decreasing label (0-based positions) and the end of each tie block.

    Returns ``(order, block_end)``: ``order[r]`` the position in the query of
    rank ``r``; ``block_end[r]`` the first rank with a strictly smaller label,
    so rank ``r`` beats exactly the ranks ``block_end[r] .. n-1``.
    """
    n = e - s
    order = np.argsort(-y[s:e], kind="mergesort")
    block_end = np.empty(n, dtype=np.int64)
    r = n - 1
    end = n
    while r >= 0:
        if r < n - 1 and y[s + order[r]] != y[s + order[r + 1]]:
            end = r + 1
        block_end[r] = end
        r -= 1
    return order, block_end


@njit(cache=True, parallel=True)
def _count_pairs(y, group_ptr):
    """Number of pairs ``y_i > y_j`` in every query (O(n log n) per query)."""
    nq = group_ptr.shape[0] - 1
    counts = np.zeros(nq, dtype=np.int64)
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        if e - s < 2:
            continue
        order, block_end = _sorted_group(y, s, e)
        n = e - s
        c = 0
        for r in range(n):
            c += n - block_end[r]
        counts[q] = c
    return counts


@njit(cache=True, parallel=True)
def _fill_pairs(y, group_ptr, counts, pair_ptr, draws, draw_ptr, win, lose):
    """Write the pairs of every query into ``win/lose[pair_ptr[q]:pair_ptr[q+1]]``.

    A query with ``draw_ptr[q+1] > draw_ptr[q]`` keeps the pairs whose indices
    (in the enumeration "rank r beats ranks block_end[r]..n-1, r increasing")
    are ``draws[draw_ptr[q]:draw_ptr[q+1]]``; every other query keeps all.
    """
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        if counts[q] == 0:
            continue
        n = e - s
        order, block_end = _sorted_group(y, s, e)
        out = pair_ptr[q]
        d0 = draw_ptr[q]
        d1 = draw_ptr[q + 1]
        if d1 == d0:
            for r in range(n):
                for t in range(block_end[r], n):
                    win[out] = s + order[r]
                    lose[out] = s + order[t]
                    out += 1
        else:
            cum = np.empty(n + 1, dtype=np.int64)  # cum[r]: pairs of ranks < r
            cum[0] = 0
            for r in range(n):
                cum[r + 1] = cum[r] + n - block_end[r]
            for k in range(d0, d1):
                idx = draws[k]
                r = np.searchsorted(cum, idx, side="right") - 1
                win[out] = s + order[r]
                lose[out] = s + order[block_end[r] + idx - cum[r]]
                out += 1


@njit(cache=True, parallel=True)
def pairlogit_grad_hess(raw, win, lose, pair_weight, pair_ptr, group_ptr, grad, hess):
    """Write the PairLogit loss gradient and diagonal hessian into ``grad`` and ``hess``.

    Pairs of query ``q`` are ``pair_ptr[q]:pair_ptr[q+1]`` and join rows of
    that query only, so the loop over queries runs in parallel without races.
    """
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        for i in range(group_ptr[q], group_ptr[q + 1]):
            grad[i] = 0.0
            hess[i] = 0.0
        for p in range(pair_ptr[q], pair_ptr[q + 1]):
            i = win[p]
            j = lose[p]
            g, h = pair_terms(raw[i] - raw[j], pair_weight[p])
            grad[i] -= g
            grad[j] += g
            hess[i] += h
            hess[j] += h


# --- pair generation --------------------------------------------------------------------------

def generate_pairs(y, group_ptr, *, max_pairs=-1, random_state=None):
    """Pairs ``y_i > y_j`` of every query, sorted by query; at most ``max_pairs`` per query.

    Parameters
    ----------
    y : float64 array of shape (n,)
    group_ptr : int64 array of shape (n_queries + 1,)
    max_pairs : int, default -1
        -1 keeps every pair; ``k > 0`` keeps a uniform sample of ``k`` distinct
        pairs of a query that has more (O(n + k) memory per query).
    random_state : int, Generator or None
        Seed of the sample.

    Returns
    -------
    win, lose : int64 arrays of shape (n_pairs,)
        Global rows of the winner (higher label) and the loser.
    pair_ptr : int64 array of shape (n_queries + 1,)
        The pairs of query ``q`` are ``pair_ptr[q]:pair_ptr[q+1]``.

    Examples
    --------
    >>> import numpy as np
    >>> win, lose, ptr = generate_pairs(np.array([1.0, 0, 2, 0, 0]), np.array([0, 3, 5]))
    >>> [(int(a), int(b)) for a, b in zip(win, lose)], ptr.tolist()
    ([(2, 0), (2, 1), (0, 1)], [0, 3, 3])
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    group_ptr = np.ascontiguousarray(group_ptr, dtype=np.int64)
    max_pairs = _check_max_pairs(max_pairs)
    nq = group_ptr.shape[0] - 1
    counts = _count_pairs(y, group_ptr)
    draw_ptr = np.zeros(nq + 1, dtype=np.int64)
    draws = np.zeros(0, dtype=np.int64)
    kept = counts
    if max_pairs > 0:
        kept = np.minimum(counts, max_pairs)
        sampled = np.flatnonzero(counts > max_pairs)
        if sampled.size:
            rng = as_generator(random_state)
            chunks = []
            for q in sampled:
                # numpy's choice without replacement: Floyd's algorithm (O(k) hash set) when the
                # population exceeds 50 k, a partial shuffle of O(population) <= O(50 k) otherwise.
                chunks.append(rng.choice(int(counts[q]), size=max_pairs, replace=False))
            draws = np.ascontiguousarray(np.concatenate(chunks), dtype=np.int64)
            per_query = np.zeros(nq, dtype=np.int64)
            per_query[sampled] = max_pairs
            draw_ptr[1:] = np.cumsum(per_query)
    pair_ptr = np.zeros(nq + 1, dtype=np.int64)
    pair_ptr[1:] = np.cumsum(kept)
    total = int(pair_ptr[-1])
    win = np.empty(total, dtype=np.int64)
    lose = np.empty(total, dtype=np.int64)
    _fill_pairs(y, group_ptr, counts, pair_ptr, draws, draw_ptr, win, lose)
    return win, lose, pair_ptr


# --- objectives -------------------------------------------------------------------------------

class BoundPairLogit(BoundObjective):
    """PairLogit bound to one training set: fixed pairs, reused output buffers.

    Attributes
    ----------
    win, lose : int64 arrays
        Winner and loser rows of every pair, sorted by query.
    pair_weight : float64 array
    pair_ptr : int64 array of shape (n_queries + 1,)
    """

    def __init__(self, data: TrainingData, win, lose, pair_weight, pair_ptr):
        self.group_ptr = data.group_ptr
        self.win = win
        self.lose = lose
        self.pair_weight = pair_weight
        self.pair_ptr = pair_ptr
        self._grad = np.empty(data.n_rows)
        self._hess = np.empty(data.n_rows)

    def __call__(self, raw):
        pairlogit_grad_hess(raw, self.win, self.lose, self.pair_weight, self.pair_ptr, self.group_ptr,
                            self._grad, self._hess)
        return self._grad, self._hess

    def pairs(self):
        """``(winner rows, loser rows, pair weights)``; the same for every call."""
        return self.win, self.lose, self.pair_weight


class PairLogit(JudgedByMetric, Objective):
    """Pairwise logistic loss ``sum w_pn log(1 + exp(-(a_p - a_n)))`` over label pairs.

    Parameters (spec)
    -----------------
    max_pairs : int, default -1
        At most this many generated pairs per query (uniform, without
        repetition, seeded by ``random_state``); -1 keeps all.
    use_weights : bool, default true
        Pair weight ``group_weight * weight of the query's first row`` (explicit
        pairs: ``pair_weight``); false gives every pair weight 1.

    Examples
    --------
    >>> import numpy as np
    >>> obj = PairLogit("PairLogit", {"max_pairs": -1, "use_weights": True})
    >>> grad, hess = obj.gradient_hessian([1.0, 0.0], [0.0, 0.0], [0, 2])
    >>> grad.tolist(), hess.tolist()      # s = 1 - sigmoid(0) = 1/2
    ([-0.5, 0.5], [0.25, 0.25])
    """

    name = "PairLogit"
    uses_pairs = True
    accepts_pairs = True

    @property
    def loss_eval_spec(self) -> str:
        """The metric of the same name and parameters (its ``max_pairs`` sample is its own); :attr:`eval_spec`
        unless :meth:`judged_by` set another."""
        return self.spec

    @property
    def quadratic(self) -> bool:
        """Generated pairs without ``max_pairs`` are every pair of a query."""
        return self.params.get("max_pairs", -1) in (-1, None)

    def bind(self, data: TrainingData, random_state=None) -> BoundPairLogit:
        self.check_labels(data.y)
        ptr = data.group_ptr
        nq = data.n_queries
        use_weights = bool(self.params.get("use_weights", True))
        if data.pairs is not None:
            q = np.searchsorted(ptr, data.pairs[:, 0], side="right") - 1
            order = np.argsort(q, kind="stable")
            win = np.ascontiguousarray(data.pairs[order, 0])
            lose = np.ascontiguousarray(data.pairs[order, 1])
            pw = np.ascontiguousarray(data.pair_weight[order]) if use_weights else np.ones(win.shape[0])
            pair_ptr = np.searchsorted(q[order], np.arange(nq + 1), side="left").astype(np.int64)
        else:
            win, lose, pair_ptr = generate_pairs(data.y, ptr, max_pairs=self.params.get("max_pairs", -1),
                                                 random_state=random_state)
            if use_weights:
                first = np.minimum(ptr[:-1], max(data.n_rows - 1, 0))
                per_query = data.group_weight * data.weight[first] if data.n_rows else data.group_weight
                pw = np.repeat(per_query, np.diff(pair_ptr))
            else:
                pw = np.ones(win.shape[0])
        return BoundPairLogit(data, win, lose, np.ascontiguousarray(pw, dtype=np.float64), pair_ptr)


class PairLogitPairwise(PairLogit):
    """PairLogit with leaves valued by the pairwise Newton system (same gradient and pairs).

    Examples
    --------
    >>> obj = PairLogitPairwise("PairLogitPairwise", {"max_pairs": -1, "use_weights": True})
    >>> obj.pairwise_leaves, obj.uses_pairs, obj.eval_spec
    (True, True, 'PairLogitPairwise')
    """

    name = "PairLogitPairwise"
    pairwise_leaves = True


_PARAMS = (MAX_PAIRS, USE_WEIGHTS_TRUE)

DEFINITIONS = (
    ObjectiveDef("PairLogit", _PARAMS, PairLogit,
                 "sum over pairs of w log(1 + exp(-(a_p - a_n))); generated pairs y_p > y_n per query "
                 "unless explicit pairs are given"),
    ObjectiveDef("PairLogitPairwise", _PARAMS, PairLogitPairwise,
                 "PairLogit's gradient with leaf values from the pairwise Newton system"),
)

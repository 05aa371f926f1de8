"""CatBoost's pairwise metrics: PairLogit, PairLogitPairwise, PairAccuracy, AUC, QueryAUC.

Formulas are those of the CatBoost documentation (seed ``001``). Every
convention below was measured against catboost 1.2.10 (``catboost.utils.
eval_metric`` and ``CatBoost.eval_metrics`` on a ``Pool``); the tests in
``tests/test_metrics_pairwise.py`` re-check them.

Pairs (PairLogit, PairLogitPairwise, PairAccuracy)
--------------------------------------------------
* Explicit pairs (``MetricInput.pairs``, global rows ``(winner, loser)``) are
  used exactly as given, whatever the labels; a pair belongs to the query of
  its winner. Pair weight = ``pair_weight`` (1 when none). CatBoost applies
  neither object nor group weights to explicit pairs.
* Without explicit pairs, pairs are generated per query: every ``(i, j)`` with
  ``y_i > y_j`` (equal labels give no pair; one-document and all-equal-label
  queries give none). CatBoost gives every generated pair of a query the
  weight of the query's *first object* (``GeneratePairLogitPairs`` reads
  ``weights[group.Begin]``); a CatBoost pool with group weights sets that to
  the group weight, a pool with object weights to the first row's weight (it
  warns "Pairwise losses don't support object weights"). We reproduce this as
  ``group_weight[q] * weight[first row of q]`` (CatBoost refuses pools with
  both kinds of weight, so the product is our extension). ``use_weights=false``
  makes every pair weight 1.
* ``max_pairs > 0`` (generated pairs only): a query with more valid pairs keeps
  ``max_pairs`` distinct ones chosen without repetition by a fixed-seed
  generator (splitmix64 seeded by the query index; deterministic and
  independent of thread count). CatBoost's own random choice cannot be
  reproduced; with ``max_pairs`` >= the number of pairs all pairs are used, as
  in CatBoost.
* PairAccuracy counts a pair only when ``a_p > a_n`` strictly: tied scores
  count 0 (not 0.5).
* Parts are per-query sums (ratio of totals). A query without pairs has
  ``den = 0`` and is not counted; with no pair at all the value is NaN
  (CatBoost prints 0 there: its ``0 / (0 + 1e-38)``).

AUC and QueryAUC
----------------
* ``type=Classic`` (default of both AUC and QueryAUC): labels must lie in
  [0, 1]; an object with label ``t`` and weight ``w`` is a positive of weight
  ``t*w`` and a negative of weight ``(1-t)*w`` (its own two halves tie, so a
  soft label pairs with itself with credit 0.5, exactly as CatBoost).
  ``type=Ranking``: all pairs ``t_i < t_j`` with weight ``w_i*w_j``, any labels.
  Tied scores earn 0.5. Both are O(n log n) (sort by score, tie blocks, and a
  Fenwick tree over label ranks for Ranking).
* ``use_weights`` defaults to false for both. ``catboost.utils.eval_metric``
  ignores ``use_weights`` and uses whatever weights it is given, while
  ``CatBoost.eval_metrics`` honours it; we follow the latter (and the docs).
* AUC is global (``per_query=False``): every row of the data set, object
  weights only (``compute_value`` drops group weights for global metrics;
  ``eval_metric`` likewise ignores ``group_weight`` when ``weight`` is given).
  With no valid pair (e.g. all labels equal, one row) CatBoost returns 0; so
  do we (parts ``num=0, den=1``).
* QueryAUC is *not* the ratio of totals the seed formula suggests: CatBoost
  computes the AUC of each query and averages with group weights,
  ``sum_q g_q AUC_q / sum_q g_q``, and a query without a valid pair (one
  document, all labels equal) counts as ``AUC_q = 0``. Measured; we match it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, types
from numba.typed import Dict

from ._base import (
    USE_WEIGHTS_FALSE,
    USE_WEIGHTS_TRUE,
    MetricDef,
    MetricInput,
    Param,
    check_finite_labels_in,
    parse_choice,
    parse_int,
)

__all__ = [
    "DEFINITIONS",
    "auc_parts",
    "generated_pair_parts",
    "sampled_pair_parts",
    "sample_without_replacement",
    "explicit_pair_parts",
]

LOGIT = 0  # pair loss codes used inside kernels
ACCURACY = 1


@njit(cache=True, nogil=True, inline="always")
def _pair_value(diff, kind):
    """``log(1 + exp(-diff))`` (stable) or ``[diff > 0]``."""
    if kind == ACCURACY:
        return 1.0 if diff > 0.0 else 0.0
    if diff >= 0.0:
        return math.log1p(math.exp(-diff))
    return -diff + math.log1p(math.exp(diff))


# --- pair metrics ----------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _generated_one(y, score, s, e, kind):
    """Sum of pair values and number of pairs ``y_i > y_j`` among rows ``s:e``."""
    acc = 0.0
    count = 0
    for i in range(s, e):
        for j in range(s, e):
            if y[i] > y[j]:
                acc += _pair_value(score[i] - score[j], kind)
                count += 1
    return acc, count


@njit(cache=True, nogil=True, inline="always")
def _splitmix64(state):
    """One step of splitmix64: ``(new_state, output)`` as uint64."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return state, z


@njit(cache=True, nogil=True)
def sample_without_replacement(count, k, seed, stream):
    """``k`` distinct indices of ``0..count-1`` (partial Fisher-Yates, splitmix64).

    Deterministic in ``(seed, stream)``; ``k <= count`` is the caller's duty. The
    shuffle is sparse: only the swapped positions are stored (a dict of at most
    ``2k`` entries), so memory is O(k) whatever ``count`` is.
    """
    moved = Dict.empty(key_type=types.int64, value_type=types.int64)
    out = np.empty(k, dtype=np.int64)
    state = np.uint64(seed) * np.uint64(0x100000001B3) + np.uint64(stream)
    for t in range(k):
        state, r = _splitmix64(state)
        pick = t + np.int64(r % np.uint64(count - t))
        at_pick = moved.get(pick, pick)
        moved[pick] = moved.get(t, t)
        out[t] = at_pick
    return out


@njit(cache=True, nogil=True)
def _sampled_one(y, score, s, e, kind, max_pairs, seed, stream):
    """As :func:`_generated_one` with at most ``max_pairs`` distinct pairs.

    Pairs are numbered in row-major order (winner row, then loser row); a drawn
    number is mapped back to its pair through the per-winner pair counts, so no
    array of all pairs is built (memory O(n + max_pairs) for a query of n rows).
    """
    acc, count = _generated_one(y, score, s, e, kind)
    if count <= max_pairs:
        return acc, count
    n = e - s
    cum = np.empty(n, dtype=np.int64)  # pairs whose winner is one of rows s..s+i
    total = 0
    for i in range(n):
        for j in range(s, e):
            if y[s + i] > y[j]:
                total += 1
        cum[i] = total
    picks = sample_without_replacement(count, max_pairs, seed, stream)
    acc = 0.0
    for t in range(max_pairs):
        p = picks[t]
        i = np.searchsorted(cum, p, side="right")
        r = p - (cum[i - 1] if i > 0 else 0)
        winner = s + i
        loser = s
        for j in range(s, e):
            if y[winner] > y[j]:
                if r == 0:
                    loser = j
                    break
                r -= 1
        acc += _pair_value(score[winner] - score[loser], kind)
    return acc, max_pairs


@njit(cache=True, parallel=True)
def _pairs_kernel(y, score, weight, group_weight, group_ptr, kind, max_pairs, seed):
    nq = group_ptr.shape[0] - 1
    num = np.zeros(nq)
    den = np.zeros(nq)
    used = np.zeros(nq, dtype=np.int64)
    for q in prange(nq):
        s = group_ptr[q]
        c = group_weight[q] * weight[s]
        if max_pairs > 0:
            acc, count = _sampled_one(y, score, s, group_ptr[q + 1], kind, max_pairs, seed, q)
        else:
            acc, count = _generated_one(y, score, s, group_ptr[q + 1], kind)
        num[q] = c * acc
        den[q] = c * count
        used[q] = count
    return num, den, used


def generated_pair_parts(y, score, weight, group_weight, group_ptr, kind):
    """Per-query sums over all generated pairs ``y_i > y_j`` of each query.

    Every pair of query ``q`` has weight ``c_q = group_weight[q] * weight[first row]``;
    returns ``(num, den)`` with ``den[q] = c_q * n_pairs_q``.
    """
    num, den, _ = _pairs_kernel(y, score, weight, group_weight, group_ptr, kind, -1, 0)
    return num, den


def sampled_pair_parts(y, score, weight, group_weight, group_ptr, kind, max_pairs, seed):
    """As :func:`generated_pair_parts`, keeping at most ``max_pairs`` pairs per query.

    A query with more valid pairs keeps ``max_pairs`` distinct ones chosen by
    :func:`sample_without_replacement` with stream = query index
    (deterministic, thread-count independent). Returns ``(num, den, used)``,
    ``used`` the number of pairs kept per query.
    """
    return _pairs_kernel(y, score, weight, group_weight, group_ptr, kind, int(max_pairs), seed)


@njit(cache=True)
def explicit_pair_parts(score, pairs, pair_weight, group_ptr, kind):
    """Per-query sums over explicit ``(winner, loser)`` pairs, by the winner's query."""
    nq = group_ptr.shape[0] - 1
    num = np.zeros(nq)
    den = np.zeros(nq)
    winners = pairs[:, 0].copy()
    query_of = np.searchsorted(group_ptr, winners, side="right") - 1
    for p in range(pairs.shape[0]):
        q = query_of[p]
        w = pair_weight[p]
        num[q] += w * _pair_value(score[pairs[p, 0]] - score[pairs[p, 1]], kind)
        den[q] += w
    return num, den


PAIR_SEED = 0  # seed of the max_pairs sampler


def _pair_compute(kind):
    def compute(inp: MetricInput, params: dict):
        if inp.pairs is not None:
            pw = np.ones(inp.pairs.shape[0]) if inp.pair_weight is None else inp.pair_weight
            return explicit_pair_parts(inp.score, inp.pairs, pw, inp.group_ptr, kind)
        max_pairs = _check_max_pairs(params.get("max_pairs", -1))
        num, den, _ = sampled_pair_parts(inp.y, inp.score, inp.weight, inp.group_weight,
                                         inp.group_ptr, kind, max_pairs, PAIR_SEED)
        return num, den

    return compute


# --- AUC ------------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _auc_classic_one(y, score, weight):
    """``(sum I*w_neg*w_pos, sum w_neg*w_pos)`` of one list, soft labels split."""
    order = np.argsort(score, kind="mergesort")
    n = order.shape[0]
    neg_below = 0.0
    total_pos = 0.0
    num = 0.0
    k = 0
    while k < n:
        m = k
        pos_block = 0.0
        neg_block = 0.0
        while m < n and score[order[m]] == score[order[k]]:
            r = order[m]
            pos_block += y[r] * weight[r]
            neg_block += (1.0 - y[r]) * weight[r]
            m += 1
        num += pos_block * (neg_below + 0.5 * neg_block)
        neg_below += neg_block
        total_pos += pos_block
        k = m
    return num, total_pos * neg_below


@njit(cache=True, nogil=True)
def _auc_ranking_one(y, score, weight):
    """``(sum I*w_i*w_j, sum w_i*w_j)`` over pairs ``y_i < y_j`` of one list.

    Sort by score; walk blocks of tied scores; a Fenwick tree over label ranks
    holds the weight already seen, so each row finds the weight of lower-label
    rows with a strictly lower score (credit 1) and with the same score
    (credit 0.5) in O(log n).
    """
    n = y.shape[0]
    # dense label ranks, 1-based
    lorder = np.argsort(y, kind="mergesort")
    rank = np.empty(n, dtype=np.int64)
    r = 0
    den_same = 0.0  # sum over label classes of (class weight)^2
    class_w = 0.0
    total = 0.0
    for k in range(n):
        idx = lorder[k]
        if k == 0 or y[idx] != y[lorder[k - 1]]:
            r += 1
            den_same += class_w * class_w
            class_w = 0.0
        rank[idx] = r
        class_w += weight[idx]
        total += weight[idx]
    den_same += class_w * class_w
    den = 0.5 * (total * total - den_same)
    if r < 2:
        return 0.0, 0.0

    tree = np.zeros(r + 1)
    order = np.argsort(score, kind="mergesort")
    below = np.empty(n)
    num = 0.0
    k = 0
    while k < n:
        m = k
        while m < n and score[order[m]] == score[order[k]]:
            m += 1
        # weight of lower-label rows with strictly lower score
        for t in range(k, m):
            row = order[t]
            acc = 0.0
            i = rank[row] - 1
            while i > 0:
                acc += tree[i]
                i -= i & (-i)
            below[t] = acc
        for t in range(k, m):
            row = order[t]
            i = rank[row]
            while i <= r:
                tree[i] += weight[row]
                i += i & (-i)
        # after inserting the block: lower label with lower-or-equal score
        for t in range(k, m):
            row = order[t]
            acc = 0.0
            i = rank[row] - 1
            while i > 0:
                acc += tree[i]
                i -= i & (-i)
            num += weight[row] * 0.5 * (below[t] + acc)
        k = m
    return num, den


@njit(cache=True, parallel=True)
def _auc_kernel(y, score, weight, group_ptr, classic):
    nq = group_ptr.shape[0] - 1
    num = np.zeros(nq)
    den = np.zeros(nq)
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        if classic:
            a, b = _auc_classic_one(y[s:e], score[s:e], weight[s:e])
        else:
            a, b = _auc_ranking_one(y[s:e], score[s:e], weight[s:e])
        num[q] = a
        den[q] = b
    return num, den


def auc_parts(y, score, weight, group_ptr, classic):
    """Per-query AUC numerator and denominator (sums of pair weights).

    ``classic`` selects ``type=Classic`` (soft labels split into positive and
    negative mass) over ``type=Ranking`` (pairs ``y_i < y_j``).
    """
    return _auc_kernel(y, score, weight, group_ptr, bool(classic))


def _auc_pair_sums(inp: MetricInput, params: dict):
    return auc_parts(inp.y, inp.score, inp.weight, inp.group_ptr, params["type"] == "Classic")


def _per_query_auc(num, den):
    """AUC of each list; 0 where it has no valid pair (CatBoost's value)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _auc_compute(inp: MetricInput, params: dict):
    # Global: compute_value hands over the whole data set as one query.
    num, den = _auc_pair_sums(inp, params)
    return _per_query_auc(num, den), np.ones_like(den)


def _query_auc_compute(inp: MetricInput, params: dict):
    num, den = _auc_pair_sums(inp, params)
    return inp.group_weight * _per_query_auc(num, den), inp.group_weight.astype(np.float64, copy=True)


def _auc_label_check(metric: str):
    check_classic = check_finite_labels_in(0.0, 1.0, f"{metric}:type=Classic")

    def check(y: np.ndarray, params: dict) -> None:
        if params.get("type", "Classic") == "Classic":
            check_classic(y, params)

    return check


# --- definitions -----------------------------------------------------------------------------

def _check_max_pairs(value) -> int:
    value = int(value)
    if value != -1 and value < 1:
        raise ValueError(f"max_pairs must be -1 (all pairs) or a positive integer, got {value}")
    return value


def _parse_max_pairs(text: str) -> int:
    return _check_max_pairs(parse_int(text))


MAX_PAIRS = Param(
    "max_pairs", -1, _parse_max_pairs, None,
    "maximum number of generated pairs per query (only without explicit pairs); -1 means all",
)
AUC_TYPE = Param("type", "Classic", parse_choice, ("Classic", "Ranking"),
                 "Classic: labels in [0, 1] split into positive/negative mass; Ranking: pairs t_i < t_j")

_PAIR_DOC = ("(sum over pairs of w_pn log(1 + exp(-(a_p - a_n)))) / sum w_pn; generated pairs "
             "y_p > y_n within a query unless explicit pairs are given")

DEFINITIONS: list[MetricDef] = [
    MetricDef(
        name="PairLogit",
        object_weights=True,
        reads_order_only=False,
        query_weights=True,
        params=(USE_WEIGHTS_TRUE, MAX_PAIRS),
        higher_is_better=False,
        compute=_pair_compute(LOGIT),
        doc=_PAIR_DOC,
    ),
    MetricDef(
        name="PairLogitPairwise",
        object_weights=True,
        reads_order_only=False,
        query_weights=True,
        params=(USE_WEIGHTS_TRUE, MAX_PAIRS),
        higher_is_better=False,
        compute=_pair_compute(LOGIT),
        doc="same value as PairLogit (CatBoost differs only in how it optimises it)",
    ),
    MetricDef(
        name="PairAccuracy",
        object_weights=True,
        query_weights=True,
        params=(USE_WEIGHTS_TRUE,),
        higher_is_better=True,
        compute=_pair_compute(ACCURACY),
        doc="weighted share of pairs with a_p > a_n strictly (ties count 0)",
    ),
    MetricDef(
        name="AUC",
        object_weights=True,
        params=(AUC_TYPE, USE_WEIGHTS_FALSE),
        higher_is_better=True,
        compute=_auc_compute,
        check_labels=_auc_label_check("AUC"),
        per_query=False,
        doc="weighted share of correctly ordered pairs over the whole data set (ties 0.5)",
    ),
    MetricDef(
        name="QueryAUC",
        object_weights=True,
        query_weights=True,
        params=(AUC_TYPE, USE_WEIGHTS_FALSE),
        higher_is_better=True,
        compute=_query_auc_compute,
        check_labels=_auc_label_check("QueryAUC"),
        doc="group-weighted mean of per-query AUC; a query without a valid pair counts 0",
    ),
]

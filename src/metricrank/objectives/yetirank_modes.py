"""YetiRank's pair weights for CatBoost's ``mode``, ``noise`` and ``num_neighbors`` (its YetiLoss family).

CatBoost 1.2.1 let YetiRank weigh the pairs of each noisy permutation by the change of a ranking metric
(Lyzhin et al., "Which Tricks are Important for Learning to Rank?", 2023, where the family is called
YetiLoss) and perturb the scores with other noise. :mod:`.yetirank`'s fast kernel keeps the default
(``mode=Classic``, ``noise=Gumbel``); this module generates the pairs of every other combination, in the
same layout (per query, ``winner * n + loser`` keys in increasing order with their weights summed over the
permutations), so that the PairLogit gradient and the pair lists of :mod:`.yetirank` read them unchanged.

Per permutation ``o`` (documents by decreasing noisy score, ties in input order), ``r`` a 0-based position,
``T = min(top, n)`` and ``K = min(num_neighbors, n - 1)`` (-1: every later document), the pairs are
``(o[r], o[r + d])`` for ``r < T`` and ``1 <= d <= K`` whose labels differ, the higher label winning, with
weight:

Classic
    ``0.15 decay**r |y_a - y_b|`` for adjacent documents only (``top`` and ``num_neighbors`` unused).
DCG, NDCG
    ``|g(y_a, r) + g(y_b, r + d) - g(y_a, r + d) - g(y_b, r)|``, ``g(y, p) = G(y) / D(p)`` for ``p < top``
    and 0 below (``G`` the ``dcg_type`` gain, ``D`` the ``dcg_denominator``); NDCG divides by the ideal
    DCG at ``top``.
MRR (relevant: label > 0)
    ``1/(r + 1) - 1/(r + d + 1)`` for a relevant and a non-relevant document, for ``r`` up to and including
    the first relevant document's position.
ERR (labels are probabilities in [0, 1])
    ``P_r |(y_a - y_b)/(r + 1) + M (y_b - y_a) + Q (y_b - y_a)/(r + d + 1)|``: ``P_r`` the probability of
    reaching ``r``, ``M`` and ``Q`` the reciprocal-rank mass and pass probability of the documents between
    the two.
MAP (relevant: label > 0)
    for a relevant and a non-relevant document, ``1/(r + 1)`` plus ``1/(p + 1)`` of every relevant document
    at a position ``p`` between the two (CatBoost's running sum).

Noise (added to the scores before each sort): ``Gumbel`` is the standard logistic noise of the classic
YetiRank (CatBoost's name for it), ``Gauss`` a normal of standard deviation ``noise_power``, ``No`` none (every
permutation is then the score order, so one is computed and counted for all).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .pairlogit import one_label

__all__ = ["MODES", "NOISES", "MODE_CODES", "block_query_sizes", "descending_order", "generate_mode_pairs",
           "logistic_factors", "logistic_keys", "pairs_per_permutation"]

MODES = ("Classic", "DCG", "NDCG", "MRR", "ERR", "MAP")
NOISES = ("Gumbel", "Gauss", "No")
_CLASSIC, _DCG, _MRR, _ERR, _MAP = 0, 1, 2, 3, 4
MODE_CODES = {"Classic": _CLASSIC, "DCG": _DCG, "NDCG": _DCG, "MRR": _MRR, "ERR": _ERR, "MAP": _MAP}

#: Queries up to this size order a permutation by insertion, larger ones by a stable argsort (both kernels; the
#: classic one orders queries of up to 4,096 documents by packed keys where their scores span at most
#: :data:`_RATIO_MAX_SPAN`).
_SMALL_QUERY = 128

#: Queries up to this size merge their pairs in a dense n x n table (8 MB per thread at the largest); larger ones
#: merge each permutation's sorted pairs into the query's sorted list.
_TABLE_MAX = 1024


def pairs_per_permutation(n: np.ndarray, code: int, top: int, neighbors: int) -> np.ndarray:
    """The most pairs one permutation of each query size in ``n`` can give (before merging)."""
    n = np.asarray(n, dtype=np.int64)
    if code == _CLASSIC:
        return np.maximum(n - 1, 0)
    upper = n if top == -1 else np.minimum(n, top)
    reach = np.maximum(n - 1, 0) if neighbors == -1 else np.minimum(neighbors, np.maximum(n - 1, 0))
    return np.minimum(upper * reach, n * (n - 1) // 2)


_TINY = 2.0 ** -60  # replaces a uniform draw of exactly 0 (probability 2**-53)

#: Largest span ``max a - min a`` of a query's scores for which the noisy order is computed as
#: ``exp(a - max a) * u / (1 - u)``: the smallest such product, ``exp(-600) * 2**-60`` (about
#: 1e-279), is still a normal double, so no two documents collapse to 0.
_RATIO_MAX_SPAN = 600.0


@njit(cache=True, nogil=True)
def logistic_factors(raw, s, n, factors):
    """Whether the scores of rows ``s:s + n`` span at most :data:`_RATIO_MAX_SPAN`; then ``factors[i]`` =
    ``exp(a_i - max a)``, for :func:`logistic_keys`."""
    top = raw[s]
    bottom = raw[s]
    for i in range(1, n):
        top = max(top, raw[s + i])
        bottom = min(bottom, raw[s + i])
    ratio = top - bottom <= _RATIO_MAX_SPAN
    if ratio:
        for i in range(n):
            factors[i] = math.exp(raw[s + i] - top)
    return ratio


@njit(cache=True, nogil=True)
def logistic_keys(raw, s, n, uniforms, ratio, factors, noisy):
    """``noisy[:n]``: keys in the order of ``a_i + log(u_i / (1 - u_i))`` (standard logistic noise from the
    uniforms of the rows), without a logarithm per draw where ``ratio`` (:func:`logistic_factors`)."""
    for i in range(n):
        u = uniforms[s + i]
        if u <= 0.0:
            u = _TINY
        if ratio:
            noisy[i] = factors[i] * (u / (1.0 - u))
        else:
            noisy[i] = raw[s + i] + math.log(u) - math.log1p(-u)


@njit(cache=True, nogil=True)
def insertion_order(noisy, order):
    """``order`` = positions by decreasing ``noisy``, ties in position order (a stable sort)."""
    n = noisy.shape[0]
    for i in range(n):
        order[i] = i
    for i in range(1, n):
        v = order[i]
        key = noisy[v]
        j = i - 1
        while j >= 0 and noisy[order[j]] < key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = v


@njit(cache=True, nogil=True)
def descending_order(noisy, order):
    """``order[:n]`` = positions by decreasing ``noisy`` (length n), ties in position order: by insertion up to
    :data:`_SMALL_QUERY` values, by a stable argsort above."""
    n = noisy.shape[0]
    if n <= _SMALL_QUERY:
        insertion_order(noisy, order)
        return
    ranked = np.argsort(-noisy, kind="mergesort")
    for i in range(n):  # a loop, not a slice assignment: its shape check compiles for seconds
        order[i] = ranked[i]


@njit(cache=True, nogil=True)
def block_query_sizes(ptr, q0, q1, table_max):
    """The largest query among ``q0:q1`` (at least 2) and the largest of at most ``table_max`` documents (at
    least 1): the sizes of a block's scratch and dense table."""
    largest = 2
    largest_dense = 1
    for q in range(q0, q1):
        n = ptr[q + 1] - ptr[q]
        largest = max(largest, n)
        if n <= table_max:
            largest_dense = max(largest_dense, n)
    return largest, largest_dense


@njit(cache=True, nogil=True)
def _discounts(out, top, log_position):
    """``out[p]`` = 1 / D(p) for positions ``p`` within ``top``, 0 below (DCG's discount by position)."""
    for p in range(out.shape[0]):
        out[p] = 0.0 if top != -1 and p >= top else 1.0 / (math.log2(p + 2.0) if log_position else p + 1.0)


@njit(cache=True, nogil=True)
def _gains(y, s, n, exp_gain, out):
    """``out[i]``: DCG's gain of document ``i`` of the query at rows ``s:s + n`` (the label, or 2^label - 1)."""
    for i in range(n):
        out[i] = 2.0 ** y[s + i] - 1.0 if exp_gain else y[s + i]


@njit(cache=True, nogil=True)
def _ideal_dcg(gain, n, discount):
    ideal = np.sort(gain[:n])[::-1]
    total = 0.0
    for r in range(n):
        total += ideal[r] * discount[r]
    return total


@njit(cache=True, nogil=True)
def _permutation_pairs(order, y, s, n, code, top, neighbors, gain, discount, decay, scale, coef, pk, pw):
    """One permutation's pairs (``winner * n + loser`` in ``pk``, weights in ``pw``); returns their number.
    ``gain`` holds the documents' DCG gains, ``discount`` the positions' (DCG and NDCG); ``scale`` is the classic
    mode's constant factor."""
    m = 0
    if code == _CLASSIC:
        factor = scale
        for r in range(1, n):
            a = order[r - 1]
            b = order[r]
            if y[s + a] != y[s + b]:
                w = factor * abs(y[s + a] - y[s + b])
                pk[m] = a * n + b if y[s + a] > y[s + b] else b * n + a
                pw[m] = w
                m += 1
            factor *= decay
        return m
    upper = n if top == -1 else min(n, top)
    seen_relevant = False
    reach_first = 1.0  # ERR: probability of reaching position r
    for r in range(upper):
        if code == _MRR and seen_relevant:
            break
        a = order[r]
        ya = y[s + a]
        last = n - 1 if neighbors == -1 else min(n - 1, r + neighbors)
        reach_between = 1.0  # ERR: probability of passing the documents between the two
        mass_between = 0.0  # ERR: their reciprocal-rank mass
        running = 1.0 / (r + 1)  # MAP
        for p in range(r + 1, last + 1):
            b = order[p]
            yb = y[s + b]
            w = 0.0
            if code == _DCG:  # the DCG change of the swap: G_a D_r + G_b D_p - G_a D_p - G_b D_r
                w = coef * abs((gain[a] - gain[b]) * (discount[r] - discount[p]))
            elif code == _MRR:
                if (ya > 0) != (yb > 0):
                    w = 1.0 / (r + 1) - 1.0 / (p + 1)
            elif code == _ERR:
                w = reach_first * abs((ya - yb) / (r + 1) + mass_between * (yb - ya)
                                      + reach_between * (yb - ya) / (p + 1))
                mass_between += reach_between * yb / (p + 1)
                reach_between *= 1.0 - yb
            else:  # MAP
                if (ya > 0) != (yb > 0):
                    w = running
                if yb > 0:
                    running += 1.0 / (p + 1)
            if ya != yb and w != 0.0:
                pk[m] = a * n + b if ya > yb else b * n + a
                pw[m] = w
                m += 1
        seen_relevant = seen_relevant or ya > 0
        reach_first *= 1.0 - ya
    return m


@njit(cache=True, nogil=True)
def _merge_sorted(keys, weights, base, count, pk, pw, m, tmp_k, tmp_w):
    """Merge the ``m`` new pairs (any order, repeats allowed) into the sorted ``keys/weights[base:base+count]``;
    returns the new count."""
    idx = np.argsort(pk[:m], kind="mergesort")
    i = 0
    j = 0
    out = 0
    while i < count or j < m:
        if j >= m or (i < count and keys[base + i] <= pk[idx[j]]):
            k = keys[base + i]
            w = weights[base + i]
            i += 1
        else:
            k = pk[idx[j]]
            w = pw[idx[j]]
            j += 1
        if out > 0 and tmp_k[out - 1] == k:
            tmp_w[out - 1] += w
        else:
            tmp_k[out] = k
            tmp_w[out] = w
            out += 1
    for t in range(out):
        keys[base + t] = tmp_k[t]
        weights[base + t] = tmp_w[t]
    return out


@njit(cache=True, parallel=True)
def generate_mode_pairs(raw, y, ptr, noise, uniform, code, top, neighbors, exp_gain, log_position, decay, scale,
                        normalise, per_perm_ptr, slot_ptr, keys, weights, counts, n_blocks):
    """Pairs of every query, merged by ``(winner, loser)``, in ``keys/weights[slot_ptr[q]:...]`` (see
    :func:`metricrank.objectives.yetirank._generate` for the layout; weights summed over the permutations).

    ``noise`` (permutations x rows) is added to ``raw`` before each sort, or, with ``uniform``, holds the uniforms
    of logistic noise (:func:`logistic_keys`); ``normalise`` divides DCG weights by
    the query's ideal DCG at ``top`` (NDCG). ``per_perm_ptr`` holds the cumulative per-permutation pair bounds
    of the queries (the scratch each block needs).
    """
    nq = ptr.shape[0] - 1
    n_perm = noise.shape[0]
    n_blocks = max(min(nq, n_blocks), 1)
    for c in prange(n_blocks):
        q0 = c * nq // n_blocks
        q1 = (c + 1) * nq // n_blocks
        largest, largest_dense = block_query_sizes(ptr, q0, q1, _TABLE_MAX)
        most_pairs = 1
        most_slots = 1
        for q in range(q0, q1):
            most_pairs = max(most_pairs, per_perm_ptr[q + 1] - per_perm_ptr[q])
            most_slots = max(most_slots, slot_ptr[q + 1] - slot_ptr[q])
        table = np.zeros(largest_dense * largest_dense)
        touched = np.empty(most_slots + 1, dtype=np.int64)
        pk = np.empty(most_pairs, dtype=np.int64)
        pw = np.empty(most_pairs)
        tmp_k = np.empty(most_slots + most_pairs, dtype=np.int64)
        tmp_w = np.empty(most_slots + most_pairs)
        noisy = np.empty(largest)
        factors = np.empty(largest)
        order = np.empty(largest, dtype=np.int64)
        gain = np.empty(largest)
        discount = np.empty(largest)
        _discounts(discount, top, log_position)
        for q in range(q0, q1):
            s = ptr[q]
            n = ptr[q + 1] - s
            counts[q] = 0
            if n < 2 or one_label(y, s, s + n):
                continue
            coef = 1.0
            if code == _DCG:
                _gains(y, s, n, exp_gain, gain)
                if normalise:
                    ideal = _ideal_dcg(gain, n, discount)
                    coef = 1.0 / ideal if ideal > 0.0 else 0.0
            base = slot_ptr[q]
            dense = n <= _TABLE_MAX
            m = 0
            ratio = uniform and logistic_factors(raw, s, n, factors)
            for perm in range(n_perm):
                if uniform:
                    logistic_keys(raw, s, n, noise[perm], ratio, factors, noisy)
                else:
                    for i in range(n):
                        noisy[i] = raw[s + i] + noise[perm, s + i]
                descending_order(noisy[:n], order)
                got = _permutation_pairs(order, y, s, n, code, top, neighbors, gain, discount, decay, scale, coef, pk,
                                         pw)
                if dense:
                    for t in range(got):
                        k = pk[t]
                        if table[k] == 0.0:  # a first touch; weights are positive, so they only grow
                            touched[m] = k
                            m += 1
                        table[k] += pw[t]
                else:
                    m = _merge_sorted(keys, weights, base, m, pk, pw, got, tmp_k, tmp_w)
            if dense and m > 0:
                touched[:m].sort()
                for t in range(m):
                    k = touched[t]
                    keys[base + t] = k
                    weights[base + t] = table[k]
                    table[k] = 0.0
            counts[q] = m

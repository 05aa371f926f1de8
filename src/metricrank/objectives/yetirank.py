"""YetiRank and YetiRankPairwise: PairLogit over pairs drawn from noisy permutations.

Every call of a bound objective (every tree) regenerates the pairs of every
query (Gulin, Kuralenok and Pavlov, 2011, as CatBoost implements it on the CPU):

1. ``permutations`` times, the current scores are perturbed by independent
   standard logistic noise, ``a_i + log(u_i / (1 - u_i))`` with ``u_i``
   uniform on (0, 1) (CatBoost multiplies ``exp(a_i)`` by ``u / (1 - u)``,
   which is the same ordering), and the documents are sorted by the noisy
   score (descending; equal noisy scores, which have probability 0, keep the
   input order). The kernel orders by ``exp(a_i - max a) * u_i / (1 - u_i)``
   (no logarithm per draw) when a query's scores span at most
   ``_RATIO_MAX_SPAN``, where that product is a normal double; otherwise by
   the sum. The two orders can differ only where two noisy scores agree to
   about 12 significant digits (14 in queries of at most 128 documents), an
   event of probability of that order.
2. Every two *adjacent* documents of such an ordering with different labels
   form a pair ``(higher label, lower label)`` of weight
   ``0.15 * decay**r * |y_winner - y_loser|``, ``r = 0, 1, ...`` the 0-based
   position of the upper document of the two. ``0.15`` is CatBoost's constant
   (``magicConst``, "like in GPU"); it scales gradient and hessian alike, so a
   Newton leaf only sees it through the L2 regularisation. The decay factor
   advances at every adjacent position, whether or not its pair counts.
3. The weights of equal ``(winner, loser)`` pairs are summed over the
   permutations, divided by ``permutations`` and multiplied by the query's
   group weight (``use_weights=true``; ``false`` uses 1). Object weights are
   not used: CatBoost's documentation says so, and its code never reads them.

The loss of the call is then PairLogit on these pairs,
``L = sum W log(1 + exp(-(a_w - a_l)))``: with ``s = 1 - sigmoid(a_w - a_l)``
a pair adds ``-W s`` to ``grad_w``, ``+W s`` to ``grad_l`` and the exact
diagonal ``W s (1 - s)`` to both hessians. CatBoost evaluates YetiRank with
its PairLogit derivative calculator, so this is also its hessian.

Explicit pairs
--------------
CatBoost overwrites a query's pairs with the generated ones for YetiRank, so
given pairs never reach the loss. Rather than drop them silently, :meth:`bind`
raises ``ValueError`` when ``TrainingData.pairs`` is set; use ``PairLogit`` or
``PairLogitPairwise`` to train on explicit pairs.

Randomness
----------
:meth:`YetiRank.bind` creates a ``numpy.random.Generator`` from
``random_state``; each call draws all ``permutations x n_rows`` uniforms of
that call from it up front, in one array, and the numba kernel (parallel over
blocks of queries) only reads them. The result is therefore a function of the
seed and the call number only, not of the thread count, and successive calls
(trees) see different permutations.
"""

from __future__ import annotations

import math

import numpy as np
from numba import get_num_threads, njit, prange

from ..metrics._base import USE_WEIGHTS_TRUE, Param, parse_float, parse_int
from ._base import BoundObjective, Objective, ObjectiveDef, TrainingData, as_generator
from ._judged import JudgedByMetric
from .pairlogit import one_label, pair_terms

__all__ = ["DEFINITIONS", "BoundYetiRank", "YETIRANK_PAIR_SCALE", "YetiRank", "YetiRankPairwise"]

#: CatBoost's constant factor of every generated pair weight.
YETIRANK_PAIR_SCALE = 0.15

_TINY = 2.0 ** -60  # replaces a uniform draw of exactly 0 (probability 2**-53)


# --- kernels ----------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _logistic(u):
    if u <= 0.0:
        u = _TINY
    return math.log(u) - math.log1p(-u)


#: Queries up to this size merge their pairs in a dense n x n table (2 MB for the largest), listing the
#: entries they touch; larger ones sort their pair keys.
_TABLE_MAX = 512

#: Queries up to this size order a permutation of the exponential form by packed keys
#: (:func:`_pack_positions`): 7 bits of position up to 128 documents, 12 at most.
_PACKED_MAX = 4096

#: Queries up to this size order the sum form (scores spanning more than :data:`_RATIO_MAX_SPAN`) by
#: insertion; larger ones by a stable argsort.
_SMALL_QUERY = 128

#: Up to this many documents :func:`_pack_positions` places each by counting the keys above it (n * n
#: comparisons without a branch, which the compiler vectorises); more are sorted. Measured per document on
#: random keys: 4-5 ns against 16-21 ns up to 32 documents, 8.7 against 10.3 at 64, 14.0 against 10.6 at
#: 100 (BENCHMARKS.md, "Stop 78").
_RANK_MAX = 64

#: Up to this many values :func:`_sort_descending` sorts by insertion alone; more are first spread
#: over buckets by value, so the insertion pass moves each only within its bucket.
_INSERTION_MAX = 32

#: Largest span ``max a - min a`` of a query's scores for which the noisy order is computed as
#: ``exp(a - max a) * u / (1 - u)``: the smallest such product, ``exp(-600) * 2**-60`` (about
#: 1e-279), is still a normal double, so no two documents collapse to 0.
_RATIO_MAX_SPAN = 600.0


@njit(cache=True, nogil=True)
def _insertion_order(noisy, order):
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
def _sort_descending(values, m, tmp, bucket, count):
    """``values[:m]``, distinct int64, in decreasing order, in place.

    More than :data:`_INSERTION_MAX` values are first placed in ``m`` buckets of equal width by value
    (a counting sort of ``floor((max - v) * m / (max - min + 1))``, monotone in ``v``), so that the
    insertion pass that follows moves each value only past the others of its bucket: about linear
    time where insertion alone is quadratic. ``tmp``, ``bucket`` and ``count`` are scratch of length
    ``m`` or more.
    """
    if m > _INSERTION_MAX:
        lo = values[0]
        hi = values[0]
        for i in range(1, m):
            lo = min(lo, values[i])
            hi = max(hi, values[i])
        scale = m / (float(hi - lo) + 1.0)
        for b in range(m):
            count[b] = 0
        for i in range(m):
            b = min(int(float(hi - values[i]) * scale), m - 1)
            bucket[i] = b
            count[b] += 1
        total = 0
        for b in range(m):
            c = count[b]
            count[b] = total
            total += c
        for i in range(m):
            b = bucket[i]
            tmp[count[b]] = values[i]
            count[b] += 1
        for i in range(m):
            values[i] = tmp[i]
    for i in range(1, m):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] < v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v


@njit(cache=True, nogil=True)
def _pack_positions(key, order, packed, tmp, bucket, count):
    """As :func:`_insertion_order` for positive, normal ``key`` of at most :data:`_PACKED_MAX` entries, faster.

    A positive double's bits, read as int64, grow with its value. Each key's low ``b`` mantissa bits
    (``b`` = 7, or the bits of the largest position where there are more than 128 keys) are replaced
    by ``2**b - 1 - position``, so equal keys keep position order, and the distinct int64 values are
    ranked (up to :data:`_RANK_MAX` keys) or sorted (:func:`_sort_descending`) without the indirection
    through ``order``. Keys that differ only in those bits (relatively, by less than ``2**(b - 52)``:
    ``2**-45`` to ``2**-40``) are ordered by position.
    """
    n = key.shape[0]
    width = 7
    while (1 << width) < n:
        width += 1
    mask = np.int64((1 << width) - 1)
    bits = key.view(np.int64)
    for i in range(n):
        packed[i] = (bits[i] & ~mask) | (mask - i)
    if n <= _RANK_MAX:
        for i in range(n):  # each key's place is the number of keys above it: no branch to mispredict
            above = 0
            for j in range(n):
                above += packed[j] > packed[i]
            order[above] = i
        return
    _sort_descending(packed, n, tmp, bucket, count)
    for i in range(n):
        order[i] = mask - (packed[i] & mask)


@njit(cache=True, nogil=True)
def _query_pairs(raw, y, s, n, uniforms, decay, scale, keys, weights, base, table, work, order, noisy,
                 factors, touched):
    """Pairs of the query of rows ``s:s + n``, merged by ``(winner, loser)``, in ``keys/weights[base:...]``;
    returns their number. ``table`` (all zeros, at least n * n entries where n <= :data:`_TABLE_MAX`) is
    left all zeros; the others are scratch (``work``: four int64 rows of the query's slots, ``touched`` one
    more)."""
    top = raw[s]
    bottom = raw[s]
    for i in range(1, n):
        top = max(top, raw[s + i])
        bottom = min(bottom, raw[s + i])
    ratio = top - bottom <= _RATIO_MAX_SPAN
    packable = ratio and n <= _PACKED_MAX
    if ratio:
        for i in range(n):
            factors[i] = math.exp(raw[s + i] - top)
    dense = n <= _TABLE_MAX
    n_perm = uniforms.shape[0]
    m = 0
    for p in range(n_perm):
        if ratio:
            for i in range(n):
                u = uniforms[p, s + i]
                if u <= 0.0:
                    u = _TINY
                noisy[i] = factors[i] * (u / (1.0 - u))
        else:
            for i in range(n):
                noisy[i] = raw[s + i] + _logistic(uniforms[p, s + i])
        if packable:
            _pack_positions(noisy[:n], order, work[0], work[1], work[2], work[3])
        elif n <= _SMALL_QUERY:
            _insertion_order(noisy[:n], order)
        else:
            ranked = np.argsort(-noisy[:n], kind="mergesort")
            for i in range(n):  # a loop, not a slice assignment: its shape check compiles for seconds
                order[i] = ranked[i]
        factor = scale
        for r in range(1, n):
            a = order[r - 1]
            b = order[r]
            la = y[s + a]
            lb = y[s + b]
            if dense:  # without a branch: equal labels add a weight of 0, which touches nothing
                k = a * n + b if la > lb else b * n + a
                w = factor * abs(la - lb)
                touched[m] = k
                m += (table[k] == 0.0) & (w != 0.0)  # a first touch; weights only grow from here
                table[k] += w
            elif la != lb:
                if lb > la:
                    a, b = b, a
                keys[base + m] = a * n + b
                weights[base + m] = factor * abs(la - lb)
                m += 1
            factor *= decay
    if m == 0:
        return 0
    if dense:
        _sort_descending(touched, m, work[0], work[1], work[2])
        for t in range(m):
            k = touched[m - 1 - t]
            keys[base + t] = k
            weights[base + t] = table[k]
            table[k] = 0.0
        return m
    seg_keys = keys[base:base + m].copy()
    seg_w = weights[base:base + m].copy()
    idx = np.argsort(seg_keys, kind="mergesort")
    out = 0
    keys[base] = seg_keys[idx[0]]
    weights[base] = seg_w[idx[0]]
    for t in range(1, m):
        k = seg_keys[idx[t]]
        if k == keys[base + out]:
            weights[base + out] += seg_w[idx[t]]
        else:
            out += 1
            keys[base + out] = k
            weights[base + out] = seg_w[idx[t]]
    return out + 1


@njit(cache=True, parallel=True)
def _generate(raw, y, ptr, uniforms, decay, scale, slot_ptr, keys, weights, counts, n_blocks):
    """Pairs of every query, merged by ``(winner, loser)``, in ``keys/weights[slot_ptr[q]:...]``.

    ``keys`` holds ``winner * n + loser`` (positions inside the query), in
    increasing order; ``counts[q]`` the number of distinct pairs of query ``q``;
    weights are the sums over permutations (not yet averaged). The queries run in
    ``n_blocks`` blocks (one per thread), each with its own scratch and dense table,
    which every query leaves all zeros for the next; what a query gets does not
    depend on its block. (``get_num_threads`` inside the kernel would keep numba
    from caching it.)
    """
    nq = ptr.shape[0] - 1
    n_perm = uniforms.shape[0]
    n_blocks = max(min(nq, n_blocks), 1)
    for c in prange(n_blocks):
        q0 = c * nq // n_blocks
        q1 = (c + 1) * nq // n_blocks
        largest = 2
        largest_dense = 1
        for q in range(q0, q1):
            n = ptr[q + 1] - ptr[q]
            largest = max(largest, n)
            if n <= _TABLE_MAX:
                largest_dense = max(largest_dense, n)
        slots = max((largest - 1) * n_perm, largest)
        table = np.zeros(largest_dense * largest_dense)
        work = np.empty((4, slots), dtype=np.int64)
        touched = np.empty(slots + 1, dtype=np.int64)  # + 1: the slot written for no touch
        order = np.empty(largest, dtype=np.int64)
        noisy = np.empty(largest)
        factors = np.empty(largest)
        for q in range(q0, q1):
            s = ptr[q]
            n = ptr[q + 1] - s
            counts[q] = 0
            if n < 2 or one_label(y, s, s + n):  # no permutation has a pair
                continue
            counts[q] = _query_pairs(raw, y, s, n, uniforms, decay, scale, keys, weights, slot_ptr[q], table,
                                     work, order, noisy, factors, touched)


@njit(cache=True, parallel=True)
def _pairlogit(raw, ptr, slot_ptr, keys, weights, counts, group_factor, grad, hess):
    """The PairLogit derivatives of the pairs (averaged and group-weighted on the way)."""
    nq = ptr.shape[0] - 1
    for q in prange(nq):
        s = ptr[q]
        n = ptr[q + 1] - s
        for i in range(s, s + n):
            grad[i] = 0.0
            hess[i] = 0.0
        base = slot_ptr[q]
        winner = 0
        row = 0  # winner * n: keys increase, so the winner's row is found without dividing
        for t in range(counts[q]):
            k = keys[base + t]
            while k >= row + n:
                row += n
                winner += 1
            i = s + winner
            j = s + k - row
            g, h = pair_terms(raw[i] - raw[j], weights[base + t] * group_factor[q])
            grad[i] -= g
            grad[j] += g
            hess[i] += h
            hess[j] += h


@njit(cache=True, parallel=True)
def _pair_rows(ptr, slot_ptr, keys, weights, pair_ptr, group_factor, win, lose, pw):
    """The pairs as global rows and final weights, packed query after query at ``pair_ptr``."""
    nq = ptr.shape[0] - 1
    for q in prange(nq):
        s = ptr[q]
        n = ptr[q + 1] - s
        base = slot_ptr[q]
        out = pair_ptr[q]
        for t in range(pair_ptr[q + 1] - out):
            k = keys[base + t]
            win[out + t] = s + k // n
            lose[out + t] = s + k % n
            pw[out + t] = weights[base + t] * group_factor[q]


# --- objectives -------------------------------------------------------------------------------

class BoundYetiRank(BoundObjective):
    """YetiRank bound to one training set; every call draws new permutations.

    The returned ``grad``/``hess`` and the arrays of :meth:`pairs` are
    buffers reused by the next call.
    """

    def __init__(self, data: TrainingData, permutations: int, decay: float, use_weights: bool,
                 rng: np.random.Generator):
        self.y = data.y
        self.group_ptr = data.group_ptr
        self.permutations = permutations
        self.decay = decay
        self.rng = rng
        sizes = np.diff(data.group_ptr)
        self.group_factor = (np.ascontiguousarray(data.group_weight, dtype=np.float64) / permutations
                             if use_weights else np.full(data.n_queries, 1.0 / permutations))
        # Slots for every adjacent pair of every permutation: (n_q - 1) * permutations per query.
        slots = np.maximum(sizes - 1, 0) * permutations
        self.slot_ptr = np.zeros(data.n_queries + 1, dtype=np.int64)
        np.cumsum(slots, out=self.slot_ptr[1:])
        total = int(self.slot_ptr[-1])
        self._keys = np.empty(total, dtype=np.int64)
        self._weights = np.empty(total)
        self._counts = np.zeros(data.n_queries, dtype=np.int64)
        self._uniforms = np.empty((permutations, data.n_rows))
        self._win = np.empty(total, dtype=np.int64)
        self._lose = np.empty(total, dtype=np.int64)
        self._pw = np.empty(total)
        self._pair_ptr = np.zeros(data.n_queries + 1, dtype=np.int64)
        self._grad = np.empty(data.n_rows)
        self._hess = np.empty(data.n_rows)
        self._pairs_listed = None  # None before the first call, then whether pairs() has its arrays

    def __call__(self, raw):
        self.rng.random(out=self._uniforms)
        _generate(raw, self.y, self.group_ptr, self._uniforms, self.decay, YETIRANK_PAIR_SCALE,
                  self.slot_ptr, self._keys, self._weights, self._counts, get_num_threads())
        self._pairs_listed = False
        _pairlogit(raw, self.group_ptr, self.slot_ptr, self._keys, self._weights, self._counts, self.group_factor,
                   self._grad, self._hess)
        return self._grad, self._hess

    def pairs(self):
        """``(winner rows, loser rows, pair weights)`` generated by the latest call, sorted by query."""
        self._list_pairs()
        m = int(self._pair_ptr[-1])
        return self._win[:m], self._lose[:m], self._pw[:m]

    def pair_ptr(self) -> np.ndarray:
        """Offsets of the latest call's pairs per query (``pairs()[k][pair_ptr[q]:pair_ptr[q+1]]``)."""
        self._list_pairs()
        return self._pair_ptr

    def _list_pairs(self) -> None:
        """Fill the arrays of :meth:`pairs` from the latest call's pairs, once per call: training on the
        gradient alone never needs them."""
        if self._pairs_listed is None:
            raise RuntimeError("YetiRank generates its pairs when called; call the bound objective first")
        if not self._pairs_listed:
            np.cumsum(self._counts, out=self._pair_ptr[1:])
            _pair_rows(self.group_ptr, self.slot_ptr, self._keys, self._weights, self._pair_ptr, self.group_factor,
                       self._win, self._lose, self._pw)
            self._pairs_listed = True


class YetiRank(JudgedByMetric, Objective):
    """PairLogit on pairs of adjacent documents of noisy permutations (CatBoost's YetiRank).

    Parameters (spec)
    -----------------
    decay : float in (0, 1], default 0.99
        Weight factor per position of the upper document of a pair.
    permutations : int >= 1, default 10
        Noisy permutations per query and call.
    use_weights : bool, default true
        Multiply pair weights by the group weight.

    See the module docstring for the noise, the pair weights and the choices
    on explicit pairs and object weights.

    Examples
    --------
    >>> import numpy as np
    >>> from metricrank.objectives._base import as_training_data
    >>> obj = YetiRank("YetiRank", {"decay": 0.99, "permutations": 10, "use_weights": True})
    >>> bound = obj.bind(as_training_data([2.0, 0.0, 1.0], [0, 3]), random_state=0)
    >>> grad, hess = bound(np.zeros(3))
    >>> bool(abs(grad.sum()) < 1e-12), bool(grad[0] < 0 < grad[1])
    (True, True)
    >>> win, lose, w = bound.pairs()
    >>> bool(np.all(w > 0)), bool(np.all(np.array([2.0, 0, 1])[win] > np.array([2.0, 0, 1])[lose]))
    (True, True)
    """

    name = "YetiRank"
    uses_pairs = True
    stochastic = True
    reads_row_weights = False

    def bind(self, data: TrainingData, random_state=None) -> BoundYetiRank:
        self.check_labels(data.y)
        if data.pairs is not None:
            raise ValueError(
                f"{self.name} generates its own pairs at every iteration (CatBoost replaces given pairs "
                f"with generated ones); explicit pairs are not used. Train PairLogit or "
                f"PairLogitPairwise to use them, or drop the pairs")
        return BoundYetiRank(data, int(self.params["permutations"]), float(self.params["decay"]),
                             bool(self.params["use_weights"]), as_generator(random_state))


class YetiRankPairwise(YetiRank):
    """YetiRank with leaves valued by the pairwise Newton system (same pairs and gradient).

    Examples
    --------
    >>> obj = YetiRankPairwise("YetiRankPairwise", {"decay": 0.99, "permutations": 10, "use_weights": True})
    >>> obj.pairwise_leaves, obj.uses_pairs, obj.stochastic
    (True, True, True)
    """

    name = "YetiRankPairwise"
    pairwise_leaves = True


def _parse_decay(text: str) -> float:
    value = parse_float(text)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"decay must be in (0, 1], got {text!r}")
    return value


def _parse_permutations(text: str) -> int:
    value = parse_int(text)
    if value < 1:
        raise ValueError(f"permutations must be an integer >= 1, got {text!r}")
    return value


def _factory(cls):
    def make(spec: str, params: dict):
        decay = float(params["decay"])
        if not 0.0 < decay <= 1.0:
            raise ValueError(f"{cls.name}: decay must be in (0, 1], got {decay!r}")
        perms = params["permutations"]
        if int(perms) != perms or perms < 1:
            raise ValueError(f"{cls.name}: permutations must be an integer >= 1, got {perms!r}")
        return cls(spec, params)

    return make


_PARAMS = (
    Param("decay", 0.99, _parse_decay, None, "probability of search continuation after a document"),
    Param("permutations", 10, _parse_permutations, None, "noisy permutations per query and iteration"),
    USE_WEIGHTS_TRUE,
)

DEFINITIONS = (
    ObjectiveDef("YetiRank", _PARAMS, _factory(YetiRank),
                 "PairLogit on adjacent pairs of logistic-noise permutations, weighted by "
                 "0.15 decay^position |label difference|"),
    ObjectiveDef("YetiRankPairwise", _PARAMS, _factory(YetiRankPairwise),
                 "YetiRank's pairs and gradient with leaf values from the pairwise Newton system"),
)

"""Exact swap deltas |ΔZ_ij| of every λ target, as numba kernels.

For one query whose labels are given *in ranked order* (best first), a target
prepares a small per-query state once (:func:`prepare`), then fills, for a
position ``i``, the row ``out[j] = |Z(ranking with i and j swapped) - Z(ranking)|``
for every ``j > i`` (:func:`fill_row`). A row at a time lets ERR carry running
products along ``j`` (Burges' O(n²) procedure) and lets MAP read prefix sums,
so every target costs O(1) per pair. The metric code is a branch per *row*,
not per pair, which keeps one cached kernel for all targets.

Positions are 0-based; ``k = min(top, n)`` is the cutoff of a top-k metric
(``top = inf`` means every document). The formulas, for ``i < j``:

DCG / NDCG
    ``|g(l_i) - g(l_j)| * |d(i) - d(j)| / IDCG@k`` with ``d(p) = 0`` for ``p >= k``.
MAP (binary relevance ``r = l > border``, AP numerator ``T = sum_{p<k, r_p} C_p/(p+1)``,
``C_p`` relevant documents in ``0..p``, ``S_p = sum_{q<=p, q<k, r_q} 1/(q+1)``)
    relevant ``i`` moves down to ``j``: ``ΔT = [j<k] C_j/(j+1) - C_i/(i+1) - (S_{min(j,k)-1} - S_i)``;
    relevant ``j`` moves up to ``i``: ``ΔT = (C_i+1)/(i+1) + (S_{min(j,k)-1} - S_i) - [j<k] C_j/(j+1)``;
    then ``|(T+ΔT)/D' - T/D|`` with the metric's denominator ``D`` (``min(R,k)``, the
    relevant documents retrieved in the top ``k``, which a swap across ``k`` changes, or ``R``).
MRR
    only swaps that move the first relevant document (at ``f``) down, or a
    relevant document above ``f``, change it.
ERR (``R_p`` stopping probabilities, ``P_i = prod_{t<i} (1 - R_t)``)
    ``P_i (R_j - R_i) [[i<k]/(i+1) - B_ij - [j<k] Π_ij/(j+1)]`` with
    ``Π_ij = prod_{i<t<j} (1 - R_t)`` and ``B_ij = sum_{i<q<j, q<k} R_q Π_iq/(q+1)``,
    both carried along ``j`` (Burges section 7's O(n²) computation).
PrecisionAt
    ``1/D`` when exactly one of ``i, j`` is in the top ``k`` and their relevance differs.
AUC (Welleck Theorem 1, binary relevance, ``m`` relevant and ``n`` other documents)
    ``(j - i) / (m n)`` when the relevance differs.
MAUC (Welleck eq. 18)
    ``|Σ_c p(c) ΔAUC(c)_ij|``: only the classes of ``i`` and ``j`` change, by
    ``∓(j - i) / (n_c (N - n_c))``, so with ``p(c) = n_c / T`` the delta is
    ``(j - i) |[l_j ∈ K] / (T (N - n_{l_j})) - [l_i ∈ K] / (T (N - n_{l_i}))|``
    (``K`` the summed classes, ``T`` their document count).
RankNet
    ``1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Target codes (one per delta family).
RANKNET, DCG, MAP, MRR, ERR, PRECISION, AUC, MAUC = range(8)

# Layout of the float64 parameter vector each code reads.
#   DCG:       [top, exp_gain, log_position, normalise]
#   MAP:       [top, border, norm (0 min(R,k), 1 retrieved, 2 all)]
#   MRR:       [top, border]
#   ERR:       [top]                      (labels already stopping probabilities)
#   PRECISION: [top, border, norm (0 min(k, n), 1 top)]
#   AUC:       [border]
#   MAUC:      [relevant_only]
N_PARAMS = 4


@njit(cache=True, nogil=True)
def _cut(top, n):
    return n if top >= n else int(top)


@njit(cache=True, nogil=True)
def _dcg_scale(lab, params):
    """1 / IDCG@k of the labels (any order: only their multiset counts), 1 if not normalised."""
    n = lab.shape[0]
    k = _cut(params[0], n)
    exp_gain = params[1] > 0.5
    log_position = params[2] > 0.5
    scale = 1.0
    if params[3] > 0.5:
        gains = np.empty(n)
        for p in range(n):
            gains[p] = 2.0 ** lab[p] - 1.0 if exp_gain else lab[p]
        best = np.sort(gains)[::-1]  # gains are monotone in the label
        ideal = 0.0
        for p in range(k):
            ideal += best[p] * (1.0 / np.log2(p + 2.0) if log_position else 1.0 / (p + 1.0))
        scale = 1.0 / ideal if ideal > 0 else 0.0
    return scale


@njit(cache=True, nogil=True)
def _prepare_dcg(lab, params, scale, state):
    n = lab.shape[0]
    k = _cut(params[0], n)
    exp_gain = params[1] > 0.5
    log_position = params[2] > 0.5
    for p in range(n):
        state[p] = 2.0 ** lab[p] - 1.0 if exp_gain else lab[p]
        if p < k:
            state[n + p] = 1.0 / np.log2(p + 2.0) if log_position else 1.0 / (p + 1.0)
        else:
            state[n + p] = 0.0
    state[2 * n] = scale
    return state


@njit(cache=True, nogil=True)
def _row_dcg(lab, state, i, out):
    n = lab.shape[0]
    gi, di, scale = state[i], state[n + i], state[2 * n]
    for j in range(i + 1, n):
        out[j] = abs(gi - state[j]) * abs(di - state[n + j]) * scale


@njit(cache=True, nogil=True)
def _prepare_map(lab, params, state):
    # state: C[0:n], S[n:2n], then T, R, hits (every entry written)
    n = lab.shape[0]
    k = _cut(params[0], n)
    border = params[1]
    count = 0
    s = 0.0
    t = 0.0
    for p in range(n):
        if lab[p] > border:
            count += 1
            if p < k:
                s += 1.0 / (p + 1.0)
                t += count / (p + 1.0)
        state[p] = count
        state[n + p] = s
    hits = state[k - 1] if k > 0 else 0.0
    state[2 * n] = t
    state[2 * n + 1] = count
    state[2 * n + 2] = hits
    return state


@njit(cache=True, nogil=True)
def _ap_denominator(norm, total_rel, k, hits):
    if norm == 0:
        return min(total_rel, k)
    if norm == 1:
        return hits
    return total_rel


@njit(cache=True, nogil=True)
def _row_map(lab, state, params, i, out):
    n = lab.shape[0]
    k = _cut(params[0], n)
    border = params[1]
    norm = int(params[2])
    t, total_rel, hits = state[2 * n], state[2 * n + 1], state[2 * n + 2]
    ri = lab[i] > border
    if i >= k or total_rel == 0:
        for j in range(i + 1, n):
            out[j] = 0.0
        return
    d_before = _ap_denominator(norm, total_rel, k, hits)
    before = t / d_before if d_before > 0 else 0.0
    ci = state[i]
    si = state[n + i]
    for j in range(i + 1, n):
        rj = lab[j] > border
        if ri == rj:
            out[j] = 0.0
            continue
        between = state[n + min(j, k) - 1] - si
        tail = state[j] / (j + 1.0) if j < k else 0.0
        new_hits = hits
        if ri:
            dt = tail - ci / (i + 1.0) - between
            if j >= k:
                new_hits = hits - 1.0
        else:
            dt = (ci + 1.0) / (i + 1.0) + between - tail
            if j >= k:
                new_hits = hits + 1.0
        d_after = _ap_denominator(norm, total_rel, k, new_hits)
        after = (t + dt) / d_after if d_after > 0 else 0.0
        out[j] = abs(after - before)


@njit(cache=True, nogil=True)
def _prepare_mrr(lab, params, state):
    # state: [first relevant position, second relevant position] (n when absent)
    n = lab.shape[0]
    first = n
    second = n
    for p in range(n):
        if lab[p] > params[1]:
            if first == n:
                first = p
            else:
                second = p
                break
    state[0] = first
    state[1] = second
    return state


@njit(cache=True, nogil=True)
def _rr(pos, k):
    return 1.0 / (pos + 1.0) if pos < k else 0.0


@njit(cache=True, nogil=True)
def _row_mrr(lab, state, params, i, out):
    n = lab.shape[0]
    k = _cut(params[0], n)
    border = params[1]
    first, second = int(state[0]), int(state[1])
    for j in range(i + 1, n):
        out[j] = 0.0
    if first == n or i > first:
        return
    if i == first:
        # the first relevant document moves down to j (if j is not relevant)
        for j in range(i + 1, n):
            if not lab[j] > border:
                out[j] = abs(_rr(first, k) - _rr(min(j, second), k))
        return
    # i < first is not relevant: any relevant j moved up to i becomes the first
    gain = abs(_rr(i, k) - _rr(first, k))
    for j in range(first, n):
        if lab[j] > border:
            out[j] = gain


@njit(cache=True, nogil=True)
def _prepare_err(lab, params, state):
    # state: P_i = prod_{t<i} (1 - R_t)
    n = lab.shape[0]
    p = 1.0
    for i in range(n):
        state[i] = p
        p *= 1.0 - lab[i]
    return state


@njit(cache=True, nogil=True)
def _row_err(lab, state, params, i, out):
    n = lab.shape[0]
    k = _cut(params[0], n)
    ri = lab[i]
    head = 1.0 / (i + 1.0) if i < k else 0.0
    pi = state[i]
    prod = 1.0  # prod_{i<t<j} (1 - R_t)
    between = 0.0  # sum_{i<q<j, q<k} R_q prod_{i<t<q} (1 - R_t) / (q + 1)
    for j in range(i + 1, n):
        rj = lab[j]
        tail = prod / (j + 1.0) if j < k else 0.0
        out[j] = abs(pi * (rj - ri) * (head - between - tail))
        if j < k:
            between += rj * prod / (j + 1.0)
        prod *= 1.0 - rj


@njit(cache=True, nogil=True)
def _row_precision(lab, params, i, out):
    n = lab.shape[0]
    k = _cut(params[0], n)
    border = params[1]
    if params[2] > 0.5 and params[0] < n:
        denominator = params[0]
    else:
        denominator = float(k)
    ri = lab[i] > border
    for j in range(i + 1, n):
        out[j] = 1.0 / denominator if (i < k <= j and ri != (lab[j] > border)) else 0.0


@njit(cache=True, nogil=True)
def _prepare_auc(lab, params):
    n = lab.shape[0]
    m = 0
    for p in range(n):
        if lab[p] > params[0]:
            m += 1
    state = np.empty(1)
    state[0] = 1.0 / (m * (n - m)) if 0 < m < n else 0.0
    return state


@njit(cache=True, nogil=True)
def _row_auc(lab, state, params, i, out):
    n = lab.shape[0]
    ri = lab[i] > params[0]
    for j in range(i + 1, n):
        out[j] = (j - i) * state[0] if ri != (lab[j] > params[0]) else 0.0


@njit(cache=True, nogil=True)
def _prepare_mauc(lab, params):
    # state[c] = p(c) / (n_c (N - n_c)) = 1 / (T (N - n_c)) for each summed class c
    n = lab.shape[0]
    n_labels = int(lab.max()) + 1
    count = np.zeros(n_labels)
    for p in range(n):
        count[int(lab[p])] += 1.0
    first = 1 if params[0] > 0.5 else 0
    total = 0.0
    for c in range(first, n_labels):
        total += count[c]
    state = np.zeros(n_labels)
    if total == 0:
        return state
    for c in range(first, n_labels):
        if count[c] == n:  # a single label: MAUC is undefined, no gradient
            return np.zeros(n_labels)
    for c in range(first, n_labels):
        if count[c] > 0:
            state[c] = 1.0 / (total * (n - count[c]))
    return state


@njit(cache=True, nogil=True)
def _row_mauc(lab, state, i, out):
    n = lab.shape[0]
    wi = state[int(lab[i])]
    for j in range(i + 1, n):
        out[j] = (j - i) * abs(state[int(lab[j])] - wi)


@njit(cache=True, nogil=True)
def label_constants(code, lab, params):
    """The part of a query's state that depends only on its labels, not their order.

    DCG/NDCG: ``[1 / IDCG@k]``; AUC: ``[1 / (m n)]``; MAUC: ``t_c`` per class;
    other targets: ``[0]``. The λ objective computes it once per query at bind time.
    """
    if code == DCG:
        out = np.empty(1)
        out[0] = _dcg_scale(lab, params)
        return out
    if code == AUC:
        return _prepare_auc(lab, params)
    if code == MAUC:
        return _prepare_mauc(lab, params)
    return np.zeros(1)


@njit(cache=True, nogil=True)
def state_size(n):
    """Length of a scratch buffer that holds the per-query state of any target for n documents."""
    return 2 * n + 3


@njit(cache=True, nogil=True)
def prepare_into(code, lab, params, const, scratch):
    """Per-query state of target ``code`` for labels ``lab`` in ranked order.

    ``const`` is :func:`label_constants` of the same labels; ``scratch`` a buffer of
    at least :func:`state_size` entries, written for the targets whose state
    depends on the order. Returns the state (a view of ``scratch`` or ``const``).
    """
    if code == DCG:
        return _prepare_dcg(lab, params, const[0], scratch)
    if code == MAP:
        return _prepare_map(lab, params, scratch)
    if code == MRR:
        return _prepare_mrr(lab, params, scratch)
    if code == ERR:
        return _prepare_err(lab, params, scratch)
    return const


@njit(cache=True, nogil=True)
def prepare(code, lab, params):
    """Per-query state of target ``code`` for labels ``lab`` in ranked order (allocating)."""
    return prepare_into(code, lab, params, label_constants(code, lab, params),
                        np.zeros(state_size(lab.shape[0])))


@njit(cache=True, nogil=True)
def fill_row(code, lab, state, params, i, out):
    """``out[j] = |ΔZ_ij|`` for every ``j > i`` (entries ``<= i`` are untouched)."""
    if code == DCG:
        _row_dcg(lab, state, i, out)
    elif code == MAP:
        _row_map(lab, state, params, i, out)
    elif code == MRR:
        _row_mrr(lab, state, params, i, out)
    elif code == ERR:
        _row_err(lab, state, params, i, out)
    elif code == PRECISION:
        _row_precision(lab, params, i, out)
    elif code == AUC:
        _row_auc(lab, state, params, i, out)
    elif code == MAUC:
        _row_mauc(lab, state, i, out)
    else:
        for j in range(i + 1, lab.shape[0]):
            out[j] = 1.0


@njit(cache=True)
def delta_matrix(code, lab, params):
    """The full symmetric matrix of |ΔZ_ij| for one ranked list (tests, diagnostics)."""
    n = lab.shape[0]
    out = np.zeros((n, n))
    if n < 2:
        return out
    state = prepare(code, lab, params)
    row = np.zeros(n)
    for i in range(n - 1):
        fill_row(code, lab, state, params, i, row)
        for j in range(i + 1, n):
            out[i, j] = row[j]
            out[j, i] = row[j]
    return out

"""The generic λ accumulator (Burges section 7), parallel over queries.

Per query: rank the documents by the current score (with the target metric's
tie policy), then for every pair of different labels with the higher-ranked
document in the first ``truncation`` positions add

    λ_ij = σ |ΔZ_ij| ρ_ij,        ρ_ij = 1 / (1 + exp(σ (s_hi - s_lo)))

to the more relevant document and subtract it from the other; the Newton
weights are ``w = Σ σ² |ΔZ_ij| ρ_ij (1 - ρ_ij)`` on both. The result is
returned as a *loss* gradient for the tree engine: ``grad = -λ``, ``hess = w``.

Options (LightGBM's ``lambdarank_norm`` is both normalisations together):

* ``norm_score``: divide |ΔZ_ij| by ``0.01 + |s_i - s_j|`` (only when the query's
  scores are not all equal), which damps pairs that are already far apart;
* ``norm_query``: scale a query's λ and w by ``log2(1 + S) / S`` with
  ``S = Σ_pairs 2 λ_ij``, so long queries with many pairs do not dominate.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# numba's on-disk cache of ``lambda_gradients`` holds the compiled swap-delta code
# too, but is invalidated only when *this* file changes: after editing
# ``_swap_deltas.py`` in a checkout, delete ``__pycache__/*.nbi`` (CI starts clean).
from ..metrics._ordering import rank_order
from ._auc_fast import fast_query
from ._swap_deltas import AUC, fill_row, label_constants, prepare_into, state_size
from .pairlogit import one_label


#: Chunks of queries per thread (each chunk allocates its scratch once; several per thread balance the load).
CHUNKS_PER_THREAD = 4


def n_chunks(n_threads: int | None = None) -> int:
    """Chunks for :func:`lambda_gradients`: ``CHUNKS_PER_THREAD`` per numba thread (numba's current count)."""
    import numba

    return CHUNKS_PER_THREAD * (numba.get_num_threads() if n_threads is None else int(n_threads))


@njit(cache=True, parallel=True)
def query_constants(code, params, label, ptr):
    """``label_constants`` of every query, flattened: values ``const[cptr[q]:cptr[q + 1]]``."""
    nq = ptr.shape[0] - 1
    sizes = np.zeros(nq + 1, dtype=np.int64)
    for q in range(nq):
        a, b = ptr[q], ptr[q + 1]
        if b - a >= 1:
            sizes[q + 1] = label_constants(code, label[a:b], params).shape[0]
        else:
            sizes[q + 1] = 1
    cptr = np.cumsum(sizes)
    const = np.zeros(cptr[-1])
    for q in prange(nq):
        a, b = ptr[q], ptr[q + 1]
        if b - a >= 1:
            const[cptr[q]:cptr[q + 1]] = label_constants(code, label[a:b], params)
    return const, cptr


@njit(cache=True, nogil=True)
def _one_query(code, params, const, score, label, a, b, ties, sigma, truncation, norm_query, norm_score,
               row_weight, group_weight, grad, hess, fast_min, lab_buf, s_buf, ex_buf, row_buf, lam_buf, w_buf,
               state_buf):
    """λ of the query at rows ``a:b`` into ``grad``/``hess``, with the caller's scratch; returns Σ|ΔZ|."""
    n = b - a
    for t in range(a, b):
        grad[t] = 0.0
        hess[t] = 0.0
    if n < 2 or group_weight == 0.0:
        return 0.0
    if one_label(label, a, b):  # no pair has a λ: skip the sort
        return 0.0
    order = rank_order(score[a:b], label[a:b], label[a:b], ties)
    lab = lab_buf[:n]
    s = s_buf[:n]
    for r in range(n):
        lab[r] = label[a + order[r]]
        s[r] = score[a + order[r]]
    state = prepare_into(code, lab, params, const, state_buf)
    lam = lam_buf[:n]
    w = w_buf[:n]
    for r in range(n):
        lam[r] = 0.0
        w[r] = 0.0
    if n >= fast_min:
        cls = np.empty(n, dtype=np.int64)
        if code == AUC:
            wt = np.zeros(2)
            wt[1] = state[0]
            for r in range(n):
                cls[r] = 1 if lab[r] > params[0] else 0
        else:  # MAUC: dense class ids, state[c] = 1 / (T (N - n_c))
            wt = state
            for r in range(n):
                cls[r] = int(lab[r])
        used = fast_query(cls, wt.shape[0], wt, s, sigma, truncation, lam, w)
        for r in range(n):
            t = a + order[r]
            grad[t] = -lam[r] * group_weight * row_weight[t]
            hess[t] = w[r] * group_weight * row_weight[t]
        return used
    # ρ_ij = 1 / (1 + exp(σ (s_hi - s_lo))) = e_lo / (e_lo + e_hi) with e = exp(σ (s - s_max)):
    # n exponentials per query instead of one per pair (e <= 1, so no overflow).
    ex = ex_buf[:n]
    for r in range(n):
        ex[r] = math.exp(sigma * (s[r] - s[0]))
    row = row_buf[:n]
    spread = s[0] != s[n - 1]
    total = 0.0
    used = 0.0
    for i in range(min(n - 1, truncation)):
        fill_row(code, lab, state, params, i, row)
        li = lab[i]
        for j in range(i + 1, n):
            dz = row[j]
            if dz <= 0.0 or lab[j] == li:
                continue
            used += dz
            if li > lab[j]:
                hi, lo = i, j
            else:
                hi, lo = j, i
            ds = s[hi] - s[lo]
            if norm_score and spread:
                dz = dz / (0.01 + abs(ds))
            # ρ and 1 - ρ each from its own ratio: 1.0 - ρ would cancel to 0 once ρ rounds to 1
            if ex[hi] > 0.0 and ex[lo] > 0.0:
                rho = ex[lo] / (ex[lo] + ex[hi])
                rho_c = ex[hi] / (ex[lo] + ex[hi])
            else:  # underflow far below the top score: the direct formula
                rho = 1.0 / (1.0 + math.exp(sigma * ds))
                rho_c = 1.0 / (1.0 + math.exp(-sigma * ds))
            lij = sigma * dz * rho
            hij = sigma * sigma * dz * rho * rho_c
            lam[hi] += lij
            lam[lo] -= lij
            w[hi] += hij
            w[lo] += hij
            total += 2.0 * lij
    factor = group_weight
    if norm_query and total > 0.0:
        factor *= math.log2(1.0 + total) / total
    for r in range(n):
        t = a + order[r]
        grad[t] = -lam[r] * factor * row_weight[t]
        hess[t] = w[r] * factor * row_weight[t]
    return used


@njit(cache=True, parallel=True)
def lambda_gradients(code, params, const, cptr, score, label, ptr, ties, sigma, truncation, norm_query,
                     norm_score, row_weight, group_weight, grad, hess, fast_min, n_chunks):
    """Fill ``grad`` and ``hess`` (one entry per row) with the λ-gradients of target ``code``.

    ``const``/``cptr`` are :func:`query_constants` of the same labels. Queries of
    at least ``fast_min`` documents use the O(n log n) kernel of
    :mod:`._auc_fast` (the caller passes a ``fast_min`` above every query size
    unless the target is AUC/MAUC and neither normalisation is on). The queries
    are cut into ``n_chunks`` contiguous chunks (a few per thread, see
    :func:`n_chunks`), each allocating its scratch once.

    Returns the per-query sum of ``|ΔZ_ij|`` over the pairs used (a cheap
    diagnostic: zero means the query gave no signal).
    """
    nq = ptr.shape[0] - 1
    signal = np.zeros(nq)
    n_chunks = max(1, min(nq, n_chunks))
    for c in prange(n_chunks):
        q0 = c * nq // n_chunks
        q1 = (c + 1) * nq // n_chunks
        largest = 1
        for q in range(q0, q1):
            largest = max(largest, ptr[q + 1] - ptr[q])
        lab_buf = np.empty(largest)
        s_buf = np.empty(largest)
        ex_buf = np.empty(largest)
        row_buf = np.zeros(largest)
        lam_buf = np.empty(largest)
        w_buf = np.empty(largest)
        state_buf = np.zeros(state_size(largest))
        for q in range(q0, q1):
            signal[q] = _one_query(code, params, const[cptr[q]:cptr[q + 1]], score, label, ptr[q], ptr[q + 1],
                                   ties, sigma, truncation, norm_query, norm_score, row_weight, group_weight[q],
                                   grad, hess, fast_min, lab_buf, s_buf, ex_buf, row_buf, lam_buf, w_buf,
                                   state_buf)
    return signal

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
from ._swap_deltas import AUC, fill_row, prepare


@njit(cache=True, parallel=True)
def lambda_gradients(code, params, score, label, ptr, ties, sigma, truncation, norm_query,
                     norm_score, row_weight, group_weight, grad, hess, fast_min):
    """Fill ``grad`` and ``hess`` (one entry per row) with the λ-gradients of target ``code``.

    Queries of at least ``fast_min`` documents use the O(n log n) kernel of
    :mod:`._auc_fast` (the caller passes a ``fast_min`` above every query size
    unless the target is AUC/MAUC and neither normalisation is on).

    Returns the per-query sum of ``|ΔZ_ij|`` over the pairs used (a cheap
    diagnostic: zero means the query gave no signal).
    """
    nq = ptr.shape[0] - 1
    signal = np.zeros(nq)
    for q in prange(nq):
        a, b = ptr[q], ptr[q + 1]
        n = b - a
        for t in range(a, b):
            grad[t] = 0.0
            hess[t] = 0.0
        if n < 2 or group_weight[q] == 0.0:
            continue
        order = rank_order(score[a:b], label[a:b], label[a:b], ties)
        lab = np.empty(n)
        s = np.empty(n)
        for r in range(n):
            lab[r] = label[a + order[r]]
            s[r] = score[a + order[r]]
        state = prepare(code, lab, params)
        lam = np.zeros(n)
        w = np.zeros(n)
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
            signal[q] = fast_query(cls, wt.shape[0], wt, s, sigma, truncation, lam, w)
            factor = group_weight[q]
            for r in range(n):
                t = a + order[r]
                grad[t] = -lam[r] * factor * row_weight[t]
                hess[t] = w[r] * factor * row_weight[t]
            continue
        # ρ_ij = 1 / (1 + exp(σ (s_hi - s_lo))) = e_lo / (e_lo + e_hi) with e = exp(σ (s - s_max)):
        # n exponentials per query instead of one per pair (e <= 1, so no overflow).
        ex = np.empty(n)
        for r in range(n):
            ex[r] = math.exp(sigma * (s[r] - s[0]))
        row = np.zeros(n)
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
                if ex[hi] > 0.0 and ex[lo] > 0.0:
                    rho = ex[lo] / (ex[lo] + ex[hi])
                else:  # underflow far below the top score: the direct formula
                    rho = 1.0 / (1.0 + math.exp(sigma * ds))
                lij = sigma * dz * rho
                hij = sigma * sigma * dz * rho * (1.0 - rho)
                lam[hi] += lij
                lam[lo] -= lij
                w[hi] += hij
                w[lo] += hij
                total += 2.0 * lij
        signal[q] = used
        factor = group_weight[q]
        if norm_query and total > 0.0:
            factor *= math.log2(1.0 + total) / total
        for r in range(n):
            t = a + order[r]
            grad[t] = -lam[r] * factor * row_weight[t]
            hess[t] = w[r] * factor * row_weight[t]
    return signal

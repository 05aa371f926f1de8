"""Where two rankers' mixtures change order: the breakpoints of ``α s_a + (1 - α) s_b``.

For documents ``i, j`` of one query, ``s_i(α) - s_j(α) = d_b + α (d_a - d_b)`` with
``d_a = s_a_i - s_a_j`` and ``d_b = s_b_i - s_b_j``. The pair changes order inside
``(0, 1)`` iff ``d_a`` and ``d_b`` have opposite signs, at ``α* = d_b / (d_b - d_a)``;
when one of them is zero the pair ties at an end point (0 or 1), which is always
evaluated; when both are zero the pair is tied for every α. Pairs of equal labels are
skipped: a rank-based metric reads only the sequence of labels in ranked order, which
swapping two equal labels leaves unchanged (tie policies included).

The kernels loop over query offsets (one pass counts, one fills), as the metric kernels do.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _count_pairs(sa, sb, y, ptr, counts):
    for q in range(ptr.shape[0] - 1):
        c = 0
        for i in range(ptr[q], ptr[q + 1]):
            for j in range(i + 1, ptr[q + 1]):
                if y[i] != y[j]:
                    da = sa[i] - sa[j]
                    db = sb[i] - sb[j]
                    if (da > 0.0 and db < 0.0) or (da < 0.0 and db > 0.0):
                        c += 1
        counts[q] = c


@njit(cache=True)
def _fill_pairs(sa, sb, y, ptr, offsets, out_i, out_j, out_alpha):
    for q in range(ptr.shape[0] - 1):
        k = offsets[q]
        for i in range(ptr[q], ptr[q + 1]):
            for j in range(i + 1, ptr[q + 1]):
                if y[i] != y[j]:
                    da = sa[i] - sa[j]
                    db = sb[i] - sb[j]
                    if (da > 0.0 and db < 0.0) or (da < 0.0 and db > 0.0):
                        out_i[k] = i
                        out_j[k] = j
                        out_alpha[k] = db / (db - da)
                        k += 1


def order_crossings(sa, sb, y, ptr):
    """Crossing pairs ``(query, i, j, α*)`` with ``α*`` strictly inside (0, 1)."""
    nq = ptr.shape[0] - 1
    counts = np.zeros(nq, dtype=np.int64)
    _count_pairs(sa, sb, y, ptr, counts)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    out_i = np.empty(total, dtype=np.int64)
    out_j = np.empty(total, dtype=np.int64)
    out_alpha = np.empty(total, dtype=np.float64)
    _fill_pairs(sa, sb, y, ptr, offsets, out_i, out_j, out_alpha)
    query = np.repeat(np.arange(nq, dtype=np.int64), counts)
    return query, out_i, out_j, out_alpha


def sign_crossings(sa, sb, ptr):
    """Documents whose mixed score changes sign inside (0, 1): ``(query, i, -1, α*)``.

    Used by metrics that read the sign of a score rather than the order (FilteredDCG
    keeps the documents with score >= 0).
    """
    i = np.flatnonzero(((sa > 0) & (sb < 0)) | ((sa < 0) & (sb > 0)))
    alpha = sb[i] / (sb[i] - sa[i])
    query = np.searchsorted(ptr, i, side="right") - 1
    return query.astype(np.int64), i.astype(np.int64), np.full(i.shape[0], -1, dtype=np.int64), alpha

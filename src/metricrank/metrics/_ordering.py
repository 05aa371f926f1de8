"""Ranking a query's documents by score, with an explicit tie policy.

Anchors disagree on how tied scores are ordered (see ``conventions.py``), so
the policy is a parameter. Each policy is a secondary sort key applied before a
stable sort on descending score.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Tie policies: integer codes used inside kernels.
TIES_PESSIMISTIC = 0  # among equal scores, lower label first (CatBoost)
TIES_OPTIMISTIC = 1  # among equal scores, higher label first
TIES_STABLE = 2  # among equal scores, input order (LightGBM, XGBoost)
TIES_REVERSE = 3  # among equal scores, reverse input order
TIES_KEY = 4  # among equal scores, ascending external key (trec_eval: docno descending)

TIE_POLICIES = {
    "pessimistic": TIES_PESSIMISTIC,
    "optimistic": TIES_OPTIMISTIC,
    "stable": TIES_STABLE,
    "reverse": TIES_REVERSE,
    "docid": TIES_KEY,
}


@njit(cache=True, nogil=True)
def rank_order(score, label, key, ties):
    """Indices of one query's documents from best to worst.

    Parameters
    ----------
    score, label, key : 1-D float64 arrays of one query
        ``key`` is only read when ``ties == TIES_KEY``.
    ties : int
        One of the ``TIES_*`` codes.
    """
    n = score.shape[0]
    if ties == TIES_STABLE:
        return np.argsort(-score, kind="mergesort")
    if ties == TIES_REVERSE:
        rev = np.argsort(-score[::-1], kind="mergesort")
        return (n - 1) - rev
    if ties == TIES_PESSIMISTIC:
        first = np.argsort(label, kind="mergesort")
    elif ties == TIES_OPTIMISTIC:
        first = np.argsort(-label, kind="mergesort")
    else:
        first = np.argsort(key, kind="mergesort")
    second = np.argsort(-score[first], kind="mergesort")
    return first[second]

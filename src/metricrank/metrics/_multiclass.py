"""Multi-class ranking metrics of Welleck (seed ``000``) and Yue et al.'s ROCArea (seed ``004``).

Welleck's metrics read labels as *relevance classes*: non-negative integers
(0 = not relevant, 1..C = relevance levels). Any other label raises a
ValueError naming the metric.

Class-reference AUC and MAUC (Welleck section 3.1.4, eq. 5)
    "We define the class reference AUC value AUC(c_i) as the AUC when class
    label c_i is viewed as positive and *all other labels* as negative."
    So ``AUC(c)`` is one-vs-rest: documents of class ``c`` against every
    document of another class, *above or below* ``c``. It is the
    Wilcoxon-Mann-Whitney statistic of eq. 9 with tied scores counting 1/2.
    ``MAUC = sum_c p(c) AUC(c)`` (eq. 5). Because the negatives include the
    higher classes, a perfect ranking (score = label) does *not* give
    ``AUC(c) = 1`` for a class in the middle (it gives the share of the other
    documents ranked below class ``c``); only ``AUC(max class)`` is 1. That
    matches the paper's Table 3, where AUC_1 ~ 0.5 and AUC_4 ~ 0.9.

Precision_micro@k (eq. 2) and Precision_macro@k (eq. 4)
    Per query ``i`` and class ``c in 1..C``, let ``n_ic`` be the number of the
    first ``k`` ranked documents with label ``c``. Eq. 2 is
    ``(1/n) sum_i sum_c n_ic / (C k)``; eq. 4 is
    ``(1/C) sum_c sum_i n_ic / k``, which lacks the ``1/n`` over queries
    (without it the value grows with the number of queries and is not a
    precision; we restore it, i.e. ``(1/C) sum_c (1/n) sum_i n_ic / k``).
    Read this way -- each class's "predicted positives" at cutoff ``k`` are
    the ``k`` top documents, so ``TP_c + FP_c = k`` for every class -- the two
    formulas are *algebraically identical*: pooling eq. 1 and averaging
    eq. 3 give the same number when every class has the same denominator
    ``k``. Both equal ``#(top-k documents with label in 1..C) / (C k)``
    averaged over queries. One name, one meaning: there is one metric,
    ``PrecisionMicro``, and ``PrecisionMacro`` is an alias of it (both
    names evaluate, to the same number; ``available_metrics()`` lists the
    canonical name). ``C`` is the number
    of relevance classes: parameter ``classes``, default -1 = the largest
    label in the data set. The denominator is ``k`` even for queries with
    fewer than ``k`` documents (literal eq. 2/4; CatBoost's PrecisionAt uses
    ``min(k, n)`` instead). ``top=-1`` uses ``k = n`` per query.

ROCArea (Yue et al. section 2.1)
    ``ROC(p, p_hat) = 1/(rel (|C| - rel)) sum_{i: p_i=1} sum_{j: p_j=0} 1[p_hat_i > p_hat_j]``
    per query, with ``p_i = 1`` when ``label > border`` (default 0) and tied
    scores counting 1/2; the mean over the queries that have both a relevant
    and a non-relevant document.

Weights: object weights are never used. With ``use_weights=true`` group
weights weight the mean over queries (default false, all queries equal).

Degenerate queries (not counted: ``den = 0``): ClassAUC when class ``c`` or
its complement is absent; MAUC when the query has a single label (no class
has a complement) or, with ``classes=relevant``, no relevant document;
ROCArea when the query lacks a relevant or a non-relevant document.
Precision is defined for every query (0 when nothing relevant is in the top).

Complexity: one sort per query; the AUCs come from mid-rank sums
(Mann-Whitney: ``AUC(c) = (R_c - n_c (n_c + 1) / 2) / (n_c (n - n_c))``),
so all classes of a query cost O(n log n + L) with ``L`` the number of
distinct labels in the data: labels are mapped to dense class ids
(:func:`dense_classes`) before any per-class table is allocated, so memory and
time follow the number of classes, not the largest label value.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._base import (
    REQUIRED,
    USE_WEIGHTS_FALSE,
    MetricDef,
    MetricInput,
    Param,
    mean_parts,
    parse_bool,
    parse_choice,
    parse_float,
    parse_int,
    top_param,
)
from ._ordering import TIE_POLICIES, rank_order

__all__ = ["DEFINITIONS", "class_rank_sums", "class_auc_table", "dense_classes"]


# --- label checks -------------------------------------------------------------------------

def check_relevance_classes(metric: str):
    """Label check: every label a non-negative integer (a relevance class)."""

    def check(y: np.ndarray, params: dict) -> None:
        bad = (y < 0) | (y != np.floor(y)) | ~np.isfinite(y)
        if np.any(bad):
            vals = np.unique(y[bad])[:5]
            raise ValueError(
                f"{metric} needs labels that are non-negative integers (relevance classes); got "
                f"{vals.tolist()}{' and more' if np.count_nonzero(bad) > 5 else ''} "
                f"(first at row {int(np.flatnonzero(bad)[0])})"
            )

    return check


# --- kernels ------------------------------------------------------------------------------

@njit(cache=True, parallel=True)
def class_rank_sums(score, label, group_ptr, n_labels):
    """Per query and class: document count and sum of ascending mid-ranks.

    Parameters
    ----------
    score : float64 (n,)
    label : int64 (n,) in ``0 .. n_labels - 1``
    group_ptr : int64 (Q + 1,)
    n_labels : int

    Returns
    -------
    count : float64 (Q, n_labels)
    rank_sum : float64 (Q, n_labels)
        Sum over the class's documents of their 1-based ascending mid-rank
        within the query (tied scores share the mean of their ranks).
    """
    nq = group_ptr.shape[0] - 1
    count = np.zeros((nq, n_labels))
    rank_sum = np.zeros((nq, n_labels))
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        n = e - s
        order = np.argsort(score[s:e], kind="mergesort")
        i = 0
        while i < n:
            j = i + 1
            v = score[s + order[i]]
            while j < n and score[s + order[j]] == v:
                j += 1
            # positions i..j-1 (0-based) share mid-rank (i + 1 + j) / 2
            mid = (i + 1 + j) / 2.0
            for r in range(i, j):
                c = label[s + order[r]]
                count[q, c] += 1.0
                rank_sum[q, c] += mid
            i = j
    return count, rank_sum


def class_auc_table(count: np.ndarray, rank_sum: np.ndarray):
    """One-vs-rest AUC of every (query, class) and whether it is defined.

    ``AUC(c) = (R_c - n_c (n_c + 1) / 2) / (n_c (n - n_c))`` -- the share of
    (class c, other class) pairs ordered correctly, ties 1/2.
    """
    n = count.sum(axis=1, keepdims=True)
    other = n - count
    defined = (count > 0) & (other > 0)
    denom = np.where(defined, count * other, 1.0)
    auc = np.where(defined, (rank_sum - count * (count + 1.0) / 2.0) / denom, np.nan)
    return auc, defined


@njit(cache=True, parallel=True)
def _top_class_hits(y, score, key, group_ptr, ties, top, n_classes):
    """Per query: number of the first ``k`` ranked documents with label in ``1..C``, and ``k``."""
    nq = group_ptr.shape[0] - 1
    hits = np.zeros(nq)
    cut = np.zeros(nq)
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        k = top if top > 0 else e - s
        order = rank_order(score[s:e], y[s:e], key[s:e], ties)
        h = 0.0
        for r in range(min(k, e - s)):
            lab = y[s + order[r]]
            if lab >= 1.0 and lab <= n_classes:
                h += 1.0
        hits[q] = h
        cut[q] = k
    return hits, cut


# --- parts --------------------------------------------------------------------------------

def dense_classes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, ids)``: the distinct labels (sorted) and every row's dense class id.

    Per-class tables are sized by the number of distinct labels, never by the
    largest label value (a label of 10**6 among three classes costs three
    columns, not a million).
    """
    classes, ids = np.unique(y, return_inverse=True)
    return classes, ids.astype(np.int64).reshape(-1)


def _class_auc(inp: MetricInput, params: dict):
    c = int(params["cls"])
    classes, ids = dense_classes(inp.y)
    nq = inp.n_queries
    col = int(np.searchsorted(classes, c))
    if col >= classes.shape[0] or classes[col] != c:
        # the class never occurs: no query can be scored
        return np.zeros(nq), np.zeros(nq)
    count, rank_sum = class_rank_sums(inp.score, ids, inp.group_ptr, classes.shape[0])
    auc, defined = class_auc_table(count, rank_sum)
    return mean_parts(np.nan_to_num(auc[:, col]), defined[:, col], inp.group_weight)


def _mauc_from_table(count, rank_sum, classes, relevant):
    """``relevant``: boolean per column, True where the column's label is > 0."""
    auc, defined = class_auc_table(count, rank_sum)
    if classes == "relevant":
        count = count * relevant[None, :]
    present = count > 0
    total = count.sum(axis=1)
    # counted: some class is summed and each summed class has a complement
    # (fails only when the query holds a single label)
    ok = (total > 0) & np.all(~present | defined, axis=1)
    p = count / np.where(ok, total, 1.0)[:, None]
    values = np.where(ok, np.sum(np.where(present, p * np.nan_to_num(auc), 0.0), axis=1), 0.0)
    return values, ok


def _mauc(inp: MetricInput, params: dict):
    labels, ids = dense_classes(inp.y)
    relevant = labels > 0
    if params["pooled"]:
        ptr = np.array([0, inp.y.shape[0]], dtype=np.int64)
        count, rank_sum = class_rank_sums(inp.score, ids, ptr, labels.shape[0])
        values, ok = _mauc_from_table(count, rank_sum, params["classes"], relevant)
        return mean_parts(values, ok, np.ones(1))
    count, rank_sum = class_rank_sums(inp.score, ids, inp.group_ptr, labels.shape[0])
    values, ok = _mauc_from_table(count, rank_sum, params["classes"], relevant)
    return mean_parts(values, ok, inp.group_weight)


def _roc_area(inp: MetricInput, params: dict):
    rel = (inp.y > params["border"]).astype(np.int64)
    count, rank_sum = class_rank_sums(inp.score, rel, inp.group_ptr, 2)
    auc, defined = class_auc_table(count, rank_sum)
    return mean_parts(np.nan_to_num(auc[:, 1]), defined[:, 1], inp.group_weight)


def _precision_hits(inp: MetricInput, params: dict):
    top = int(params["top"])
    if top < -1 or top == 0:
        raise ValueError(f"top must be a positive integer or -1 (all documents); got {top}")
    n_classes = int(params["classes"])
    if n_classes == -1:
        n_classes = int(inp.y.max()) if inp.y.size else 0
    elif n_classes < 1:
        raise ValueError(f"classes must be a positive integer or -1 (largest label); got {n_classes}")
    if params["ties"] == "docid" and inp.tie_key is not None:
        key = inp.tie_key
    else:  # descending doc id = reverse input order without doc ids
        key = -np.arange(inp.y.shape[0], dtype=np.float64)
    hits, cut = _top_class_hits(
        inp.y, inp.score, key, inp.group_ptr, TIE_POLICIES[params["ties"]], top, float(n_classes)
    )
    return hits, cut, n_classes


def _precision(inp: MetricInput, params: dict):
    hits, cut, n_classes = _precision_hits(inp, params)
    nq = inp.n_queries
    if n_classes < 1:  # no relevance class in the data: undefined
        return np.zeros(nq), np.zeros(nq)
    # eq. 2: mean over queries of sum_c n_ic / (C k). Eq. 4 (with 1/n),
    # (1/C) sum_c [(1/n) sum_i n_ic / k], is the same sum with the two sums
    # swapped: query i contributes (1/C) sum_c n_ic / k = hits_i / (C k).
    return mean_parts(hits / (n_classes * cut), np.ones(nq, bool), inp.group_weight)


# --- definitions --------------------------------------------------------------------------

TIES = Param(
    "ties", "stable", parse_choice, ("pessimistic", "optimistic", "stable", "reverse", "docid"),
    "order of tied scores: stable (input order), reverse, pessimistic (lower label first), "
    "optimistic, docid (descending doc id)",
)
CLASSES_C = Param(
    "classes", -1, parse_int, None,
    "number C of relevance classes 1..C; -1 = the largest label in the data set",
)

DEFINITIONS: list[MetricDef] = [
    MetricDef(
        name="ClassAUC",
        query_weights=True,
        params=(USE_WEIGHTS_FALSE, Param("cls", REQUIRED, parse_int, None, "the class c viewed as positive")),
        higher_is_better=True,
        compute=_class_auc,
        check_labels=check_relevance_classes("ClassAUC"),
        source="welleck",
        doc="class-reference AUC(c): class c vs all other labels, per query (Welleck sec. 3.1.4)",
    ),
    MetricDef(
        name="MAUC",
        query_weights=True,
        params=(
            USE_WEIGHTS_FALSE,
            Param("classes", "relevant", parse_choice, ("relevant", "all"),
                  "classes summed: relevant (labels > 0, p(c) among relevant docs) or all"),
            Param("pooled", False, parse_bool, (True, False),
                  "one MAUC over all rows (ignoring queries) instead of the mean per query"),
        ),
        higher_is_better=True,
        compute=_mauc,
        check_labels=check_relevance_classes("MAUC"),
        source="welleck",
        doc="multi-class AUC sum_c p(c) AUC(c) (Welleck eq. 5)",
    ),
    MetricDef(
        name="PrecisionMicro",
        query_weights=True,
        params=(USE_WEIGHTS_FALSE, top_param(10, "cutoff k"), CLASSES_C, TIES),
        higher_is_better=True,
        compute=_precision,
        check_labels=check_relevance_classes("PrecisionMicro (alias PrecisionMacro)"),
        source="welleck",
        doc="precision@k over relevance classes 1..C (Welleck eq. 2; eq. 4, the macro "
            "average, is the same number, so PrecisionMacro is an alias)",
        aliases=("PrecisionMacro",),
    ),
    MetricDef(
        name="ROCArea",
        query_weights=True,
        params=(USE_WEIGHTS_FALSE, Param("border", 0.0, parse_float, None, "label > border counts as relevant")),
        higher_is_better=True,
        compute=_roc_area,
        source="yue",
        doc="per-query binary AUC (Yue et al. sec. 2.1), ties 1/2",
    ),
]

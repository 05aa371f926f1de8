"""Which λ target trains a model judged by a given metric (``LambdaMART(target="auto")``).

The exact λ of the judged metric is the gradient for every metric except the two cascade metrics,
MRR and graded ERR (BENCHMARKS.md, "λ targets for judged MRR and ERR", five quality-suite data
sets). Their swap deltas vanish below a query's first (highly) relevant document: once one leads
the query, the other relevant documents get next to no gradient, and one noisy label moves the
whole query. These two train on exponential-gain NDCG over the whole list, whose λ reaches every
relevant document with a position discount. Judged by ERR@10 it beat exact λ-ERR@10 on four sets
(by 0.0065 to 0.025, per-query Wilcoxon p 0.034 to 1e-16; MQ2008 −0.0008, p 0.065); judged by
MRR it beat λ-MRR on the noisy and the two large sets (by 0.014 to 0.090, p < 0.001) and tied on
MQ2008 (+0.0021, p 0.83) and LightGBM's example (−0.0129, p 0.57, 50 queries). Over the five sets
it had the smallest mean shortfall to the best anchor of every target tried: MRR −0.0018 (graded
ERR with ``max_label`` 4, 6, 8, 10: −0.0051, −0.0036, −0.0031, −0.0057; λ-MRR −0.0260), ERR@10
−0.0068 (graded ERR uncut with ``max_label`` 4 or 6: −0.0189, −0.0090; λ-ERR@10 −0.0190).

The swap keeps the judged metric's notion of relevance: labels ``>= 0`` (and within the gain
``2^l - 1``'s range) whose relevant documents are exactly those with a positive label (MRR's
``label > border``; graded ERR's stop probability ``> 0``). Otherwise, for ``ERR:type=Probability``
(labels are probabilities; not measured) and when no labels are known, the target is the judged
metric itself.
"""

from __future__ import annotations

import numpy as np

from ..metrics._positional import EXP_LABEL_LIMIT
from ..metrics.registry import get_metric

__all__ = ["WHOLE_LIST_TARGET", "choose_target"]

#: The λ target that replaces MRR and graded ERR.
WHOLE_LIST_TARGET = "NDCG:type=Exp"


def _relevance_matches(judged, y) -> bool:
    # bool() and float() compute a Dask reduction; NumPy answers at once
    if not bool((y >= 0).all()) or float(y.max()) > EXP_LABEL_LIMIT:
        return False
    if judged.name == "ERR":
        return True  # graded ERR's stop probability (2^l - 1) / 2^l_max is > 0 exactly for l > 0
    border = float(judged.params["border"])
    # MRR's relevant documents (label > border) must be exactly the positive labels
    if border >= 0:
        return not bool(((y > 0) & (y <= border)).any())
    return not bool((y == 0).any())


def choose_target(metric: str, y=None, preset: str | None = None) -> str:
    """The λ target for a model judged by ``metric`` and trained on labels ``y``.

    Parameters
    ----------
    metric : str
        The judged metric spec (or ``"RankNet"``).
    y : array-like of shape (n,), optional
        Training labels (any array with ``min``, ``max`` and comparisons: NumPy or
        Dask). Without them the judged metric is returned.
    preset : str, optional
        Metric convention preset the judged metric is read under.

    Returns
    -------
    str
        ``metric`` itself, or for MRR and ``ERR:type=Graded`` (any ``top``)
        ``"NDCG:type=Exp"`` over the whole list, with the judged metric's
        ``ties`` and ``use_weights`` when its spec sets them.

    Examples
    --------
    >>> choose_target("MRR", [0, 1, 2, 0])
    'NDCG:type=Exp'
    >>> choose_target("ERR:type=Graded;top=10;ties=optimistic", [0, 3, 4])
    'NDCG:type=Exp;ties=optimistic'
    >>> choose_target("MRR:border=1", [0, 1, 2])  # label 1 is not relevant to MRR here
    'MRR:border=1'
    >>> choose_target("NDCG:top=10", [0, 1, 2])
    'NDCG:top=10'
    """
    if y is None or (isinstance(metric, str) and metric.strip().lower() == "ranknet"):
        return metric
    judged = get_metric(metric, preset=preset)
    cascade = judged.name == "MRR" or (judged.name == "ERR" and judged.params["type"] == "Graded")
    if not cascade or getattr(y, "size", len(y)) == 0:
        return metric
    y = y if hasattr(y, "min") and hasattr(y, "dtype") else np.asarray(y, dtype=np.float64)
    if not _relevance_matches(judged, y):
        return metric
    spec = WHOLE_LIST_TARGET
    if "ties" in judged.explicit:
        spec += f";ties={judged.explicit['ties']}"
    if "use_weights" in judged.explicit:
        spec += f";use_weights={str(bool(judged.explicit['use_weights'])).lower()}"
    return spec

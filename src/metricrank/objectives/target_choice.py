"""Which λ target trains a model judged by a given metric (``LambdaMART(target="auto")``).

The exact λ of the judged metric is the right gradient for every metric but one, measured on the
five quality-suite data sets (BENCHMARKS.md, "λ target for judged MRR"): **MRR**. Its swap delta
is zero for every pair below a query's first relevant document, so once that document is on top
the other relevant documents get no gradient, and a noisy label moves the whole query. Graded ERR
is the same cascade with soft stops: a relevant document of grade ``l`` stops the user with
probability ``(2^l - 1) / 2^l_max``, so every relevant document keeps a gradient, weighted by the
chance that a user reaches it. Judged by MRR, λ-ERR beat λ-MRR on four of the five sets (by 0.002
to 0.064) and had the smallest worst-case shortfall to the best anchor.

The swap is made only where it keeps MRR's notion of relevance: labels ``>= 0`` whose relevant
documents (``label > border``) are exactly those with a positive grade (so ERR's stop probability
0 falls on MRR's irrelevant documents). Otherwise, and when no labels are known, the target is the
judged metric itself.
"""

from __future__ import annotations

import numpy as np

from ..metrics.registry import get_metric

__all__ = ["choose_target"]

#: The top grade of graded ERR's stop probabilities, unless the labels go higher: 4, the web-search
#: 0-4 scale and ERR's own default (what was measured; MQ2008's grades 0-2 then stop with
#: probability 0, 1/16 and 3/16).
MIN_MAX_LABEL = 4.0


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
        ``metric`` itself, or for MRR the graded ERR spec that replaces it:
        ``"ERR:type=Graded;max_label=L"`` with the judged MRR's ``top`` (and
        ``ties`` or ``use_weights`` when the MRR spec sets them), where
        ``L = max(4, ceil(max label))``.

    Examples
    --------
    >>> choose_target("MRR", [0, 1, 2, 0])
    'ERR:type=Graded;max_label=4'
    >>> choose_target("MRR:top=10", [0, 1, 7])
    'ERR:type=Graded;max_label=7;top=10'
    >>> choose_target("MRR:border=1", [0, 1, 2])  # label 1 is not relevant to MRR here
    'MRR:border=1'
    >>> choose_target("NDCG:top=10", [0, 1, 2])
    'NDCG:top=10'
    """
    if y is None or (isinstance(metric, str) and metric.strip().lower() == "ranknet"):
        return metric
    judged = get_metric(metric, preset=preset)
    if judged.name != "MRR" or getattr(y, "size", len(y)) == 0:
        return metric
    y = y if hasattr(y, "min") and hasattr(y, "dtype") else np.asarray(y, dtype=np.float64)
    border = float(judged.params["border"])
    # bool() and float() compute a Dask reduction; NumPy returns at once
    if not bool((y >= 0).all()) or bool(((y > 0) & (y <= border)).any()) or bool(((y > border) & (y <= 0)).any()):
        return metric
    max_label = max(MIN_MAX_LABEL, float(np.ceil(float(y.max()))))
    spec = f"ERR:type=Graded;max_label={max_label:g}"
    if judged.params["top"] != -1:
        spec += f";top={judged.params['top']}"
    if "ties" in judged.explicit:
        spec += f";ties={judged.explicit['ties']}"
    if "use_weights" in judged.explicit:
        spec += f";use_weights={str(bool(judged.explicit['use_weights'])).lower()}"
    return spec

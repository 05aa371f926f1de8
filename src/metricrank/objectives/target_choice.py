"""Which gradient trains a model judged by a given metric (``LambdaMART(target="auto")``).

Chosen by measurement on the five quality-suite data sets (BENCHMARKS.md, "Which gradient for which
judged metric", stop 18, and "λ targets for judged MRR and ERR", stop 17):

* **NDCG, MAP, graded ERR and MAUC train on YetiRank** (CatBoost's stochastic pairwise gradient:
  PairLogit on adjacent documents of logistic-noise permutations, weighted by the label difference;
  :class:`metricrank.objectives.YetiRank`). Paired per query against stop 17's defaults (the metric's
  own exact λ; for ERR the whole-list NDCG λ), on the same trees and splits (MQ2008 / LightGBM's
  example / noisy 40k / 50k / 250k): MAUC +0.0014 / +0.0183 / +0.0045 / +0.0038 / +0.0013, MAP
  −0.0025 (p 0.67) / +0.0022 / +0.0037 / +0.0060 / +0.0033, ERR@10 +0.0000 / +0.0054 / +0.0011 /
  +0.0066 / +0.0041, NDCG@10 +0.0007 / −0.0137 (p 0.53, 50 test queries) / +0.0061 / +0.0054 /
  +0.0052; on the noisy MQ2007-sized set with 6 seeds NDCG@10 +0.0087 (p 0.007), MAP +0.0040
  (p 0.013), MAUC +0.0049 (p 0.002). A plausible reason, not a measured one: an exact λ pulls on a
  mislabelled document as hard as on a correct one, while YetiRank's pairs are neighbours in a noisy
  ranking, which bounds that pull.
* **MRR trains on YetiRank from 30,000 training documents** (:data:`STOCHASTIC_MRR_MIN_DOCS`, where
  ``n_models="auto"`` averages four YetiRank models) **and on PairLogit below** (CatBoost's pairwise
  logistic loss over every pair of a query's documents with different labels; :data:`SMALL_MRR_TARGET`).
  MRR's own λ vanishes below a query's first relevant document, and MRR trained on exponential-gain
  NDCG over the whole list (λ) until stop 63: that λ beat λ-MRR on the noisy and the two large sets (by
  0.014 to 0.090, p < 0.001; stop 17). From 30,000 documents YetiRank scored higher by MRR than the λ
  on every drawn shape tried (stop 51). Below, PairLogit scored higher than the λ on all five sets
  tried (stop 63): the MQ2008 twin at two noise levels (+0.0134, p 0.003; +0.0163, p 0.004), a drawn
  OHSUMED shape (+0.0335, p 0.07) and, over five random states, the two real sets (MQ2008 +0.0019,
  LightGBM's example +0.0011; not significantly), where YetiRank trailed the λ. Either way the labels
  must keep MRR's notion of relevance: labels ``>= 0`` (within the gain ``2^l - 1``'s range) whose
  relevant documents (``label > border``) are exactly the positive ones; otherwise, and when no labels
  are known, the target is MRR itself.
* **Every other metric trains on its own exact λ** (not measured against other gradients).

A model given λ options (``sigma``, ``truncation``, ``norm`` or ``exact`` away from their defaults)
asks for a λ-gradient, and row weights (``sample_weight``) are read row by row by λ only (YetiRank, as
CatBoost's, ignores them; PairLogit weighs a query's pairs by its first row's): such a model trains on
the metric's own λ (MRR and graded ERR on the whole-list NDCG λ, stop 17's rule) instead of a pair loss.
"""

from __future__ import annotations

import numpy as np

from ..metrics._positional import EXP_LABEL_LIMIT
from ..metrics.registry import get_metric

__all__ = ["PAIR_TARGETS", "SMALL_MRR_TARGET", "STOCHASTIC_MRR_MIN_DOCS", "STOCHASTIC_PAIR_TARGET",
           "WHOLE_LIST_TARGET", "choose_target", "is_pair_target"]

#: The λ target that replaces MRR and graded ERR for a model that asks for a λ-gradient.
WHOLE_LIST_TARGET = "NDCG:type=Exp"
#: The target of judged NDCG, MAP, graded ERR and MAUC, and of MRR from :data:`STOCHASTIC_MRR_MIN_DOCS`.
STOCHASTIC_PAIR_TARGET = "YetiRank"
#: The target of judged MRR below :data:`STOCHASTIC_MRR_MIN_DOCS`: PairLogit over every pair of a query's
#: documents with different labels, at most 250,000 of them a query (a uniform sample drawn once beyond), so
#: that its pairs, which PairLogit holds in memory (24 bytes each), stay within about 250 MB below 30,000
#: documents: at most 354 a document either way. Every query of the sets it was measured on has fewer (OHSUMED's
#: shape, the longest lists: at most 250 documents in three grades, 250² / 3 ≈ 20,800 pairs).
SMALL_MRR_TARGET = "PairLogit:max_pairs=250000"
#: Judged MRR trains on YetiRank from this many training documents, on PairLogit below (where the capacity check
#: and the mixed trees start, ``learners._capacity.CHECK_MIN_DOCS``, the same number).
#: Measured (BENCHMARKS.md, "Stop 51: judged MRR trains on YetiRank from 30,000 documents", and "Stop 63: judged
#: MRR trains on PairLogit below 30,000 documents"): above it YetiRank scored higher by MRR than the whole-list
#: λ on every drawn shape tried (five); below it PairLogit scored higher than the λ on all five sets tried.
STOCHASTIC_MRR_MIN_DOCS = 30_000
#: The targets that are pair losses, not λ-gradients (``target="<name>[:params]"``).
PAIR_TARGETS = ("YetiRank", "PairLogit")
_STOCHASTIC_PAIR_METRICS = ("NDCG", "MAP", "MAUC")


def is_pair_target(target) -> bool:
    """Whether a target spec names a pair loss of :data:`PAIR_TARGETS` (``"YetiRank"``,
    ``"PairLogit:max_pairs=1000"``...), not a λ target.

    >>> is_pair_target("yetirank:permutations=20"), is_pair_target("PairLogit"), is_pair_target("NDCG:top=10")
    (True, True, False)
    """
    return (isinstance(target, str)
            and target.split(":", 1)[0].strip().lower() in {name.lower() for name in PAIR_TARGETS})


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


def _label_count(y) -> int:
    """How many labels ``y`` holds (a Dask array's rows are counted when its chunk sizes are unknown)."""
    size = y.size
    if np.isnan(size):  # a Dask array of unknown chunk sizes (e.g. from boolean indexing): count its rows
        return int((y == y).sum())
    return int(size)


def choose_target(metric: str, y=None, preset: str | None = None, lambda_only: bool = False) -> str:
    """The target (gradient) for a model judged by ``metric`` and trained on labels ``y``.

    Parameters
    ----------
    metric : str
        The judged metric spec (or ``"RankNet"``).
    y : array-like of shape (n,), optional
        Training labels (any array with ``min``, ``max`` and comparisons: NumPy or
        Dask). Only MRR's choice reads them (their values and how many there are);
        without them MRR keeps its own λ.
    preset : str, optional
        Metric convention preset the judged metric is read under.
    lambda_only : bool, default False
        Only λ targets qualify: the model sets λ options (``sigma``,
        ``truncation``, ``norm``, ``exact``) or trains with row weights
        (``sample_weight``), which YetiRank does not read.

    Returns
    -------
    str
        ``"YetiRank"`` for NDCG, MAP, graded ERR and MAUC (unless ``lambda_only``);
        for MRR, when the labels keep its relevance, ``"YetiRank"`` on at least
        :data:`STOCHASTIC_MRR_MIN_DOCS` labels and :data:`SMALL_MRR_TARGET` on
        fewer (unless ``lambda_only``); ``"NDCG:type=Exp"`` with ``lambda_only``
        for MRR and graded ERR, when the labels keep the judged metric's
        relevance (with the judged metric's ``ties`` and ``use_weights`` when its
        spec sets them); otherwise ``metric`` itself.

    Examples
    --------
    >>> choose_target("NDCG:top=10;type=Exp")
    'YetiRank'
    >>> choose_target("NDCG:top=10", lambda_only=True)
    'NDCG:top=10'
    >>> choose_target("MRR", [0, 1, 2, 0])
    'PairLogit:max_pairs=250000'
    >>> choose_target("MRR", [0, 1, 2, 0], lambda_only=True)
    'NDCG:type=Exp'
    >>> choose_target("MRR", np.tile([0, 1, 2, 0], 7_500))  # 30,000 labels
    'YetiRank'
    >>> choose_target("ERR:type=Graded;top=10;ties=optimistic", [0, 3, 4], lambda_only=True)
    'NDCG:type=Exp;ties=optimistic'
    >>> choose_target("MRR:border=1", [0, 1, 2])  # label 1 is not relevant to MRR here
    'MRR:border=1'
    >>> choose_target("PrecisionAt:top=5")
    'PrecisionAt:top=5'
    """
    if isinstance(metric, str) and metric.strip().lower() == "ranknet":
        return metric
    judged = get_metric(metric, preset=preset)
    graded_err = judged.name == "ERR" and judged.params["type"] == "Graded"
    if not lambda_only and (judged.name in _STOCHASTIC_PAIR_METRICS or graded_err):
        return STOCHASTIC_PAIR_TARGET
    cascade = judged.name == "MRR" or graded_err
    if not cascade or y is None:
        return metric
    y = y if hasattr(y, "min") and hasattr(y, "dtype") else np.asarray(y, dtype=np.float64)
    n_labels = _label_count(y)
    if n_labels == 0 or not _relevance_matches(judged, y):
        return metric
    if not lambda_only:  # MRR (graded ERR returned above)
        return STOCHASTIC_PAIR_TARGET if n_labels >= STOCHASTIC_MRR_MIN_DOCS else SMALL_MRR_TARGET
    spec = WHOLE_LIST_TARGET
    if "ties" in judged.explicit:
        spec += f";ties={judged.explicit['ties']}"
    if "use_weights" in judged.explicit:
        spec += f";use_weights={str(bool(judged.explicit['use_weights'])).lower()}"
    return spec

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
  ``n_models="auto"`` averages four YetiRank models) **and on exponential-gain NDCG over the whole list
  below** (λ): MRR's swap delta vanishes below a query's first relevant document. Judged by MRR the
  whole-list λ beat λ-MRR on the noisy and the two large sets (by 0.014 to 0.090, p < 0.001) and tied on
  MQ2008 and LightGBM's example (stop 17). Against YetiRank it was 0.0125 ahead on the noisy set (p 0.25,
  one YetiRank model; stop 18); since YetiRank's defaults matured (four averaged models, their penalty,
  the capacity check), YetiRank scored higher by MRR on every drawn shape from 30,000 documents (stop 51),
  while on the two real sets, both below it, the λ scored higher over five random states (not significantly;
  a drawn OHSUMED shape favoured YetiRank by 0.058, p 7e-4). Either way the
  labels must keep MRR's notion of relevance: labels ``>= 0`` (within the gain ``2^l - 1``'s range)
  whose relevant documents (``label > border``) are exactly the positive ones; otherwise, and when no
  labels are known, the target is MRR itself.
* **Every other metric trains on its own exact λ** (not measured against other gradients).

A model given λ options (``sigma``, ``truncation``, ``norm`` or ``exact`` away from their defaults)
asks for a λ-gradient, and row weights (``sample_weight``) are read by λ only (YetiRank, as CatBoost's,
ignores them): such a model trains on the metric's own λ (MRR and graded ERR on the whole-list NDCG λ,
stop 17's rule) instead of YetiRank.
"""

from __future__ import annotations

import numpy as np

from ..metrics._positional import EXP_LABEL_LIMIT
from ..metrics.registry import get_metric

__all__ = ["STOCHASTIC_MRR_MIN_DOCS", "STOCHASTIC_PAIR_TARGET", "WHOLE_LIST_TARGET", "choose_target",
           "is_stochastic_pair_target"]

#: The λ target that replaces MRR (and, for a model with λ options, graded ERR).
WHOLE_LIST_TARGET = "NDCG:type=Exp"
#: The target of judged NDCG, MAP, graded ERR and MAUC, and of MRR from :data:`STOCHASTIC_MRR_MIN_DOCS`.
STOCHASTIC_PAIR_TARGET = "YetiRank"
#: Judged MRR trains on YetiRank from this many training documents, on the whole-list NDCG λ below: where
#: ``n_models="auto"`` averages four YetiRank models (``learners._gbdt.AUTO_MODELS_MIN_DOCS``, the same number).
#: Measured (BENCHMARKS.md, "Stop 51: judged MRR trains on YetiRank from 30,000 documents"): above it YetiRank
#: scored higher by MRR on every drawn shape tried (five), below it the λ on both real sets (not significantly).
STOCHASTIC_MRR_MIN_DOCS = 30_000
_STOCHASTIC_PAIR_METRICS = ("NDCG", "MAP", "MAUC")


def is_stochastic_pair_target(target) -> bool:
    """Whether a target spec names YetiRank (``"YetiRank"`` or ``"YetiRank:<params>"``), not a λ target.

    >>> is_stochastic_pair_target("yetirank:permutations=20"), is_stochastic_pair_target("NDCG:top=10")
    (True, False)
    """
    return isinstance(target, str) and target.split(":", 1)[0].strip().lower() == STOCHASTIC_PAIR_TARGET.lower()


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
        :data:`STOCHASTIC_MRR_MIN_DOCS` labels (unless ``lambda_only``);
        ``"NDCG:type=Exp"`` for MRR on fewer, and with ``lambda_only`` for MRR and
        graded ERR, when the labels keep the judged metric's relevance (with the
        judged metric's ``ties`` and ``use_weights`` when its spec sets them);
        otherwise ``metric`` itself.

    Examples
    --------
    >>> choose_target("NDCG:top=10;type=Exp")
    'YetiRank'
    >>> choose_target("NDCG:top=10", lambda_only=True)
    'NDCG:top=10'
    >>> choose_target("MRR", [0, 1, 2, 0])
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
    if not lambda_only and n_labels >= STOCHASTIC_MRR_MIN_DOCS:
        return STOCHASTIC_PAIR_TARGET  # MRR (graded ERR returned above)
    spec = WHOLE_LIST_TARGET
    if "ties" in judged.explicit:
        spec += f";ties={judged.explicit['ties']}"
    if "use_weights" in judged.explicit:
        spec += f";use_weights={str(bool(judged.explicit['use_weights'])).lower()}"
    return spec

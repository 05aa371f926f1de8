"""Metrics of the ranked list: DCG, NDCG, FilteredDCG, PFound, AverageGain,
PrecisionAt, RecallAt, MAP, ERR and MRR.

Every metric here first ranks each query's documents by score with the tie
policy named by its ``ties`` parameter (:func:`ranked_labels`), then reads the
labels in ranked order. Semantics follow CatBoost's documentation (seed
``001``), checked against ``catboost.utils.eval_metric``:

* NDCG/DCG/PFound/ERR/MRR/AverageGain average queries with the *group*
  weights; object weights are not used. PrecisionAt/RecallAt/MAP ignore all
  weights; FilteredDCG is unweighted.
* ``top=-1`` (or a top larger than the query) counts every document;
  PrecisionAt and AverageGain divide by ``min(top, n)``.
* MAP@k divides by ``min(#relevant, top)``, not by the relevant documents
  retrieved in the top as the seed's formula reads (``norm=retrieved`` gives
  that reading, ``norm=all`` divides by every relevant document, as
  trec_eval does).
* NDCG refuses negative labels (CatBoost's scores a wrongly ordered query 1
  when they make its ideal DCG 0); DCG takes any label.
* A query whose ideal DCG is not positive has NDCG 1; a query with no
  relevant document has MAP 0, MRR 0 and RecallAt 1 (each adjustable with
  ``empty``).
* FilteredDCG keeps the documents with score >= 0, in input order.
* ERR ``type=Graded`` reads Burges' ``R = (2^l - 1) / 2^l_max`` (seed ``003``)
  with ``l_max`` "the maximum label value" of the *label scale*: a constant,
  ``max_label`` (default 4, the five-grade 0-4 scale of web-search data that
  Burges and Chapelle et al. use; ``max_label=2`` for MQ2008). It is not
  inferred from the data: the data set's maximum would make one query's value
  depend on the other queries (and training and validation sets use
  different scales), the query's own maximum would make a label's stopping
  probability depend on its neighbours. A label above ``max_label`` is a
  ValueError naming the metric, the row and the label; ``R`` is computed
  without forming ``2^l``, so no label overflows.
* ``type=Exp`` gains ``2^l - 1`` (DCG, NDCG, FilteredDCG) accept labels up to
  1000; larger ones raise a ValueError naming the metric and the label
  (``2^1024`` overflows float64 and NDCG would be ``inf/inf = NaN``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._base import (
    REQUIRED,
    MetricDef,
    MetricInput,
    Param,
    USE_WEIGHTS_TRUE,
    border_param,
    check_finite_labels_in,
    mean_parts,
    parse_bool,
    parse_choice,
    parse_float,
    parse_top,
    parse_unit_interval,
    top_param,
)
from ._ordering import TIE_POLICIES, rank_order

# --- shared parameters ----------------------------------------------------------------

TIES = Param(
    "ties", "pessimistic", parse_choice, tuple(TIE_POLICIES),
    "order of tied scores: pessimistic (lower label first, CatBoost), optimistic, stable "
    "(input order, LightGBM/XGBoost), reverse, docid (descending doc id, trec_eval)",
)
GAIN_TYPE = Param("type", "Base", parse_choice, ("Base", "Exp"), "gain: Base = label, Exp = 2^label - 1")
DENOMINATOR = Param(
    "denominator", "LogPosition", parse_choice, ("LogPosition", "Position"),
    "discount: LogPosition = 1/log2(i+1), Position = 1/i (1-based positions)",
)

# CatBoost's MAP, PrecisionAt and RecallAt take use_weights but weight no query either way (checked against its
# eval_metric): accepted so that CatBoost's specs parse, with CatBoost's values.
UNWEIGHTED_USE_WEIGHTS = Param("use_weights", True, parse_bool, (True, False),
                               "accepted as in CatBoost, which weights no query of this metric either way")


def parse_empty(text):
    """Value of a query the metric cannot score: a number, or ``skip``."""
    if str(text).strip().lower() == "skip":
        return "skip"
    return parse_float(text)


def empty_param(default) -> Param:
    return Param(
        "empty", default, parse_empty, None,
        "value of a query with no relevant document (or ideal DCG <= 0); skip = not counted",
    )


# --- ranking -------------------------------------------------------------------------

@njit(cache=True, parallel=True)
def _ranked_labels_kernel(y, score, key, ptr, ties):
    out = np.empty_like(y)
    for q in prange(ptr.shape[0] - 1):
        a, b = ptr[q], ptr[q + 1]
        order = rank_order(score[a:b], y[a:b], key[a:b], ties)
        for r in range(b - a):
            out[a + r] = y[a + order[r]]
    return out


def ranked_labels(inp: MetricInput, ties: str) -> np.ndarray:
    """Labels of every query in ranked order (best first), as one flat array.

    The result is memoised on ``inp`` so that several metrics evaluated on the
    same input sort each query once per tie policy.
    """
    if ties == "docid" and inp.tie_key is None:
        # Without doc ids a row's id is its position: descending id = reverse input order.
        ties = "reverse"
    cached = inp.cache.get(("ranked_labels", ties))
    if cached is None:
        key = inp.tie_key if ties == "docid" else inp.y
        cached = _ranked_labels_kernel(inp.y, inp.score, key, inp.group_ptr, TIE_POLICIES[ties])
        inp.cache[("ranked_labels", ties)] = cached
    return cached


def _empty_handling(empty):
    """(value used for unscorable queries, whether they are counted)."""
    if empty == "skip":
        return 0.0, False
    return float(empty), True


_ALL = np.iinfo(np.int64).max  # cutoff meaning "every document"


def _cutoff(top: int) -> int:
    if top < -1 or top == 0:
        raise ValueError(f"top must be a positive integer or -1 (all documents); got {top}")
    return _ALL if top == -1 else top


# --- DCG / NDCG ----------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _gain(label, exp_gain):
    return 2.0 ** label - 1.0 if exp_gain else label


@njit(cache=True, nogil=True)
def _discount(pos, log_position):
    # pos is 0-based
    return 1.0 / np.log2(pos + 2.0) if log_position else 1.0 / (pos + 1.0)


@njit(cache=True, parallel=True)
def _dcg_kernel(ranked, y, ptr, top, exp_gain, log_position, with_ideal):
    nq = ptr.shape[0] - 1
    dcg = np.zeros(nq)
    ideal = np.zeros(nq)
    for q in prange(nq):
        a, b = ptr[q], ptr[q + 1]
        k = min(top, b - a)
        s = 0.0
        for r in range(k):
            s += _gain(ranked[a + r], exp_gain) * _discount(r, log_position)
        dcg[q] = s
        if with_ideal:
            best = np.sort(y[a:b])[::-1]
            t = 0.0
            for r in range(k):
                t += _gain(best[r], exp_gain) * _discount(r, log_position)
            ideal[q] = t
    return dcg, ideal


def _dcg_values(inp, params, with_ideal):
    ranked = ranked_labels(inp, params["ties"])
    return _dcg_kernel(
        ranked, inp.y, inp.group_ptr, _cutoff(params["top"]), params["type"] == "Exp",
        params["denominator"] == "LogPosition", with_ideal,
    )


def _dcg_parts(inp, params):
    dcg, _ = _dcg_values(inp, params, False)
    return mean_parts(dcg, np.ones(dcg.shape, bool), inp.group_weight)


def _ndcg_parts(inp, params):
    dcg, ideal = _dcg_values(inp, params, True)
    fill, counted = _empty_handling(params["empty"])
    ok = ideal > 0
    values = np.where(ok, dcg / np.where(ok, ideal, 1.0), fill)
    return mean_parts(values, ok | counted, inp.group_weight)


# --- FilteredDCG ---------------------------------------------------------------------

@njit(cache=True, parallel=True)
def _filtered_dcg_kernel(y, score, ptr, exp_gain, log_position):
    nq = ptr.shape[0] - 1
    out = np.zeros(nq)
    for q in prange(nq):
        pos = 0
        s = 0.0
        for i in range(ptr[q], ptr[q + 1]):
            if score[i] >= 0.0:
                s += _gain(y[i], exp_gain) * _discount(pos, log_position)
                pos += 1
        out[q] = s
    return out


def _filtered_dcg_parts(inp, params):
    values = _filtered_dcg_kernel(
        inp.y, inp.score, inp.group_ptr, params["type"] == "Exp", params["denominator"] == "LogPosition"
    )
    return mean_parts(values, np.ones(values.shape, bool), np.ones(values.shape))


# --- cascade metrics: PFound and ERR -------------------------------------------------

@njit(cache=True, parallel=True)
def _pfound_kernel(ranked, ptr, top, decay):
    nq = ptr.shape[0] - 1
    out = np.zeros(nq)
    for q in prange(nq):
        a, b = ptr[q], ptr[q + 1]
        look = 1.0
        s = 0.0
        for r in range(min(top, b - a)):
            rel = ranked[a + r]
            s += look * rel
            look *= (1.0 - rel) * decay
        out[q] = s
    return out


@njit(cache=True, parallel=True)
def _err_kernel(ranked, ptr, top):
    nq = ptr.shape[0] - 1
    out = np.zeros(nq)
    for q in prange(nq):
        a, b = ptr[q], ptr[q + 1]
        still = 1.0
        s = 0.0
        for r in range(min(top, b - a)):
            rel = ranked[a + r]
            s += still * rel / (r + 1.0)
            still *= 1.0 - rel
        out[q] = s
    return out


def _pfound_parts(inp, params):
    values = _pfound_kernel(
        ranked_labels(inp, params["ties"]), inp.group_ptr, _cutoff(params["top"]), params["decay"]
    )
    return mean_parts(values, np.ones(values.shape, bool), inp.group_weight)


#: largest label for which ``2^label`` times any realistic number of documents stays finite
EXP_LABEL_LIMIT = 1000.0


def err_probabilities(y: np.ndarray, params: dict) -> np.ndarray:
    """Stopping probabilities of ERR: labels themselves (``type=Probability``,
    CatBoost) or Burges' graded mapping ``R = (2^l - 1) / 2^l_max``
    (``type=Graded``) with ``l_max = max_label``, the top grade of the label
    scale (a constant, so a query's value never depends on other queries).

    Computed as ``2^(l - l_max) - 2^(-l_max)``: exact for every
    ``0 <= l <= l_max`` without forming ``2^l`` (no overflow for any label).
    """
    if params["type"] == "Probability":
        return y
    l_max = float(params["max_label"])
    return np.exp2(y - l_max) - np.exp2(-l_max)


def _err_parts(inp, params):
    probs = err_probabilities(inp.y, params)
    ranked = ranked_labels(inp.with_labels(probs), params["ties"])
    values = _err_kernel(ranked, inp.group_ptr, _cutoff(params["top"]))
    return mean_parts(values, np.ones(values.shape, bool), inp.group_weight)


def _check_err_labels(y, params):
    if params["type"] == "Probability":
        try:
            check_finite_labels_in(0.0, 1.0, "ERR:type=Probability", "labels (probabilities)")(y, params)
        except ValueError as err:  # graded labels (0-4) under CatBoost's default type: say what reads them
            raise ValueError(f"{err}; for graded relevance labels use ERR:type=Graded (R = (2^l - 1) / 2^l_max, "
                             "l_max = max_label, 4 by default)") from None
        return
    l_max = params["max_label"]
    if not (np.isfinite(l_max) and l_max >= 0):
        raise ValueError(f"ERR:type=Graded needs max_label >= 0 (the top grade of the label scale); "
                         f"got {l_max:g}")
    check_finite_labels_in(0.0, np.inf, "ERR:type=Graded", "graded labels")(y, params)
    if np.any(y > l_max):
        row = int(np.argmax(y > l_max))
        raise ValueError(
            f"ERR:type=Graded has max_label={l_max:g} but row {row} has label {y[row]:g}; "
            f"set max_label to the top grade of your label scale (ERR:type=Graded;max_label=...)"
        )


def _check_exp_gain(metric: str):
    """Labels for ``type=Exp`` (gain ``2^l - 1``): finite and at most EXP_LABEL_LIMIT."""

    def check(y, params):
        if params["type"] != "Exp":
            return
        bad = ~np.isfinite(y) | (y > EXP_LABEL_LIMIT)
        if np.any(bad):
            row = int(np.argmax(bad))
            raise ValueError(
                f"{metric}:type=Exp: label {y[row]:g} (row {row}) is too large for the gain 2^l - 1 "
                f"(labels up to {EXP_LABEL_LIMIT:g} keep it finite); use type=Base or smaller labels"
            )

    return check


_NDCG_EXP_GAIN = _check_exp_gain("NDCG")


def _check_ndcg_labels(y, params):
    """NDCG's labels: >= 0, then the gain's own limit. A negative gain lets the ideal order's DCG be 0 or
    below, so a wrongly ordered query would score 1 (CatBoost's eval_metric does so) or fall outside [0, 1]."""
    if np.any(y < 0):
        row = int(np.argmax(y < 0))
        raise ValueError(
            f"NDCG needs labels >= 0 (relevance grades); row {row} has label {y[row]:g}. With a negative gain "
            f"the ideal DCG is no upper bound; DCG takes any label"
        )
    _NDCG_EXP_GAIN(y, params)


# --- binary-relevance metrics: PrecisionAt, RecallAt, MAP, MRR; AverageGain -----------

# modes of _binary_kernel
_PRECISION, _RECALL, _AP, _RR, _AVG_GAIN = 0, 1, 2, 3, 4
# MAP denominators
_NORM = {"min": 0, "retrieved": 1, "all": 2, "top": 1}


@njit(cache=True, parallel=True)
def _binary_kernel(ranked, ptr, top, border, mode, norm):
    """Per-query value and whether the query has a relevant document."""
    nq = ptr.shape[0] - 1
    out = np.zeros(nq)
    has_rel = np.zeros(nq, dtype=np.bool_)
    for q in prange(nq):
        a, b = ptr[q], ptr[q + 1]
        n = b - a
        k = min(top, n)
        total_rel = 0
        for r in range(n):
            if ranked[a + r] > border:
                total_rel += 1
        has_rel[q] = total_rel > 0
        hits = 0
        acc = 0.0
        for r in range(k):
            lab = ranked[a + r]
            if mode == 4:
                acc += lab
            elif lab > border:
                hits += 1
                if mode == 2:
                    acc += hits / (r + 1.0)
                elif mode == 3 and hits == 1:
                    acc = 1.0 / (r + 1.0)
        if mode == 0:
            # norm 0: min(top, n) (CatBoost); otherwise the cutoff itself (trec_eval)
            out[q] = hits / (k if (norm == 0 or top >= _ALL) else top)
        elif mode == 1:
            out[q] = hits / total_rel if total_rel > 0 else 0.0
        elif mode == 2:
            if norm == 0:
                d = min(total_rel, k)
            elif norm == 1:
                d = hits
            else:
                d = total_rel
            out[q] = acc / d if d > 0 else 0.0
        elif mode == 3:
            out[q] = acc
        else:
            out[q] = acc / k
    return out, has_rel


def _binary_parts(mode, weighted):
    def compute(inp, params):
        border = params.get("border", -np.inf)
        values, has_rel = _binary_kernel(
            ranked_labels(inp, params["ties"]), inp.group_ptr, _cutoff(params["top"]), border, mode,
            _NORM[params.get("norm", "min")],
        )
        counted = np.ones(values.shape, bool)
        if "empty" in params:
            fill, count_empty = _empty_handling(params["empty"])
            values = np.where(has_rel, values, fill)
            counted = has_rel | count_empty
        gw = inp.group_weight if weighted else np.ones(values.shape)
        return mean_parts(values, counted, gw)

    return compute


# --- definitions ---------------------------------------------------------------------

_DCG_PARAMS = (top_param(), GAIN_TYPE, DENOMINATOR, USE_WEIGHTS_TRUE, TIES)
_PROB_LABELS = check_finite_labels_in(0.0, 1.0, "PFound", "labels (probabilities)")

DEFINITIONS = [
    MetricDef("DCG", _DCG_PARAMS, True, _dcg_parts, check_labels=_check_exp_gain("DCG"),
              doc="discounted cumulative gain of the top documents", query_weights=True),
    MetricDef("NDCG", _DCG_PARAMS + (empty_param(1.0),), True, _ndcg_parts,
              check_labels=_check_ndcg_labels,
              doc="DCG divided by the DCG of the ideal order", query_weights=True),
    MetricDef("FilteredDCG",
              (Param("type", "Base", parse_choice, ("Base", "Exp"), GAIN_TYPE.doc),
               Param("denominator", "Position", parse_choice, ("LogPosition", "Position"), DENOMINATOR.doc)),
              True, _filtered_dcg_parts, check_labels=_check_exp_gain("FilteredDCG"),
              doc="DCG of the documents with score >= 0, in input order", reads_order_only=False),
    MetricDef("PFound",
              (Param("decay", 0.85, parse_unit_interval, None, "probability of continuing after a document"),
               top_param(), USE_WEIGHTS_TRUE, TIES),
              True, _pfound_parts, check_labels=_PROB_LABELS,
              doc="Yandex pFound: probability the user finds a relevant document", query_weights=True),
    MetricDef("AverageGain",
              (Param("top", REQUIRED, parse_top, None, "number of top documents averaged"),
               USE_WEIGHTS_TRUE, TIES),
              True, _binary_parts(_AVG_GAIN, weighted=True),
              doc="mean label of the top documents", query_weights=True,
              aliases=("QueryAverage",)),  # CatBoost's newer name
    MetricDef("PrecisionAt",
              (top_param(), border_param(), UNWEIGHTED_USE_WEIGHTS, TIES,
               Param("norm", "min", parse_choice, ("min", "top"),
                     "denominator: min = min(top, query size) (CatBoost), top = top (trec_eval)")),
              True, _binary_parts(_PRECISION, False),
              doc="share of relevant documents (label > border) in the top"),
    MetricDef("RecallAt", (top_param(), border_param(), UNWEIGHTED_USE_WEIGHTS, TIES, empty_param(1.0)), True,
              _binary_parts(_RECALL, False),
              doc="share of the relevant documents found in the top"),
    MetricDef("MAP",
              (top_param(), border_param(), UNWEIGHTED_USE_WEIGHTS, TIES, empty_param(0.0),
               Param("norm", "min", parse_choice, ("min", "retrieved", "all"),
                     "AP denominator: min = min(#relevant, top) (CatBoost), retrieved = relevant in top, "
                     "all = every relevant document (trec_eval)")),
              True, _binary_parts(_AP, False),
              doc="mean over queries of average precision"),
    MetricDef("ERR",
              (top_param(),
               Param("type", "Probability", parse_choice, ("Probability", "Graded"),
                     "Probability: labels are stopping probabilities in [0, 1] (CatBoost); "
                     "Graded: R = (2^l - 1) / 2^l_max (Burges, Chapelle)"),
               Param("max_label", 4.0, parse_float, None,
                     "l_max for type=Graded: the top grade of the label scale (a constant: "
                     "4 = the 0-4 web-search scale; a larger label is an error)"),
               USE_WEIGHTS_TRUE, TIES),
              True, _err_parts, check_labels=_check_err_labels,
              doc="expected reciprocal rank of the cascade model", query_weights=True),
    MetricDef("MRR", (top_param(), border_param(), USE_WEIGHTS_TRUE, TIES, empty_param(0.0)), True,
              _binary_parts(_RR, weighted=True),
              doc="reciprocal rank of the first relevant document", query_weights=True),
]

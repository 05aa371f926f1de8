"""``score(X, y, qid=...)`` of the SVM, LP and neural rankers (RankerScoreMixin).

Every expected value is an independent ``metricrank.evaluate`` of the ranker's own
predictions with the default metric written out (the metric each ranker optimises,
with its own ``border``). The rankers with a ``border`` are fitted with
``border=1``, where ``label > border`` differs from the catalogue's default
border (0.5) and from 0 on the 0-4 labels of ``make_ltr``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GroupKFold, cross_val_score

from metricrank import RankingDataset, evaluate, make_ltr
from metricrank.data import OneQueryWarning
from metricrank.learners.lp_ranker import LPRanker
from metricrank.learners.svm_acc import SVMAcc
from metricrank.learners.svm_map import SVMMAP
from metricrank.learners.svm_roc import SVMROCArea, SVMROCAreaMultiClass

try:  # the neural rankers need the optional torch extra; the others are tested without it
    import torch  # noqa: F401

    from metricrank.learners import LambdaRank, RankNet
except ImportError:
    LambdaRank = RankNet = None

OTHER = "NDCG:top=5"  # a metric none of them defaults to

#: (estimator, default metric written out, predict needs the queries)
CASES = {
    "SVMMAP": (SVMMAP(C=1.0, max_iter=20, border=1.0), "MAP:border=1", False),
    "SVMROCArea": (SVMROCArea(C=1.0, max_iter=20, border=1.0), "ROCArea:border=1", False),
    "SVMROCAreaMultiClass": (SVMROCAreaMultiClass(C=1.0, max_iter=20), "MAUC", False),
    "SVMAcc": (SVMAcc(C=1.0, border=1.0), "MAP:border=1", False),
    "SVMAcc-acc3": (SVMAcc(C=1.0, variant="acc3", n_thresholds=5, border=1.0), "MAP:border=1", True),
    "SVMAcc-acc4": (SVMAcc(C=1.0, variant="acc4", n_thresholds=5, border=1.0), "MAP:border=1", True),
    "LPRanker": (LPRanker(kernel="linear", border=1.0), "ROCArea:border=1", False),
}
if RankNet is not None:
    CASES.update({
        "RankNet": (RankNet(hidden_layer_sizes=(8,), max_epochs=2, random_state=0), "NDCG:top=10", False),
        "LambdaRank-MAP": (LambdaRank("MAP", hidden_layer_sizes=(8,), max_epochs=2, random_state=0), "MAP", False),
        "LambdaRank-RankNet": (LambdaRank("RankNet", hidden_layer_sizes=(8,), max_epochs=2, random_state=0),
                               "NDCG:top=10", False),
    })


@pytest.fixture(scope="module")
def data():
    ds = make_ltr(15, n_features=6, docs_per_query=(5, 10), random_state=0)
    return ds.X, ds.y, ds.qid


def _sizes(qid):
    _, first, counts = np.unique(qid, return_index=True, return_counts=True)
    return counts[np.argsort(first)]


def _fit(est, X, y, qid):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter kept small on purpose
        return clone(est).fit(X, y, qid=qid)


def _predict(est, X, qid, with_queries):
    return est.predict(X, qid=qid) if with_queries else est.predict(X)


@pytest.fixture(scope="module")
def fitted(data):
    X, y, qid = data
    return {name: _fit(est, X, y, qid) for name, (est, _, _) in CASES.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_score_is_the_rankers_own_metric_per_query(name, data, fitted):
    X, y, qid = data
    _, spec, with_queries = CASES[name]
    model = fitted[name]
    scores = _predict(model, X, qid, with_queries)
    assert model.score(X, y, qid=qid) == pytest.approx(evaluate(y, scores, qid=qid, metric=spec), rel=1e-12)
    # group= is the same queries
    assert model.score(X, y, group=_sizes(qid)) == pytest.approx(model.score(X, y, qid=qid), rel=1e-12)
    # a metric argument wins over the default
    assert model.score(X, y, qid=qid, metric=OTHER) == pytest.approx(
        evaluate(y, scores, qid=qid, metric=OTHER), rel=1e-12)
    # a RankingDataset carries the labels and the queries, as in fit and predict
    ds = RankingDataset(X, y, qid=qid)
    assert model.score(ds) == pytest.approx(evaluate(y, scores, qid=qid, metric=spec), rel=1e-12)
    assert model.score(ds, metric=OTHER) == pytest.approx(evaluate(y, scores, qid=qid, metric=OTHER), rel=1e-12)


def test_score_reads_a_datasets_own_weights_and_refuses_arrays_beside_it():
    from metricrank import LambdaMART

    ds = make_ltr(20, n_features=6, docs_per_query=(5, 10), random_state=1)
    weighted = RankingDataset(ds.X, ds.y, group_ptr=ds.group_ptr, group_weight=np.arange(ds.n_queries) + 1.0)
    model = LambdaMART("NDCG:top=5", n_estimators=3, min_data_in_leaf=3).fit(ds)
    s = model.predict(ds.X)
    value = model.score(weighted)  # NDCG reads per-query weights: the weighted mean over queries
    per_query = evaluate(ds, s, metric="NDCG:top=5", per_query=True)
    assert value == pytest.approx(np.sum(per_query * weighted.group_weight) / weighted.group_weight.sum(), rel=1e-12)
    assert value != pytest.approx(model.score(ds))
    for extra in ({"y": ds.y}, {"qid": ds.qid}, {"group": ds.query_sizes}, {"sample_weight": np.ones(ds.n_docs)}):
        with pytest.raises(ValueError, match=f"RankingDataset or arrays.*got {next(iter(extra))} with the dataset"):
            model.score(ds, **extra)
    with pytest.raises(ValueError, match="score needs y"):
        model.score(ds.X, qid=ds.qid)


def test_the_border_changes_the_default_metric(data, fitted):
    # guards the tests above: with border=1 the catalogue's default border would give another value
    X, y, qid = data
    s = fitted["SVMMAP"].predict(X)
    assert evaluate(y, s, qid=qid, metric="MAP:border=1") != pytest.approx(evaluate(y, s, qid=qid, metric="MAP"))
    s = fitted["LPRanker"].predict(X)
    assert evaluate(y, s, qid=qid, metric="ROCArea:border=1") != pytest.approx(
        evaluate(y, s, qid=qid, metric="ROCArea"))


@pytest.mark.parametrize("name", ["SVMMAP", "LPRanker"])
def test_score_without_queries_says_it_scores_one_query(name, data, fitted):
    # (it did so silently: a search without metadata routing calls score(X, y), one query over the whole fold)
    X, y, qid = data
    model, spec = fitted[name], CASES[name][1]
    with pytest.warns(OneQueryWarning, match=f"score: no qid or group given: all {len(y)} rows are scored as one"):
        value = model.score(X, y)
    assert value == pytest.approx(evaluate(y, model.predict(X), metric=spec), rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneQueryWarning)
        model.score(X, y, qid=qid)
        model.score(X[:1], y[:1])  # a single row is one query whatever its id


@pytest.mark.parametrize("name", ["SVMAcc-acc3", "SVMAcc-acc4"])
def test_per_query_variants_need_the_queries_in_score_too(name, data, fitted):
    X, y, _ = data
    with pytest.raises(ValueError, match="normalises features per query"):
        fitted[name].score(X, y)


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith(("RankNet", "LambdaRank"))])
def test_a_nets_fit_evaluates_by_its_score_metric(name, data):
    # fit's default evaluation metric and score's default are one method, so they agree
    X, y, qid = data
    est, spec, _ = CASES[name]
    model = clone(est).fit(X, y, qid=qid, eval_set=[(X, y, qid)])
    assert list(model.evals_result_["training"]) == [spec]  # the training data itself: LightGBM's name


@pytest.mark.parametrize("name", list(CASES))
def test_make_scorer_gives_predict_the_queries_where_it_needs_them(name, data, fitted):
    from metricrank import make_scorer

    X, y, qid = data
    _, _, with_queries = CASES[name]
    model = fitted[name]
    expected = evaluate(y, _predict(model, X, qid, with_queries), qid=qid, metric=OTHER)
    assert make_scorer(OTHER)(model, X, y, qid=qid) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("labels", ["pm1", "bool"])
def test_lp_ranker_scores_its_own_positives_without_border(labels, data):
    # without border LPRanker takes {0, 1}, {-1, 1} or bool labels; score's ROCArea has the same positives
    X, y, qid = data
    positive = y > 1
    y_bin = np.where(positive, 1, -1) if labels == "pm1" else positive
    model = LPRanker(kernel="linear").fit(X, y_bin, qid=qid)
    expected = evaluate(positive.astype(np.float64), model.predict(X), qid=qid, metric="ROCArea:border=0.5")
    assert model.score(X, y_bin, qid=qid) == pytest.approx(expected, rel=1e-12)
    # graded labels without border: fit refuses them, and so does score's default metric
    with pytest.raises(ValueError, match="pass border="):
        model.score(X, y, qid=qid)


@pytest.mark.parametrize("name", list(CASES))
def test_search_with_default_scoring_routes_qid_to_score(name, data):
    X, y, qid = data
    est, spec, with_queries = CASES[name]
    splits = list(GroupKFold(3).split(X, y, groups=qid))
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        routed = clone(est).set_fit_request(qid=True).set_score_request(qid=True)
        got = cross_val_score(routed, X, y, cv=GroupKFold(3), params={"qid": qid, "groups": qid},
                              error_score="raise")
    expected, one_query = [], []
    for train, test in splits:
        model = _fit(est, X[train], y[train], qid[train])
        scores = _predict(model, X[test], qid[test], with_queries)
        expected.append(evaluate(y[test], scores, qid=qid[test], metric=spec))
        one_query.append(evaluate(y[test], scores, metric=spec))
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    # scoring each fold as one query (qid not routed to score) would give other numbers
    assert not np.allclose(got, one_query, rtol=1e-9)

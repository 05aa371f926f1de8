"""LightGBM's spellings of a fit's eval metrics: ``eval_metric`` and ``eval_at``.

Oracles: metricrank's own ``evaluate`` of ``predict(X, num_iteration=k)`` for the values recorded tree by tree, and
the explicitly written specs (``eval_metrics=["MAP:top=3", ...]``) for what ``eval_at`` stands for. That
``preset="lightgbm"`` makes these metrics LightGBM's own is tested against LightGBM in test_metrics_positional.py.
"""

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr


@pytest.fixture(scope="module")
def train():
    return make_ltr(80, docs_per_query=(8, 20), n_features=6, n_informative=3, relevance="nonlinear", noise=2.0,
                    random_state=0)


@pytest.fixture(scope="module")
def vali():
    return make_ltr(30, docs_per_query=(8, 20), n_features=6, n_informative=3, relevance="nonlinear", noise=2.0,
                    random_state=1)


def _ranker(metric="NDCG:top=10;type=Exp", **params):
    return LambdaMART(metric, **{"n_estimators": 12, "learning_rate": 0.3, "random_state": 0, "n_jobs": 1, **params})


def test_eval_at_evaluates_each_metric_at_each_cutoff_tree_by_tree(train, vali):
    model = _ranker(preset="lightgbm").fit(train, eval_set=[vali], eval_names=["vali"], eval_metric=["ndcg", "map"],
                                           eval_at=[1, 3])
    curves = model.evals_result_["vali"]
    assert list(curves) == ["NDCG:top=1", "NDCG:top=3", "MAP:top=1", "MAP:top=3"]
    for spec, curve in curves.items():
        expected = [evaluate(vali.y, model.predict(vali.X, num_iteration=k), qid=vali.qid, metric=spec,
                             preset="lightgbm") for k in range(1, model.n_estimators_ + 1)]
        np.testing.assert_allclose(curve, expected, rtol=1e-12)
    assert curves["NDCG:top=1"] != curves["NDCG:top=3"]  # the cutoffs were applied, not one metric twice


def test_eval_at_is_the_specs_written_out(train, vali):
    def fit(**kwargs):
        return _ranker().fit(train, eval_set=[vali], eval_names=["vali"], early_stopping_rounds=2, **kwargs)

    short = fit(eval_metric="map", eval_at=(3, 5))
    written = fit(eval_metrics=["MAP:top=3", "MAP:top=5"])
    assert short.evals_result_ == written.evals_result_
    assert short.best_iteration_ == written.best_iteration_
    np.testing.assert_array_equal(short.predict(vali.X), written.predict(vali.X))


def test_the_first_metrics_first_cutoff_drives_early_stopping(train, vali):
    def best(**kwargs):
        # one model: four averaged ones smooth the curves until the two cutoffs stop at the same tree here
        return _ranker("MAP", n_estimators=40, n_models=1).fit(train, eval_set=[vali], early_stopping_rounds=3,
                                                               **kwargs).best_iteration_

    by_one, by_ten = best(eval_metrics=["NDCG:top=1"]), best(eval_metrics=["NDCG:top=10"])
    assert by_one != by_ten  # the data tell the two cutoffs apart
    assert best(eval_metric="NDCG", eval_at=[1, 10]) == by_one
    assert best(eval_metric="NDCG", eval_at=[10, 1]) == by_ten


@pytest.mark.parametrize("metric, eval_at, expected", [
    ("NDCG:top=10;type=Exp", [3], ["NDCG:top=3;type=Exp"]),  # the default spec's own cutoff is replaced
    ("MAP", 5, ["MAP:top=5"]),
    ("MRR", [1, 2], ["MRR:top=1", "MRR:top=2"]),
])
def test_eval_at_sets_the_cutoff_of_the_objectives_own_metric(train, vali, metric, eval_at, expected):
    model = _ranker(metric, n_estimators=2).fit(train, eval_set=[vali], eval_names=["vali"], eval_at=eval_at)
    assert list(model.evals_result_["vali"]) == expected


@pytest.mark.parametrize("kwargs, message", [
    ({"eval_metric": "MAP", "eval_metrics": ["MAP"]}, "pass one of the two"),
    ({"eval_metric": "AUC", "eval_at": 3}, "AUC has none"),
    ({"eval_metric": "ndcg@5", "eval_at": [3]}, "writes its cutoff"),
    ({"eval_at": 0}, "eval_at must be a positive integer"),
    ({"eval_at": [3, 3]}, "distinct"),
    ({"eval_at": True}, "eval_at must be"),
    ({"eval_at": "10"}, "eval_at must be"),
    ({"eval_metric": len}, "metric specs"),
    ({"eval_metric": 5}, "eval metrics are metric specs such as"),
    # a repeated curve name would interleave two curves under one key of evals_result_
    ({"eval_metrics": ["MAP", "MAP"]}, "eval metrics must be distinct"),
    ({"eval_metric": ["ndcg", "NDCG"], "eval_at": 5}, r"distinct.*'NDCG:top=5', 'NDCG:top=5'"),
    ({"eval_set_twice": True, "eval_names": ["a", "a"]}, "eval_names must be distinct"),
    ({"eval_names": ["a", "b"]}, "eval_names has 2 entries and eval_set 1"),
    ({"eval_qid": []}, "eval_qid has 0 entries and eval_set 1"),
])
def test_bad_eval_arguments_are_refused_before_training(train, vali, monkeypatch, kwargs, message):
    def no_training(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr("metricrank.learners.gbranker.as_training_data", no_training)
    eval_set = [vali, vali] if kwargs.pop("eval_set_twice", False) else [vali]
    with pytest.raises((ValueError, TypeError), match=message):
        GBRanker("YetiRank", n_estimators=2).fit(train, eval_set=eval_set, **kwargs)


def test_one_eval_name_may_be_a_string(train, vali):
    model = GBRanker("YetiRank", n_estimators=2).fit(train, eval_set=(vali.X, vali.y, vali.qid), eval_names="vali")
    assert list(model.evals_result_) == ["vali"] and len(model.evals_result_["vali"]["NDCG:top=10"]) == 2


def test_nets_take_the_same_spellings(train, vali):
    pytest.importorskip("torch")
    from metricrank import RankNet

    model = RankNet(max_epochs=2, random_state=0).fit(train, eval_set=[vali], eval_names=["vali"],
                                                       eval_metric="ndcg", eval_at=[2, 4])
    assert list(model.evals_result_["vali"]) == ["NDCG:top=2", "NDCG:top=4"]

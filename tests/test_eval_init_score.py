"""``fit(init_score=..., eval_init_score=[...])``: the eval sets start where the training does (LightGBM's).

Oracles: a warm start from a base model (``init_model``), whose scores on the training and eval rows are exactly
what ``init_score`` and ``eval_init_score`` hand over, so both fits must grow the same trees and read the same curves;
and ``evaluate`` of the eval set's starting scores plus ``predict(X, num_iteration=k)``.
"""

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr


@pytest.fixture(scope="module")
def data():
    def draw(n, seed):
        return make_ltr(n, docs_per_query=(8, 20), n_features=6, n_informative=3, relevance="nonlinear", noise=2.0,
                        random_state=seed)

    return draw(80, 0), draw(30, 1)


@pytest.fixture(scope="module")
def base(data):
    train, _ = data
    return GBRanker("PairLogit", n_estimators=2, learning_rate=0.1, random_state=0, n_jobs=1).fit(train)


def _ranker():
    return LambdaMART("NDCG:top=10;type=Exp", n_estimators=30, learning_rate=0.3, random_state=0, n_jobs=1)


def test_eval_init_score_reads_the_curves_a_warm_start_reads(data, base):
    train, vali = data
    warm = _ranker().fit(train, eval_set=[vali], early_stopping_rounds=3, init_model=base)
    scores = _ranker().fit(train, eval_set=[vali], early_stopping_rounds=3, init_score=base.predict(train.X),
                           eval_init_score=[base.predict(vali.X)])
    assert scores.evals_result_ == warm.evals_result_
    assert 1 < scores.best_iteration_ == warm.best_iteration_ < 30
    # init_score is not added at predict (LightGBM's rule), the base model is
    np.testing.assert_allclose(scores.predict(vali.X) + base.predict(vali.X), warm.predict(vali.X), rtol=0,
                               atol=1e-12)


def test_the_curve_is_of_the_starting_scores_plus_the_trees(data, base):
    train, vali = data
    start = base.predict(vali.X)
    model = _ranker().fit(train, eval_set=[vali], init_score=base.predict(train.X), eval_init_score=[start])
    curve = model.evals_result_["valid_0"]["NDCG:top=10;type=Exp"]
    expected = [evaluate(vali, start + model.predict(vali.X, num_iteration=k), metric="NDCG:top=10;type=Exp")
                for k in range(1, 31)]
    np.testing.assert_allclose(curve, expected, rtol=1e-12)
    without = _ranker().fit(train, eval_set=[vali], init_score=base.predict(train.X))
    assert without.evals_result_ != model.evals_result_  # the starting scores count


@pytest.mark.parametrize("make_kwargs, message", [
    (lambda t, v, b: {"eval_init_score": [np.zeros(v.n_docs)]}, "eval_init_score needs init_score"),
    (lambda t, v, b: {"init_score": np.zeros(t.n_docs), "eval_init_score": [np.zeros(3)]},
     r"eval_init_score\[0\] must have shape \("),
    (lambda t, v, b: {"init_score": np.zeros(t.n_docs), "eval_init_score": [np.full(v.n_docs, np.nan)]},
     r"eval_init_score\[0\] must be finite; row 0 is nan"),
    (lambda t, v, b: {"init_score": np.zeros(t.n_docs), "eval_init_score": [None, None]},
     r"one score array \(or None\) per eval set"),
    (lambda t, v, b: {"init_score": np.zeros(t.n_docs), "eval_init_score": np.zeros(v.n_docs)},
     r"one score array \(or None\) per eval set"),
    (lambda t, v, b: {"init_score": np.zeros(t.n_docs), "eval_init_score": "abcd"},
     r"one score array \(or None\) per eval set; got str"),
    (lambda t, v, b: {"init_model": b, "eval_init_score": [None]}, "eval_init_score goes with init_score"),
])
def test_bad_eval_init_score_is_refused_before_training(data, base, monkeypatch, make_kwargs, message):
    train, vali = data

    def no_training(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr("metricrank.learners.gbranker.as_training_data", no_training)
    with pytest.raises(ValueError, match=message):
        GBRanker("YetiRank", n_estimators=2).fit(train, eval_set=[vali], **make_kwargs(train, vali, base))

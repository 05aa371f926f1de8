"""LightGBM's own callbacks in a metricrank fit (``lgb.early_stopping``, ``lgb.record_evaluation``, ...).

The oracles are metricrank's own equivalents, which the suite checks elsewhere: ``early_stopping_rounds`` for
``lgb.early_stopping`` (both stop after that many trees without a strict improvement of the first metric) and
``evals_result_`` for ``lgb.record_evaluation``.
"""

import lightgbm as lgb
import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr


@pytest.fixture(scope="module")
def train():
    return make_ltr(120, docs_per_query=(10, 30), n_features=8, n_informative=4, relevance="nonlinear", noise=2.0,
                    random_state=0)


@pytest.fixture(scope="module")
def vali():
    return make_ltr(40, docs_per_query=(10, 30), n_features=8, n_informative=4, relevance="nonlinear", noise=2.0,
                    random_state=1)


@pytest.mark.parametrize("params", [{}, {"grow_policy": "mixed", "n_models": 2}])
def test_lightgbm_early_stopping_stops_and_predicts_at_its_best_iteration(train, vali, params):
    def fit(**kwargs):
        return LambdaMART("NDCG:top=10", n_estimators=80, learning_rate=0.3, random_state=0, n_jobs=1,
                          **params).fit(train, eval_set=[vali], **kwargs)

    ours = fit(early_stopping_rounds=6)
    theirs = fit(callbacks=[lgb.early_stopping(6, verbose=False)])
    grown = len(ours.evals_result_["valid_0"]["NDCG:top=10"])
    assert 1 < ours.best_iteration_ < grown < 80  # the case is not trivial
    assert theirs.best_iteration_ == ours.best_iteration_ == theirs.n_estimators_ == ours.n_estimators_  # as LGBMRanker
    assert theirs.evals_result_ == ours.evals_result_
    assert theirs.best_score_ == ours.best_score_
    np.testing.assert_array_equal(theirs.predict(vali.X), ours.predict(vali.X))
    np.testing.assert_array_equal(theirs.predict(vali.X), theirs.predict(vali.X, num_iteration=ours.best_iteration_))


def test_lightgbm_record_and_log_evaluation_see_every_eval_set_and_metric(train, vali, capsys):
    recorded = {}
    model = GBRanker("YetiRank", n_estimators=7, random_state=0, n_jobs=1).fit(
        train, eval_set=[train, vali], eval_names=["train", "vali"], eval_metrics=["NDCG:top=5", "MAP"],
        callbacks=[lgb.record_evaluation(recorded), lgb.log_evaluation(period=3)])
    assert recorded == model.evals_result_ and set(recorded["vali"]) == {"NDCG:top=5", "MAP"}
    logged = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert [line.split("\t")[0] for line in logged] == ["[3]", "[6]"]
    assert f"vali's MAP: {recorded['vali']['MAP'][2]:g}" in logged[0]


def test_lightgbm_callbacks_run_in_their_order_beside_metricrank_callbacks(train, vali):
    seen = []

    def ours(info):
        seen.append(("ours", info.iteration, info.higher_is_better[("valid_0", "MAP")]))

    def late(env):
        seen.append(("late", env.iteration, env.end_iteration))

    def early(env):
        seen.append(("early", env.iteration, env.evaluation_result_list[0][:2]))

    late.order, early.order = 30, 10  # LightGBM's protocol: callables marked with an order get its CallbackEnv
    GBRanker("YetiRank", n_estimators=2, random_state=0, n_jobs=1).fit(
        train, eval_set=[vali], eval_metrics=["MAP"], callbacks=[late, ours, early])
    assert seen == [("ours", 1, True), ("early", 0, ("valid_0", "MAP")), ("late", 0, 2),
                    ("ours", 2, True), ("early", 1, ("valid_0", "MAP")), ("late", 1, 2)]


def test_lightgbm_callbacks_that_cannot_run_are_refused_clearly(train, vali):
    model = GBRanker("YetiRank", n_estimators=3, random_state=0, n_jobs=1)
    with pytest.raises(ValueError, match="before an iteration"):
        model.fit(train, eval_set=[vali], callbacks=[lgb.reset_parameter(learning_rate=[0.1, 0.05, 0.01])])
    assert not hasattr(model, "booster_")  # refused before any tree
    with pytest.raises(ValueError, match="lgb.early_stopping needs an eval_set to watch"):
        model.fit(train, callbacks=[lgb.early_stopping(2)])  # nothing to watch: said before any tree

    def plain(env):  # a LightGBM-style function without LightGBM's mark gets metricrank's IterationInfo
        return env.evaluation_result_list

    with pytest.raises(AttributeError, match="'order' attribute"):
        model.fit(train, eval_set=[vali], callbacks=[plain])


def test_the_training_data_among_the_eval_sets_is_named_training_and_not_watched(train, vali):
    # LightGBM's reading: an eval set of the very X and y given to fit is "training", and early stopping skips it
    # (here it watched the last set, the training curve, and never stopped)
    def fit(eval_set, **kwargs):
        return LambdaMART("NDCG:top=10", n_estimators=80, learning_rate=0.3, random_state=0, n_jobs=1).fit(
            train.X, train.y, qid=train.qid, eval_set=eval_set, **kwargs)

    held = (vali.X, vali.y, vali.qid)
    alone = fit([held], early_stopping_rounds=5)
    both = fit([held, (train.X, train.y, train.qid)], early_stopping_rounds=5)
    assert 1 < alone.best_iteration_ < 75 and both.best_iteration_ == alone.best_iteration_
    assert list(both.evals_result_) == ["valid_0", "training"]
    copied = fit([held, (train.X.copy(), train.y, train.qid)], early_stopping_rounds=5)  # another object: watched
    assert list(copied.evals_result_) == ["valid_0", "valid_1"] and copied.best_iteration_ != alone.best_iteration_
    theirs = fit([held, (train.X, train.y, train.qid)], callbacks=[lgb.early_stopping(5, verbose=False)])
    assert theirs.best_iteration_ == alone.best_iteration_  # LightGBM's callback skips "training" as well
    # by the name the training data was given; a patience past the budget: the callback's last-iteration check
    # names the best of the first curve it watches, which was the training curve's (listed first)
    named = fit([(train.X, train.y, train.qid), held], eval_names=["fit", "vali"],
                callbacks=[lgb.early_stopping(200, verbose=False)])
    curve, fitted = named.evals_result_["vali"]["NDCG:top=10"], named.evals_result_["fit"]["NDCG:top=10"]
    assert int(np.argmax(fitted)) != int(np.argmax(curve))  # else the test cannot tell
    assert named.best_iteration_ == int(np.argmax(curve)) + 1
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval set other than the training data"):
        fit([(train.X, train.y, train.qid)], early_stopping_rounds=5)


def test_lightgbm_early_stopping_without_an_eval_set_is_refused_before_any_fit(train, monkeypatch):
    # LightGBM refuses it after the first tree; here the capacity check's fold fits would come first
    import metricrank.learners.gbranker as gbranker

    monkeypatch.setattr(gbranker, "boost_lanes", lambda *a, **k: pytest.fail("trees grown before the check"))
    with pytest.raises(ValueError, match="callbacks: lgb.early_stopping needs an eval_set to watch"):
        LambdaMART("NDCG:top=10", n_estimators=5).fit(train, callbacks=[lgb.early_stopping(3, verbose=False)])

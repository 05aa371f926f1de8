"""Scores after each iteration in one pass (``staged_predict``, and the capacity check's held-out curve).

The oracle is LightGBM itself: ``booster.predict(start_iteration=i, num_iteration=1)`` for each iteration's trees,
and ``predict(X, num_iteration=k)`` for the scores after k iterations, compared bit for bit.
"""

import lightgbm as lgb
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr
from metricrank.learners import _staged
from metricrank.learners._prefix_scores import MAX_KEPT
from metricrank.learners._staged import iteration_outputs, staged_raw_scores


def regression_booster(linear: bool, num_class: int = 1):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 6))
    X[X < -0.5] = 0.0  # sparse rows read as LightGBM reads them
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + rng.normal(scale=0.1, size=600)
    params = {"objective": "regression", "num_leaves": 13, "learning_rate": 0.07, "linear_tree": linear,
              "verbose": -1}
    if num_class > 1:
        y = np.digitize(y, np.quantile(y, np.linspace(0, 1, num_class + 1)[1:-1]))
        params |= {"objective": "multiclass", "num_class": num_class}
    booster = lgb.train(params, lgb.Dataset(X, y), 40)
    held = sp.csr_matrix(X[:150] + rng.normal(scale=0.01, size=(150, 6)))
    return booster, held


@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize("num_class", [1, 3])
@pytest.mark.parametrize("block", [None, 500])
def test_iteration_outputs_are_lightgbms_predictions_iteration_by_iteration(linear, num_class, block, monkeypatch):
    if block is not None:  # 500 leaf indices a block: one to three iterations of 150 rows, so many blocks
        monkeypatch.setattr(_staged, "BLOCK_LEAVES", block)
    booster, held = regression_booster(linear, num_class)
    outputs = list(iteration_outputs(booster, held, 25))  # fewer iterations than the booster holds
    expected = [booster.predict(held, start_iteration=t, num_iteration=1, raw_score=True) for t in range(25)]
    np.testing.assert_array_equal(np.array(outputs), np.array(expected))
    staged = list(staged_raw_scores(booster, held, 25))
    for k in (1, 2, 13, 25):
        np.testing.assert_array_equal(staged[k - 1], booster.predict(held, num_iteration=k, raw_score=True))
    assert list(iteration_outputs(booster, held, 0)) == []
    with pytest.raises(ValueError, match="n_iterations=41, but the booster holds 40 iterations"):
        next(iteration_outputs(booster, held, 41))


@pytest.fixture(scope="module")
def train():
    return make_ltr(80, docs_per_query=(10, 30), n_features=8, n_informative=5, relevance="nonlinear", noise=0.5,
                    random_state=0)


@pytest.fixture(scope="module")
def vali():
    return make_ltr(30, docs_per_query=(10, 30), n_features=8, n_informative=5, relevance="nonlinear", noise=0.5,
                    random_state=1)


def lightgbm_scores(model, X, k):
    """The oracle: LightGBM's raw scores of the first k iterations, the mean over the models of an iteration, plus
    a warm start's base model (``predict`` keeps nothing for a call with every tree)."""
    X = X if sp.issparse(X) else np.asarray(X)
    raw = model.booster_.predict(X, num_iteration=k, raw_score=True)
    scores = raw.mean(axis=1) if raw.ndim == 2 else raw
    return scores if model.init_model_ is None else scores + model.init_model_.predict(X)


def assert_staged_is_predict(model, X, inputs=None):
    staged = list(model.staged_predict(X if inputs is None else inputs))  # every array kept: none is reused
    assert len(staged) == model.n_estimators_
    for k, scores in enumerate(staged, start=1):
        np.testing.assert_array_equal(scores, model.predict(X, num_iteration=k))
        np.testing.assert_array_equal(scores, lightgbm_scores(model, X, k))


@pytest.mark.parametrize("params", [{"grow_policy": "leafwise", "n_models": 1},
                                    {"grow_policy": "leafwise", "n_models": 3},
                                    {"grow_policy": "mixed", "n_models": 2},
                                    {"grow_policy": "symmetric", "n_models": 1, "max_depth": 3}])
def test_staged_predict_is_predict_at_each_iteration(train, vali, params):
    model = LambdaMART("NDCG:top=10", n_estimators=20, random_state=3, n_jobs=1, **params).fit(train)
    assert model.booster_.num_model_per_iteration() == params["n_models"] * (2 if params["grow_policy"] == "mixed"
                                                                              else 1)
    assert_staged_is_predict(model, vali.X)


def test_staged_predict_gives_every_iteration_and_the_validation_curve(train, vali):
    model = LambdaMART("NDCG:top=10", n_estimators=40, random_state=3, n_jobs=1)
    model.fit(train, eval_set=[vali], eval_names=["vali"], early_stopping_rounds=3)
    recorded = model.evals_result_["vali"]["NDCG:top=10"]
    assert model.best_iteration_ == model.n_estimators_ < len(recorded)  # the trees after the best are dropped
    curve = [evaluate(vali, scores, metric="NDCG:top=10") for scores in model.staged_predict(vali)]
    np.testing.assert_allclose(curve, recorded[:model.best_iteration_], rtol=0, atol=1e-12)


def test_staged_predict_adds_the_base_model_also_after_loading(train, vali, tmp_path):
    base = LambdaMART("NDCG:top=10", n_estimators=8, random_state=0, n_jobs=1).fit(train)
    model = GBRanker("YetiRank", n_estimators=6, random_state=0, n_jobs=1).fit(train, init_model=base)
    staged = list(model.staged_predict(vali.X))
    np.testing.assert_array_equal(staged[-1], model.predict(vali.X))
    assert not np.array_equal(staged[-1], model.predict(vali.X) - base.predict(vali.X))
    assert_staged_is_predict(model, vali.X)
    model.save(tmp_path / "m.json")
    assert_staged_is_predict(GBRanker.load(tmp_path / "m.json"), vali.X)


def test_staged_predict_reads_frames_and_checks_x_when_called(train, vali):
    pd = pytest.importorskip("pandas")
    columns = [f"f{i}" for i in range(train.n_features)]
    model = GBRanker("YetiRank", n_estimators=5, random_state=0, n_jobs=1)
    model.fit(pd.DataFrame(train.X, columns=columns), train.y, qid=train.qid)
    assert_staged_is_predict(model, pd.DataFrame(vali.X, columns=columns))
    with pytest.raises(ValueError, match="features"):
        model.staged_predict(vali.X[:, :5])  # raised here, before any scores are asked for
    with pytest.raises(ValueError, match="f3"):
        model.staged_predict(pd.DataFrame(vali.X, columns=columns).drop(columns="f3"))
    with pytest.raises(NotFittedError):
        GBRanker("YetiRank").staged_predict(vali.X)


class CountingBooster:
    """A booster that counts the iterations its ``predict`` calls read."""

    def __init__(self, booster):
        self.booster, self.iterations = booster, 0

    def predict(self, X, start_iteration=0, num_iteration=None, **kwargs):
        self.iterations += num_iteration if num_iteration and num_iteration > 0 else self.booster.current_iteration()
        return self.booster.predict(X, start_iteration=start_iteration, num_iteration=num_iteration, **kwargs)

    def __getattr__(self, name):
        return getattr(self.booster, name)


@pytest.mark.parametrize("params", [{"grow_policy": "leafwise", "n_models": 1}, {"grow_policy": "mixed", "n_models": 2}])
@pytest.mark.parametrize("form", ["dense", "float32", "csr"])
def test_predict_loop_over_iterations_reads_each_tree_once_and_gives_lightgbms_scores(train, vali, params, form):
    model = LambdaMART("NDCG:top=10", n_estimators=20, random_state=3, n_jobs=1, **params).fit(train)
    X = {"dense": vali.X, "float32": vali.X.astype(np.float32), "csr": sp.csr_matrix(vali.X)}[form]
    expected = {k: lightgbm_scores(model, X, k) for k in range(21)}
    counting = model.booster_ = CountingBooster(model.booster_)
    for k in range(1, 20):  # the validation curve's loop: one iteration more each call
        np.testing.assert_array_equal(model.predict(X, num_iteration=k), expected[k])
    assert counting.iterations == 19  # not 1 + 2 + ... + 19
    for k in (3, 7, 7, 12, 5, 20, 0, 6):  # down, equal, up by several, every tree (20 and 0: not kept)
        np.testing.assert_array_equal(model.predict(X, num_iteration=k), expected[k])
    # 3 and 5 from scratch (fewer than kept), 7, 7 and 12 from the kept 3, 7 and 7; 20 and 0 every tree, not kept,
    # so 6 grows the kept 5
    assert counting.iterations == 19 + 3 + (7 - 3) + 0 + (12 - 7) + 5 + 20 + 20 + (6 - 5)
    np.testing.assert_array_equal(model.predict(X[:7], num_iteration=8), expected[8][:7])  # other rows


def test_predict_keeps_no_scores_for_rows_changed_in_place_or_another_fit(train, vali):
    model = LambdaMART("NDCG:top=10", n_estimators=20, random_state=3, n_jobs=1).fit(train)
    X = vali.X.copy()
    model.predict(X, num_iteration=5)[:] = 0.0  # the caller's array: changing it changes nothing kept
    np.testing.assert_array_equal(model.predict(X, num_iteration=5), lightgbm_scores(model, X, 5))
    X[:, 0] += 1.0  # the same array object, other values
    np.testing.assert_array_equal(model.predict(X, num_iteration=6), lightgbm_scores(model, X, 6))
    model.predict(X, num_iteration=5)
    model.set_params(random_state=4).fit(train)  # another booster: the kept scores were the first one's
    np.testing.assert_array_equal(model.predict(X, num_iteration=6), lightgbm_scores(model, X, 6))


def test_predict_keeps_scores_only_for_a_prefix_and_they_pickle_empty(train, vali):
    import copy
    import pickle

    model = LambdaMART("NDCG:top=10", n_estimators=10, random_state=3, n_jobs=1).fit(train)
    model.predict(vali.X)
    model.predict(vali.X, num_iteration=10)
    assert "_prefix_cache" not in model.__dict__  # every tree, as serving scores: nothing kept (predict leaves
    model.predict(vali.X, num_iteration=4)        # scikit-learn's __dict__ as it was)
    assert len(model._prefix_cache._entries) == 1
    for twin in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert not twin._prefix_cache._entries
        np.testing.assert_array_equal(twin.predict(vali.X, num_iteration=5), lightgbm_scores(model, vali.X, 5))


def test_predict_keeps_the_scores_of_several_sets_of_rows(train, vali):
    model = LambdaMART("NDCG:top=10", n_estimators=20, random_state=3, n_jobs=1).fit(train)
    sets = [vali.X, train.X, vali.X[:50], train.X[:50], vali.X[50:]]  # one more than are kept
    expected = [{k: lightgbm_scores(model, X, k) for k in range(1, 20)} for X in sets]
    counting = model.booster_ = CountingBooster(model.booster_)
    for k in range(1, 20):  # a validation and a test curve in one loop: each call on other rows than the last
        for X, scores in zip(sets[:MAX_KEPT], expected):
            np.testing.assert_array_equal(model.predict(X, num_iteration=k), scores[k])
    assert counting.iterations == MAX_KEPT * 19
    # the first set scored again (kept), then the fifth pushes out the least recently scored: the second
    for i, read in ((0, 0), (MAX_KEPT, 19), (0, 0), (1, 19)):
        counting.iterations = 0
        np.testing.assert_array_equal(model.predict(sets[i], num_iteration=19), expected[i][19])
        assert counting.iterations == read


def test_predict_loop_reads_a_warm_starts_base_model_once(train, vali):
    base = LambdaMART("NDCG:top=10", n_estimators=8, random_state=0, n_jobs=1).fit(train)
    model = GBRanker("YetiRank", n_estimators=10, random_state=0, n_jobs=1).fit(train, init_model=base)
    expected = {k: lightgbm_scores(model, X, k) for X in (vali.X,) for k in range(1, 10)}
    calls = []
    model.init_model_ = type("CountingBase", (), {"predict": lambda self, X: calls.append(1) or base.predict(X)})()
    for k in range(1, 10):
        np.testing.assert_array_equal(model.predict(vali.X, num_iteration=k), expected[k])
    assert len(calls) == 1
    np.testing.assert_array_equal(model.predict(vali.X), lightgbm_scores(model, vali.X, 10))  # every tree: read anew
    assert len(calls) == 3  # the oracle's call and predict's

"""LambdaMART: training on λ-gradients, Newton leaves, early stopping, warm start, persistence."""

from __future__ import annotations

import os

import numpy as np
import pytest
from sklearn.base import clone

from metricrank import LambdaMART, RankingDataset, evaluate, make_ltr
from metricrank.objectives import LambdaObjective


@pytest.fixture(scope="module")
def data():
    train = make_ltr(80, docs_per_query=(5, 30), n_features=10, random_state=0)
    test = make_ltr(40, docs_per_query=(5, 30), n_features=10, random_state=1)
    return train, test


SMALL = dict(n_estimators=25, num_leaves=7, min_data_in_leaf=5, random_state=0, n_jobs=1)


@pytest.mark.parametrize("target, metric", [
    ("NDCG:top=10;type=Exp", "NDCG:top=10;type=Exp"), ("MAP", "MAP"), ("MAUC", "MAUC"), ("ROCArea", "ROCArea"),
    ("ERR:type=Graded", "ERR:type=Graded"), ("MRR", "MRR"), ("PrecisionAt:top=5", "PrecisionAt:top=5"),
    ("RankNet", "NDCG:top=10"), ("DCG:top=5", "DCG:top=5"),
])
def test_every_target_learns_its_metric(data, target, metric):
    train, test = data
    model = LambdaMART(target, target=target, **SMALL).fit(train.X, train.y, qid=train.qid)
    assert model.objective_.target.spec == target
    trained = evaluate(test, model.predict(test.X), metric=metric)
    untrained = evaluate(test, np.zeros(test.n_docs), metric=metric)  # ties: the metric's own convention
    feature = evaluate(test, test.X[:, 0], metric=metric)
    assert trained > max(untrained, feature)


@pytest.mark.parametrize("l2", [0.0, 10.0])
def test_leaves_are_the_newton_step(data, l2):
    # One tree: every leaf value equals learning_rate * Σλ / (Σw + λ_L2) over its rows (Burges' γ, penalised).
    train, _ = data
    model = LambdaMART("NDCG:top=10", target="NDCG:top=10", n_estimators=1, learning_rate=0.3, num_leaves=4,
                       min_data_in_leaf=5, lambda_l2=l2, path_smooth=0.0, n_jobs=1).fit(train)
    grad, hess = LambdaObjective("NDCG:top=10").gradient_hessian(train.y, np.zeros(train.n_docs), train.group_ptr)
    leaf = model.booster_.predict(train.X, pred_leaf=True).ravel()
    pred = model.predict(train.X)
    assert len(np.unique(leaf)) == 4
    for value in np.unique(leaf):
        rows = leaf == value
        np.testing.assert_allclose(pred[rows], 0.3 * -grad[rows].sum() / (hess[rows].sum() + l2), rtol=1e-6)


def test_path_smooth_pulls_leaves_towards_the_parent(data):
    # One split: the root's value is w_root n / (n + s) (its parent is 0), a leaf's is
    # (n_c w_c + s root) / (n_c + s), with w = -Σgrad / (Σhess + λ_L2) over the node's rows.
    # LightGBM's histograms keep no counts: n_c is estimated as n Σhess_c / Σhess (then rounded,
    # which moves the result by ~1e-5 relative here).
    train, _ = data
    s, l2, rate = 10.0, 10.0, 0.3
    model = LambdaMART("NDCG:top=10", target="NDCG:top=10", n_estimators=1, learning_rate=rate, num_leaves=2,
                       min_data_in_leaf=5, lambda_l2=l2, path_smooth=s, n_jobs=1).fit(train)
    grad, hess = LambdaObjective("NDCG:top=10").gradient_hessian(train.y, np.zeros(train.n_docs), train.group_ptr)
    n = train.n_docs
    root = -grad.sum() / (hess.sum() + l2) * n / (n + s)
    leaf = model.booster_.predict(train.X, pred_leaf=True).ravel()
    pred = model.predict(train.X)
    assert len(np.unique(leaf)) == 2
    for value in np.unique(leaf):
        rows = leaf == value
        n_c = n * hess[rows].sum() / hess.sum()
        w_c = -grad[rows].sum() / (hess[rows].sum() + l2)
        np.testing.assert_allclose(pred[rows], rate * (n_c * w_c + s * root) / (n_c + s), rtol=1e-4)
        assert not np.allclose(pred[rows], rate * w_c, rtol=1e-3)  # the smoothing is visible here


def test_early_stopping_and_evals_result(data):
    train, test = data
    model = LambdaMART("MAP", n_estimators=300, learning_rate=0.5, num_leaves=7, min_data_in_leaf=5, n_jobs=1)
    model.fit(train, eval_set=[(test.X, test.y, test.qid)], eval_metrics=["MAP", "NDCG:top=5"],
              early_stopping_rounds=5, eval_names=["test"])
    history = model.evals_result_["test"]
    assert set(history) == {"MAP", "NDCG:top=5"}
    assert len(history["MAP"]) < 300
    assert model.best_iteration_ == int(np.nanargmax(history["MAP"])) + 1
    assert len(history["MAP"]) - model.best_iteration_ == 5
    # the trees after the best iteration are dropped, as LGBMRanker drops them: the booster is the model predict
    # scores, whole, and the iterations before and after any split add up to it
    assert model.n_estimators_ == model.best_iteration_ == model.booster_.current_iteration() == model.n_iter_
    columns = model.booster_.predict(test.X)  # a column a model: the default averages four
    assert columns.shape == (test.n_docs, model.n_models_) == (test.n_docs, 4)
    np.testing.assert_allclose(columns.mean(axis=1), model.predict(test.X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.predict(test.X, num_iteration=2) + model.predict(test.X, start_iteration=2),
                               model.predict(test.X), rtol=0, atol=1e-12)
    assert "did not improve for 5 rounds" in model.stop_reason_
    # predict uses the best iteration, and its MAP is the recorded best
    assert evaluate(test, model.predict(test.X), metric="MAP") == pytest.approx(history["MAP"][model.best_iteration_ - 1])
    assert model.best_score_["test"] == {spec: pytest.approx(evaluate(test, model.predict(test.X), metric=spec))
                                         for spec in ("MAP", "NDCG:top=5")}


def test_best_score_without_early_stopping_is_the_model_predict_uses(data):
    # LightGBM's reading: without early stopping predict() uses every tree, and best_score_ describes that model
    train, test = data
    model = LambdaMART("MAP", n_estimators=40, learning_rate=0.5, num_leaves=7, min_data_in_leaf=5, n_jobs=1)
    model.fit(train, eval_set=[test], eval_metrics=["MAP", "NDCG:top=5"], eval_names=["test"])
    curve = model.evals_result_["test"]["MAP"]
    assert model.best_iteration_ is None and max(curve) > curve[-1]  # the best tree is not the last
    assert model.best_score_["test"] == {spec: pytest.approx(evaluate(test, model.predict(test.X), metric=spec),
                                                             rel=1e-12)
                                         for spec in ("MAP", "NDCG:top=5")}


def test_callback_can_stop_training(data):
    train, _ = data
    seen = []

    def callback(info):
        seen.append(info.iteration)
        return info.iteration == 3

    model = LambdaMART(**SMALL).fit(train, callbacks=[callback])
    assert seen == [1, 2, 3] and model.n_estimators_ == 3


def test_warm_start_from_a_base_model(data):
    train, test = data
    base = LambdaMART("NDCG:top=10", **{**SMALL, "n_estimators": 5}).fit(train)
    more = LambdaMART("MAP", **{**SMALL, "n_estimators": 10}).fit(train, init_model=base)
    alone = LambdaMART("MAP", **{**SMALL, "n_estimators": 10}).fit(train)
    np.testing.assert_allclose(more.predict(test.X) - base.predict(test.X),  # the mean of its four models' columns
                               more.booster_.predict(test.X, raw_score=True).mean(axis=1))
    assert not np.allclose(more.predict(test.X), alone.predict(test.X))
    # init_score is the LightGBM-style alternative: trees start from the given scores
    from_scores = LambdaMART("MAP", **{**SMALL, "n_estimators": 10}).fit(train, init_score=base.predict(train.X))
    np.testing.assert_allclose(from_scores.predict(test.X), more.booster_.predict(test.X, raw_score=True).mean(axis=1))


def test_save_load_round_trip(tmp_path, data):
    train, test = data
    base = LambdaMART(**{**SMALL, "n_estimators": 3}).fit(train)
    model = LambdaMART("MAUC", **SMALL).fit(train, init_model=base, eval_set=[test], early_stopping_rounds=3)
    path = tmp_path / "model.json.gz"
    model.save(path)
    assert os.listdir(tmp_path) == ["model.json.gz"]  # nothing half-written left behind
    loaded = LambdaMART.load(path)
    np.testing.assert_array_equal(loaded.predict(test.X), model.predict(test.X))
    assert loaded.get_params() == model.get_params()
    assert loaded.best_iteration_ == model.best_iteration_
    assert loaded.evals_result_ == model.evals_result_


def test_load_rejects_foreign_files(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a metricrank model file"):
        LambdaMART.load(bad)
    bad.write_text("garbage")
    with pytest.raises(ValueError, match="not a metricrank model file"):
        LambdaMART.load(bad)
    bad.write_text('{"format": "metricrank-model", "format_version": 99, "model": "LambdaMART", "state": {}}')
    with pytest.raises(ValueError, match="format version 99 is not supported"):
        LambdaMART.load(bad)


def test_sklearn_conventions(data):
    train, _ = data
    model = LambdaMART("MAP", n_estimators=7, sigma=2.0)
    twin = clone(model)
    assert twin.get_params() == model.get_params()
    assert not hasattr(twin, "booster_")
    model.set_params(n_estimators=3, **{k: v for k, v in SMALL.items() if k != "n_estimators"}).fit(train)
    assert model.feature_importances_.shape == (train.n_features,)
    assert model.feature_importances_.sum() > 0
    with pytest.raises(ValueError, match="not fitted yet"):
        twin.predict(train.X)


def test_unit_weights_change_nothing(data):
    train, test = data
    a = LambdaMART(**SMALL).fit(train.X, train.y, qid=train.qid)
    b = LambdaMART(**SMALL).fit(train.X, train.y, qid=train.qid, sample_weight=np.ones(train.n_docs),
                                group_weight=np.ones(train.n_queries))
    np.testing.assert_array_equal(a.predict(test.X), b.predict(test.X))
    c = LambdaMART(**SMALL).fit(train.X, train.y, qid=train.qid, group_weight=np.linspace(0.1, 3, train.n_queries))
    assert not np.array_equal(a.predict(test.X), c.predict(test.X))


def test_sparse_input_matches_dense(data):
    import scipy.sparse as sp

    train, test = data
    dense = LambdaMART(**SMALL).fit(train.X, train.y, qid=train.qid)
    sparse = LambdaMART(**SMALL).fit(sp.csr_matrix(train.X), train.y, qid=train.qid)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(test.X)), dense.predict(test.X))


@pytest.mark.parametrize("kind", ["csr_matrix", "csc_matrix", "csr_array", "coo_array"])
def test_sparse_matrices_and_arrays_predict_without_a_warning(data, kind):
    import warnings

    import scipy.sparse as sp

    train, test = data
    model = LambdaMART(**SMALL).fit(train.X, train.y, qid=train.qid)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # LightGBM warns when it converts a sparse array itself
        scores = model.predict(getattr(sp, kind)(test.X))
    np.testing.assert_array_equal(scores, model.predict(test.X))


@pytest.mark.parametrize("params", [{}, {"n_models": 2}, {"grow_policy": "mixed", "max_depth": 3}])
def test_sparse_contributions_are_the_dense_ones_as_a_sparse_matrix(data, params):
    import scipy.sparse as sp

    train, test = data
    model = LambdaMART(**{**SMALL, **params}).fit(train.X, train.y, qid=train.qid)
    dense = model.predict(test.X, pred_contrib=True)
    sparse = model.predict(sp.csr_matrix(test.X), pred_contrib=True)
    assert sp.issparse(sparse) and sparse.shape == dense.shape == (test.n_docs, test.n_features + 1)
    np.testing.assert_allclose(sparse.toarray(), dense, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(sparse.sum(axis=1)).ravel(), model.predict(test.X), rtol=1e-10,
                               atol=1e-12)
    base = LambdaMART(**SMALL).fit(train.X, train.y, qid=train.qid)
    warm = LambdaMART(**{**SMALL, **params, "n_estimators": 5}).fit(train.X, train.y, qid=train.qid,
                                                                    init_model=base)
    contrib = warm.predict(sp.csr_matrix(test.X), pred_contrib=True)  # the base model's added
    np.testing.assert_allclose(np.asarray(contrib.sum(axis=1)).ravel(), warm.predict(test.X), rtol=1e-10,
                               atol=1e-12)


# --- bad input ------------------------------------------------------------------------------

def test_bad_input_errors(data):
    train, test = data
    X = train.X.copy()
    X[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinite value at row 3, feature 2"):
        LambdaMART(**SMALL).fit(X, train.y, qid=train.qid)
    with pytest.raises(ValueError, match="valid targets are NDCG, DCG, MAP"):
        LambdaMART("PFound", **SMALL).fit(train)
    with pytest.raises(ValueError, match="λ target NDCG:top=10 needs graded labels >= 0"):
        LambdaMART(target="NDCG:top=10", **SMALL).fit(train.X, -train.y, qid=train.qid)
    with pytest.raises(ValueError, match="λ target MAUC needs integer relevance classes"):
        LambdaMART("MAUC", target="MAUC", **SMALL).fit(train.X, train.y + 0.5, qid=train.qid)
    # trained on YetiRank (target="auto"), judged by a metric: its label domain is checked all the same
    with pytest.raises(ValueError, match="judged metric NDCG:top=10 needs graded labels >= 0"):
        LambdaMART(**SMALL).fit(train.X, -train.y, qid=train.qid)
    with pytest.raises(ValueError, match="judged metric MAUC needs integer relevance classes"):
        LambdaMART("MAUC", **SMALL).fit(train.X, train.y + 0.5, qid=train.qid)
    with pytest.raises(ValueError, match="max_query_size=4"):  # the λ kernel is O(n²) per query; YetiRank is not
        LambdaMART(target="NDCG:top=10", max_query_size=4, **SMALL).fit(train)
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval_set"):
        LambdaMART(**SMALL).fit(train, early_stopping_rounds=3)
    with pytest.raises(ValueError, match="eval set valid_0 has 3 features"):
        LambdaMART(**SMALL).fit(train, eval_set=[(test.X[:, :3], test.y, test.qid)])
    with pytest.raises(ValueError, match="learning_rate must be a positive number"):
        LambdaMART(learning_rate=0).fit(train)
    for bad in (1, "many", 7.5, True):
        with pytest.raises(ValueError, match="num_leaves must be 'auto' or an integer >= 2"):
            LambdaMART(num_leaves=bad).fit(train)
    for bad in (3.5, "6", True, None, 2 ** 31):
        with pytest.raises(ValueError, match=r"max_depth must be an integer \(0 or less: no limit"):
            LambdaMART(max_depth=bad).fit(train)
    for bad in (-1, "many", float("nan"), float("inf"), True, None):
        with pytest.raises(ValueError, match="lambda_l2 must be 'auto' or a finite number >= 0"):
            LambdaMART(lambda_l2=bad).fit(train)
    model = LambdaMART(**SMALL).fit(train)
    with pytest.raises(ValueError, match="has 3 features, but LambdaMART is expecting 10 features as input"):
        model.predict(test.X[:, :3])


def test_noncontiguous_qid_is_an_error(data):
    train, _ = data
    qid = train.qid.copy()
    qid[[0, -1]] = qid[[-1, 0]]
    with pytest.raises(ValueError, match="[Qq]uer"):
        LambdaMART(**SMALL).fit(train.X, train.y, qid=qid)


def test_dataset_and_arrays_are_exclusive(data):
    train, _ = data
    with pytest.raises(ValueError, match="either a RankingDataset or arrays"):
        LambdaMART(**SMALL).fit(train, train.y)
    assert isinstance(train, RankingDataset)


def test_group_sizes_and_eval_group_like_lightgbm(data):
    train, test = data
    by_qid = LambdaMART(**SMALL).fit(train.X, train.y, qid=train.qid, eval_set=[(test.X, test.y, test.qid)])
    by_group = LambdaMART(**SMALL).fit(train.X, train.y, group=train.query_sizes, eval_set=[(test.X, test.y)],
                                       eval_group=[test.query_sizes])
    np.testing.assert_array_equal(by_qid.predict(test.X), by_group.predict(test.X))
    assert by_qid.evals_result_ == by_group.evals_result_


def test_extra_trees_draws_follow_random_state(data):
    train, test = data
    # an exact λ target: YetiRank's noisy permutations would follow the seed too
    kw = dict(target="NDCG:top=10", n_estimators=5, num_leaves=4, min_data_in_leaf=5, n_jobs=1)

    def scores(**extra):
        return LambdaMART(**kw, **extra).fit(train).predict(test.X)

    assert LambdaMART().extra_trees == "auto"
    np.testing.assert_array_equal(scores(random_state=0), scores(random_state=0))
    assert not np.array_equal(scores(random_state=0), scores(random_state=1))  # random thresholds
    # without extra_trees nothing in these trees is random: the seed changes nothing
    np.testing.assert_array_equal(scores(random_state=0, extra_trees=False), scores(random_state=1, extra_trees=False))
    assert not np.array_equal(scores(random_state=0), scores(random_state=0, extra_trees=False))
    model = LambdaMART(**kw, random_state=0).fit(train)
    assert model.extra_trees_ is True  # "auto" on small data
    np.testing.assert_array_equal(model.predict(test.X), scores(random_state=0, extra_trees=True))
    with pytest.raises(ValueError, match="extra_trees must be 'auto', True or False"):
        LambdaMART(extra_trees="yes", **kw).fit(train)

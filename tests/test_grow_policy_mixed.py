"""grow_policy="mixed": completed symmetric trees and leaf-wise trees side by side, their scores averaged.

The oracle is two fits of one kind each, set by hand (``grow_policy="symmetric_then_leafwise"`` and
``"leafwise"``): the mixed model's score columns must be theirs, its score the mean of their scores, and its
validation curve and early stopping those of that mean, computed here by brute force.
"""

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, RankingDataset, evaluate, make_ltr
from metricrank.learners._boosting import EvalSet, Lane, boost_lanes, tree_params
from metricrank.learners._model_text import side_by_side

KINDS = ("symmetric_then_leafwise", "leafwise")
METRIC = "NDCG:top=10"


def data(n_queries, seed):
    return make_ltr(n_queries, docs_per_query=(10, 30), n_features=8, n_informative=5, relevance="nonlinear",
                    noise=0.5, random_state=seed)


@pytest.fixture(scope="module")
def split():
    return data(120, 0), data(60, 1)


def fits(train, vali, n_estimators=25, **params):
    """The mixed fit and one fit of each kind, with the same settings."""
    kw = {"n_estimators": n_estimators, "n_models": 2, "random_state": 3, "n_jobs": 1, **params}
    watch = {"eval_set": [vali], "eval_names": ["vali"]}
    mixed = LambdaMART(METRIC, grow_policy="mixed", **kw).fit(train, **watch)
    alone = [LambdaMART(METRIC, grow_policy=kind, **kw).fit(train, **watch) for kind in KINDS]
    return mixed, alone


def mean_curve(alone, ds, trees):
    return np.array([evaluate(ds, np.mean([m.predict(ds.X, num_iteration=k) for m in alone], axis=0), metric=METRIC)
                     for k in range(1, trees + 1)])


def test_mixed_holds_each_kind_as_fitted_alone(split):
    train, vali = split
    mixed, alone = fits(train, vali)
    assert mixed.grow_policy_ == "mixed" and mixed.n_models_ == 2 and mixed.booster_.num_model_per_iteration() == 4
    assert [k.grow_policy for k in mixed.kinds_] == list(KINDS)
    assert [(k.num_leaves, k.extra_trees, k.lambda_l2) for k in mixed.kinds_] == \
        [(m.num_leaves_, m.extra_trees_, m.lambda_l2_) for m in alone]
    assert (mixed.num_leaves_, mixed.lambda_l2_) == (alone[0].num_leaves_, alone[0].lambda_l2_)  # the first kind's
    for k in (1, 7, 25):
        raw = mixed.booster_.predict(vali.X, num_iteration=k, raw_score=True)
        np.testing.assert_array_equal(raw[:, :2], alone[0].booster_.predict(vali.X, num_iteration=k, raw_score=True))
        np.testing.assert_array_equal(raw[:, 2:], alone[1].booster_.predict(vali.X, num_iteration=k, raw_score=True))
        expected = (alone[0].predict(vali.X, num_iteration=k) + alone[1].predict(vali.X, num_iteration=k)) / 2
        np.testing.assert_allclose(mixed.predict(vali.X, num_iteration=k), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mixed.evals_result_["vali"][METRIC], mean_curve(alone, vali, 25), rtol=0, atol=1e-12)


def test_a_feature_one_kind_leaves_out_is_kept_in_the_joined_model(split):
    # a binary feature set on two rows: LightGBM's pre-filter drops it from the leaf-wise kind's Dataset (no leaf of
    # min_data_in_leaf rows can split it), the symmetric kind's keeps every feature; their model texts then read
    # "none" and "[0:1]" for it, which once refused the fit (LightGBM's ranking example, 300 sparse features)
    train, vali = split
    rare = np.zeros(train.n_docs)
    rare[[3, 40]] = 1.0
    X = np.column_stack([train.X, rare])
    wide_train = RankingDataset(X, train.y, group_ptr=train.group_ptr)
    wide_vali = RankingDataset(np.column_stack([vali.X, np.zeros(vali.n_docs)]), vali.y, group_ptr=vali.group_ptr)
    mixed, alone = fits(wide_train, wide_vali, n_estimators=5)
    infos = [line for line in mixed.booster_.model_to_string().split("\n") if line.startswith("feature_infos=")]
    kinds = [[line for line in m.booster_.model_to_string().split("\n") if line.startswith("feature_infos=")][0]
             for m in alone]
    assert [k.split(" ")[-1] for k in kinds] == ["[0:1]", "none"]
    assert infos[0].split(" ")[-1] == "[0:1]"
    expected = (alone[0].predict(X) + alone[1].predict(X)) / 2
    np.testing.assert_allclose(mixed.predict(X), expected, rtol=0, atol=1e-12)


def test_early_stopping_reads_the_mean_of_the_kinds(split):
    train, vali = split
    rounds, budget = 4, 60
    mixed, alone = fits(train, vali, n_estimators=budget, learning_rate=0.3)
    stopped = LambdaMART(METRIC, grow_policy="mixed", n_estimators=budget, n_models=2, random_state=3, n_jobs=1,
                         learning_rate=0.3).fit(train, eval_set=[vali], eval_names=["vali"],
                                                early_stopping_rounds=rounds)
    curve = mean_curve(alone, vali, budget)
    # the first tree count whose value no later one beats within `rounds` trees, as StoppingRule reads the curve
    best = 1
    for it in range(2, budget + 1):
        if curve[it - 1] > curve[best - 1]:
            best = it
        elif it - best >= rounds:
            break
    assert best + rounds <= budget, "the curve must stop early for this test to see early stopping"
    assert stopped.best_iteration_ == stopped.n_estimators_ == best  # the trees after the best are dropped
    assert len(stopped.evals_result_["vali"][METRIC]) == best + rounds
    np.testing.assert_allclose(stopped.predict(vali.X), mixed.predict(vali.X, num_iteration=best), rtol=0, atol=1e-12)


def test_saved_exported_and_explained_alike(split, tmp_path):
    import lightgbm as lgb

    train, vali = split
    mixed, _ = fits(train, vali, n_estimators=8)
    mixed.save(tmp_path / "m.json")
    loaded = LambdaMART.load(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict(vali.X), mixed.predict(vali.X))
    assert loaded.kinds_ == mixed.kinds_ and loaded.n_models_ == 2 and loaded.grow_policy_ == "mixed"
    mixed.to_lightgbm(tmp_path / "m.txt")
    np.testing.assert_allclose(lgb.Booster(model_file=str(tmp_path / "m.txt")).predict(vali.X), mixed.predict(vali.X),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(mixed.predict(vali.X, pred_contrib=True).sum(axis=1), mixed.predict(vali.X),
                               rtol=0, atol=1e-12)


def test_capacity_check_runs_for_each_kind(low_threshold):
    train = data(150, 4)
    kw = {"n_estimators": 10, "random_state": 2, "n_models": 1}
    mixed = LambdaMART("MAP", grow_policy="mixed", **kw).fit(train)
    alone = [LambdaMART("MAP", grow_policy=kind, **kw).fit(train) for kind in KINDS]
    for kind, by_hand in zip(mixed.kinds_, alone):
        assert kind.capacity_check.grow_policy == by_hand.capacity_check_.grow_policy
        assert kind.capacity_check.trials == by_hand.capacity_check_.trials
        assert (kind.num_leaves, kind.extra_trees) == (by_hand.num_leaves_, by_hand.extra_trees_)
    assert mixed.capacity_check_ is mixed.kinds_[0].capacity_check
    expected = (alone[0].predict(train.X) + alone[1].predict(train.X)) / 2
    np.testing.assert_allclose(mixed.predict(train.X), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", ["categorical feature", "extra_trees", "pairwise leaves"])
def test_mixed_refuses_what_symmetric_trees_refuse(case):
    ds = data(30, 5)
    if case == "categorical feature":
        with pytest.raises(ValueError, match="grow_policy='mixed' splits numerical features only"):
            LambdaMART("MAP", grow_policy="mixed", n_estimators=2).fit(ds, categorical_feature=[0])
    elif case == "extra_trees":
        with pytest.raises(ValueError, match="extra_trees=True applies to grow_policy='leafwise' only"):
            LambdaMART("MAP", grow_policy="mixed", extra_trees=True, n_estimators=2).fit(ds)
    else:
        with pytest.raises(ValueError, match="grow_policy='mixed' trains two kinds of tree side by side"):
            GBRanker("YetiRankPairwise", grow_policy="mixed", n_estimators=2, n_models=1).fit(ds)


def _lanes(vanish_after, X, y):
    """One lane per entry of ``vanish_after``: least squares on ``y`` whose gradient vanishes after that many trees."""
    import lightgbm as lgb

    lanes = []
    for k in vanish_after:
        calls = []

        def gradient(raw, calls=calls, k=k):
            calls.append(1)
            return (raw - y if len(calls) <= k else np.zeros_like(y)), np.ones_like(y)

        params = tree_params(num_leaves=4, learning_rate=0.5, min_data_in_leaf=5, min_sum_hessian_in_leaf=1e-3,
                             lambda_l2=0.0, max_depth=-1, max_bin=63, feature_fraction=1.0, bagging_fraction=1.0,
                             bagging_freq=0, n_jobs=1, random_state=0)
        train = lgb.Dataset(X, label=y, params=params, free_raw_data=False)
        lanes.append(Lane(params, train, gradient, [lgb.Dataset(X, label=y, reference=train, params=params)]))
    return lanes


def test_lanes_keep_as_many_iterations_when_one_cannot_split():
    # the second lane finds no split at its 4th tree: the first lane's 4th tree is taken back
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.normal(size=200)
    watched = EvalSet("v", None, lambda raw: [("mse", float(np.mean((raw.mean(axis=1) - y) ** 2)), False)])
    result = boost_lanes(_lanes((10, 3), X, y), 50, eval_sets=[watched])
    assert [b.current_iteration() for b in result.boosters] == [3, 3]
    assert result.stop_reason == "no split improves the objective after 3 trees"
    joined = side_by_side(result.boosters)
    mean = joined.predict(X).mean(axis=1)
    assert result.evals_result["v"]["mse"][-1] == pytest.approx(np.mean((mean - y) ** 2))


def test_side_by_side_refuses_boosters_that_do_not_line_up():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(200, 3)), rng.normal(size=200)
    short, long = boost_lanes(_lanes((2,), X, y), 5).booster, boost_lanes(_lanes((4,), X, y), 5).booster
    with pytest.raises(ValueError, match="must hold as many iterations; got \\[2, 4\\]"):
        side_by_side([short, long])
    other = boost_lanes(_lanes((2,), X[:, :2], y), 5).booster
    with pytest.raises(ValueError, match="must be grown on the same features"):
        side_by_side([short, other])
    shifted = boost_lanes(_lanes((2,), X + 1.0, y), 5).booster  # the same features over other ranges
    infos = [line for line in side_by_side([short, shifted]).model_to_string().split("\n")
             if line.startswith("feature_infos=")]
    joined = [info.strip("[]").split(":") for info in infos[0][len("feature_infos="):].split(" ")]
    # the range that holds both: the lowest value of X, the highest of X + 1
    np.testing.assert_allclose(np.array(joined, dtype=float), np.column_stack([X.min(axis=0), X.max(axis=0) + 1.0]))


@pytest.mark.parametrize("zeros", ["stored", "implicit"])
def test_a_sparse_matrix_trains_the_model_its_dense_copy_does(split, zeros):
    # an SVMlight file read by scikit-learn is a CSR matrix, its zeros stored or not: the symmetric trees bin its
    # columns as LightGBM bins the leaf-wise trees' (zero a value like any other), so the model is the dense one's
    import scipy.sparse as sp

    train, vali = split
    X = np.where(train.X < 0, 0.0, train.X)  # a third of the entries zero
    X_sparse = sp.csr_matrix(X)
    if zeros == "stored":
        X_sparse = sp.csr_matrix((np.where(X == 0, 0.0, X).ravel(), np.tile(np.arange(X.shape[1]), X.shape[0]),
                                  np.arange(0, X.size + 1, X.shape[1])), shape=X.shape)
        assert X_sparse.nnz == X.size
    else:
        assert X_sparse.nnz < 0.8 * X.size
    kw = {"grow_policy": "mixed", "n_estimators": 15, "n_models": 2, "random_state": 3, "n_jobs": 1}
    dense = LambdaMART(METRIC, **kw).fit(X, train.y, qid=train.qid)
    sparse = LambdaMART(METRIC, **kw).fit(X_sparse, train.y, qid=train.qid)
    np.testing.assert_array_equal(sparse.predict(vali.X), dense.predict(vali.X))

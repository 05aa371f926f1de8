"""GBRanker: one engine for every objective; pairwise leaves; explicit pairs; engine regressions."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

import metricrank
from metricrank import GBRanker, LambdaMART, evaluate, make_ltr
from metricrank.learners import load_ranker
from metricrank.learners._pairwise_leaves import pairwise_leaf_values

SMALL = dict(num_leaves=7, min_data_in_leaf=5, random_state=0)


def _pair_model(v, leaf, winners, losers, weights, scores, l2):
    """The pairwise second-order model, written out term by term (independent of the solver)."""
    total = 0.5 * l2 * float(v @ v)
    for w, lo, wt in zip(winners, losers, weights):
        d = scores[w] - scores[lo]
        p = 1.0 / (1.0 + np.exp(-d))
        dv = v[leaf[w]] - v[leaf[lo]]
        total += wt * (-(1.0 - p) * dv + 0.5 * p * (1.0 - p) * dv * dv)
    return total


@pytest.mark.parametrize("l2", [0.0, 0.7])
@pytest.mark.parametrize("seed", range(4))
def test_pairwise_leaf_values_minimise_the_pairwise_model(seed, l2):
    rng = np.random.default_rng(seed)
    n, L, P = 30, 5, 60
    leaf = rng.integers(0, L, n)
    leaf[:L] = np.arange(L)
    winners, losers = rng.integers(0, n, P), rng.integers(0, n, P)
    keep = winners != losers
    winners, losers = winners[keep], losers[keep]
    weights = rng.uniform(0.1, 2.0, winners.size)
    scores = rng.normal(size=n)
    v = pairwise_leaf_values(leaf, L, winners, losers, weights, scores, l2)
    ref = minimize(_pair_model, np.zeros(L), args=(leaf, winners, losers, weights, scores, l2), method="BFGS",
                   options={"gtol": 1e-12})
    assert _pair_model(v, leaf, winners, losers, weights, scores, l2) <= ref.fun + 1e-10
    if l2 > 0:  # unique minimiser
        np.testing.assert_allclose(v, ref.x, rtol=1e-5, atol=1e-7)
    else:  # a constant shift changes no pair: the minimum-norm solution is centred
        np.testing.assert_allclose(v - v.mean(), ref.x - ref.x.mean(), rtol=1e-5, atol=1e-6)
        assert abs(v.sum()) < 1e-8


def _generated_pairs(y, group_ptr):
    out = []
    for q in range(len(group_ptr) - 1):
        rows = range(group_ptr[q], group_ptr[q + 1])
        out += [(i, j) for i, j in itertools.permutations(rows, 2) if y[i] > y[j]]
    return np.array(out, dtype=np.int64)


def test_pairlogit_pairwise_leaves_equal_the_exact_minimiser_inside_the_booster():
    ds = make_ltr(30, docs_per_query=(5, 12), n_features=5, random_state=3)
    lr, l2 = 0.3, 1.0
    # extra_trees off: on the tree it grows then BFGS's reference converges to ~1e-6 (on the tree
    # of random thresholds BFGS stops at ~1e-4, above our leaves' objective, checked below)
    model = GBRanker("PairLogitPairwise", n_estimators=1, learning_rate=lr, lambda_l2=l2, extra_trees=False,
                     **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    leaf = model.booster_.predict(ds.X, pred_leaf=True).astype(int).ravel()
    L = leaf.max() + 1
    pairs = _generated_pairs(ds.y, ds.group_ptr)
    args = (leaf, pairs[:, 0], pairs[:, 1], np.ones(len(pairs)), np.zeros(ds.n_docs), l2)
    ref = minimize(_pair_model, np.zeros(L), args=args, method="BFGS", options={"gtol": 1e-12})
    outputs = np.array([model.booster_.get_leaf_output(0, j) for j in range(L)])
    assert _pair_model(outputs / lr, *args) <= ref.fun + 1e-10
    np.testing.assert_allclose(outputs, lr * ref.x, rtol=1e-5, atol=1e-8)
    # and predict() reads those leaves
    np.testing.assert_allclose(model.predict(ds.X), outputs[leaf], rtol=1e-12)


def test_pairwise_variant_differs_from_newton_leaves_and_learns():
    ds = make_ltr(60, n_features=8, random_state=0)
    test = make_ltr(40, n_features=8, random_state=1)
    a = GBRanker("PairLogit", n_estimators=30, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    b = GBRanker("PairLogitPairwise", n_estimators=30, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    assert not np.allclose(a.predict(test.X), b.predict(test.X))
    for m in (a, b):
        assert evaluate(test, m.predict(test.X), metric="NDCG:top=10") > evaluate(
            test, np.zeros(test.n_docs), metric="NDCG:top=10") + 0.05


def test_pairwise_eval_scores_follow_the_revalued_leaves():
    ds = make_ltr(40, n_features=6, random_state=2)
    valid = make_ltr(20, n_features=6, random_state=3)
    model = GBRanker("YetiRankPairwise", n_estimators=15, **SMALL).fit(
        ds, eval_set=[valid], eval_metrics=["NDCG:top=5"])
    recorded = model.evals_result_["valid_0"]["NDCG:top=5"]
    for k in (1, 7, 15):
        assert recorded[k - 1] == pytest.approx(
            evaluate(valid, model.predict(valid.X, num_iteration=k), metric="NDCG:top=5"), rel=1e-12)


def test_explicit_pairs_equal_to_generated_ones_give_the_same_model():
    ds = make_ltr(30, docs_per_query=(4, 10), n_features=5, random_state=4)
    pairs = _generated_pairs(ds.y, ds.group_ptr)
    for objective in ("PairLogit", "PairLogitPairwise"):
        gen = GBRanker(objective, n_estimators=10, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
        exp = GBRanker(objective, n_estimators=10, **SMALL).fit(ds.X, ds.y, qid=ds.qid, pairs=pairs,
                                                                pair_weight=np.ones(len(pairs)))
        # the same pairs in another summation order: equal up to rounding
        np.testing.assert_allclose(gen.predict(ds.X), exp.predict(ds.X), rtol=1e-12, atol=1e-12)


def test_group_weights_scale_generated_pairs():
    ds = make_ltr(30, docs_per_query=(4, 10), n_features=5, random_state=5)
    gw = np.random.default_rng(0).uniform(0.5, 3.0, ds.n_queries)
    pairs = _generated_pairs(ds.y, ds.group_ptr)
    query_of_pair = np.searchsorted(ds.group_ptr, pairs[:, 0], side="right") - 1
    weighted = GBRanker("PairLogit", n_estimators=8, **SMALL).fit(ds.X, ds.y, qid=ds.qid, group_weight=gw)
    explicit = GBRanker("PairLogit", n_estimators=8, **SMALL).fit(ds.X, ds.y, qid=ds.qid, pairs=pairs,
                                                                  pair_weight=gw[query_of_pair])
    plain = GBRanker("PairLogit", n_estimators=8, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    np.testing.assert_allclose(weighted.predict(ds.X), explicit.predict(ds.X), rtol=1e-10)
    assert not np.allclose(weighted.predict(ds.X), plain.predict(ds.X))


@pytest.mark.parametrize("objective", ["PairLogit", "PairLogitPairwise", "YetiRank", "YetiRankPairwise",
                                       "StochasticFilter", "StochasticRank:metric=NDCG;top=10", "QueryRMSE",
                                       "QuerySoftMax", "lambda:MAP", "RankNet"])
def test_every_objective_learns_and_is_deterministic(objective):
    ds = make_ltr(60, n_features=8, random_state=0)
    test = make_ltr(40, n_features=8, random_state=1)
    model = GBRanker(objective, n_estimators=25, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    again = GBRanker(objective, n_estimators=25, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    np.testing.assert_array_equal(model.predict(test.X), again.predict(test.X))
    if objective == "StochasticFilter":  # FilteredDCG of the input order, not a ranking of it
        metric, baseline = "FilteredDCG", np.full(test.n_docs, -1.0)
    else:
        metric, baseline = "NDCG:top=10", np.zeros(test.n_docs)
    assert evaluate(test, model.predict(test.X), metric=metric) > evaluate(test, baseline, metric=metric) + 0.02


@pytest.mark.parametrize("make", [lambda seed: GBRanker("YetiRank", n_estimators=15, random_state=seed),
                                  lambda seed: GBRanker("StochasticRank:metric=NDCG;top=10", n_estimators=15,
                                                        random_state=seed),
                                  lambda seed: LambdaMART("MAP", n_estimators=15, n_models=2, random_state=seed)],
                         ids=["YetiRank", "StochasticRank", "LambdaMART, two models"])
def test_without_random_state_two_fits_give_the_same_model_as_lightgbm_and_catboost_do(make):
    ds = make_ltr(60, n_features=8, random_state=0)
    default = make(None).fit(ds).predict(ds.X)
    np.testing.assert_array_equal(make(None).fit(ds).predict(ds.X), default)
    assert not np.array_equal(make(1).fit(ds).predict(ds.X), make(2).fit(ds).predict(ds.X))  # seeds still draw


def test_query_cross_entropy_trains_on_probabilities():
    ds = make_ltr(40, n_features=6, random_state=0)
    y = ds.y / ds.y.max()
    model = GBRanker("QueryCrossEntropy", n_estimators=20, **SMALL).fit(ds.X, y, qid=ds.qid)
    assert evaluate(y, model.predict(ds.X), group_ptr=ds.group_ptr, metric="QueryCrossEntropy") < evaluate(
        y, np.zeros(ds.n_docs), group_ptr=ds.group_ptr, metric="QueryCrossEntropy")
    with pytest.raises(ValueError, match="QueryCrossEntropy"):
        GBRanker("QueryCrossEntropy", n_estimators=2, **SMALL).fit(ds.X, ds.y, qid=ds.qid)


def test_lambdamart_is_gbranker_with_the_lambda_objective():
    ds = make_ltr(40, n_features=6, random_state=0)
    a = LambdaMART("MAP", target="MAP", n_estimators=10, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    b = GBRanker("lambda:MAP", n_estimators=10, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    np.testing.assert_array_equal(a.predict(ds.X), b.predict(ds.X))
    assert isinstance(a, GBRanker) and a.objective_.spec == b.objective_.spec == "lambda:MAP"


def test_initial_scores_are_checked_before_training():
    ds = make_ltr(10, n_features=6, docs_per_query=(4, 4), random_state=0)  # 40 rows
    fit = GBRanker("YetiRank", n_estimators=2, **SMALL).fit
    with pytest.raises(ValueError, match=r"init_score must have shape \(40,\), one score a row; got shape \(4, 10\)"):
        fit(ds, init_score=np.zeros((4, 10)))  # as many numbers as rows, but not one a row
    with pytest.raises(ValueError, match=r"init_score must have shape \(40,\), one score a row; got shape \(39,\)"):
        fit(ds, init_score=np.zeros(39))
    with pytest.raises(ValueError, match="init_score must be finite; row 3 is nan"):
        fit(ds, init_score=np.where(np.arange(40) == 3, np.nan, 0.0))
    with pytest.raises(ValueError, match="pass either init_model or init_score, not both"):
        fit(ds, init_model=GBRanker("YetiRank", n_estimators=1, **SMALL).fit(ds), init_score=np.zeros(40))
    with pytest.raises(ValueError, match=r"init_model must have a predict\(X\) method"):
        fit(ds, init_model=object())
    column = np.linspace(-1.0, 1.0, 40)
    np.testing.assert_array_equal(fit(ds, init_score=column[:, None]).predict(ds.X),
                                  fit(ds, init_score=column).predict(ds.X))


def test_save_load_roundtrip_with_a_base_model_of_the_other_class(tmp_path):
    ds = make_ltr(40, n_features=6, random_state=0)
    base = LambdaMART("NDCG", n_estimators=5, **SMALL).fit(ds)
    model = GBRanker("YetiRank", n_estimators=5, **SMALL).fit(ds, init_model=base)
    path = tmp_path / "m.json"
    model.save(path)
    loaded = load_ranker(path)
    assert type(loaded) is GBRanker and type(loaded.init_model_) is LambdaMART
    np.testing.assert_array_equal(loaded.predict(ds.X), model.predict(ds.X))
    np.testing.assert_array_equal(GBRanker.load(path).predict(ds.X), model.predict(ds.X))
    with pytest.raises(ValueError, match="GBRanker model, not a LambdaMART"):
        LambdaMART.load(path)


def test_the_base_model_is_a_copy_so_refitting_that_object_later_changes_nothing(tmp_path):
    # LightGBM keeps the base's trees; a reference to the caller's object changed with it (by 0.68 in review)
    ds, other, test = (make_ltr(40, n_features=6, random_state=seed) for seed in (0, 5, 9))
    base = LambdaMART("NDCG", n_estimators=5, **SMALL).fit(ds)
    model = GBRanker("YetiRank", n_estimators=5, **SMALL).fit(ds, init_model=base)
    before, head = model.predict(test.X), model.predict(test.X, num_iteration=3)
    base.fit(other)  # the caller reuses its object
    assert not np.allclose(base.predict(test.X), model.init_model_.predict(test.X))
    np.testing.assert_array_equal(model.predict(test.X), before)
    np.testing.assert_array_equal(model.predict(test.X, num_iteration=3), head)
    # LightGBM's idiom model.fit(..., init_model=model): the model continues itself
    model = LambdaMART("NDCG", n_estimators=4, **SMALL).fit(ds)
    first = model.predict(test.X)
    model.fit(ds, init_model=model)
    assert model.init_model_ is not model
    np.testing.assert_array_equal(model.init_model_.predict(test.X), first)
    twice = LambdaMART("NDCG", n_estimators=4, **SMALL).fit(ds, init_model=LambdaMART("NDCG", n_estimators=4,
                                                                                       **SMALL).fit(ds))
    np.testing.assert_array_equal(model.predict(test.X), twice.predict(test.X))
    model.save(tmp_path / "m.json")
    np.testing.assert_array_equal(LambdaMART.load(tmp_path / "m.json").predict(test.X), twice.predict(test.X))
    # a base that cannot be copied (it holds a lock) is kept as it is, and a warning says so

    class Locked:
        def __init__(self):
            import threading

            self.lock, self.base = threading.Lock(), base

        def predict(self, X):
            return self.base.predict(X)

    locked = Locked()
    with pytest.warns(UserWarning, match="init_model could not be copied .*keeps a reference to it") as record:
        kept = GBRanker("YetiRank", n_estimators=3, **SMALL).fit(ds, init_model=locked)
    assert kept.init_model_ is locked and record[0].filename == __file__


def test_training_on_eight_documents_works():
    """A Dataset built without the leaf parameters dropped every feature on tiny data."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3))
    y = np.array([2, 1, 0, 0, 1, 0, 2, 1], dtype=float)
    model = GBRanker("YetiRank", n_estimators=5, num_leaves=3, min_data_in_leaf=1, random_state=0).fit(
        X, y, group=[4, 4])
    assert model.n_estimators_ >= 1 and np.all(np.isfinite(model.predict(X)))


@pytest.mark.parametrize("k", [1, 4])
def test_no_good_tree_is_rolled_back_when_gradients_vanish(k):
    """LightGBM discards a tree it cannot split; the loop must keep the k trees grown before it."""
    import lightgbm as lgb

    from metricrank.learners._boosting import EvalSet, boost, tree_params

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.normal(size=200)
    calls = []

    def gradient(raw):
        calls.append(1)
        grad = raw - y if len(calls) <= k else np.zeros(200)  # nothing left to learn after k trees
        return grad, np.ones(200)

    params = tree_params(num_leaves=4, learning_rate=0.5, min_data_in_leaf=5, min_sum_hessian_in_leaf=1e-3,
                         lambda_l2=0.0, max_depth=-1, max_bin=63, feature_fraction=1.0, bagging_fraction=1.0,
                         bagging_freq=0, n_jobs=1, random_state=0)
    train = lgb.Dataset(X, label=y, params=params, free_raw_data=False)
    valid = EvalSet("v", lgb.Dataset(X, label=y, reference=train, params=params),
                    lambda raw: [("mse", float(np.mean((raw - y) ** 2)), False)])
    result = boost(params, train, gradient, 50, eval_sets=[valid], early_stopping_rounds=10)
    assert result.booster.current_iteration() == result.booster.num_trees() == k
    assert len(result.evals_result["v"]["mse"]) == k
    assert result.best_iteration == k and result.stop_reason == f"no split improves the objective after {k} trees"
    assert result.best_score["v"]["mse"] == pytest.approx(np.mean((result.booster.predict(X) - y) ** 2))


def test_bad_objective_specs_name_the_valid_ones():
    ds = make_ltr(10, n_features=6, random_state=0)
    with pytest.raises(ValueError, match="objectives are .*YetiRank"):
        GBRanker("YetiRnak").fit(ds)
    with pytest.raises(ValueError, match="YetiRank has no parameter 'decya'; its parameters are mode, decay"):
        GBRanker("YetiRank:decya=0.5").fit(ds)
    with pytest.raises(ValueError, match="does not read explicit pairs"):
        GBRanker("QueryRMSE", n_estimators=2).fit(ds.X, ds.y, qid=ds.qid, pairs=[[0, 1]])
    last = ds.n_docs - 1
    with pytest.raises(ValueError, match="YetiRank does not read explicit pairs"):
        GBRanker("YetiRank", n_estimators=2).fit(ds.X, ds.y, qid=ds.qid, pairs=[[0, 1]])
    with pytest.raises(ValueError, match=rf"pair 0 = \[0, {last}\] joins rows of different queries"):
        GBRanker("PairLogit", n_estimators=2).fit(ds.X, ds.y, qid=ds.qid, pairs=[[0, last]])
    with pytest.raises(ValueError, match=rf"pair 0 = \[0, {last + 1}\] has a row index outside"):
        GBRanker("PairLogit", n_estimators=2).fit(ds.X, ds.y, qid=ds.qid, pairs=[[0, last + 1]])


def test_top_level_exports():
    assert metricrank.GBRanker is GBRanker
    assert metricrank.objectives.get_objective("YetiRank").name == "YetiRank"


def test_a_corrupted_booster_is_a_clear_error_not_a_crash(tmp_path):
    """A booster string damaged before the checksum was written (or a v1 file) must not reach LightGBM's parser."""
    import json

    from metricrank.learners._persistence import state_digest

    ds = make_ltr(20, n_features=6, random_state=0)
    model = GBRanker("YetiRank", n_estimators=3, **SMALL).fit(ds)
    path = tmp_path / "m.json"
    model.save(path)
    doc = json.loads(path.read_text())
    booster = doc["state"]["booster"]
    doc["state"]["booster"] = booster[: booster.index("Tree=1")] + booster[booster.index("Tree=2"):]  # a tree lost
    doc["state_sha256"] = state_digest(doc["state"])
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="tree"):
        GBRanker.load(path)
    doc["state"]["booster"] = booster  # intact again, but the file edited by hand: the checksum catches it
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="checksum mismatch"):
        GBRanker.load(path)


@pytest.mark.parametrize("objective", ["lambda:NDCG:top=10;type=Exp", "lambda:ERR:type=Graded", "lambda:MAUC",
                                       "YetiRank", "StochasticRank:metric=PFound", "QuerySoftMax"])
def test_fitted_models_pickle(objective):
    """joblib, multiprocessing and scikit-learn's parallel searches pickle fitted estimators."""
    import pickle

    ds = make_ltr(20, n_features=6, random_state=0)
    y = ds.y / 4 if "PFound" in objective else ds.y
    model = GBRanker(objective, n_estimators=3, **SMALL).fit(ds.X, y, qid=ds.qid)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(ds.X), model.predict(ds.X))
    assert again.objective_.spec == model.objective_.spec


def test_huge_auc_queries_are_accepted_when_the_fast_kernel_serves_them():
    """max_query_size guards the O(n²) kernels only: ROCArea with norm=False takes O(n log n)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = (X[:, 0] + rng.normal(size=3000) > 1).astype(float)
    with pytest.raises(ValueError, match="max_query_size=2000"):
        LambdaMART("ROCArea", norm=True, n_estimators=2, max_query_size=2000).fit(X, y, group=[3000])
    model = LambdaMART("ROCArea", norm=False, n_estimators=5, max_query_size=2000).fit(X, y, group=[3000])
    assert model.objective_.quadratic is False
    assert evaluate(y, model.predict(X), metric="ROCArea") > 0.8
    with pytest.raises(ValueError, match="max_query_size=2000"):
        LambdaMART("ROCArea", norm=False, exact=True, n_estimators=2, max_query_size=2000).fit(X, y, group=[3000])


def test_pairlogit_query_size_bound_follows_the_pairs_it_builds():
    """All generated pairs are O(n²) per query; max_pairs or explicit pairs are not."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 4))
    y = rng.integers(0, 3, 3000).astype(float)
    with pytest.raises(ValueError, match="max_query_size=2000"):
        GBRanker("PairLogit", n_estimators=2, max_query_size=2000).fit(X, y, group=[3000])
    GBRanker("PairLogit:max_pairs=100", n_estimators=2, max_query_size=2000).fit(X, y, group=[3000])
    GBRanker("PairLogit", n_estimators=2, max_query_size=2000).fit(X, y, group=[3000], pairs=[[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="max_query_size=2000"):
        LambdaMART("NDCG", target="NDCG", n_estimators=2, max_query_size=2000).fit(X, y, group=[3000])
    LambdaMART("NDCG", n_estimators=2, max_query_size=2000).fit(X, y, group=[3000])  # target="auto": YetiRank
    GBRanker("YetiRank", n_estimators=2, max_query_size=2000).fit(X, y, group=[3000])  # O(n log n) per query


def test_fit_without_groups_says_all_rows_are_one_query_and_unsplittable_data_says_why(capfd):
    import warnings

    from metricrank.data import OneQueryWarning

    ds = make_ltr(6, docs_per_query=(3, 6), n_features=6, random_state=0)
    capfd.readouterr()
    with pytest.raises(ValueError, match="no feature of the training data can be split.*min_data_in_leaf"):
        GBRanker("QueryRMSE", n_estimators=2).fit(ds)  # 27 rows, 20 per leaf: nothing splits
    # refused before LightGBM's first tree, whose C++ check prints "[LightGBM] [Fatal] ..." on stderr
    assert "LightGBM" not in capfd.readouterr().err
    with pytest.warns(OneQueryWarning, match=f"training data: no qid or group given: all {ds.n_docs} rows"):
        GBRanker("QueryRMSE", n_estimators=2, min_data_in_leaf=3).fit(ds.X, ds.y)
    # an eval set without queries is refused, as LightGBM refuses it: one query's curve would drive early stopping
    with pytest.raises(ValueError, match=r"eval_set\[0\] has no queries: pass eval_qid\[0\] or eval_group\[0\]"):
        GBRanker("QueryRMSE", n_estimators=2, min_data_in_leaf=3).fit(ds.X, ds.y, qid=ds.qid, eval_set=[(ds.X, ds.y)])
    with pytest.raises(ValueError, match=r"eval_set\[0\] has no queries"):
        GBRanker("QueryRMSE", n_estimators=2, min_data_in_leaf=3).fit(ds.X, ds.y, qid=ds.qid, eval_X=ds.X,
                                                                     eval_y=ds.y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GBRanker("QueryRMSE", n_estimators=2, min_data_in_leaf=3).fit(ds.X, ds.y, qid=ds.qid,
                                                                      eval_set=[(ds.X, ds.y, ds.qid)])
        GBRanker("QueryRMSE", n_estimators=2, min_data_in_leaf=3).fit(ds)


def test_yetirank_warns_that_it_ignores_row_weights():
    # as CatBoost ("Pairwise losses don't support object weights"): the model is the unweighted one
    ds = make_ltr(30, n_features=5, random_state=0)
    w = np.random.default_rng(0).uniform(0.2, 3.0, ds.n_docs)
    with pytest.warns(UserWarning, match="YetiRank does not read sample_weight"):
        a = GBRanker("YetiRank", n_estimators=4, **SMALL).fit(ds.X, ds.y, qid=ds.qid, sample_weight=w)
    b = GBRanker("YetiRank", n_estimators=4, **SMALL).fit(ds.X, ds.y, qid=ds.qid)
    np.testing.assert_array_equal(a.predict(ds.X), b.predict(ds.X))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GBRanker("YetiRank", n_estimators=2, **SMALL).fit(ds.X, ds.y, qid=ds.qid)  # no weights, no warning
        GBRanker("PairLogit", n_estimators=2, **SMALL).fit(ds.X, ds.y, qid=ds.qid, sample_weight=w)


def test_num_iteration_reads_the_first_trees_and_is_checked():
    ds = make_ltr(30, n_features=5, random_state=6)
    full = LambdaMART(metric="MAP", n_estimators=12, random_state=0).fit(ds.X, ds.y, qid=ds.qid)
    first4 = LambdaMART(metric="MAP", n_estimators=4, random_state=0).fit(ds.X, ds.y, qid=ds.qid)
    # the same seeds grow the same first trees: a 4-tree model is the oracle of num_iteration=4
    np.testing.assert_allclose(full.predict(ds.X, num_iteration=4), first4.predict(ds.X), rtol=0, atol=1e-12)
    assert not np.allclose(full.predict(ds.X, num_iteration=4), full.predict(ds.X))
    for every in (0, -1, 12, 13, 1000, np.int64(12)):  # LightGBM's convention: all iterations
        np.testing.assert_array_equal(full.predict(ds.X, num_iteration=every), full.predict(ds.X))
    for bad in (2.0, 2.5, True, "3"):
        with pytest.raises(TypeError, match="num_iteration must be an integer"):
            full.predict(ds.X, num_iteration=bad)


def test_eval_set_labels_outside_the_metric_fail_before_any_tree(monkeypatch):
    import metricrank.learners.gbranker as gbranker_module

    ds = make_ltr(12, docs_per_query=(6, 10), n_features=6, random_state=0)

    def no_boosting(*args, **kwargs):
        raise AssertionError("boosting started before the eval set's labels were checked")

    monkeypatch.setattr(gbranker_module, "boost_lanes", no_boosting)
    signed = (ds.X, ds.y - 1, ds.qid)  # grade 0 becomes -1: outside NDCG's labels
    with pytest.raises(ValueError, match=r"eval set valid_0: NDCG needs labels >= 0 .*row \d+ has label -1"):
        GBRanker("YetiRank", n_estimators=2, min_data_in_leaf=3).fit(ds, eval_set=[signed],
                                                                     eval_metrics=["NDCG:top=10"])
    with pytest.raises(ValueError, match="eval set held: ERR:type=Graded has max_label=2 but row"):
        LambdaMART("ERR:type=Graded;max_label=2", n_estimators=2, min_data_in_leaf=3).fit(
            ds.X, np.minimum(ds.y, 2), qid=ds.qid, eval_set=[(ds.X, ds.y + 1, ds.qid)], eval_names=["held"])
    with pytest.raises(AssertionError, match="boosting started"):  # labels DCG takes: training goes on
        GBRanker("YetiRank", n_estimators=2, min_data_in_leaf=3).fit(ds, eval_set=[signed], eval_metrics=["DCG"])


def test_negative_labels_are_judged_by_dcg_where_the_default_judge_is_ndcg():
    # YetiRank's classic mode trains on any label; its default judge, NDCG@10, refuses negative ones: eval sets,
    # early stopping and score() read them by DCG@10; an objective whose own metric is NDCG refuses them
    ds = make_ltr(30, docs_per_query=(6, 10), n_features=6, random_state=0)
    y = ds.y - 1
    model = GBRanker("YetiRank", n_estimators=5, min_data_in_leaf=3).fit(
        ds.X, y, qid=ds.qid, eval_set=[(ds.X.copy(), y, ds.qid)], early_stopping_rounds=2)  # not X: not "training"
    assert list(model.evals_result_["valid_0"]) == ["DCG:top=10"]
    # the judge reads every label it judges: training labels >= 0 with a signed eval set read DCG@10 too (as
    # under Dask), and only labels >= 0 everywhere keep NDCG@10
    for train_y, eval_y, judge in ((ds.y, y, "DCG:top=10"), (y, ds.y, "DCG:top=10"), (ds.y, ds.y, "NDCG:top=10")):
        judged = GBRanker("YetiRank", n_estimators=2, min_data_in_leaf=3).fit(
            ds.X, train_y, qid=ds.qid, eval_set=[(ds.X.copy(), eval_y, ds.qid)])
        assert list(judged.evals_result_["valid_0"]) == [judge]
    scores = model.predict(ds.X)
    assert model.score(ds.X, y, qid=ds.qid) == pytest.approx(evaluate(y, scores, qid=ds.qid, metric="DCG:top=10"))
    assert model.score(ds.X, ds.y, qid=ds.qid) == pytest.approx(
        evaluate(ds.y, scores, qid=ds.qid, metric="NDCG:top=10"))
    with pytest.raises(ValueError, match="StochasticRank:metric=NDCG needs labels >= 0; row 0 has label -1"):
        GBRanker("StochasticRank:metric=NDCG", n_estimators=2, min_data_in_leaf=3).fit(ds.X, y, qid=ds.qid)
    GBRanker("StochasticRank:metric=DCG", n_estimators=2, min_data_in_leaf=3).fit(ds.X, y, qid=ds.qid)
    for target in ("auto", "NDCG:top=10"):  # YetiRank judged by NDCG@10, and the exact λ of NDCG@10
        named = LambdaMART("NDCG:top=10", target=target, n_estimators=2, min_data_in_leaf=3)
        named.fit(ds.X, ds.y, qid=ds.qid)
        with pytest.raises(ValueError, match="NDCG needs labels >= 0"):  # a metric the model names is kept
            named.score(ds.X, y, qid=ds.qid)
    ranknet = GBRanker("ranknet", n_estimators=2, min_data_in_leaf=3).fit(ds.X, ds.y, qid=ds.qid)
    assert ranknet.score(ds.X, y, qid=ds.qid) == pytest.approx(
        evaluate(y, ranknet.predict(ds.X), qid=ds.qid, metric="DCG:top=10"))


def test_an_eval_sets_own_weights_are_no_unread_weights_warning():
    # the library evaluates its eval sets with their group weights; MAP reads none, and that is no user's mistake
    ds = make_ltr(30, docs_per_query=(6, 10), n_features=6, random_state=0)
    weighted = metricrank.RankingDataset(ds.X, ds.y, group_ptr=ds.group_ptr, group_weight=np.arange(ds.n_queries) + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LambdaMART("MAP", n_estimators=3, min_data_in_leaf=3).fit(weighted, eval_set=[weighted])
    assert not [w for w in caught if "are ignored" in str(w.message)]
    with pytest.warns(UserWarning, match="MAP: group_weights are ignored"):  # passed by the user, it is one
        evaluate(weighted.y, np.zeros(weighted.n_docs), metric="MAP", group_ptr=weighted.group_ptr,
                 group_weights=weighted.group_weight)

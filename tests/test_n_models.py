"""``n_models``: boosted models trained side by side in one booster and averaged."""

import os
import re

import lightgbm
import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr
from metricrank.cli import main as cli_main
from metricrank.data import save_letor
from metricrank.learners import _gbdt
from metricrank.learners._boosting import ModelGradients

NDCG = "NDCG:top=10"


@pytest.fixture(scope="module")
def data():
    train = make_ltr(80, docs_per_query=(5, 25), n_features=8, relevance="nonlinear", random_state=0)
    vali = make_ltr(30, docs_per_query=(5, 25), n_features=8, relevance="nonlinear", random_state=1)
    return train, vali


def deterministic(n_models, **params):
    """An exact λ, splits not randomised, no bagging: nothing random, so every model is the same model."""
    return LambdaMART("MAP", target="MAP", n_estimators=15, num_leaves=7, extra_trees=False, min_data_in_leaf=5,
                      n_models=n_models, random_state=0, n_jobs=1, **params)


def test_identical_models_average_to_the_single_model(data):
    train, vali = data
    one = deterministic(1).fit(train)
    three = deterministic(3).fit(train)
    assert three.booster_.num_model_per_iteration() == 3 and three.booster_.num_trees() == 3 * 15
    assert three.n_estimators_ == 15
    for k in (1, 7, 15):
        np.testing.assert_allclose(three.predict(vali.X, num_iteration=k), one.predict(vali.X, num_iteration=k),
                                   rtol=1e-12, atol=1e-12)


def test_a_warm_start_is_every_models_start(data):
    train, vali = data
    base = GBRanker("YetiRank", n_estimators=10, num_leaves=7, min_data_in_leaf=5, random_state=0).fit(train)
    one = deterministic(1).fit(train, init_model=base)
    two = deterministic(2).fit(train, init_model=base)
    # the same trees only if both columns start from the base model's scores, as the single model does
    np.testing.assert_allclose(two.predict(vali.X), one.predict(vali.X), rtol=1e-12, atol=1e-12)
    assert not np.allclose(deterministic(2).fit(train).predict(vali.X), one.predict(vali.X) - base.predict(vali.X))


def test_each_model_is_scored_at_its_own_column():
    seen = []

    def bound(raw):
        seen.append(raw.copy())
        return 2.0 * raw, raw + 1.0

    raw = np.arange(12, dtype=np.float64).reshape(4, 3)
    grad, hess = ModelGradients(bound)(raw)
    assert [list(s) for s in seen] == [list(raw[:, j]) for j in range(3)]
    np.testing.assert_array_equal(grad, 2.0 * raw)
    np.testing.assert_array_equal(hess, raw + 1.0)


def test_stochastic_models_differ_and_predict_their_mean(data):
    train, vali = data
    model = GBRanker("YetiRank", n_estimators=12, num_leaves=7, min_data_in_leaf=5, n_models=3, random_state=0,
                     n_jobs=1).fit(train)
    columns = model.booster_.predict(vali.X, raw_score=True)
    assert columns.shape == (vali.n_docs, 3)
    assert not np.allclose(columns[:, 0], columns[:, 1]) and not np.allclose(columns[:, 1], columns[:, 2])
    # the booster's columns by hand: the sum of each model's own trees (trees of iteration i: 3i, 3i+1, 3i+2)
    leaves = model.booster_.predict(vali.X, pred_leaf=True)
    by_hand = np.zeros((vali.n_docs, 3))
    for tree in range(model.booster_.num_trees()):
        by_hand[:, tree % 3] += [model.booster_.get_leaf_output(tree, int(leaf)) for leaf in leaves[:, tree]]
    np.testing.assert_allclose(model.predict(vali.X), by_hand.mean(axis=1), rtol=1e-10, atol=1e-12)


def test_evaluation_and_early_stopping_read_the_mean(data):
    train, vali = data
    model = LambdaMART(NDCG, n_estimators=30, num_leaves=7, min_data_in_leaf=5, n_models=2, random_state=0,
                       n_jobs=1).fit(train, eval_set=[vali], eval_names=["vali"], early_stopping_rounds=4)
    curve = model.evals_result_["vali"]["NDCG:top=10"]
    assert len(curve) == model.best_iteration_ + 4 and model.n_estimators_ == model.best_iteration_
    by_hand = [evaluate(vali, model.predict(vali.X, num_iteration=k), metric=NDCG)
               for k in range(1, model.n_estimators_ + 1)]
    np.testing.assert_allclose(curve[:model.n_estimators_], by_hand, rtol=1e-12)
    assert model.best_iteration_ == int(np.argmax(curve)) + 1


def test_contributions_sum_to_the_averaged_score(data):
    train, vali = data
    model = GBRanker("YetiRank", n_estimators=8, num_leaves=7, min_data_in_leaf=5, n_models=2, random_state=0,
                     n_jobs=1).fit(train)
    contrib = model.predict(vali.X, pred_contrib=True)
    assert contrib.shape == (vali.n_docs, vali.n_features + 1)
    np.testing.assert_allclose(contrib.sum(axis=1), model.predict(vali.X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("policy", ["leafwise", "mixed"])
def test_leaves_give_back_the_averaged_score(data, policy):
    train, vali = data
    model = LambdaMART(NDCG, n_estimators=8, num_leaves=7, min_data_in_leaf=5, n_models=2, grow_policy=policy,
                       max_depth=3, random_state=0, n_jobs=1).fit(train)
    per_iteration = model.booster_.num_model_per_iteration()
    assert per_iteration == (4 if policy == "mixed" else 2)
    leaves = model.predict(vali.X, pred_leaf=True, num_iteration=5)
    assert leaves.shape == (vali.n_docs, 5 * per_iteration)
    # a row's score: each model's leaf values summed over its trees (tree t belongs to model t % per_iteration),
    # then the mean over the models
    values = np.array([[model.booster_.get_leaf_output(t, int(leaf)) for t, leaf in enumerate(row)] for row in leaves])
    by_model = values.reshape(vali.n_docs, 5, per_iteration).sum(axis=1)
    np.testing.assert_allclose(by_model, model.booster_.predict(vali.X, num_iteration=5, raw_score=True),
                               rtol=1e-12, atol=1e-12)  # LightGBM's score column of each model
    np.testing.assert_allclose(by_model.mean(axis=1), model.predict(vali.X, num_iteration=5), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="pred_leaf and pred_contrib"):
        model.predict(vali.X, pred_leaf=True, pred_contrib=True)


def test_export_folds_the_models_into_one_lightgbm_model(data, tmp_path):
    train, vali = data
    base = LambdaMART(NDCG, n_estimators=6, num_leaves=7, min_data_in_leaf=5, n_models=2, random_state=1,
                      n_jobs=1).fit(train)
    model = GBRanker("YetiRank", n_estimators=9, num_leaves=7, min_data_in_leaf=5, n_models=3, random_state=0,
                     n_jobs=1).fit(train, init_model=base)
    path = tmp_path / "model.txt"
    model.to_lightgbm(path)
    plain = lightgbm.Booster(model_file=str(path))
    assert plain.num_model_per_iteration() == 1 and plain.num_trees() == 2 * 6 + 3 * 9
    np.testing.assert_allclose(plain.predict(vali.X), model.predict(vali.X), rtol=1e-10, atol=1e-12)


def test_to_lightgbm_scales_linear_leaves_of_several_models(data, tmp_path):
    # a linear tree's leaf is const + coefficients . x (leaf_value only for a row with a missing feature): the mean
    # of the models needs all of them scaled; the oracle is LightGBM's own predict on the written file
    train, vali = data
    model = LambdaMART(NDCG, n_estimators=8, num_leaves=7, min_data_in_leaf=5, n_models=3, random_state=0, n_jobs=1,
                       lgb_params={"linear_tree": True}).fit(train)
    assert "is_linear=1" in model.booster_.model_to_string()
    path = tmp_path / "model.txt"
    model.to_lightgbm(path)
    plain = lightgbm.Booster(model_file=str(path))
    assert plain.num_model_per_iteration() == 1 and plain.num_trees() == 3 * 8
    X = vali.X.copy()
    X[::5] = np.nan  # rows that fall back to leaf_value
    np.testing.assert_allclose(plain.predict(X), model.predict(X), rtol=1e-10, atol=1e-12)


def test_save_and_load_keep_the_models(data, tmp_path):
    train, vali = data
    model = LambdaMART(NDCG, n_estimators=8, num_leaves=7, min_data_in_leaf=5, n_models=2, random_state=0,
                       n_jobs=1).fit(train)
    model.save(tmp_path / "m.json")
    loaded = LambdaMART.load(tmp_path / "m.json")
    assert loaded.n_models == loaded.n_models_ == 2
    np.testing.assert_array_equal(loaded.predict(vali.X), model.predict(vali.X))


@pytest.mark.parametrize("value", [0, -1, 1.5, "2", "Auto", True, None])
def test_n_models_must_be_auto_or_a_positive_integer(data, value):
    with pytest.raises(ValueError, match="n_models must be 'auto' or an integer >= 1"):
        GBRanker(n_models=value, n_estimators=2).fit(data[0])


@pytest.mark.parametrize("make, models", [
    (lambda: LambdaMART(NDCG), 4),                        # judged NDCG trains on YetiRank
    (lambda: LambdaMART("MAUC"), 4),
    (lambda: GBRanker("YetiRank:permutations=3"), 4),
    (lambda: LambdaMART("MRR"), 1),                       # PairLogit below 30,000 documents: not measured
    (lambda: LambdaMART(NDCG, target="NDCG:top=10"), 1),
    (lambda: GBRanker("QuerySoftMax"), 1),
    (lambda: GBRanker("YetiRankPairwise"), 1),            # pairwise leaves: one score column
    (lambda: LambdaMART(NDCG, n_models=3), 3),            # explicit: as given
])
def test_auto_averages_four_yetirank_models_at_every_size(data, make, models):
    model = make().set_params(n_estimators=3, num_leaves=7, min_data_in_leaf=5, random_state=0, n_jobs=1)
    model.fit(data[0])
    assert model.n_models_ == models == model.booster_.num_model_per_iteration()


def test_auto_averages_four_on_a_few_documents_with_the_single_models_penalty(data):
    train = data[0]
    assert train.n_docs < 2_000
    model = LambdaMART(NDCG, n_estimators=3, min_data_in_leaf=5).fit(train)
    assert model.n_models_ == 4 == _gbdt.AUTO_MODELS == model.booster_.num_model_per_iteration()
    # the size rule's 7 randomised leaves keep the single model's cap (rule_lambda_l2_cap), below the hessian bound
    assert (model.num_leaves_, model.extra_trees_, model.lambda_l2_) == (7, True, _gbdt.AUTO_LAMBDA_L2)


def test_pairwise_leaves_train_one_model(data):
    with pytest.raises(ValueError, match="n_models=2: PairLogitPairwise .* set n_models=1"):
        GBRanker("PairLogitPairwise", n_models=2, n_estimators=2).fit(data[0])


def test_lgb_params_cannot_set_the_class_count(data):
    with pytest.raises(ValueError, match="lgb_params must not set num_class"):
        LambdaMART(lgb_params={"num_class": 2}, n_estimators=2).fit(data[0])


def test_cli_trains_and_checks_models(data, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")  # narrower than the message: it must not be wrapped
    train, vali = data
    path = os.fspath(tmp_path / "train.txt")
    save_letor(train, path)
    out = os.fspath(tmp_path / "model.json")
    assert cli_main(["train", "--train", path, "--out", out, "--trees", "5", "--models", "2", "--leaves", "7",
                     "--min-data-in-leaf", "5", "--seed", "0"]) == 0
    assert "(5 trees in each of 2 averaged models)" in capsys.readouterr().err
    model = LambdaMART.load(out)
    assert model.n_models == model.n_models_ == 2 and model.booster_.num_trees() == 10
    for args, message in ((["--models", "0"], "--models must be 'auto' or an integer >= 1"),
                          (["--models", "two"], "must be 'auto' or an integer >= 1; got 'two'")):
        capsys.readouterr()
        try:
            code = cli_main(["train", "--train", path, "--out", out, *args])
        except SystemExit as exit_:  # argparse's own type check
            code = exit_.code
        assert code == 2
        assert re.search(message, capsys.readouterr().err)

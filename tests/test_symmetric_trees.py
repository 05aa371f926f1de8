"""grow_policy="symmetric": oblivious trees grown by LightGBM through forced splits (learners/_symmetric.py)."""

import os
import warnings

import lightgbm as lgb
import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr
from metricrank.learners._symmetric import SymmetricTrees, _histograms, _level_histograms, binned, level_split


@pytest.fixture(scope="module")
def data():
    return make_ltr(80, n_features=6, random_state=3)


def _tree_levels(tree):
    """{depth: set of (feature, threshold)} and the leaves of one dumped LightGBM tree."""
    levels, leaves = {}, []

    def walk(node, depth):
        if "split_feature" in node:
            levels.setdefault(depth, set()).add((node["split_feature"], node["threshold"]))
            walk(node["left_child"], depth + 1)
            walk(node["right_child"], depth + 1)
        else:
            leaves.append(depth)

    walk(tree["tree_structure"], 0)
    return levels, leaves


def _best_level_split(X, cuts, grad, node, min_data):
    """The level split by the module's definition, written out: the (feature, cut index) with the largest
    Σ_nodes G_L²/n_L + G_R²/n_R - G²/n among those leaving min_data rows on both sides of every node of
    ``node`` (each row's node); None if none does."""
    best = (-np.inf, None)
    for f, fcuts in enumerate(cuts):
        for b, t in enumerate(fcuts):
            left = X[:, f] <= t
            score, valid = 0.0, True
            for k in np.unique(node):
                in_k = node == k
                nl, nr = np.sum(in_k & left), np.sum(in_k & ~left)
                if nl < min_data or nr < min_data:
                    valid = False
                    break
                gl, gr = grad[in_k & left].sum(), grad[in_k & ~left].sum()
                score += gl ** 2 / nl + gr ** 2 / nr - (gl + gr) ** 2 / (nl + nr)
            if valid and score > best[0]:
                best = (score, (f, b))
    return best[1]


def _brute_force_tree(X, cuts, grad, depth, min_data):
    """The symmetric tree by the module's definition: :func:`_best_level_split` level by level, from the root;
    its (feature, cut value) per level and each row's leaf."""
    X = np.nan_to_num(np.asarray(X, dtype=np.float64))
    node = np.zeros(len(grad), dtype=int)
    chosen = []
    for _ in range(depth):
        best = _best_level_split(X, cuts, grad, node, min_data)
        if best is None:
            break
        f, t = best[0], cuts[best[0]][best[1]]
        chosen.append((f, t))
        node = 2 * node + (X[:, f] > t)
    return chosen, node


def test_cut_points_fall_between_distinct_training_values_and_codes_count_cuts_below():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 5, 500).astype(float), rng.normal(size=500), np.full(500, 2.0)])
    cuts, codes = binned(X, max_bin=40)
    assert cuts[0].tolist() == [0.5, 1.5, 2.5, 3.5]  # every gap of five distinct values
    assert cuts[1].size == 40 - 3 and cuts[2].size == 0  # at most max_bin - 3; a constant has none
    values = np.unique(X[:, 1])
    for t in cuts[1]:  # each cut strictly between two consecutive distinct values
        i = np.searchsorted(values, t)
        assert values[i - 1] < t < values[i]
    # roughly equal row counts between cuts: the quantile rule
    counts = np.diff(np.concatenate([[0], np.searchsorted(np.sort(X[:, 1]), cuts[1], side="right"), [500]]))
    assert counts.min() >= 500 / 38 - 2 and counts.max() <= 500 / 38 + 2
    for f in range(3):
        np.testing.assert_array_equal(codes[f], (X[:, f][:, None] > cuts[f][None, :]).sum(axis=1))


def _random_binned(seed, n_rows, n_features, max_bin):
    """Normal features, gradients and hessians in 0.1..1, and the features' cuts and bins."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    cuts, codes = binned(X, max_bin)
    return X, rng.normal(size=n_rows), rng.uniform(0.1, 1, n_rows), cuts, codes


@pytest.mark.parametrize("width", [1, 4])  # features a pass
@pytest.mark.parametrize("n_features", [1, 4, 6, 9])  # whole blocks of features a pass, and a part block
def test_histograms_are_the_sums_of_the_rows_in_each_node_and_bin(n_features, width):
    X, grad, hess, cuts, codes = _random_binned(n_features, 400, n_features, 16)
    n_bins = max(c.size for c in cuts) + 1
    node = np.random.default_rng(0).integers(0, 3, 400)
    rows = np.flatnonzero(X[:, 0] > -0.3)  # a subset, in order
    expected = np.zeros((3, n_features, n_bins, 3))
    for f in range(n_features):  # np.add.at adds in the order of rows, so the sums are the same to the last bit
        for column, values in enumerate((grad[rows], hess[rows], np.ones(rows.size))):
            np.add.at(expected[:, f, :, column], (node[rows], codes[f, rows]), values)
    hist = _histograms(codes, rows, node, 3, n_bins, grad, hess, width)
    np.testing.assert_array_equal(hist, expected)


def test_level_split_is_the_brute_force_best_valid_split():
    X, grad, hess, cuts, codes = _random_binned(1, 300, 4, 20)
    n_cuts = np.array([c.size for c in cuts])
    node = (X[:, 0] > 0).astype(np.int64)  # two nodes
    hist = _histograms(codes, np.arange(300), node, 2, int(n_cuts.max()) + 1, grad, hess)
    f, c = level_split(hist, np.ones(2, dtype=bool), n_cuts, 30, 1e-3)
    assert (f, c) == _best_level_split(X, cuts, grad, node, 30)


@pytest.mark.parametrize("seed", range(4))
def test_levels_are_the_brute_force_tree(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 5))
    X[:, 2] = np.round(X[:, 2])  # few distinct values
    grad = X[:, 0] * (X[:, 1] > 0.3) - X[:, 3] ** 2 + rng.normal(size=400)
    with SymmetricTrees(X, depth=4, lambda_l2=0.0, min_data_in_leaf=12, min_sum_hessian_in_leaf=0.0,
                        max_bin=9) as trees:  # coarse bins: a row in the wrong node moves many
        chosen, _ = _brute_force_tree(X, trees.cuts, grad, 4, 12)
        levels = trees.levels(grad, np.ones(400))
        assert [(f, trees.cuts[f][c]) for f, c, _ in levels] == chosen
        assert all(split.all() for _, _, split in levels)


def test_a_level_s_histograms_from_its_parents_equal_those_counted_from_every_row():
    X, grad, hess, cuts, codes = _random_binned(5, 500, 3, 12)
    n_bins = max(c.size for c in cuts) + 1
    parent = (X[:, 0] > 0.5).astype(np.int64)  # two nodes, unequal; the second splits, the first does not
    split = np.array([False, True])
    child = 2 * parent + (split[parent] & (X[:, 1] > 0.8))  # its right child is the smaller
    small = np.array([False, False, False, True])
    parent_hist = _histograms(codes, np.arange(500), parent, 2, n_bins, grad, hess)
    hist = _level_histograms(codes, child, parent_hist, split, small, n_bins, grad, hess)
    direct = _histograms(codes, np.arange(500), child, 4, n_bins, grad, hess)
    np.testing.assert_allclose(hist[2:], direct[2:], atol=1e-12)  # the split node's two children
    assert not hist[:2].any()  # the unsplit node's are not needed, and not built


def test_every_tree_is_symmetric_and_is_the_brute_force_tree_with_newton_leaves(data):
    model = LambdaMART(metric="NDCG:top=10", target="NDCG:top=10", grow_policy="symmetric", max_depth=3,
                       n_estimators=5, min_data_in_leaf=15, random_state=0).fit(data.X, data.y, qid=data.qid)
    assert model.num_leaves_ == 8 and model.lambda_l2_ == 0.0 and model.extra_trees_ is False
    assert model.capacity_check_ is None
    trees = model.booster_.dump_model()["tree_info"]
    for tree in trees:
        levels, leaves = _tree_levels(tree)
        assert leaves == [3] * 8 and all(len(levels[d]) == 1 for d in range(3))  # one split per level
    # the first tree against the definition, on the gradients at zero scores
    from metricrank.objectives._base import as_training_data

    grad, hess = model.objective_.bind(as_training_data(data.y, data.group_ptr), 0)(np.zeros(data.n_docs))
    grad, hess = np.array(grad), np.array(hess)
    cuts, _ = binned(data.X, 255)
    chosen, node = _brute_force_tree(data.X, cuts, grad, 3, 15)
    levels, _ = _tree_levels(trees[0])
    assert [next(iter(levels[d])) for d in range(3)] == [(f, pytest.approx(t, rel=1e-12)) for f, t in chosen]
    # LightGBM's leaves hold exactly the rows of the brute-force nodes, each at the Newton step -η G / H
    first = model.booster_.predict(data.X, num_iteration=1, raw_score=True)
    for k in np.unique(node):
        rows = node == k
        assert np.ptp(first[rows]) == 0
        np.testing.assert_allclose(first[rows][0], -0.1 * grad[rows].sum() / hess[rows].sum(), rtol=1e-5)


def test_no_free_split_where_the_forced_tree_stops(data):
    # rows for one level only: with 40 % of the rows per side, no second split leaves that in all four
    # nodes; LightGBM would otherwise fill the 8 leaves its num_leaves allows with splits of its own
    n = data.n_docs
    model = GBRanker("YetiRank", grow_policy="symmetric", max_depth=3, n_estimators=4,
                     min_data_in_leaf=int(0.3 * n)).fit(data.X, data.y, qid=data.qid)
    for tree in model.booster_.dump_model()["tree_info"]:
        levels, leaves = _tree_levels(tree)
        assert leaves == [1, 1] and len(levels) == 1


def test_depth_follows_num_leaves_and_several_models_share_each_structure(data):
    model = GBRanker("YetiRank", grow_policy="symmetric", num_leaves=15, n_models=2, n_estimators=3,
                     min_data_in_leaf=10, random_state=1).fit(data.X, data.y, qid=data.qid)
    assert model.num_leaves_ == 16 and model.n_models_ == 2
    trees = model.booster_.dump_model()["tree_info"]
    assert len(trees) == 6
    for a, b in zip(trees[::2], trees[1::2]):  # the two models' trees of one iteration
        assert _tree_levels(a)[0] == _tree_levels(b)[0]
        assert a["tree_structure"]["left_child"] != b["tree_structure"]["left_child"]  # their own leaf values


def test_a_symmetric_model_predicts_saves_and_exports_on_raw_features(data, tmp_path):
    X = data.X.copy()
    # missing values count as 0, in training and prediction alike: here 0 lies above every value of an
    # informative feature (LightGBM's own missing-value handling would send them to the left)
    X[:, 0] = -1 - 2 * data.y + np.random.default_rng(0).normal(size=data.n_docs)
    X[::5, 0] = np.nan
    model = LambdaMART(metric="MAP", grow_policy="symmetric", max_depth=4, n_estimators=10, min_data_in_leaf=10,
                       random_state=0).fit(X, data.y, qid=data.qid)
    scores = model.predict(X)
    assert model.feature_importances_[0] > 0
    np.testing.assert_array_equal(scores, model.predict(np.nan_to_num(X)))
    path = tmp_path / "model.json"
    model.save(path)
    np.testing.assert_array_equal(LambdaMART.load(path).predict(X), scores)
    model.to_lightgbm(tmp_path / "model.txt")
    np.testing.assert_allclose(lgb.Booster(model_file=str(tmp_path / "model.txt")).predict(X), scores, rtol=1e-12)
    bins = model.booster_.params["forcedbins_filename"]
    assert not os.path.exists(os.path.dirname(bins))  # the fit's files are gone with it
    assert model.booster_.params["forcedsplits_filename"] == "" and model.booster_.params["cegb_penalty_split"] == 0
    # the same data and parameters give the same model, from the binned Dataset of the first fit (the cut
    # file's name, not its fit's folder, keys the cache)
    from metricrank.learners import _dataset_cache

    entries = set(_dataset_cache._entries)  # none added, none evicted
    again = LambdaMART(metric="MAP", grow_policy="symmetric", max_depth=4, n_estimators=10, min_data_in_leaf=10,
                       random_state=0).fit(X, data.y, qid=data.qid)
    np.testing.assert_array_equal(again.predict(X), scores)
    assert set(_dataset_cache._entries) == entries


@pytest.mark.parametrize("params, message", [
    ({"grow_policy": "oblivious"},
     "grow_policy must be one of 'auto', 'leafwise', 'symmetric', 'symmetric_then_leafwise'"),
    ({"grow_policy": "symmetric_then_leafwise", "extra_trees": True},
     "grow_policy='symmetric_then_leafwise' chooses its symmetric splits from all rows and features, "
     "deterministically: extra_trees=True applies"),
    ({"extra_trees": True}, "extra_trees=True applies to grow_policy='leafwise' only"),
    ({"feature_fraction": 0.8}, "feature_fraction < 1"),
    ({"bagging_fraction": 0.8, "bagging_freq": 1}, "bagging"),
    ({"path_smooth": 1.0}, "path_smooth > 0"),
    ({"max_depth": 9}, "max_depth must be at most 8"),
])
def test_options_that_do_not_apply_to_symmetric_trees_are_refused(data, params, message):
    params = {"grow_policy": "symmetric", **params}
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        GBRanker(n_estimators=2, **params).fit(data.X, data.y, qid=data.qid)


def test_categorical_features_are_refused_with_symmetric_trees(data):
    X = data.X.copy()
    X[:, 0] = np.arange(data.n_docs) % 4
    with pytest.raises(ValueError, match=r"categorical features \[0\] need grow_policy='leafwise'"):
        GBRanker(grow_policy="symmetric", n_estimators=2).fit(X, data.y, qid=data.qid, categorical_feature=[0])
    GBRanker(n_estimators=2).fit(X, data.y, qid=data.qid, categorical_feature=[0])  # leaf-wise trees take them


def _fit_recording(monkeypatch, model, data):
    """Fit ``model`` on ``data``; the leaves each tree was forced to have, the gradients and hessians it was grown
    on (rows by models), and the warnings of the fit."""
    intended, gradients = [], []
    grow = SymmetricTrees.before_tree

    def recording(self, booster, grad, hess):
        grow(self, booster, grad, hess)
        intended.append(self.leaves[-1])
        gradients.append((np.array(grad, dtype=np.float64).reshape(len(grad), -1),
                          np.array(hess, dtype=np.float64).reshape(len(hess), -1)))

    monkeypatch.setattr(SymmetricTrees, "before_tree", recording)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(data.X, data.y, qid=data.qid)
    return intended, gradients, [str(w.message) for w in caught]


@pytest.mark.parametrize("depth, lambda_l2", [(5, 0.0), (2, 300.0), (5, 30.0)])
def test_nodes_without_gain_stay_leaves_and_every_forced_split_is_taken(data, monkeypatch, depth, lambda_l2):
    # LightGBM refuses a forced split without positive Newton gain and drops the splits after it, and below a node
    # where its own search found no cut of a feature it has no histogram of it; such nodes are left out of the
    # forced tree, so that LightGBM grows every tree as forced
    model = LambdaMART(metric="MAP", target="MAP", grow_policy="symmetric", max_depth=depth, lambda_l2=lambda_l2,
                       n_estimators=8, min_data_in_leaf=5)
    intended, _, caught = _fit_recording(monkeypatch, model, data)
    grown = []
    for tree in model.booster_.dump_model()["tree_info"]:
        levels, leaves = _tree_levels(tree)
        assert all(len(splits) == 1 for splits in levels.values())
        grown.append(len(leaves))
    assert grown == intended and not caught
    assert min(intended) < 2 ** depth if lambda_l2 else intended == [32] * 8  # some nodes unsplit on purpose


def test_without_the_histogram_check_lightgbm_cuts_trees_short_and_that_is_reported(data, monkeypatch):
    # the check of stop 71 switched off (every node counted as one where LightGBM has every histogram): with
    # lambda_l2=30 LightGBM refuses forced splits below nodes where it found no cut of their feature
    from metricrank.learners import _symmetric

    monkeypatch.setattr(_symmetric, "_lightgbm_splittable", lambda hist, *args: np.ones(hist.shape[0], dtype=bool))
    model = LambdaMART(metric="MAP", target="MAP", grow_policy="symmetric", max_depth=5, lambda_l2=30.0,
                       n_estimators=8, min_data_in_leaf=5)
    intended, _, caught = _fit_recording(monkeypatch, model, data)
    grown = [len(_tree_levels(tree)[1]) for tree in model.booster_.dump_model()["tree_info"]]
    short = sum(g < i for g, i in zip(grown, intended))
    assert short > 0 and all(g <= i for g, i in zip(grown, intended))
    assert caught == [
        f"grow_policy='symmetric': LightGBM grew {short} of 8 trees smaller than forced: it refused forced "
        "splits, most likely of features that had no split of positive gain with lambda_l2=30 higher up; "
        "lambda_l2=0 grows them whole"]


@pytest.mark.parametrize("grow_policy", ["symmetric", "symmetric_then_leafwise"])
@pytest.mark.parametrize("n_models", [1, 2])
def test_with_a_penalty_every_leaf_is_the_newton_step_of_its_rows(data, monkeypatch, grow_policy, n_models):
    # the oracle: each leaf of each model's tree holds -eta * sum(g) / (sum(h) + lambda_l2) over the rows it
    # holds, for the gradients that tree was grown on. A forced split read from a histogram LightGBM did not build
    # gets leaf values from another node's rows (and, in completed trees, LightGBM's own splits after it can
    # fail its row-count check and stop the fit)
    eta, lambda_l2 = 0.3, 30.0
    model = GBRanker("YetiRank", grow_policy=grow_policy, max_depth=5, lambda_l2=lambda_l2, n_models=n_models,
                     n_estimators=8, learning_rate=eta, min_data_in_leaf=5, random_state=0)
    intended, gradients, caught = _fit_recording(monkeypatch, model, data)
    assert not caught
    booster = model.booster_
    leaf_of = booster.predict(data.X, pred_leaf=True)
    assert booster.num_trees() == 8 * n_models
    for t in range(booster.num_trees()):
        iteration, column = divmod(t, n_models)
        grad, hess = gradients[iteration]
        tree_scores = booster.predict(data.X, start_iteration=iteration, num_iteration=1, raw_score=True)
        tree_scores = tree_scores.reshape(data.n_docs, -1)[:, column]
        for leaf in np.unique(leaf_of[:, t]):
            rows = leaf_of[:, t] == leaf
            g, h = grad[rows, column].sum(), hess[rows, column].sum()
            assert np.ptp(tree_scores[rows]) == 0
            assert tree_scores[rows][0] == pytest.approx(-eta * g / (h + lambda_l2), rel=1e-4, abs=1e-12)


def test_a_root_that_no_split_suits_ends_the_fit_as_leaf_wise_trees_do(data):
    # no split leaves every row's minimum on both sides: the forced tree is empty (JSON null; an empty
    # object would read as a split of feature 0), and LightGBM keeps one constant tree
    model = GBRanker("YetiRank", grow_policy="symmetric", max_depth=3, n_estimators=5,
                     min_data_in_leaf=data.n_docs).fit(data.X, data.y, qid=data.qid)
    assert model.n_estimators_ == 1 and model.stop_reason_ == "no split improves the objective after 1 trees"
    assert [t["num_leaves"] for t in model.booster_.dump_model()["tree_info"]] == [1] * model.n_models_  # 4 models


def _holds_forced(forced, node):
    """Whether the dumped LightGBM ``node`` starts with the forced-splits tree ``forced`` (same feature and
    threshold at every forced node; below the forced nodes anything)."""
    if forced is None:
        return True
    if "split_feature" not in node or node["split_feature"] != forced["feature"] \
            or node["threshold"] != pytest.approx(forced["threshold"], rel=1e-12):
        return False
    return all(_holds_forced(forced.get(side), node[f"{side}_child"]) for side in ("left", "right"))


def test_completed_trees_keep_the_symmetric_levels_and_grow_leaf_wise_within_the_depth_where_they_stop(
        data, monkeypatch):
    # 20 % of the rows per side: the symmetric levels stop early (no split suits every node), and LightGBM
    # completes each tree with splits of its own, no deeper than the depth, each leaf about the minimum
    forced = []
    choose = SymmetricTrees.forced_splits

    def recording(self, levels):
        tree, leaves = choose(self, levels)
        forced.append((tree, leaves))
        return tree, leaves

    monkeypatch.setattr(SymmetricTrees, "forced_splits", recording)
    min_data = int(0.2 * data.n_docs)
    fits = {policy: GBRanker("YetiRank", grow_policy=policy, max_depth=3, n_estimators=6, min_data_in_leaf=min_data,
                             n_models=1, random_state=0).fit(data.X, data.y, qid=data.qid)
            for policy in ("symmetric", "symmetric_then_leafwise")}
    completed = fits["symmetric_then_leafwise"]
    assert completed.num_leaves_ == 8 and completed.lambda_l2_ == 0.0
    trees = completed.booster_.dump_model()["tree_info"]
    forced = forced[len(fits["symmetric"].booster_.dump_model()["tree_info"]):]  # the completed fit's
    assert len(trees) == len(forced) == 6
    filled = 0
    for tree, (top, forced_leaves) in zip(trees, forced):
        assert _holds_forced(top, tree["tree_structure"])
        _, depths = _tree_levels(tree)
        assert max(depths) <= 3 and len(depths) <= 8
        filled += len(depths) > forced_leaves
    assert filled == 6  # every tree got leaves of LightGBM's own beyond the forced ones
    # LightGBM's own splits keep the fit's minimum as LightGBM counts rows: from the hessians, so a leaf
    # may hold a few rows fewer (398 of 422 here); with LightGBM's minimum of 1 they would be far smaller
    assert completed.booster_.params["min_data_in_leaf"] == min_data
    assert completed.booster_.params["max_depth"] == 3 and completed.booster_.params["num_leaves"] == 8
    leaf_rows = completed.booster_.predict(data.X, pred_leaf=True)
    assert min(np.bincount(leaf_rows[:, t]).min() for t in range(6)) >= 0.9 * min_data
    # the first trees start from the same gradients: the strict tree is the completed one's top, and smaller
    strict_first = fits["symmetric"].booster_.dump_model()["tree_info"][0]
    assert len(_tree_levels(strict_first)[1]) == forced[0][1] < len(_tree_levels(trees[0])[1])


@pytest.mark.parametrize("grow_policy", ["symmetric", "mixed"])
def test_data_with_no_splittable_feature_is_refused_before_the_first_tree(grow_policy, capfd):
    # constant features keep their bins in the symmetric trees' Dataset (feature_pre_filter=False), so LightGBM's
    # own check does not fire: without ours the fit returned a constant model of one empty tree
    X = np.ones((40, 3))
    y = np.tile([0.0, 1.0, 2.0, 0.0], 10)
    qid = np.repeat(np.arange(8), 5)
    with pytest.raises(ValueError, match="no feature of the training data can be split"):
        LambdaMART("NDCG", grow_policy=grow_policy, n_estimators=3).fit(X, y, qid=qid)
    assert "LightGBM" not in capfd.readouterr().err
    X[::2, 1] = 0.0  # one feature that varies: trains
    LambdaMART("NDCG", grow_policy=grow_policy, n_estimators=3).fit(X, y, qid=qid)

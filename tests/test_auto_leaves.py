"""``num_leaves="auto"``: leaves per tree from the training set's size."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr
from metricrank.learners._gbdt import auto_extra_trees, auto_num_leaves


def expected_leaves(n_docs):
    # the documented rule, written out: a full binary tree with ~2,000 documents per leaf, 7..31 leaves
    for depth in range(10, -1, -1):
        if n_docs >= 2000 * (2 ** depth - 1):
            return min(31, max(7, 2 ** depth - 1))
    return 7


@pytest.mark.parametrize("n_docs", [0, 2, 1999, 13_999, 14_000, 29_999, 30_000, 61_999, 62_000, 125_999,
                                    126_000, 253_999, 254_000, 10**7])
def test_rule_matches_its_description(n_docs):
    assert auto_num_leaves(n_docs) == expected_leaves(n_docs)


@pytest.mark.parametrize("n_docs, expected", [(0, True), (61_999, True), (62_000, False), (10**7, False)])
def test_extra_trees_rule(n_docs, expected):
    assert auto_extra_trees(n_docs) is expected


def tree_leaves(model):
    return [tree["num_leaves"] for tree in model.booster_.dump_model()["tree_info"]]


@pytest.mark.parametrize("estimator", [LambdaMART, GBRanker])
def test_auto_resolves_at_fit_and_bounds_the_trees(estimator):
    # a mean hessian per row far above 10 / 750: "auto" is the unbounded 10 (tests/test_auto_lambda_l2.py: the bound)
    small = make_ltr(150, docs_per_query=(10, 20), n_features=5, random_state=0)
    model = estimator(n_estimators=3, n_jobs=1, random_state=0).fit(small)
    assert model.num_leaves == "auto" and model.num_leaves_ == 7
    assert model.extra_trees == "auto" and model.extra_trees_ is True
    assert model.lambda_l2 == "auto" and model.lambda_l2_ == 10.0 and model.booster_.params["lambda_l2"] == 10.0
    assert max(tree_leaves(model)) <= 7
    # 62,000+ documents: 31 leaves, and the trees use them
    big = make_ltr(625, docs_per_query=100, n_features=5, relevance="nonlinear", random_state=0)
    assert big.n_docs >= 62_000
    # (extra_trees off: a random threshold per feature may leave no split worth making)
    full = estimator(n_estimators=2, min_data_in_leaf=5, extra_trees=False, n_jobs=1, random_state=0).fit(big)
    assert full.num_leaves_ == 31
    assert max(tree_leaves(full)) == 31
    # with both "auto" the rule's trees (31 leaves, extra_trees off) are the capacity check's first trial,
    # and the final trees are those of the capacity it chose
    # (leaf-wise: LambdaMART's grow_policy="auto" checks depths of completed symmetric trees there instead,
    # tests/test_grow_policy_auto.py)
    auto = estimator(n_estimators=2, min_data_in_leaf=5, grow_policy="leafwise", n_jobs=1, random_state=0).fit(big)
    first = auto.capacity_check_.trials[0]
    assert (first["num_leaves"], first["extra_trees"]) == (31, False)
    chosen = estimator(n_estimators=2, min_data_in_leaf=5, num_leaves=auto.num_leaves_,
                       extra_trees=auto.extra_trees_, lambda_l2=auto.lambda_l2_, n_jobs=1, random_state=0).fit(big)
    np.testing.assert_array_equal(auto.predict(big.X[:500]), chosen.predict(big.X[:500]))
    # extra_trees="auto" alone is off there: the same trees as extra_trees=False (no check)
    rule = estimator(n_estimators=2, min_data_in_leaf=5, num_leaves=31, n_jobs=1, random_state=0).fit(big)
    assert rule.extra_trees_ is False and rule.capacity_check_ is None
    np.testing.assert_array_equal(rule.predict(big.X[:500]), full.predict(big.X[:500]))
    # an explicit integer is kept
    model = estimator(n_estimators=2, num_leaves=4, extra_trees=False, n_jobs=1, random_state=0).fit(big)
    assert model.num_leaves_ == 4 and max(tree_leaves(model)) == 4


def test_auto_survives_save_and_load(tmp_path):
    data = make_ltr(150, docs_per_query=(10, 20), n_features=5, random_state=0)
    model = LambdaMART(n_estimators=3, n_jobs=1, random_state=0).fit(data)
    path = tmp_path / "m.json"
    model.save(path)
    loaded = LambdaMART.load(path)
    assert loaded.num_leaves == "auto"
    assert (loaded.num_leaves_, loaded.extra_trees_, loaded.lambda_l2_, loaded.capacity_check_) == (7, True, 10.0, None)
    np.testing.assert_array_equal(loaded.predict(data.X), model.predict(data.X))
    json.loads(path.read_text())  # still plain JSON


def test_files_without_the_fitted_capacity_read_it_from_the_booster(tmp_path):
    from metricrank.learners._persistence import state_digest

    data = make_ltr(30, docs_per_query=(10, 20), n_features=5, random_state=0)
    path = tmp_path / "m.json"
    LambdaMART(n_estimators=3, num_leaves=5, extra_trees=True, lambda_l2=2.5, n_jobs=1,
               random_state=0).fit(data).save(path)
    doc = json.loads(path.read_text())
    for key in ("num_leaves", "extra_trees", "capacity_check"):  # as written before stop 21
        del doc["state"][key]
    doc["state"]["params"]["num_leaves"] = doc["state"]["params"]["extra_trees"] = "auto"
    doc["state"]["params"]["lambda_l2"] = "auto"
    doc["state_sha256"] = state_digest(doc["state"])
    path.write_text(json.dumps(doc))
    loaded = LambdaMART.load(path)
    assert (loaded.num_leaves, loaded.num_leaves_, loaded.extra_trees_, loaded.capacity_check_) == ("auto", 5, True, None)
    assert (loaded.lambda_l2, loaded.lambda_l2_) == ("auto", 2.5)


def test_cli_default_leaves_is_auto(tmp_path):
    from metricrank import save_letor
    from metricrank.cli import main

    data = make_ltr(150, docs_per_query=(10, 20), n_features=5, random_state=0)
    save_letor(data, tmp_path / "train.txt")
    assert main(["train", "--train", str(tmp_path / "train.txt"), "--trees", "3", "--quiet", "--threads", "1",
                 "--out", str(tmp_path / "m.json")]) == 0
    model = LambdaMART.load(tmp_path / "m.json")
    assert model.num_leaves == model.lambda_l2 == "auto" and model.lambda_l2_ == 10.0
    assert main(["train", "--train", str(tmp_path / "train.txt"), "--trees", "3", "--quiet", "--threads", "1",
                 "--leaves", "5", "--l2", "2.5", "--out", str(tmp_path / "m5.json")]) == 0
    model = LambdaMART.load(tmp_path / "m5.json")
    assert (model.num_leaves, model.lambda_l2, model.lambda_l2_) == (5, 2.5, 2.5)

"""grow_policy="auto" (LambdaMART's default): completed symmetric trees beside leaf-wise ones ("mixed") from 30,000
documents where the sizes are left to the library, the capacity check sizing them where it runs and the size rule
with fewer than 100 queries (there for the YetiRank gradient), leaf-wise trees otherwise.

The oracle is the same estimator with the policy "auto" should choose, set by hand: the two models must predict
alike, and where the check runs, its trials (every capacity's held-out value and tree count) must agree too.
"""

import json

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr
from metricrank.learners import _capacity
from metricrank.learners._persistence import state_digest

FEW_TREES = {"n_estimators": 12, "random_state": 2}


def data(n_queries=150, seed=0):
    """Nonlinear relevance, little label noise: about 30 documents a query."""
    return make_ltr(n_queries, docs_per_query=(20, 40), n_features=8, n_informative=5, relevance="nonlinear",
                    noise=0.3, random_state=seed)


def assert_same_model(model, by_hand, ds):
    np.testing.assert_array_equal(model.predict(ds.X), by_hand.predict(ds.X))
    assert model.booster_.params["max_depth"] == by_hand.booster_.params["max_depth"]


def test_defaults_are_auto_for_lambdamart_and_leafwise_for_gbranker():
    # auto was measured with λ-gradients only (BENCHMARKS.md, "Stop 56")
    assert LambdaMART().grow_policy == "auto" and GBRanker().grow_policy == "leafwise"


def test_auto_grows_mixed_trees_where_the_check_runs(low_threshold, tmp_path):
    ds = data()
    model = LambdaMART("MAP", **FEW_TREES).fit(ds)
    by_hand = LambdaMART("MAP", grow_policy="mixed", **FEW_TREES).fit(ds)
    assert model.grow_policy_ == "mixed" and model.grow_policy == "auto"
    assert_same_model(model, by_hand, ds)
    # each kind's check: the held-out fold models grew trees of that kind, so every trial agrees
    assert [k.capacity_check.grow_policy for k in model.kinds_] == ["symmetric_then_leafwise", "leafwise"]
    assert [k.capacity_check.trials for k in model.kinds_] == [k.capacity_check.trials for k in by_hand.kinds_]
    assert "depth 3 L2 0: " in str(model.capacity_check_) and model.capacity_check_ is model.kinds_[0].capacity_check
    # a saved model keeps the policy its fit chose
    model.save(tmp_path / "auto.json")
    assert LambdaMART.load(tmp_path / "auto.json").grow_policy_ == "mixed"
    # refitted where the check does not run (99 training queries, above the lowered CHECK_MIN_DOCS), the same
    # estimator grows both kinds by the size rule
    few = data(n_queries=99)
    assert_same_model(model.fit(few), LambdaMART("MAP", grow_policy="mixed", **FEW_TREES).fit(few), few)
    assert model.grow_policy_ == "mixed" and [k.capacity_check for k in model.kinds_] == [None, None]


def test_auto_grows_mixed_trees_judged_by_mrr_too(low_threshold):
    # until stop 65 MRR kept leaf-wise trees; completed ones scored higher MRR on clean draws of the held-out
    # collection's shape (BENCHMARKS.md, "Stop 65"), and both kinds side by side higher still on noisy ones ("Stop 68")
    ds = data()
    model = LambdaMART("MRR", **FEW_TREES).fit(ds)
    assert model.grow_policy_ == "mixed"
    assert_same_model(model, LambdaMART("MRR", grow_policy="mixed", **FEW_TREES).fit(ds), ds)
    assert model.capacity_check_.grow_policy == "symmetric_then_leafwise"


@pytest.fixture(scope="module")
def few_long_queries():
    """LETOR 3.0's gov shape in small: 30,000+ documents in 60 queries, so no capacity check."""
    ds = make_ltr(60, docs_per_query=520, n_features=5, relevance="nonlinear", random_state=0)
    assert ds.n_docs >= 30_000 and ds.n_queries < 100
    return ds


@pytest.mark.parametrize("metric", ["MAP", "MRR"])
def test_auto_grows_mixed_trees_by_the_size_rule_from_30000_documents_without_the_check(few_long_queries, metric):
    # from 30,000 documents with fewer than 100 queries the YetiRank gradient (every judged metric's there) grows
    # both kinds, each sized as a fit of that kind alone is, by the size rule (BENCHMARKS.md, "Stop 69")
    ds, kw = few_long_queries, {"n_estimators": 3, "random_state": 2}
    model = LambdaMART(metric, **kw).fit(ds)
    assert type(model.objective_).__name__ == "YetiRank" and model.grow_policy_ == "mixed"
    assert_same_model(model, LambdaMART(metric, grow_policy="mixed", **kw).fit(ds), ds)
    alone = [LambdaMART(metric, grow_policy=kind, **kw).fit(ds) for kind in ("symmetric_then_leafwise", "leafwise")]
    assert [(k.grow_policy, k.num_leaves, k.extra_trees, k.lambda_l2, k.n_models) for k in model.kinds_] == \
        [(m.grow_policy_, m.num_leaves_, m.extra_trees_, m.lambda_l2_, m.n_models_) for m in alone]
    assert all(k.capacity_check is None for k in model.kinds_)


def test_auto_grows_leafwise_trees_for_a_lambda_target_without_the_check(few_long_queries):
    # the λ-gradients were not measured with both kinds there
    ds, kw = few_long_queries, {"n_estimators": 3, "random_state": 2}
    model = LambdaMART("MAP", target="MAP", **kw).fit(ds)
    assert model.grow_policy_ == "leafwise"
    assert_same_model(model, LambdaMART("MAP", target="MAP", grow_policy="leafwise", **kw).fit(ds), ds)


@pytest.mark.parametrize("case", ["below CHECK_MIN_DOCS", "num_leaves", "extra_trees", "max_depth",
                                  "feature_fraction", "bagging", "path_smooth", "categorical feature", "init_score"])
def test_auto_grows_leafwise_trees_elsewhere(monkeypatch, case):
    ds = data(n_queries=120)
    metric, params, fit_kw = "MAP", {}, {}
    if case != "below CHECK_MIN_DOCS":
        monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 1_000)
    setting = {"num_leaves": {"num_leaves": 7}, "extra_trees": {"extra_trees": False}, "max_depth": {"max_depth": 3},
               "feature_fraction": {"feature_fraction": 0.8}, "bagging": {"bagging_fraction": 0.8, "bagging_freq": 1},
               "path_smooth": {"path_smooth": 1.0}}
    params = setting.get(case, {})
    if case == "categorical feature":
        X = ds.X.copy()
        X[:, 0] = np.digitize(X[:, 0], np.quantile(X[:, 0], [0.25, 0.5, 0.75]))
        ds = type(ds)(X, ds.y, group_ptr=ds.group_ptr)
        fit_kw = {"categorical_feature": [0]}
    if case == "init_score":
        fit_kw = {"init_score": np.linspace(-1, 1, ds.n_docs)}
    model = LambdaMART(metric, **FEW_TREES, **params).fit(ds, **fit_kw)
    by_hand = LambdaMART(metric, grow_policy="leafwise", **FEW_TREES, **params).fit(ds, **fit_kw)
    assert model.grow_policy_ == "leafwise"
    assert_same_model(model, by_hand, ds)


def test_explicit_symmetric_trees_still_refuse_categorical_features():
    ds = data(n_queries=40)
    with pytest.raises(ValueError, match="grow_policy='symmetric_then_leafwise' splits numerical features only"):
        LambdaMART("MAP", grow_policy="symmetric_then_leafwise", n_estimators=2).fit(ds, categorical_feature=[0])


def test_gbranker_reads_auto_alike(low_threshold):
    # one name, one meaning: GBRanker(grow_policy="auto") chooses by the same rule
    ds = data()
    model = GBRanker("YetiRank", grow_policy="auto", **FEW_TREES).fit(ds)
    assert model.grow_policy_ == "mixed"
    assert_same_model(model, GBRanker("YetiRank", grow_policy="mixed", **FEW_TREES).fit(ds), ds)


def test_files_saved_before_auto_load_with_their_policy(tmp_path):
    ds = data(n_queries=40)
    LambdaMART("MAP", grow_policy="leafwise", n_estimators=3).fit(ds).save(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["state"].pop("grow_policy")  # as written before stop 56
    doc["state_sha256"] = state_digest(doc["state"])
    (tmp_path / "m.json").write_text(json.dumps(doc))
    assert LambdaMART.load(tmp_path / "m.json").grow_policy_ == "leafwise"

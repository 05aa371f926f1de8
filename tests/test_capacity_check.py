"""num_leaves="auto"'s capacity check: bigger trees only where held-out training queries prove they win.

The oracle is the check done by hand: the same fifth of the queries held out, the same estimators
fitted on the rest with early stopping, the per-query metric and scipy's one-sided Wilcoxon.
"""

import numpy as np
import pytest
from scipy.stats import wilcoxon

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr
from metricrank.learners import _capacity
from metricrank.learners._gbdt import auto_extra_trees, auto_num_leaves

NDCG = "NDCG:top=10"


@pytest.fixture
def low_threshold(monkeypatch):
    """The check from 1,000 documents, so that small data exercise it (7 randomised leaves first)."""
    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 1_000)


def clean_data(seed=0, n_queries=300):
    """Nonlinear relevance with little label noise: 7 randomised leaves underfit it."""
    return make_ltr(n_queries, docs_per_query=(20, 40), n_features=10, n_informative=6, relevance="nonlinear",
                    noise=0.1, random_state=seed)


def by_hand(ds, estimator, capacity, metric=NDCG, init_model=None, early_stopping_rounds=None):
    """The check's trial: fit on the kept queries, read at the best tree count on the held-out ones."""
    rng = np.random.default_rng(estimator.random_state)
    order = rng.permutation(ds.n_queries)
    n_hold = int(round(0.2 * ds.n_queries))
    keep, hold = np.sort(order[n_hold:]), np.sort(order[:n_hold])
    fit_ds, hold_ds = ds.subset_queries(keep), ds.subset_queries(hold)
    model = estimator.__class__(**{**estimator.get_params(), "num_leaves": capacity[0], "extra_trees": capacity[1]})
    model.fit(fit_ds, init_model=init_model)
    # every tree count, evaluated on the held-out queries from scratch; the first best one
    curve = [evaluate(hold_ds, model.predict(hold_ds.X, num_iteration=k), metric=metric)
             for k in range(1, model.n_estimators_ + 1)]
    if early_stopping_rounds is not None:  # the trees the patience lets grow
        best = 0
        for k in range(1, len(curve)):
            if curve[k] > curve[best]:
                best = k
            elif k - best >= early_stopping_rounds:
                curve = curve[:k + 1]
                break
    k = int(np.argmax(curve)) + 1
    values = evaluate(hold_ds, model.predict(hold_ds.X, num_iteration=k), metric=metric, per_query=True)
    return np.asarray(values), hold.size, k


def one_sided_p(a, b):
    d = a - b
    return wilcoxon(d[d != 0], alternative="greater").pvalue


def test_bigger_trees_are_kept_when_the_held_out_queries_prefer_them(low_threshold):
    ds = clean_data()
    model = GBRanker("YetiRank", n_estimators=60, random_state=3).fit(ds)
    check = model.capacity_check_
    start = (auto_num_leaves(ds.n_docs), auto_extra_trees(ds.n_docs))
    assert start == (7, True)
    assert [(t["num_leaves"], t["extra_trees"]) for t in check.trials][:2] == [(7, True), (15, False)]
    rule, n_hold, rule_trees = by_hand(ds, model, start)
    bigger, _, bigger_trees = by_hand(ds, model, (15, False))
    assert [t["trees"] for t in check.trials[:2]] == [rule_trees, bigger_trees]
    assert check.holdout_queries == n_hold == 60
    assert check.trials[0]["value"] == pytest.approx(rule.mean(), abs=1e-12)
    assert check.trials[1]["value"] == pytest.approx(bigger.mean(), abs=1e-12)
    assert check.pvalues[0] == pytest.approx(one_sided_p(bigger, rule), rel=1e-9)
    assert check.pvalues[0] < 0.05  # clean data: the bigger trees win
    chosen = (check.num_leaves, check.extra_trees)
    assert (model.num_leaves_, model.extra_trees_) == chosen != start
    # a level is kept exactly when it won, and the ladder stops at the first loss
    wins = [p < 0.05 for p in check.pvalues]
    assert len(check.trials) == 1 + (wins.index(False) + 1 if False in wins else len(wins))
    assert chosen == (check.trials[sum(wins)]["num_leaves"], check.trials[sum(wins)]["extra_trees"])
    # the final model is the chosen capacity trained on every training query
    explicit = GBRanker("YetiRank", n_estimators=60, random_state=3, num_leaves=chosen[0],
                        extra_trees=chosen[1]).fit(ds)
    np.testing.assert_array_equal(model.predict(ds.X), explicit.predict(ds.X))
    assert explicit.capacity_check_ is None


def test_the_rule_is_kept_when_bigger_trees_do_not_win(low_threshold):
    # labels unrelated to the features: no capacity can win on held-out queries
    ds = clean_data(seed=1)
    ds = type(ds)(ds.X, np.random.default_rng(0).permutation(ds.y), group_ptr=ds.group_ptr)
    model = LambdaMART(NDCG, n_estimators=40, random_state=0).fit(ds)
    check = model.capacity_check_
    assert len(check.trials) == 2 and not check.pvalues[0] < 0.05
    # each trial is read at its best tree count on the held-out queries, not after its last tree
    for trial in check.trials:
        values, _, trees = by_hand(ds, model, (trial["num_leaves"], trial["extra_trees"]))
        assert trial["trees"] == trees
        assert trial["value"] == pytest.approx(values.mean(), abs=1e-12)
    assert min(t["trees"] for t in check.trials) < 40
    assert (model.num_leaves_, model.extra_trees_) == (check.num_leaves, check.extra_trees) == (7, True)


def test_the_check_reads_the_judged_metric_and_the_warm_start(low_threshold):
    ds = clean_data(seed=2)
    base = GBRanker("YetiRank", n_estimators=5, num_leaves=3, random_state=0).fit(ds)
    model = LambdaMART("MAP", n_estimators=40, random_state=4).fit(ds, init_model=base)
    check = model.capacity_check_
    assert check.metric == "MAP"
    values, _, trees = by_hand(ds, model, (7, True), metric="MAP", init_model=base)
    assert check.trials[0]["value"] == pytest.approx(values.mean(), abs=1e-12)
    assert check.trials[0]["trees"] == trees


def test_trials_stop_with_the_fits_patience(low_threshold):
    ds = clean_data(seed=5)
    model = GBRanker("YetiRank", n_estimators=60, random_state=1)
    vali = clean_data(seed=6, n_queries=40)
    model.fit(ds, eval_set=[vali], early_stopping_rounds=3)
    values, _, trees = by_hand(ds, model, (7, True), early_stopping_rounds=3)
    assert model.capacity_check_.trials[0]["trees"] == trees
    assert model.capacity_check_.trials[0]["value"] == pytest.approx(values.mean(), abs=1e-12)


def test_raw_init_scores_keep_the_rule(low_threshold):
    ds = clean_data(n_queries=260)
    model = GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds, init_score=np.zeros(ds.n_docs))
    assert model.capacity_check_ is None and (model.num_leaves_, model.extra_trees_) == (7, True)


@pytest.mark.parametrize("params", [{"num_leaves": 7}, {"extra_trees": True}, {"num_leaves": 7, "extra_trees": True}])
def test_explicit_capacity_skips_the_check(low_threshold, params):
    ds = clean_data(n_queries=260)  # enough documents and queries for the check: only the parameters skip it
    assert GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds).capacity_check_ is not None
    model = GBRanker("YetiRank", n_estimators=5, random_state=0, **params).fit(ds)
    assert model.capacity_check_ is None


def test_small_data_and_few_queries_skip_the_check(monkeypatch):
    ds = clean_data(n_queries=300)  # about 9,000 documents (below CHECK_MIN_DOCS), 60 queries to hold out
    assert ds.n_docs < _capacity.CHECK_MIN_DOCS
    model = GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds)
    assert model.capacity_check_ is None and model.num_leaves_ == 7
    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", ds.n_docs)  # from exactly this size: the check runs
    assert GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds).capacity_check_ is not None
    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 1_000)
    few = clean_data(n_queries=200)  # 40 held-out queries: fewer than CHECK_MIN_HOLDOUT_QUERIES
    assert GBRanker("YetiRank", n_estimators=5, random_state=0).fit(few).capacity_check_ is None


def test_verbose_reports_the_check(low_threshold, capsys):
    ds = clean_data(n_queries=260)
    GBRanker("YetiRank", n_estimators=10, random_state=0, verbose=100).fit(ds)
    out = capsys.readouterr().out
    assert "capacity check on 52 held-out training queries by NDCG:top=10" in out
    assert "7 leaves randomised" in out


def test_cli_train_says_it_checks_and_what_it_chose(low_threshold, tmp_path, capsys):
    from metricrank import save_letor
    from metricrank.cli import main

    path = tmp_path / "train.txt"
    save_letor(clean_data(n_queries=260), path)
    out = tmp_path / "m.json"
    assert main(["train", "--train", str(path), "--trees", "5", "--seed", "0", "--quiet", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--leaves auto: checking first whether bigger trees win" in err
    assert "capacity check on 52 held-out training queries" in err
    assert main(["train", "--train", str(path), "--trees", "5", "--leaves", "7", "--quiet", "--out", str(out)]) == 0
    assert "capacity check" not in capsys.readouterr().err

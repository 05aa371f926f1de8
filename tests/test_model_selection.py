"""make_scorer / RankerScoreMixin / tune: scikit-learn searches and Optuna score whole queries.

The oracles below compute the folds themselves (GroupKFold over qid), fit each
fold by hand and call ``metricrank.evaluate`` per query.
"""

from __future__ import annotations

import datetime
import json

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, GroupKFold, HalvingRandomSearchCV, cross_val_score

from metricrank import GBRanker, LambdaMART, RankingDataset, evaluate, make_ltr, save_letor
from metricrank.data import OneQueryWarning
from metricrank.learners._gbdt import AVERAGED_PENALTY_MIN_DOCS, EXTRA_TREES_MAX_DOCS, auto_num_leaves
from metricrank.model_selection import default_param_space, improvement_pvalue, make_scorer, tune
from metricrank.model_selection._space import _values_in_space

optuna = pytest.importorskip("optuna")

METRIC = "NDCG:top=5"


@pytest.fixture(scope="module")
def data():
    ds = make_ltr(45, docs_per_query=(4, 15), n_features=6, random_state=1)
    return ds.X, ds.y, ds.qid


def small(**params):
    return LambdaMART(METRIC, n_estimators=8, num_leaves=3, min_data_in_leaf=5, n_jobs=1, random_state=0,
                      **params)


def group_splits(X, qid, n=3):
    splits = list(GroupKFold(n).split(X, None, groups=qid))
    for train, test in splits:
        assert not set(qid[train]) & set(qid[test]), "a fold cuts a query"
    return splits


def oracle(params, X, y, qid, splits, metric=METRIC):
    """Fit every fold by hand and evaluate per query on the held-out rows."""
    out = []
    for train, test in splits:
        model = small().set_params(**params).fit(X[train], y[train], qid=qid[train])
        out.append(evaluate(y[test], model.predict(X[test]), qid=qid[test], metric=metric))
    return np.array(out)


# --- make_scorer in scikit-learn's searches ------------------------------------------------


def patient_end(curve, rounds):
    """Trees ``tune``'s first trial grows on a held-out ``curve`` (higher is better): it stops once
    ``max(rounds, its best tree so far)`` trees have not improved on that best."""
    best = 0
    for it, value in enumerate(curve, 1):
        if best == 0 or value > curve[best - 1]:
            best = it
        if it - best >= max(rounds, best):
            return it
    return len(curve)


def test_grid_search_scores_per_query(data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(small().set_fit_request(qid=True), {"num_leaves": [3, 7]}, cv=GroupKFold(3),
                              scoring=make_scorer(METRIC).set_score_request(qid=True), error_score="raise")
        search.fit(X, y, qid=qid, groups=qid)
    splits = group_splits(X, qid)
    for i, params in enumerate(search.cv_results_["params"]):
        got = [search.cv_results_[f"split{k}_test_score"][i] for k in range(3)]
        np.testing.assert_allclose(got, oracle(params, X, y, qid, splits), rtol=1e-12)


def test_cross_val_score_scores_per_query(data):
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_val_score(small().set_fit_request(qid=True), X, y, cv=GroupKFold(3),
                              scoring=make_scorer(METRIC), params={"qid": qid, "groups": qid}, error_score="raise")
    np.testing.assert_allclose(got, oracle({}, X, y, qid, group_splits(X, qid)), rtol=1e-12)


def test_halving_search_scores_per_query(data):
    # resource="n_estimators": the default resource, n_samples, subsamples documents, not queries
    X, y, qid = data
    with sklearn.config_context(enable_metadata_routing=True):
        search = HalvingRandomSearchCV(
            small().set_fit_request(qid=True), {"num_leaves": [3, 5, 7], "learning_rate": [0.1, 0.3]},
            n_candidates=4, resource="n_estimators", min_resources=2, max_resources=8, factor=2,
            cv=GroupKFold(3), scoring=make_scorer(METRIC).set_score_request(qid=True), random_state=0,
            error_score="raise")
        search.fit(X, y, qid=qid, groups=qid)
    splits = group_splits(X, qid)
    res = search.cv_results_
    assert len(res["params"]) == 4 + 2 + 1
    for i, params in enumerate(res["params"]):
        params = dict(params, n_estimators=int(res["n_resources"][i]))
        got = [res[f"split{k}_test_score"][i] for k in range(3)]
        np.testing.assert_allclose(got, oracle(params, X, y, qid, splits), rtol=1e-12)


def test_lower_is_better_is_negated(data):
    X, y, qid = data
    model = small().fit(X, y, qid=qid)
    raw = evaluate(y, model.predict(X), qid=qid, metric="QueryRMSE")
    assert raw > 0
    assert make_scorer("QueryRMSE")(model, X, y, qid=qid) == pytest.approx(-raw, rel=1e-12)
    ndcg = evaluate(y, model.predict(X), qid=qid, metric=METRIC)
    assert make_scorer(METRIC)(model, X, y, qid=qid) == pytest.approx(ndcg, rel=1e-12)
    assert "negated" in repr(make_scorer("QueryRMSE")) and "negated" not in repr(make_scorer(METRIC))


def test_a_routed_sample_weight_weighs_the_scored_rows(data):
    # QueryRMSE reads row weights: the folds' scores are those of fits and evaluations that both read them
    X, y, qid = data
    w = np.random.default_rng(0).uniform(0.1, 3.0, len(y))
    scorer = make_scorer("QueryRMSE")
    model = small().fit(X, y, qid=qid)
    weighted = -evaluate(y, model.predict(X), qid=qid, metric="QueryRMSE", weights=w)
    assert weighted != pytest.approx(scorer(model, X, y, qid=qid), rel=1e-6)
    assert scorer(model, X, y, qid=qid, sample_weight=w) == pytest.approx(weighted, rel=1e-12)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(small().set_fit_request(qid=True, sample_weight=True), {"num_leaves": [3, 7]},
                              cv=GroupKFold(3), scoring=make_scorer("QueryRMSE").set_score_request(sample_weight=True),
                              error_score="raise")
        search.fit(X, y, qid=qid, groups=qid, sample_weight=w)
        # not requested by the scorer (its default, as scikit-learn's scorers): an error, not weights dropped
        unset = GridSearchCV(small().set_fit_request(qid=True, sample_weight=True), {"num_leaves": [3]},
                             cv=GroupKFold(3), scoring=make_scorer("QueryRMSE"), error_score="raise")
        with pytest.raises(ValueError, match="sample_weight"):
            unset.fit(X, y, qid=qid, groups=qid, sample_weight=w)
    for i, params in enumerate(search.cv_results_["params"]):
        expected = []
        for train, test in group_splits(X, qid):
            fold = small().set_params(**params).fit(X[train], y[train], qid=qid[train], sample_weight=w[train])
            expected.append(-evaluate(y[test], fold.predict(X[test]), qid=qid[test], metric="QueryRMSE",
                                      weights=w[test]))
        got = [search.cv_results_[f"split{k}_test_score"][i] for k in range(3)]
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_missing_qid_is_an_error_that_says_how_to_route_it(data):
    X, y, qid = data
    model = small().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"enable_metadata_routing=True.*set_fit_request\(qid=True\)"):
        make_scorer(METRIC)(model, X, y)
    # a search without routing: the scorer never sees qid, and says so
    search = GridSearchCV(small(), {"num_leaves": [3]}, cv=GroupKFold(3), scoring=make_scorer(METRIC),
                          error_score="raise")
    with pytest.raises(ValueError, match="needs the query id"):
        search.fit(X, y, qid=qid, groups=qid)


def test_scattered_query_rows_are_an_error(data):
    X, y, qid = data
    model = small().fit(X, y, qid=qid)
    order = np.r_[0:20][::-1].tolist() + list(range(20, len(y)))
    order[0], order[-1] = order[-1], order[0]
    with pytest.raises(ValueError):
        make_scorer(METRIC)(model, X[order], y[order], qid=qid[order])


def test_bad_metric_spec_fails_at_construction():
    with pytest.raises(ValueError):
        make_scorer("NoSuchMetric:top=3")


# --- RankerScoreMixin (the lead adds it to GBRanker; tested here on a subclass) -------------


class _Ranker(LambdaMART):  # LambdaMART has RankerScoreMixin.score itself
    pass


def test_score_is_the_objective_metric(data):
    X, y, qid = data
    model = _Ranker(METRIC, n_estimators=8, num_leaves=3, min_data_in_leaf=5, n_jobs=1, random_state=0)
    model.fit(X, y, qid=qid)
    spec = model.objective_.eval_spec
    assert model.score(X, y, qid=qid) == pytest.approx(evaluate(y, model.predict(X), qid=qid, metric=spec))
    assert model.score(X, y, qid=qid, metric="QueryRMSE") == pytest.approx(
        -evaluate(y, model.predict(X), qid=qid, metric="QueryRMSE"))
    sizes = np.unique(qid, return_counts=True)[1][np.argsort(np.unique(qid, return_index=True)[1])]
    assert model.score(X, y, group=sizes) == pytest.approx(model.score(X, y, qid=qid))
    # without query ids every row is one query, as in fit() and evaluate(), and a warning says so
    with pytest.warns(OneQueryWarning, match="scored as one query"):
        assert model.score(X, y) == pytest.approx(evaluate(y, model.predict(X), metric=spec))
    # labels that do not match X's rows are named as the labels, not as the scores the caller never passed
    with pytest.raises(ValueError, match=f"y has {len(y) - 1} labels but X has {len(y)} rows"):
        model.score(X, y[:-1], qid=qid)


def test_search_with_default_scoring_uses_score(data):
    X, y, qid = data
    est = _Ranker(METRIC, n_estimators=8, num_leaves=3, min_data_in_leaf=5, n_jobs=1, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        est.set_fit_request(qid=True).set_score_request(qid=True)
        search = GridSearchCV(est, {"num_leaves": [3, 7]}, cv=GroupKFold(3), error_score="raise")
        search.fit(X, y, qid=qid, groups=qid)
    splits = group_splits(X, qid)
    for i, params in enumerate(search.cv_results_["params"]):
        got = [search.cv_results_[f"split{k}_test_score"][i] for k in range(3)]
        np.testing.assert_allclose(got, oracle(params, X, y, qid, splits), rtol=1e-12)


# --- tune -------------------------------------------------------------------------------------


def tuned(data, **kw):
    X, y, qid = data
    args = dict(qid=qid, metric=METRIC, n_trials=4, cv=3, early_stopping_rounds=3, random_state=0,
                show_progress=False)
    args.update(kw)
    return tune(LambdaMART(METRIC, n_estimators=30, n_jobs=1), X, y, **args)


@pytest.fixture(scope="module")
def result(data):
    return tuned(data)


def test_tune_runs_the_trials_within_the_space(result, data):
    assert len(result.study_.trials) == 4
    assert isinstance(result.study_.pruner, optuna.pruners.MedianPruner)
    n_train = min(tr.size for tr, _ in result.folds_)
    space = default_param_space(n_train)
    for trial in result.study_.trials:
        assert set(trial.params) == set(space)
        for name, value in trial.params.items():
            assert value in space[name].choices if name == "extra_trees" else \
                space[name].low <= value <= space[name].high, name
    assert set(result.best_params_) == set(space) | {"n_estimators"}
    params = result.best_estimator_.get_params()
    assert {k: params[k] for k in result.best_params_} == result.best_params_
    assert result.best_estimator_.n_estimators_ == result.best_params_["n_estimators"]
    assert result.trials_dataframe().shape[0] == 4


def test_tune_is_deterministic_given_random_state(result, data):
    again = tuned(data)
    assert again.best_params_ == result.best_params_
    assert again.best_score_ == result.best_score_


def test_a_random_state_object_seeds_the_search_with_one_draw(data):
    # the folds, TPE and the estimator all take that draw, so the search is the one seeded by it
    first = int(np.random.RandomState(6).randint(0, 2**31))
    by_object = tuned(data, n_trials=2, random_state=np.random.RandomState(6))
    by_int = tuned(data, n_trials=2, random_state=first)
    assert by_object.best_estimator_.random_state == by_object.best_estimator_.seed_ == first
    assert [t.params for t in by_object.study_.trials] == [t.params for t in by_int.study_.trials]
    assert by_object.best_score_ == by_int.best_score_
    for (tr, te), (itr, ite) in zip(by_object.folds_, by_int.folds_):
        np.testing.assert_array_equal(tr, itr)


def test_best_value_equals_an_independent_reevaluation(result, data):
    X, y, qid = data
    # the folds: GroupKFold over qid, shuffled by query with the seed
    folds = list(GroupKFold(3, shuffle=True, random_state=0).split(X, None, groups=qid))
    assert len(result.folds_) == 3
    for (tr, te), (rtr, rte) in zip(folds, result.folds_):
        np.testing.assert_array_equal(np.sort(tr), rtr)
        np.testing.assert_array_equal(np.sort(te), rte)
        assert not set(qid[tr]) & set(qid[te])
    best = result.study_.trials[result.selected_trial_]  # the kept trial (the start unless beaten significantly)
    # the start waits max(3, its best tree so far) trees; the other trials stop 3 after their best
    start = result.selected_trial_ == 0
    values, trees = [], []
    # the folds' rows in tune's (sorted) order: YetiRank (target="auto") draws its noise row by row
    for train, test in result.folds_:
        model = LambdaMART(METRIC, n_estimators=30, n_jobs=1, random_state=0, **best.params)
        model.fit(X[train], y[train], qid=qid[train], eval_set=[(X[test], y[test], qid[test])],
                  early_stopping_rounds=None if start else 3)
        curve = model.evals_result_["valid_0"][METRIC]  # the start's: every tree, cut by hand
        kept = int(np.argmax(curve[:patient_end(curve, 3)])) + 1 if start else model.best_iteration_
        values.append(evaluate(y[test], model.predict(X[test], num_iteration=kept), qid=qid[test], metric=METRIC))
        trees.append(kept)
    assert result.best_score_ == best.value == pytest.approx(np.mean(values), rel=1e-12)
    assert best.user_attrs["best_iterations"] == trees
    assert result.best_params_["n_estimators"] == round(np.mean(trees))


def test_pruning_stops_the_bad_region(data):
    # a minimum leaf hessian no leaf reaches: no split, constant scores -> pruned after the first fold
    space = {"min_sum_hessian_in_leaf": [1e-3, 1e9], "num_leaves": optuna.distributions.IntDistribution(3, 7)}
    res = tuned(data, n_trials=8, param_space=space, sampler=optuna.samplers.RandomSampler(seed=0),
                pruner=optuna.pruners.MedianPruner(n_startup_trials=1), start_from_estimator=False)
    states = {t.number: (t.state.name, t.params["min_sum_hessian_in_leaf"]) for t in res.study_.trials}
    pruned = [n for n, (s, _) in states.items() if s == "PRUNED"]
    assert pruned, states
    assert all(states[n][1] == 1e9 for n in pruned)
    assert all(len(res.study_.trials[n].user_attrs["fold_values"]) == 1 for n in pruned)
    assert res.best_params_["min_sum_hessian_in_leaf"] == 1e-3


def in_fold_values_by_hand(X, y, qid, folds, params, trees, early_stopping_rounds):
    """Each fold refitted with the trial's parameters: {step: mean of the folds done and this fold's value so far}.

    A fold's value so far after t trees: with early stopping, the best held-out value of its first t trees;
    without, the t-th tree's.
    """
    expected, done = {}, []
    for k, (train, test) in enumerate(folds):
        model = LambdaMART(METRIC, n_estimators=trees, n_jobs=1, random_state=0, **params)
        model.fit(X[train], y[train], qid=qid[train], eval_set=[(X[test], y[test], qid[test])], eval_metrics=[METRIC],
                  early_stopping_rounds=early_stopping_rounds)
        (curve,) = [c[METRIC] for c in model.evals_result_.values()]
        so_far = np.maximum.accumulate(curve) if early_stopping_rounds else np.asarray(curve)
        for t in range(trees // 2, min(len(curve), trees - 1) + 1):
            expected[k * trees + t] = (sum(done) + so_far[t - 1]) / (k + 1)
        done.append(so_far[-1])
        expected[(k + 1) * trees] = np.mean(done)
    return expected


@pytest.mark.parametrize("n_folds, early_stopping_rounds", [(1, None), (2, None), (2, 4)])
def test_trials_are_pruned_while_their_trees_grow(n_folds, early_stopping_rounds):
    # one train -> validation split was never pruned when the only report came at a fold's end
    ds = make_ltr(60, docs_per_query=(5, 15), n_features=6, noise=1.0, random_state=3)
    X, y, qid = ds.X, ds.y, ds.qid
    starts = np.searchsorted(qid, np.unique(qid))  # 60 queries, rows contiguous
    rows = np.arange(len(qid))
    folds = [(rows[:starts[40]], rows[starts[40]:]), (rows[starts[20]:], rows[:starts[20]])][:n_folds]
    trees = 20
    space = {"num_leaves": optuna.distributions.IntDistribution(2, 12),
             "learning_rate": optuna.distributions.FloatDistribution(0.01, 0.5, log=True)}
    res = tune(LambdaMART(METRIC, n_estimators=trees, n_jobs=1, random_state=0), X, y, qid=qid, metric=METRIC,
               n_trials=12, cv=folds, early_stopping_rounds=early_stopping_rounds, param_space=space, random_state=0,
               sampler=optuna.samplers.RandomSampler(seed=1),
               pruner=optuna.pruners.MedianPruner(n_startup_trials=3), show_progress=False,
               start_from_estimator=False)
    trials = res.study_.trials
    pruned = [t for t in trials if t.state.name == "PRUNED"]
    in_fold = [t for t in pruned if max(t.intermediate_values) % trees]  # stopped before a fold's end
    assert in_fold, [(t.state.name, max(t.intermediate_values, default=None)) for t in trials]
    best = res.study_.best_trial
    for trial in [in_fold[0], best]:
        expected = in_fold_values_by_hand(X, y, qid, folds, trial.params, trees, early_stopping_rounds)
        got = trial.intermediate_values
        # every tree from half the budget on and every fold's end; a pruned trial up to where it stopped
        assert sorted(got) == [k for k in sorted(expected) if k <= max(got)], (sorted(got), sorted(expected))
        for step, value in got.items():
            assert value == pytest.approx(expected[step], rel=1e-12), step
    assert max(best.intermediate_values) == n_folds * trees and best.value == best.intermediate_values[n_folds * trees]
    # the pruned trial was behind the median of the trials before it that reported the same step
    last = max(in_fold[0].intermediate_values)
    before = [t.intermediate_values[last] for t in trials[:in_fold[0].number] if last in t.intermediate_values]
    assert in_fold[0].intermediate_values[last] < np.median(before)


def test_tune_validates_before_fitting(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="not a parameter"):
        tune(small(), X, y, qid=qid, param_space={"no_such": [1, 2]}, show_progress=False)
    with pytest.raises(ValueError, match="cv must be"):
        tune(small(), X, y, qid=qid, cv=1000, show_progress=False)
    with pytest.raises(ValueError, match="qid"):
        tune(small(), X, y, show_progress=False)
    with pytest.raises(ValueError, match="n_trials"):
        tune(small(), X, y, qid=qid, n_trials=0, show_progress=False)
    shared = qid[59]  # the query of row 59, on both sides (printed as Python prints it, not NumPy's repr)
    with pytest.raises(ValueError, match=f"fold 0 puts query {shared.item()!r} in both training and test"):
        tune(small(), X, y, qid=qid, cv=[(np.arange(0, 60), np.arange(59, 100))], show_progress=False)
    with pytest.raises(ValueError, match="refit must be True or False; got 'no'"):
        tune(small(), X, y, qid=qid, refit="no", show_progress=False)
    row = int(np.flatnonzero(y == 0)[0])
    with pytest.raises(ValueError, match=f"metric NDCG:top=5: NDCG needs labels >= 0 .relevance grades.; row {row} "
                                         "has label -1"):  # named as tune's metric, not as a fold fit's eval set
        tune(small(), X, y - 1, qid=qid, metric="NDCG:top=5", show_progress=False)
    # arrays that do not line up, or a column name without a DataFrame: errors that say so (were IndexErrors)
    with pytest.raises(ValueError, match=r"qid='qid' names a column, but X is a ndarray, not a DataFrame"):
        tune(small(), X, y, qid="qid", show_progress=False)
    with pytest.raises(ValueError, match="tune needs y"):
        tune(small(), X, qid=qid, show_progress=False)
    with pytest.raises(ValueError, match=rf"got shapes X \({len(y)}, 6\), y \({len(y) - 1},\), qid \({len(y)},\)"):
        tune(small(), X, y[1:], qid=qid, show_progress=False)
    # another ranker has no trees to search: a clear error, not a KeyError on n_estimators
    from metricrank import SVMMAP

    with pytest.raises(TypeError, match="tune searches the trees of GBRanker and LambdaMART; got SVMMAP: search"):
        tune(SVMMAP(), X, y, qid=qid, param_space={"C": [0.1, 1.0]}, show_progress=False)


def test_tune_takes_label_and_query_columns_and_lists_as_fit_does(data):
    # fit(df, "label", qid="qid") and plain lists: the same search as on the arrays
    pd = pytest.importorskip("pandas")
    X, y, qid = data
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=y, qid=qid)
    kw = dict(metric=METRIC, n_trials=2, cv=3, early_stopping_rounds=3, random_state=0, show_progress=False)
    arrays = tune(small(), X, y, qid=qid, **kw)
    named = tune(small(), frame, "label", qid="qid", **kw)
    listed = tune(small(), X.tolist(), y.tolist(), qid=qid.tolist(), **kw)
    for res in (named, listed):
        assert res.best_score_ == pytest.approx(arrays.best_score_, rel=1e-12)
        assert [t.value for t in res.study_.trials] == pytest.approx([t.value for t in arrays.study_.trials],
                                                                     rel=1e-12)
    assert list(named.best_estimator_.feature_names_in_) == [f"f{j}" for j in range(X.shape[1])]


def test_tune_without_refit_keeps_the_same_parameters_and_fits_nothing_more(result, data, monkeypatch):
    import metricrank.model_selection._tune as ms

    in_fold, outside = [], []
    real_fold_value, real_fit = ms.fold_value, LambdaMART.fit

    def fold_value(*args, **kwargs):
        in_fold.append(True)
        try:
            return real_fold_value(*args, **kwargs)
        finally:
            in_fold.pop()

    def fit(self, *args, **kwargs):
        if not in_fold:
            outside.append(self)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(ms, "fold_value", fold_value)
    monkeypatch.setattr(LambdaMART, "fit", fit)
    bare = tuned(data, refit=False)
    assert bare.best_estimator_ is None and outside == []  # the trials' fold fits alone
    assert bare.best_params_ == result.best_params_ and bare.selected_trial_ == result.selected_trial_
    refitted = tuned(data)  # (the spy sees the refit)
    assert outside == [refitted.best_estimator_]


# --- CLI ----------------------------------------------------------------------------------


def test_cli_tune_end_to_end(tmp_path, capsys):
    from metricrank.cli import main

    train = make_ltr(30, docs_per_query=(4, 12), n_features=5, random_state=3)
    valid = make_ltr(10, docs_per_query=(4, 12), n_features=5, random_state=4)
    save_letor(train, tmp_path / "train.txt")
    save_letor(valid, tmp_path / "valid.txt")
    out, params_out = tmp_path / "model.json", tmp_path / "best.json"
    code = main(["tune", "--train", str(tmp_path / "train.txt"), "--objective", "lambda:NDCG:top=5",
                 "--metric", "NDCG:top=5", "--trials", "3", "--cv", "3", "--seed", "0", "--trees", "10",
                 "--early-stopping", "3", "--threads", "1", "--quiet", "--out", str(out),
                 "--params-out", str(params_out)])
    assert code == 0, capsys.readouterr().err
    best = json.loads(params_out.read_text())
    model = LambdaMART.load(out)
    assert {k: model.get_params()[k] for k in best["best_params"]} == best["best_params"]
    assert best["metric"] == "NDCG:top=5" and best["n_trials"] == 3 and best["folds"] == 3
    # --valid: one split, train -> valid
    code = main(["tune", "--train", str(tmp_path / "train.txt"), "--valid", str(tmp_path / "valid.txt"),
                 "--objective", "lambda:MAP", "--trials", "2", "--seed", "1", "--trees", "6", "--quiet",
                 "--threads", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert LambdaMART.load(out).metric == "MAP"


def test_cli_tune_reads_a_valid_file_without_qid_through_its_query_file(tmp_path, capsys):
    from metricrank.cli import main

    train = make_ltr(30, docs_per_query=(4, 12), n_features=5, random_state=3)
    valid = make_ltr(10, docs_per_query=(4, 12), n_features=5, random_state=4)
    save_letor(train, tmp_path / "train.txt")
    save_letor(valid, tmp_path / "valid.txt")
    save_letor(valid, tmp_path / "valid_sizes.txt", write_qid=False, query_file=tmp_path / "valid_sizes.query")
    argv = ["tune", "--train", str(tmp_path / "train.txt"), "--objective", "lambda:MAP", "--trials", "2", "--seed",
            "1", "--trees", "6", "--quiet", "--threads", "1", "--out", str(tmp_path / "model.json")]
    found = []
    for valid_files in (["valid.txt"], ["valid_sizes.txt", "--valid-query-file", "valid_sizes.query"]):
        params_out = tmp_path / f"best{len(found)}.json"
        code = main(argv + ["--valid", str(tmp_path / valid_files[0]), *[str(tmp_path / f) if f.endswith(".query")
                                                                         else f for f in valid_files[1:]],
                            "--params-out", str(params_out)])
        assert code == 0, capsys.readouterr().err
        found.append(json.loads(params_out.read_text()))
    assert found[1]["best_score"] == found[0]["best_score"] and found[1]["best_params"] == found[0]["best_params"]


def test_cli_tune_with_storage_goes_on_where_it_stopped(tmp_path, capsys):
    from metricrank.cli import main

    save_letor(make_ltr(30, docs_per_query=(4, 12), n_features=5, random_state=3), tmp_path / "train.txt")
    params_out = tmp_path / "best.json"
    argv = ["tune", "--train", str(tmp_path / "train.txt"), "--objective", "lambda:NDCG:top=5", "--cv", "3",
            "--seed", "0", "--trees", "10", "--early-stopping", "3", "--threads", "1", "--quiet",
            "--out", str(tmp_path / "model.json"), "--params-out", str(params_out),
            "--storage", f"sqlite:///{tmp_path / 'search.db'}", "--study-name", "ndcg"]
    assert main(argv + ["--trials", "2"]) == 0, capsys.readouterr().err
    assert json.loads(params_out.read_text())["n_trials"] == 2
    assert main(argv + ["--trials", "3"]) == 0, capsys.readouterr().err
    assert json.loads(params_out.read_text())["n_trials"] == 3
    study = optuna.load_study(study_name="ndcg", storage=f"sqlite:///{tmp_path / 'search.db'}")
    assert len(study.trials) == 3
    # the same study with another metric is another search
    assert main(argv + ["--trials", "3", "--metric", "MAP"]) == 2
    assert "holds another search: its metric" in capsys.readouterr().err


def test_cli_tune_says_why_it_keeps_the_starting_parameters(tmp_path, capsys):
    from metricrank.cli import main

    save_letor(make_ltr(30, docs_per_query=(4, 12), n_features=5, random_state=3), tmp_path / "train.txt")
    params_out = tmp_path / "best.json"
    code = main(["tune", "--train", str(tmp_path / "train.txt"), "--objective", "lambda:NDCG:top=5",
                 "--metric", "NDCG:top=5", "--trials", "3", "--cv", "3", "--seed", "1", "--trees", "10",
                 "--early-stopping", "3", "--threads", "1", "--quiet", "--out", str(tmp_path / "m.json"),
                 "--params-out", str(params_out)])
    captured = capsys.readouterr()
    out = " ".join((captured.out + captured.err).split())
    assert code == 0
    best = json.loads(params_out.read_text())
    assert best["selected_trial"] == 0 and best["selection_level"] == 0.05 / 2
    assert best["selection_pvalue"] >= best["selection_level"]  # (else this case shows nothing)
    assert f"p = {best['selection_pvalue']:.3g} >= 0.025 = 0.05 / 2 completed trials" in out
    assert "keeping them" in out


@pytest.mark.parametrize("target, expected", [(None, "MRR"), ("auto", "PairLogit:max_pairs=250000"), ("MAP", "MAP")])
def test_cli_tune_trains_the_target_it_is_given(tmp_path, capsys, target, expected):
    """``lambda:MRR`` tunes exact λ-MRR unless ``--target`` names another target (``auto``: LambdaMART's
    choice, PairLogit on these few labels); the model is judged by MRR whatever it trains on."""
    from metricrank.cli import main

    save_letor(make_ltr(30, docs_per_query=(4, 12), n_features=5, random_state=3), tmp_path / "train.txt")
    out, params_out = tmp_path / "model.json", tmp_path / "best.json"
    code = main(["tune", "--train", str(tmp_path / "train.txt"), "--objective", "lambda:MRR", "--trials", "2",
                 "--seed", "0", "--trees", "5", "--threads", "1", "--quiet", "--out", str(out),
                 "--params-out", str(params_out)] + ([] if target is None else ["--target", target]))
    err = capsys.readouterr().err
    assert code == 0, err
    model = LambdaMART.load(out)
    assert (model.metric, model.target_) == ("MRR", expected)
    assert json.loads(params_out.read_text())["metric"] == "MRR"
    assert (f"target: {expected} (judged by MRR)" in err) == (expected != "MRR")


@pytest.mark.parametrize("metric, expected", [(None, ("NDCG:top=10", "YetiRank")),
                                              ("MRR", ("MRR", "PairLogit:max_pairs=250000"))])
def test_cli_tune_without_objective_tunes_lambdamart_with_its_defaults(tmp_path, capsys, metric, expected):
    """Without ``--objective`` the search starts from ``LambdaMART(metric=M)``: its target is 'auto'."""
    from metricrank.cli import main

    save_letor(make_ltr(30, docs_per_query=(4, 12), n_features=5, random_state=3), tmp_path / "train.txt")
    out, params_out = tmp_path / "model.json", tmp_path / "best.json"
    code = main(["tune", "--train", str(tmp_path / "train.txt"), "--trials", "2", "--seed", "0", "--trees", "5",
                 "--threads", "1", "--quiet", "--out", str(out), "--params-out", str(params_out)]
                + ([] if metric is None else ["--metric", metric]))
    err = capsys.readouterr().err
    assert code == 0, err
    model = LambdaMART.load(out)
    assert (model.metric, model.target_) == expected and model.target == "auto"
    best = json.loads(params_out.read_text())
    assert (best["objective"], best["target"]) == (f"lambda:{expected[0]}", expected[1])
    assert f"lambda:{expected[0]}, target auto)" in err


@pytest.mark.parametrize("argv, message", [
    (["--trials", "0"], "--trials must be >= 1; got 0"),
    (["--metric", "PFound"], "without --objective the model is LambdaMART(metric='PFound')"),
    (["--cv", "1"], "--cv must be >= 2 folds; got 1"),
    (["--cv", "3", "--valid", "v.txt"], "--cv and --valid exclude each other"),
    (["--timeout", "-3"], "--timeout must be a positive number of seconds; got -3.0"),
    (["--trees", "0"], "--trees must be >= 1; got 0"),
    (["--early-stopping", "0"], "--early-stopping must be >= 1; got 0"),
    (["--threads", "0"], "--threads must be >= 1; got 0"),
    (["--threads", "-2"], "--threads must be >= 1; got -2"),
    (["--seed", "-1"], "--seed must be an integer in [0, 2**31); got -1"),
    (["--storage", "not a url"], "--storage must be a database URL"),
    (["--metric", "NoSuch"], "NoSuch"),
    (["--objective", "lambda:NoSuch"], "NoSuch"),
    (["--objective", "YetiRank", "--target", "auto"], "--target applies to λ objectives"),
    (["--objective", "lambda:MRR", "--target", "AUC"], "--target AUC: 'AUC' cannot be a λ target"),
    (["--objective", "lambda:MRR", "--target", "NDCG:top=ten"], "--target NDCG:top=ten"),
    (["--objective", "lambda:MAP", "--target", "YetiRank:decay=2"], "--target YetiRank:decay=2"),
    (["--study-name", "mine"], "--study-name names a study in --storage; pass --storage too"),
    (["--valid-query-file", "v.query"], "--valid-query-file gives --valid's group sizes; pass --valid"),
    (["--storage", "search.db"], "--storage must be a database URL such as sqlite:///search.db; got 'search.db'"),
    (["--storage", "sqlite://"], "name a database file"),
    (["--storage", "sqlite:////no/such/dir/search.db"], "directory /no/such/dir does not exist"),
    (["--params-out", "/no/such/dir/best.json"], "--params-out /no/such/dir/best.json: directory /no/such/dir does"),
    (["--params-out", "/"], "--params-out / is a directory"),
    (["--out", "/"], "--out / is a directory"),
    (["--objective", "PairLogit", "--pairs", "p.txt", "--valid", "v.txt"], "--pairs and --valid exclude each other"),
    (["--objective", "YetiRank", "--pairs", "p.txt"], "--pairs needs an objective that reads explicit pairs"),
    (["--objective", "PairLogit", "--pairs", "/no/such/pairs.txt"], "--pairs /no/such/pairs.txt: no such file"),
])
def test_cli_tune_validates_options_before_reading(tmp_path, capsys, argv, message):
    from metricrank.cli import main

    out = [] if "--out" in argv else ["--out", str(tmp_path / "m.json")]  # an option is given once
    code = main(["tune", "--train", str(tmp_path / "missing.txt"), "--quiet", *out] + argv)
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "missing.txt" not in err


def test_cli_tune_names_cv_beyond_the_queries_before_the_work(tmp_path, capsys):
    from metricrank.cli import main

    save_letor(make_ltr(12, n_features=6, random_state=0), tmp_path / "t.txt")
    assert main(["tune", "--train", str(tmp_path / "t.txt"), "--cv", "13", "--trials", "1", "--quiet", "--out",
                 str(tmp_path / "m.json")]) == 2
    assert capsys.readouterr().err == (f"metricrank: error: --cv 13: {tmp_path / 't.txt'} holds 12 queries; give 2 "
                                       "to 12 folds\n")


def test_tune_starts_from_the_estimators_own_values(data):
    X, y, qid = data
    base = LambdaMART(METRIC, n_estimators=30, n_jobs=1, num_leaves=5, lambda_l2=3.0, learning_rate=0.2)
    space = {"num_leaves": optuna.distributions.IntDistribution(2, 16),
             "lambda_l2": optuna.distributions.FloatDistribution(1e-3, 1.0, log=True),  # 3.0 lies outside
             "learning_rate": [0.05, 0.2]}
    res = tune(base, X, y, qid=qid, metric=METRIC, n_trials=3, cv=3, early_stopping_rounds=3, random_state=0,
               param_space=space, show_progress=False)
    first = res.study_.trials[0].params
    assert first["num_leaves"] == 5 and first["learning_rate"] == 0.2
    assert 1e-3 <= first["lambda_l2"] <= 1.0  # sampled: the estimator's value is not in the space
    # the first trial's value is the estimator's own cross-validated score, at its best tree of those it grew
    # waiting max(3, its best tree so far) trees
    own = []
    for train, test in res.folds_:
        model = LambdaMART(METRIC, n_estimators=30, n_jobs=1, random_state=0, **first)
        model.fit(X[train], y[train], qid=qid[train], eval_set=[(X[test], y[test], qid[test])], eval_metrics=[METRIC])
        (curve,) = [c[METRIC] for c in model.evals_result_.values()]
        own.append(max(curve[:patient_end(curve, 3)]))
    assert res.study_.trials[0].value == pytest.approx(np.mean(own), rel=1e-12)
    assert res.best_score_ >= res.study_.trials[0].value
    unanchored = tune(base, X, y, qid=qid, metric=METRIC, n_trials=1, cv=3, early_stopping_rounds=3,
                      random_state=0, param_space=space, show_progress=False, start_from_estimator=False)
    assert unanchored.study_.trials[0].params["num_leaves"] != 5 or \
        unanchored.study_.trials[0].params["learning_rate"] != 0.2
    # num_leaves="auto" starts from the leaves it resolves to on the training folds
    auto = tune(LambdaMART(METRIC, n_estimators=30, n_jobs=1), X, y, qid=qid, metric=METRIC, n_trials=1, cv=3,
                early_stopping_rounds=3, random_state=0, param_space=space, show_progress=False)
    n_train = min(tr.size for tr, _ in auto.folds_)
    assert auto.study_.trials[0].params["num_leaves"] == auto_num_leaves(n_train)
    # and extra_trees="auto" from what it resolves to: on and off by the training folds' size
    for docs, expected in ((EXTRA_TREES_MAX_DOCS - 1, True), (EXTRA_TREES_MAX_DOCS, False)):
        assert _values_in_space(LambdaMART(METRIC), default_param_space(docs), docs)["extra_trees"] is expected
    # and lambda_l2="auto" from the size rule's penalty (the capacity check, which may lower it, does not run):
    # 10 for the four averaged models of 7 leaves below 5,000 documents, 1 from there
    for docs, expected in ((1000, 10.0), (AVERAGED_PENALTY_MIN_DOCS - 1, 10.0), (AVERAGED_PENALTY_MIN_DOCS, 1.0)):
        assert _values_in_space(LambdaMART(METRIC), default_param_space(docs), docs)["lambda_l2"] == expected
    # 1 where four models average randomised trees of 15 leaves (30,000-61,999 documents, a YetiRank target), as
    # the fit's rule
    for est, docs, expected in ((LambdaMART(METRIC), 40_000, 1.0), (LambdaMART(METRIC, n_models=1), 40_000, 10.0),
                                (LambdaMART("MRR"), 40_000, 10.0), (LambdaMART(METRIC), EXTRA_TREES_MAX_DOCS, 10.0)):
        assert _values_in_space(est, default_param_space(docs), docs)["lambda_l2"] == expected
    on = tune(LambdaMART(METRIC, n_estimators=30, n_jobs=1), X, y, qid=qid, metric=METRIC, n_trials=1, cv=3,
              early_stopping_rounds=3, random_state=0, show_progress=False)
    assert on.study_.trials[0].params["extra_trees"] is True and on.best_estimator_.extra_trees_ is True


@pytest.fixture
def check_runs(monkeypatch):
    """make_ltr data on which LambdaMART's capacity check runs (CHECK_MIN_DOCS lowered to 1,000) and
    grow_policy="auto" grows completed symmetric trees beside leaf-wise ones."""
    from metricrank.learners import _capacity

    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 1_000)
    return make_ltr(240, docs_per_query=(10, 20), n_features=10, n_informative=6, relevance="nonlinear", noise=0.1,
                    random_state=0)


def by_hand_fold_values(ds, folds, policy, rounds=5, **params):
    """Each fold's NDCG@10 of LambdaMART(**params) fitted by hand as tune fits it, asserting its grown policy
    (``rounds`` 40, the budget, for the first trial: its patience, max(5, its best tree so far), reaches its
    budget's best here)."""
    values = []
    for train, test in folds:
        model = LambdaMART("NDCG:top=10", n_estimators=40, n_jobs=1, random_state=3, **params)
        model.fit(ds.X[train], ds.y[train], qid=ds.qid[train], early_stopping_rounds=rounds,
                  eval_set=[(ds.X[test], ds.y[test], ds.qid[test])])
        assert model.grow_policy_ == policy
        values.append(evaluate(ds.y[test], model.predict(ds.X[test]), qid=ds.qid[test], metric="NDCG:top=10"))
    return values


def test_first_trial_and_its_refit_are_the_estimator_as_given(check_runs):
    # trial 0 records the unset depth as that of the size rule's leaves, but fits the estimator itself on every
    # fold, and kept, the refit is the estimator itself on all rows: its capacity check runs and chooses the depth
    # of grow_policy="auto"'s completed symmetric trees, and the leaves of the leaf-wise ones beside them ("mixed")
    ds = check_runs
    base = LambdaMART("NDCG:top=10", n_estimators=40, n_jobs=1, random_state=3)
    res = tune(base, ds.X, ds.y, qid=ds.qid, metric="NDCG:top=10", n_trials=1, cv=3, early_stopping_rounds=5,
               random_state=0, show_progress=False)
    assert res.selected_trial_ == 0
    trial0 = res.study_.trials[0].params
    n_train = min(train.size for train, _ in res.folds_)
    assert trial0["max_depth"] == int(np.log2(auto_num_leaves(n_train) + 1))
    as_given = by_hand_fold_values(ds, res.folds_, "mixed", rounds=40)
    assert res.study_.trials[0].user_attrs["fold_values"] == pytest.approx(as_given, rel=1e-12)
    # the recorded values fit other trees (else this case shows nothing)
    assert not np.allclose(by_hand_fold_values(ds, res.folds_, "symmetric_then_leafwise", rounds=40,
                                               grow_policy="symmetric_then_leafwise", **trial0), as_given)
    assert res.best_params_ == {**trial0, "max_depth": -1, "n_estimators": res.best_params_["n_estimators"]}
    refit = res.best_estimator_
    assert refit.capacity_check_ is not None and refit.grow_policy_ == "mixed"
    by_hand = LambdaMART("NDCG:top=10", n_jobs=1, random_state=3, **res.best_params_).fit(ds.X, ds.y, qid=ds.qid)
    np.testing.assert_array_equal(refit.predict(ds.X), by_hand.predict(ds.X))


def test_tune_searches_the_depth_of_completed_trees_where_auto_grows_them(check_runs):
    ds = check_runs
    base = LambdaMART("NDCG:top=10", n_estimators=40, n_jobs=1, random_state=3)
    kw = dict(qid=ds.qid, cv=3, early_stopping_rounds=5, random_state=0, show_progress=False)
    res = tune(base, ds.X, ds.y, metric="NDCG:top=10", n_trials=3, start_from_estimator=False, selection="best",
               **kw)
    space = default_param_space(100, "symmetric_then_leafwise")
    assert all(set(trial.params) == set(space) for trial in res.study_.trials)
    # every trial fits completed trees of its own depth: its fold values are those of such fits by hand
    trial = res.study_.trials[1]
    assert trial.user_attrs["fold_values"] == pytest.approx(
        by_hand_fold_values(ds, res.folds_, "symmetric_then_leafwise", grow_policy="symmetric_then_leafwise",
                            **trial.params), rel=1e-12)
    # and so does the refit of the best one
    assert res.best_params_["grow_policy"] == "symmetric_then_leafwise"
    assert res.best_estimator_.grow_policy_ == "symmetric_then_leafwise"
    assert res.best_estimator_.max_depth == res.study_.best_trial.params["max_depth"]
    # judged by MRR too (since stop 65): the search is over depths; set leaf-wise, over leaves
    mrr = tune(base, ds.X, ds.y, metric="MRR", n_trials=1, **kw)
    assert set(mrr.study_.trials[0].params) == set(space)
    assert mrr.best_estimator_.grow_policy_ == "mixed"  # its one trial is the estimator as given
    leafwise = tune(base.set_params(grow_policy="leafwise"), ds.X, ds.y, metric="MRR", n_trials=1, **kw)
    assert set(leafwise.study_.trials[0].params) == set(default_param_space(100))
    assert leafwise.best_estimator_.grow_policy_ == "leafwise" and "grow_policy" not in leafwise.best_params_


def test_improvement_pvalue_is_the_exact_one_sided_wilcoxon():
    import itertools

    from metricrank.model_selection import improvement_pvalue

    a = np.array([0.9, 0.8, 0.75, 0.95, 0.85, 0.9, 0.3])
    b = np.array([0.5, 0.82, 0.4, 0.7, 0.6, 0.5, np.nan])  # the NaN query is left out
    d = (a - b)[:6]
    ranks = np.argsort(np.argsort(np.abs(d))) + 1.0
    observed = ranks[d > 0].sum()
    # brute force: under H0 every sign pattern of the ranked differences is equally likely
    flips = [sum(r for r, s in zip(ranks, signs) if s) for signs in itertools.product([0, 1], repeat=6)]
    expected = np.mean([w >= observed for w in flips])
    assert improvement_pvalue(a, b) == pytest.approx(expected, rel=1e-12)
    assert improvement_pvalue(b[:6], a[:6], higher_is_better=False) == pytest.approx(expected, rel=1e-12)
    assert improvement_pvalue(a, a) == 1.0


@pytest.mark.filterwarnings("ignore:BruteForceSampler is experimental")
def test_tune_keeps_the_estimators_parameters_unless_a_trial_is_significantly_better(data):
    X, y, qid = data
    kw = dict(qid=qid, metric=METRIC, cv=3, early_stopping_rounds=3, random_state=0, show_progress=False)
    # a start that cannot split (leaves need more hessian than there is) against ones that can
    space = {"min_sum_hessian_in_leaf": [1e9, 1e-3]}
    base = LambdaMART(METRIC, n_estimators=30, n_jobs=1, min_sum_hessian_in_leaf=1e9)
    res = tune(base, X, y, n_trials=4, param_space=space, sampler=optuna.samplers.BruteForceSampler(seed=0), **kw)
    assert res.study_.trials[0].params["min_sum_hessian_in_leaf"] == 1e9
    assert res.selected_trial_ != 0 and res.selection_pvalue_ < 0.05
    assert res.best_params_["min_sum_hessian_in_leaf"] == 1e-3
    # trials that differ from the start only by noise: the start is kept, "best" takes the top trial
    space = {"bagging_fraction": optuna.distributions.FloatDistribution(0.8, 0.9), "bagging_freq": [1]}
    # (lambda_l2 pinned to 10, the value this case was built on, so that no change to "auto" moves it)
    base = LambdaMART(METRIC, target=METRIC, n_estimators=30, n_jobs=1, bagging_fraction=0.85, bagging_freq=1,
                      lambda_l2=10.0)
    kw["pruner"] = optuna.pruners.NopPruner()
    kw["random_state"] = 2
    kept = tune(base, X, y, n_trials=4, param_space=space, **kw)
    best = tune(base, X, y, n_trials=4, param_space=space, selection="best", **kw)
    assert best.study_.best_trial.number != 0  # (else this case shows nothing)
    assert kept.study_.best_trial.value > kept.study_.trials[0].value
    assert kept.selected_trial_ == 0 and kept.selection_pvalue_ >= 0.05
    assert kept.best_params_["bagging_fraction"] == 0.85
    assert kept.best_score_ == kept.study_.trials[0].value
    assert best.selected_trial_ == best.study_.best_trial.number and best.selection_pvalue_ is None
    with pytest.raises(ValueError, match="selection must be 'significant' or 'best'"):
        tune(base, X, y, n_trials=1, selection="first", **kw)


@pytest.mark.parametrize("bad, message", [
    ({"n_jobs": 0}, r"n_jobs must be a positive integer or -1 \(Optuna: a trial per core\); got 0"),
    ({"n_jobs": -2}, "n_jobs must be a positive integer or -1"),
    ({"n_jobs": 1.5}, "n_jobs must be a positive integer or -1"),
    ({"storage": "not a url"}, "storage must be a database URL such as sqlite:///search.db; got 'not a url'"),
    ({"storage": "sqlite:////no/such/dir/s.db"}, "storage /no/such/dir/s.db: directory /no/such/dir does not exist"),
    ({"storage": "sqlite:///:memory:"}, r"name a database file \(sqlite:///search.db\), not memory"),
    ({"early_stopping_rounds": "x"}, "early_stopping_rounds must be None or an integer >= 1; got 'x'"),
    ({"early_stopping_rounds": True}, "early_stopping_rounds must be None or an integer >= 1; got True"),
    ({"refit": "yes"}, "refit must be True or False; got 'yes'"),
    # each below raised a TypeError or NumPy's, Optuna's or str.split's message, or ran
    ({"timeout": "x"}, "timeout must be None or a positive number of seconds; got 'x'"),
    ({"random_state": -1}, r"random_state must be None, an integer in \[0, 2\*\*31\), a numpy RandomState or a "
                           r"numpy Generator; got -1"),
    ({"random_state": "x"}, r"random_state must be None, an integer in \[0, 2\*\*31\), a numpy RandomState or a "
                           r"numpy Generator; got 'x'"),
    ({"show_progress": "no"}, "show_progress must be True or False; got 'no'"),
    ({"start_from_estimator": "no"}, "start_from_estimator must be True or False; got 'no'"),
    ({"study_name": 5}, "study_name must be a string or None; got 5"),
    ({"param_space": "x"}, "param_space must be a dict"),
    ({"cv": "x"}, r"cv must be a number of folds >= 2, a splitter with split\(X, y, groups\) or an iterable"),
    ({"cv": 1.5}, "cv must be a number of folds >= 2"),
    ({"cv": True}, "cv must be a number of folds >= 2"),
    ({"cv": [(1, 2, 3)]}, r"cv's fold 0 must be a pair \(train rows, test rows\); got \(1, 2, 3\)"),
])
def test_tune_checks_n_jobs_and_storage(data, bad, message):
    X, y, qid = data
    with pytest.raises(ValueError, match=message):
        tune(small(), X, y, qid=qid, n_trials=2, **({"show_progress": False} | bad))


def test_the_first_trial_waits_as_many_trees_as_its_best_took_before_it_stops():
    """The other trials stop `rounds` trees after their best; the estimator as given, max(rounds, its best tree so
    far) trees after, so a slowly rising curve is not cut short, and it is scored at its best tree."""
    from metricrank.learners._boosting import StoppingRule

    ds = make_ltr(60, docs_per_query=(5, 15), n_features=6, noise=2.0, random_state=7)
    X, y, qid = ds.X, ds.y, ds.qid
    rows = np.arange(len(qid))
    cut = np.searchsorted(qid, np.unique(qid))[36]  # 36 training queries, 24 held out
    train, test = rows[:cut], rows[cut:]
    trees, rounds = 40, 2
    base = LambdaMART(METRIC, target=METRIC, n_estimators=trees, learning_rate=0.15, n_jobs=1, random_state=0)
    space = {"num_leaves": optuna.distributions.IntDistribution(2, 12)}
    res = tune(base, X, y, qid=qid, metric=METRIC, n_trials=3, cv=[(train, test)], early_stopping_rounds=rounds,
               param_space=space, random_state=0, show_progress=False, pruner=optuna.pruners.NopPruner())

    def held_out_curve(**params):
        model = clone(base).set_params(**params)
        model.fit(X[train], y[train], qid=qid[train], eval_set=[(X[test], y[test], qid[test])], eval_metrics=[METRIC])
        (curve,) = [c[METRIC] for c in model.evals_result_.values()]
        return model, np.asarray(curve)

    def stopped_at(curve):  # the tree where early stopping with `rounds` ends the curve
        rule = StoppingRule(rounds, True)
        return next((it for it, v in enumerate(curve, 1) if rule.observe(it, v, METRIC)), len(curve))

    model, curve = held_out_curve()
    end = patient_end(curve, rounds)
    best = int(np.argmax(curve[:end])) + 1
    first = res.study_.trials[0]
    assert first.user_attrs["best_iterations"] == [best]
    assert first.value == pytest.approx(curve[best - 1], rel=1e-12)
    np.testing.assert_allclose(first.user_attrs["query_values"], evaluate(
        y[test], model.predict(X[test], num_iteration=best), qid=qid[test], metric=METRIC, per_query=True))
    # it grew `end` trees: its in-fold reports (from half the budget on) end there, before the budget's end
    assert max(step for step in first.intermediate_values if step < trees) == end
    # (else this case shows nothing: `rounds` would have reached that best, or the patience the whole budget)
    assert stopped_at(curve) < best and end < trees
    if res.selected_trial_ == 0:
        assert res.best_params_["n_estimators"] == best
    # every other trial stops `rounds` trees after its best and is scored there
    for trial in res.study_.trials[1:]:
        _, other = held_out_curve(**trial.params)
        end = stopped_at(other)
        assert trial.user_attrs["best_iterations"] == [int(np.argmax(other[:end])) + 1]
        assert trial.value == pytest.approx(other[:end].max(), rel=1e-12)


def test_tune_shares_the_level_among_the_trials_it_chose_the_best_from(data):
    """The best of 7 trials beats the start at p = 0.011: below 0.05, not below 0.05 / 7."""
    from metricrank.model_selection import improvement_pvalue, selection_level

    X, y, qid = data
    space = {"lambda_l2": optuna.distributions.FloatDistribution(0.1, 30.0, log=True)}
    base = LambdaMART(METRIC, target=METRIC, n_estimators=30, n_jobs=1, lambda_l2=30.0)
    # patience 30, the budget: every trial grows its whole budget, the start too
    kw = dict(qid=qid, metric=METRIC, cv=3, early_stopping_rounds=30, random_state=5, show_progress=False,
              pruner=optuna.pruners.NopPruner(), n_trials=8, param_space=space)
    res = tune(base, X, y, **kw)
    top, first = res.study_.best_trial, res.study_.trials[0]
    p = improvement_pvalue(top.user_attrs["query_values"], first.user_attrs["query_values"])
    assert top.number != 0 and res.selection_pvalue_ == p
    assert res.selection_level_ == selection_level(7) == 0.05 / 7
    assert res.selection_level_ <= p < 0.05  # (else this case shows nothing)
    assert res.selected_trial_ == 0 and res.best_params_["lambda_l2"] == 30.0
    assert tune(base, X, y, selection="best", **kw).selected_trial_ == top.number


def test_tune_searches_the_depth_of_symmetric_trees_and_not_what_they_refuse(data):
    X, y, qid = data
    model = LambdaMART(METRIC, grow_policy="symmetric", n_estimators=20, n_jobs=1)
    result = tune(model, X, y, qid=qid, metric=METRIC, n_trials=3, cv=3, early_stopping_rounds=3, random_state=0,
                  show_progress=False)
    space = default_param_space(100, "symmetric")
    assert set(space) == {"max_depth", "min_data_in_leaf", "min_sum_hessian_in_leaf", "learning_rate"}
    assert all(set(trial.params) == set(space) and trial.state.name == "COMPLETE" for trial in result.study_.trials)
    # the first trial starts from the estimator: max_depth=-1 as the depth the size rule's leaves give (7: 3)
    assert result.study_.trials[0].params["max_depth"] == 3
    assert result.best_estimator_.grow_policy == "symmetric"
    assert result.best_estimator_.num_leaves_ == 2 ** result.best_estimator_.max_depth
    # completed symmetric trees share the space and the first trial's depth

    completed = LambdaMART(METRIC, grow_policy="symmetric_then_leafwise")
    assert default_param_space(100, "symmetric_then_leafwise").keys() == space.keys()
    assert _values_in_space(completed, space, 100)["max_depth"] == 3


def test_summary_is_the_results_attributes_as_plain_json():
    from metricrank.model_selection import TuneResult

    study = optuna.create_study(direction="maximize")
    dist = {"num_leaves": optuna.distributions.IntDistribution(2, 63)}
    start = datetime.datetime(2026, 1, 1)
    for value, state, seconds in [(0.5, "COMPLETE", 10), (None, "PRUNED", 5), (0.6, "COMPLETE", 20),
                                  (None, "PRUNED", 1), (None, "FAIL", 100), (0.55, "COMPLETE", 2),
                                  (None, "RUNNING", None)]:
        trial = optuna.trial.create_trial(params={"num_leaves": 7}, distributions=dist, value=value,
                                          state=getattr(optuna.trial.TrialState, state))
        trial.datetime_start = start
        trial.datetime_complete = None if seconds is None else start + datetime.timedelta(seconds=seconds)
        study.add_trial(trial)
    result = TuneResult(best_params_={"num_leaves": np.int64(7), "learning_rate": np.float64(0.05), "n_estimators": 40},
                        best_score_=np.float64(0.6), best_estimator_=None, study_=study, folds_=[(0, 1), (1, 0)],
                        metric_="MAP", elapsed_=3.5, selected_trial_=2, selection_pvalue_=0.01, selection_level_=0.025)
    summary = json.loads(json.dumps(result.summary()))  # plain values: numpy scalars would not serialise
    assert summary == {"best_params": {"num_leaves": 7, "learning_rate": 0.05, "n_estimators": 40}, "best_score": 0.6,
                       "metric": "MAP", "n_trials": 5, "n_completed": 3, "n_pruned": 2, "n_failed": 1,
                       "n_unfinished": 1, "folds": 2, "seconds": 3.5,
                       "trial_seconds": 10 + 5 + 20 + 1 + 2, "selected_trial": 2, "selection_pvalue": 0.01, "selection_level": 0.025}


# --- a search kept in an Optuna storage goes on where it stopped ----------------------------------


def finished(study):
    return [t for t in study.get_trials(deepcopy=False) if t.state.name in ("COMPLETE", "PRUNED")]


def test_a_stored_search_is_the_search_in_memory(result, data, tmp_path):
    stored = tuned(data, storage=f"sqlite:///{tmp_path / 'search.db'}")
    assert [(t.params, t.value, t.user_attrs) for t in stored.study_.trials] == \
        [(t.params, t.value, t.user_attrs) for t in result.study_.trials]
    assert stored.best_params_ == result.best_params_ and stored.selected_trial_ == result.selected_trial_


def test_a_stored_search_runs_only_the_trials_its_study_lacks(data, tmp_path):
    storage = f"sqlite:///{tmp_path / 'search.db'}"
    part = tuned(data, n_trials=2, storage=storage)
    assert len(finished(part.study_)) == 2
    first_two = [(t.params, t.value) for t in part.study_.trials]  # (the study object reads the storage)
    whole = tuned(data, n_trials=5, storage=storage, selection="best")
    trials = whole.study_.trials
    assert len(finished(whole.study_)) == len(trials) == 5
    assert [(t.params, t.value) for t in trials[:2]] == first_two
    assert sum(bool(t.user_attrs.get("estimator_as_given")) for t in trials) == 1
    # the selection reads the whole study: the best of all five trials
    completed = [t for t in trials if t.state.name == "COMPLETE"]
    assert whole.best_score_ == max(t.value for t in completed)
    assert whole.selected_trial_ == max(completed, key=lambda t: t.value).number
    # a trial a stopped process left running is neither counted nor read; a full study runs nothing more
    optuna.load_study(study_name="metricrank-tune", storage=storage).ask()
    again = tuned(data, n_trials=5, storage=storage, selection="best")
    assert len(again.study_.trials) == 6 and len(finished(again.study_)) == 5
    assert again.best_params_ == whole.best_params_


def test_a_stored_search_whose_first_trial_was_cut_short_runs_the_estimator_as_given_again(data, tmp_path,
                                                                                          monkeypatch):
    import metricrank.model_selection._tune as ms

    X, y, qid = data
    storage = f"sqlite:///{tmp_path / 'search.db'}"
    # a start that cannot split (leaves need more hessian than there is) against one that can: a trial beats it
    base = LambdaMART(METRIC, n_estimators=30, n_jobs=1, min_sum_hessian_in_leaf=1e9)
    kw = dict(qid=qid, metric=METRIC, cv=3, early_stopping_rounds=3, random_state=0, show_progress=False,
              param_space={"min_sum_hessian_in_leaf": [1e9, 1e-3]}, storage=storage)
    real = ms.fold_value

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ms, "fold_value", stopped)
    with pytest.raises(KeyboardInterrupt):
        tune(base, X, y, n_trials=4, **kw)
    monkeypatch.setattr(ms, "fold_value", real)
    res = tune(base, X, y, n_trials=4, **kw)
    given = [t for t in res.study_.trials if t.user_attrs.get("estimator_as_given")]
    assert [t.state.name for t in given] in (["FAIL", "COMPLETE"], ["RUNNING", "COMPLETE"])
    assert given[1].params == given[0].params == {"min_sum_hessian_in_leaf": 1e9}
    assert len(finished(res.study_)) == 4
    # the selection measures the best trial against the estimator as given that completed, not trial 0
    best = res.study_.best_trial
    assert best.number != given[1].number  # (else this case shows nothing)
    completed = [t for t in res.study_.trials if t.state.name == "COMPLETE"]
    p = improvement_pvalue(best.user_attrs["query_values"], given[1].user_attrs["query_values"], True)
    assert res.selection_pvalue_ == p < 0.05 / (len(completed) - 1)
    assert res.selected_trial_ == best.number and res.best_params_["min_sum_hessian_in_leaf"] == 1e-3


def test_a_stored_study_of_another_search_is_refused(data, tmp_path):
    X, y, qid = data
    storage = f"sqlite:///{tmp_path / 'search.db'}"
    tuned(data, n_trials=1, storage=storage)
    with pytest.raises(ValueError, match="holds another search: its metric differ"):
        tuned(data, n_trials=2, storage=storage, metric="MAP")
    with pytest.raises(ValueError, match="holds another search: its data differ"):
        tuned((X, np.where(y > 0, y - 1, y), qid), n_trials=2, storage=storage)
    with pytest.raises(ValueError, match="its folds"):  # (and the space, sized by the training folds)
        tuned(data, n_trials=2, storage=storage, cv=4)
    with pytest.raises(ValueError, match="its estimator differ"):
        tune(LambdaMART(METRIC, n_estimators=31, n_jobs=1), X, y, qid=qid, metric=METRIC, n_trials=2, cv=3,
             early_stopping_rounds=3, random_state=0, show_progress=False, storage=storage)
    foreign = optuna.create_study(storage=storage, study_name="theirs")
    foreign.optimize(lambda trial: trial.suggest_float("x", 0, 1), n_trials=1)
    with pytest.raises(ValueError, match="holds trials that tune did not record"):
        tuned(data, n_trials=2, storage=storage, study_name="theirs")


def test_a_stored_search_knows_text_query_ids_again(data, tmp_path):
    """Query ids as Python strings (an object array, as a pandas text column gives) are read by value: new string
    objects of the same ids are the same search."""
    X, y, qid = data

    def text_qid():
        return np.array([f"query {q}" for q in qid], dtype=object)

    storage = f"sqlite:///{tmp_path / 'search.db'}"
    tuned((X, y, text_qid()), n_trials=1, storage=storage)
    assert len(tuned((X, y, text_qid()), n_trials=2, storage=storage).study_.trials) == 2


def test_tune_takes_a_data_frame_as_it_takes_its_values(data, tmp_path):
    pd = pytest.importorskip("pandas")
    X, y, qid = data
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    storage = f"sqlite:///{tmp_path / 'search.db'}"
    by_frame = tuned((frame, y, qid), n_trials=2, storage=storage)
    values = [t.value for t in by_frame.study_.trials]
    assert values == [t.value for t in tuned(data, n_trials=2).study_.trials]
    assert list(by_frame.best_estimator_.feature_names_in_) == list(frame.columns)
    # the stored search knows the frame again (a copy), and not a frame with other values
    assert len(tuned((frame.copy(), y, qid), n_trials=3, storage=storage).study_.trials) == 3
    with pytest.raises(ValueError, match="its data differ"):
        tuned((frame.assign(f0=frame["f0"] + 1), y, qid), n_trials=3, storage=storage)


@pytest.mark.parametrize("as_dataset", [False, True])
def test_an_objectives_label_error_in_a_fold_names_the_row_of_the_data_given(data, as_dataset):
    # the objective checks its labels in each fold's fit, counting the fold's rows: row 122 of a fold was printed
    # (and the command line then gave that line of the file) where the label was on row 185
    X, y, qid = data
    labels = (y > 1).astype(float)  # QueryCrossEntropy's domain, [0, 1]
    bad = int(np.flatnonzero(qid == np.unique(qid)[-1])[0])  # a row of the last query: in a training fold
    labels[bad] = 2.0
    given = {"X": RankingDataset(X, labels, qid=qid)} if as_dataset else {"X": X, "y": labels, "qid": qid}
    with pytest.raises(ValueError, match=rf"QueryCrossEntropy needs labels in \[0, 1\]; row {bad} has label 2"):
        tune(GBRanker("QueryCrossEntropy", n_estimators=2), **given, metric="NDCG:top=5", n_trials=1, cv=3,
             show_progress=False)

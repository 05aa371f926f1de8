"""The boosted rankers check each parameter's type before its range, so a wrong type raises a ValueError naming
the parameter rather than a TypeError from deep inside NumPy or LightGBM, and a bool is no number. The boosted rankers
first, then the linear ones (structural SVMs, the LP ranker)."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import SVMMAP, GBRanker, LambdaMART, LPRanker, SVMAcc, SVMROCArea, SVMROCAreaMultiClass, make_ltr
from metricrank.learners import MARTClassifier, ThresholdBinner


@pytest.fixture(scope="module")
def data():
    ds = make_ltr(12, docs_per_query=(4, 8), n_features=6, random_state=0)
    return ds.X, ds.y, ds.qid


SEED = r"random_state must be None, an integer in \[0, 2\*\*31\), a numpy RandomState or a numpy Generator"
BAD = [
    ("learning_rate", "a", "learning_rate must be a positive number"),
    ("learning_rate", True, "learning_rate must be a positive number"),
    ("min_sum_hessian_in_leaf", "a", "min_sum_hessian_in_leaf must be a number >= 0"),
    ("path_smooth", "a", "path_smooth must be a number >= 0"),
    ("random_state", "x", SEED),
    ("random_state", -1, SEED),
    ("random_state", 2.5, SEED),
    ("random_state", 2 ** 31, SEED),
    ("lgb_params", "x", "lgb_params must be a dict of LightGBM parameters or None"),
    ("lgb_params", {"objective": "lambdarank"}, "lgb_params must not set objective"),
    ("lgb_params", {"application": "lambdarank"}, "lgb_params must not set application"),
    # a parameter the estimator sets, under LightGBM's primary name (it would override a resolved "auto") or an
    # alias (LightGBM would ignore it beside the primary name metricrank passes)
    ("lgb_params", {"num_leaves": 63}, r"lgb_params must not set num_leaves: the estimator's num_leaves sets it; "
                                       r"pass num_leaves=63 to the estimator instead"),
    ("lgb_params", {"num_leaf": 63}, r"must not set num_leaf \(LightGBM's num_leaves\): the estimator's num_leaves"),
    ("lgb_params", {"min_child_samples": 5}, r"min_child_samples \(LightGBM's min_data_in_leaf\)"),
    ("lgb_params", {"subsample": 0.5}, r"subsample \(LightGBM's bagging_fraction\)"),
    ("lgb_params", {"reg_lambda": 1.0}, r"reg_lambda \(LightGBM's lambda_l2\)"),
    ("lgb_params", {"random_state": 3}, r"random_state \(LightGBM's seed\): the estimator's random_state"),
    # LightGBM's metrics would need the query data metricrank does not give it (NDCG aborts LightGBM)
    ("lgb_params", {"metric": "ndcg"}, "lgb_params must not set metric: metricrank evaluates the eval sets itself"),
    ("lgb_params", {"metric_types": "l2"}, "lgb_params must not set metric_types: metricrank evaluates"),
    # a name LightGBM does not know (it would warn behind verbosity=-1 and ignore it), named with the likely one
    ("lgb_params", {"num_leafs": 7}, r"lgb_params: 'num_leafs' is not a LightGBM parameter \(did you mean "
                                     r"'num_leaves'\?\); LightGBM would ignore it"),
    # LightGBM parameters that training here leaves unread, under any name: refused with what to use instead
    ("lgb_params", {"num_iterations": 3}, r"must not set num_iterations, which training here does not read: the "
                                          r"estimator's n_estimators sets the number of trees"),
    ("lgb_params", {"num_boost_round": 3}, r"num_boost_round \(LightGBM's num_iterations\), which training here"),
    ("lgb_params", {"early_stopping_round": 2}, "pass early_stopping_rounds to fit"),
    ("lgb_params", {"first_metric_only": True}, "fit's early stopping watches the first eval metric"),
    ("lgb_params", {"ndcg_eval_at": [3]}, r"ndcg_eval_at \(LightGBM's eval_at\).*pass eval_at to fit"),
    ("lgb_params", {"label_gain": [0, 1, 3]}, "only LightGBM's own objectives read it"),
    ("lgb_params", {"lambdarank_truncation_level": 5}, "only LightGBM's own objectives read it"),
    ("lgb_params", {"objective_seed": 5}, "only LightGBM's own objectives read it"),
    ("lgb_params", {"output_model": "m.txt"}, "LightGBM's command line or its predict"),
    ("num_leaves", 131073, r"num_leaves must be 'auto' or an integer in \[2, 131072\] \(LightGBM's limit\)"),
    ("verbose", "x", r"verbose must be a bool or an integer >= 0 \(print every verbose trees\)"),
    ("verbose", 2.5, r"verbose must be a bool or an integer >= 0 \(print every verbose trees\)"),
    ("verbose", -1, r"verbose must be a bool or an integer >= 0 \(print every verbose trees\)"),
    ("feature_fraction", "a", r"feature_fraction must be in \(0, 1\]"),
    ("bagging_fraction", float("nan"), r"bagging_fraction must be in \(0, 1\]"),
    ("preset", "sklearn", "preset must be None or one of catboost, lightgbm, xgboost, trec_eval; got 'sklearn'"),
]


@pytest.mark.parametrize("estimator", [GBRanker, LambdaMART])
@pytest.mark.parametrize("name, value, message", BAD)
def test_a_wrong_type_or_range_names_the_parameter(data, estimator, name, value, message):
    X, y, qid = data
    with pytest.raises(ValueError, match=message):
        estimator(n_estimators=2, **{name: value}).fit(X, y, qid=qid)


@pytest.mark.parametrize("key", ["boosting", "boosting_type", "boost"])
def test_early_stopping_with_dart_is_refused_before_any_fit(data, key, monkeypatch):
    # dart rescales earlier trees as it adds new ones: a best iteration read from the curve is not that model
    import metricrank.learners.gbranker as gbranker

    X, y, qid = data
    model = LambdaMART(n_estimators=5, min_data_in_leaf=2, lgb_params={key: "dart"})
    fitted = model.fit(X, y, qid=qid, eval_set=[(X, y, qid)])  # without early stopping dart trains
    assert fitted.best_iteration_ is None and fitted.n_estimators_ == 5
    monkeypatch.setattr(gbranker, "as_dataset", None)  # the check comes before the data are read
    message = f"early_stopping_rounds does not work with lgb_params {key}='dart'"
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, qid=qid, eval_set=[(X, y, qid)], early_stopping_rounds=3)
    pytest.importorskip("optuna")
    from metricrank import tune

    monkeypatch.setattr(LambdaMART, "fit", lambda *args, **kwargs: pytest.fail("tune fitted before its checks"))
    with pytest.raises(ValueError, match=message):
        tune(model, X, y, qid=qid, n_trials=1, show_progress=False)


@pytest.mark.parametrize("name, value, message", [
    ("sigma", "a", "sigma must be a positive finite number"),
    ("sigma", True, "sigma must be a positive finite number"),
    ("truncation", "x", "truncation must be a positive integer or None"),
    ("truncation", float("inf"), "truncation must be a positive integer or None"),
])
def test_lambda_options_name_themselves(data, name, value, message):
    X, y, qid = data
    with pytest.raises(ValueError, match=message):
        LambdaMART(target="NDCG:top=10", n_estimators=2, **{name: value}).fit(X, y, qid=qid)


@pytest.mark.parametrize("random_state", [0, 2 ** 31 - 1, np.int64(7)])
def test_every_seed_lightgbm_takes_is_accepted(data, random_state):
    X, y, qid = data
    model = LambdaMART(n_estimators=2, random_state=random_state).fit(X, y, qid=qid)
    assert model.booster_.params["seed"] == int(random_state)


def test_mart_sigma_names_itself(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="sigma must be a positive finite number; got 'a'"):
        MARTClassifier(n_estimators=2, sigma="a").fit(X, (y > 1).astype(int))


@pytest.mark.parametrize("dtype", ["zzz", str, object])
def test_threshold_binner_refuses_a_dtype_that_holds_no_indicator(data, dtype):
    # (it was taken at fit and failed at transform, or gave strings)
    with pytest.raises(ValueError, match="dtype must be a numpy bool, integer or float dtype"):
        ThresholdBinner(dtype=dtype).fit(data[0])


@pytest.mark.parametrize("dtype", [bool, np.int8, np.float32])
def test_threshold_binner_takes_a_numeric_dtype(data, dtype):
    assert ThresholdBinner(n_thresholds=3, dtype=dtype).fit(data[0]).transform(data[0]).dtype == np.dtype(dtype)


# The linear rankers: ``float()`` takes "1.5" and True, so the old checks let a string or a bool through as a number,
# and any verbose (None, -1, "x") was read as its truth value.
SVM_BAD = [
    ("C", "1.5", "C must be a finite number > 0"),
    ("C", True, "C must be a finite number > 0"),
    ("epsilon", "0.01", "epsilon must be a finite number > 0"),
    ("epsilon", True, "epsilon must be a finite number > 0"),
    ("max_iter", True, "max_iter must be an integer >= 1"),
    ("verbose", -1, r"verbose must be a bool or an integer >= 0 \(0 or False: silent"),
    ("verbose", "x", "verbose must be a bool or an integer >= 0"),
    ("verbose", None, "verbose must be a bool or an integer >= 0"),
    ("verbose", 1.5, "verbose must be a bool or an integer >= 0"),
]


@pytest.mark.parametrize("estimator", [SVMMAP, SVMROCArea, SVMROCAreaMultiClass])
@pytest.mark.parametrize("name, value, message", SVM_BAD)
def test_structural_svm_parameters_name_themselves(data, estimator, name, value, message):
    X, y, qid = data
    with pytest.raises(ValueError, match=message):
        estimator(**{name: value}).fit(X, y, qid=qid)


@pytest.mark.parametrize("estimator", [SVMMAP, SVMROCArea, SVMAcc])
@pytest.mark.parametrize("border", ["0.5", True])
def test_a_border_must_be_a_number(data, estimator, border):
    X, y, qid = data
    with pytest.raises(ValueError, match="border must be a finite number"):
        estimator(border=border).fit(X, y, qid=qid)


@pytest.mark.parametrize("name, value", [("C", "1"), ("C", False), ("tol", True), ("tol", "1e-3")])
def test_svm_acc_numbers_name_themselves(data, name, value):
    X, y, qid = data
    with pytest.raises(ValueError, match=f"{name} must be a finite number > 0"):
        SVMAcc(**{name: value}).fit(X, y, qid=qid)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter=3 keeps it short
@pytest.mark.parametrize("estimator", [SVMMAP, SVMROCArea])
@pytest.mark.parametrize("verbose, prints", [(False, False), (0, False), (True, True), (2, True), (np.int64(1), True)])
def test_structural_svm_verbose_takes_a_bool_or_a_count(data, estimator, verbose, prints, capsys):
    X, y, qid = data
    estimator(verbose=verbose, max_iter=3).fit(X, y, qid=qid)
    assert ("iter 1:" in capsys.readouterr().out) == prints


@pytest.mark.parametrize("name, value", [("tol", False), ("C", True), ("chunk_size", True), ("epsilon", "1")])
def test_lp_ranker_refuses_a_bool_or_a_string_as_a_number(data, name, value):
    X, y, _ = data
    with pytest.raises(ValueError, match=f"{name} must be"):
        LPRanker(**{name: value}).fit(X[:30], (y[:30] > 1).astype(int))


def test_lp_ranker_single_class_message_names_the_border(data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"single class \(0 positive of 30: one class; positive: label > border=9\)"):
        LPRanker(border=9).fit(X[:30], y[:30])


@pytest.mark.parametrize("estimator", [GBRanker, LambdaMART])
@pytest.mark.parametrize("rounds", ["x", True, 2.0, 2.5, 0])
def test_early_stopping_rounds_is_checked_before_any_work(data, estimator, rounds, monkeypatch):
    # ("x" raised int()'s message, True and 2.0 were taken; the check came after the capacity check's fits)
    X, y, qid = data
    monkeypatch.setattr(estimator, "_resolve_grow_policy", _no_work)
    with pytest.raises(ValueError, match=f"early_stopping_rounds must be None or an integer >= 1; got {rounds!r}"):
        estimator(n_estimators=2).fit(X, y, qid=qid, eval_set=[(X, y, qid)], early_stopping_rounds=rounds)


@pytest.mark.parametrize("estimator", [GBRanker, LambdaMART])
def test_early_stopping_without_an_eval_set_fails_before_any_work(data, estimator, monkeypatch):
    X, y, qid = data
    monkeypatch.setattr(estimator, "_resolve_grow_policy", _no_work)
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval_set"):
        estimator(n_estimators=2).fit(X, y, qid=qid, early_stopping_rounds=3)


def _no_work(*args, **kwargs):
    raise AssertionError("the grow policy (and the capacity check's fits) came before the parameter check")


def test_lgb_params_may_set_what_the_estimator_does_not():
    # LightGBM's own alias table is read (not the fallback of the name alone)
    from metricrank.learners._gbdt import lightgbm_aliases

    assert {"num_leaf", "max_leaves", "min_child_samples"} <= lightgbm_aliases("num_leaves") | lightgbm_aliases(
        "min_data_in_leaf")
    ds = make_ltr(12, docs_per_query=(4, 8), n_features=6, random_state=0)
    model = GBRanker(n_estimators=2, lgb_params={"bagging_seed": 7, "min_gain_to_split": 0.5, "nthread": 1}).fit(ds)
    assert model.booster_.params["min_gain_to_split"] == 0.5

"""The boosted rankers check each parameter's type before its range, so a wrong type raises a ValueError naming
the parameter rather than a TypeError from deep inside NumPy or LightGBM, and a bool is no number."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr
from metricrank.learners import MARTClassifier, ThresholdBinner


@pytest.fixture(scope="module")
def data():
    ds = make_ltr(12, docs_per_query=(4, 8), n_features=6, random_state=0)
    return ds.X, ds.y, ds.qid


BAD = [
    ("learning_rate", "a", "learning_rate must be a positive number"),
    ("learning_rate", True, "learning_rate must be a positive number"),
    ("min_sum_hessian_in_leaf", "a", "min_sum_hessian_in_leaf must be a number >= 0"),
    ("path_smooth", "a", "path_smooth must be a number >= 0"),
    ("random_state", "x", r"random_state must be None or an integer in \[0, 2\*\*31\)"),
    ("random_state", -1, r"random_state must be None or an integer in \[0, 2\*\*31\)"),
    ("random_state", 2.5, r"random_state must be None or an integer in \[0, 2\*\*31\)"),
    ("random_state", 2 ** 31, r"random_state must be None or an integer in \[0, 2\*\*31\)"),
    ("lgb_params", "x", "lgb_params must be a dict of LightGBM parameters or None"),
    ("lgb_params", {"objective": "lambdarank"}, "lgb_params must not set objective"),
    ("lgb_params", {"application": "lambdarank"}, "lgb_params must not set application"),
    ("verbose", "x", "verbose must be an integer >= 0"),
    ("verbose", 2.5, "verbose must be an integer >= 0"),
    ("verbose", -1, "verbose must be an integer >= 0"),
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

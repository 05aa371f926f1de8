"""QueryRMSE, QuerySoftMax and QueryCrossEntropy against CatBoost and the seed's formulas."""

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import expit

from metricrank import GBRanker
from metricrank.metrics._base import MetricInput, compute_value, fill_defaults
from metricrank.metrics._query_losses import DEFINITIONS

catboost_utils = pytest.importorskip("catboost.utils")

DEFS = {d.name: d for d in DEFINITIONS}


def evaluate(name, y, score, group_ptr, weight=None, group_weight=None, **params):
    n = len(y)
    nq = len(group_ptr) - 1
    inp = MetricInput(
        np.ascontiguousarray(y, dtype=np.float64),
        np.ascontiguousarray(score, dtype=np.float64),
        np.ascontiguousarray(group_ptr, dtype=np.int64),
        np.ones(n) if weight is None else np.ascontiguousarray(weight, dtype=np.float64),
        np.ones(nq) if group_weight is None else np.ascontiguousarray(group_weight, dtype=np.float64),
        has_weight=weight is not None,
        has_group_weight=group_weight is not None,
    )
    defn = DEFS[name]
    return compute_value(defn, inp, fill_defaults(defn, params))


def f32(x):
    """CatBoost stores labels and weights as float32: use representable values."""
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def random_case(seed, label_kind):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=rng.integers(1, 25))
    sizes[rng.integers(0, sizes.size)] = 1  # at least one single-document query
    n = int(sizes.sum())
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    gid = np.repeat(np.arange(sizes.size), sizes)
    approx = rng.normal(scale=2.0, size=n)
    approx[rng.random(n) < 0.2] = 0.5  # tied approxes
    weight = f32(rng.uniform(0.1, 3.0, size=n))
    group_weight = f32(rng.uniform(0.1, 3.0, size=sizes.size))
    if label_kind == "int":
        y = rng.integers(0, 5, size=n).astype(np.float64)
    elif label_kind == "small":
        y = rng.integers(0, 3, size=n).astype(np.float64)
    else:  # probabilities, some queries all-equal
        y = f32(rng.choice([0.0, 1.0, 0.25, 0.5, 0.8, rng.random()], size=n))
    return y, approx, ptr, gid, weight, group_weight


CASES = [
    ("QueryRMSE", "QueryRMSE", {}, "int"),
    ("QuerySoftMax", "QuerySoftMax", {}, "small"),
    ("QuerySoftMax", "QuerySoftMax:beta=0.5", {"beta": 0.5}, "int"),
    ("QueryCrossEntropy", "QueryCrossEntropy", {}, "prob"),
    # an explicit alpha is parsed by CatBoost as float32 (the default 0.95 stays
    # a double): use a float32-exact alpha here, see the test below.
    ("QueryCrossEntropy", "QueryCrossEntropy:alpha=0.25", {"alpha": 0.25}, "prob"),
]


@pytest.mark.parametrize("name,spec,params,labels", CASES)
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_catboost_eval_metric(name, spec, params, labels, weighted):
    for seed in range(25):
        y, approx, ptr, gid, w, gw = random_case(seed, labels)
        kw = {"weight": w, "group_weight": np.repeat(gw, np.diff(ptr))} if weighted else {}
        expected = catboost_utils.eval_metric(y, approx, spec, group_id=gid, **kw)[0]
        ours = evaluate(name, y, approx, ptr, w if weighted else None, gw if weighted else None, **params)[0]
        if expected == 0.0:
            assert abs(ours) < 1e-12
        else:
            assert ours == pytest.approx(expected, rel=1e-9, abs=0), (seed, spec, weighted)


@pytest.mark.parametrize("name,spec,params,labels", CASES[:4])
def test_use_weights_false_equals_unweighted_catboost(name, spec, params, labels):
    for seed in range(5):
        y, approx, ptr, gid, w, gw = random_case(100 + seed, labels)
        expected = catboost_utils.eval_metric(y, approx, spec, group_id=gid)[0]
        ours = evaluate(name, y, approx, ptr, w, gw, use_weights=False, **params)[0]
        assert ours == pytest.approx(expected, rel=1e-9)


def test_catboost_parses_explicit_alpha_as_float32():
    # Documents a CatBoost quirk rather than copying it: "alpha=0.3" is
    # evaluated with float32(0.3) = 0.30000001192..., so CatBoost differs from
    # alpha = 0.3 by ~2e-9 relative; our alpha is the double that was given.
    y, approx, ptr, gid, _, _ = random_case(0, "prob")
    expected = catboost_utils.eval_metric(y, approx, "QueryCrossEntropy:alpha=0.3", group_id=gid)[0]
    as_float32 = float(np.float32(0.3))
    assert evaluate("QueryCrossEntropy", y, approx, ptr, alpha=as_float32)[0] == pytest.approx(expected, rel=1e-12)
    assert evaluate("QueryCrossEntropy", y, approx, ptr, alpha=0.3)[0] != pytest.approx(expected, rel=1e-12)


def test_query_cross_entropy_saturated_shift_matches_catboost():
    # A query whose best shift lies outside [-20, 20]: CatBoost's bisection clips it.
    y = f32([1, 0.9, 0.8, 0, 1, 0.5])
    approx = np.array([-40.0, -35.0, -38.0, 1.0, 0.3, -0.2])
    ptr = np.array([0, 3, 6])
    gid = np.array([0, 0, 0, 1, 1, 1])
    expected = catboost_utils.eval_metric(y, approx, "QueryCrossEntropy", group_id=gid)[0]
    assert evaluate("QueryCrossEntropy", y, approx, ptr)[0] == pytest.approx(expected, rel=1e-9)


# --- the seed's formulas, transcribed directly ------------------------------------------

def query_rmse_formula(y, a, ptr, w):
    num = den = 0.0
    for q in range(len(ptr) - 1):
        s = slice(ptr[q], ptr[q + 1])
        t, ap, ww = y[s], a[s], w[s]
        mean = np.sum(ww * (t - ap)) / np.sum(ww)
        num += np.sum(ww * (t - ap - mean) ** 2)
        den += np.sum(ww)
    return np.sqrt(num / den)


def query_softmax_formula(y, a, ptr, w, beta):
    num = den = 0.0
    for q in range(len(ptr) - 1):
        s = slice(ptr[q], ptr[q + 1])
        t, ap, ww = y[s], a[s], w[s]
        z = np.sum(ww * np.exp(beta * ap))
        num -= np.sum(ww * t * np.log(ww * np.exp(beta * ap) / z))
        den += np.sum(ww * t)
    return num / den


def query_cross_entropy_formula(y, a, ptr, w, alpha):
    """(1-α) LogLoss + α LogLoss of sigmoid(a + shift_q), shift_q the exact root."""

    def logloss(t, p):
        return -(t * np.log(p) + (1 - t) * np.log(1 - p))

    num = den = 0.0
    for q in range(len(ptr) - 1):
        s = slice(ptr[q], ptr[q + 1])
        t, ap, ww = y[s], a[s], w[s]
        num += (1 - alpha) * np.sum(ww * logloss(t, expit(ap)))
        if np.ptp(t) > 0:
            shift = brentq(lambda b: np.sum(ww * (t - expit(ap + b))), -20, 20, xtol=1e-14)
            num += alpha * np.sum(ww * logloss(t, expit(ap + shift)))
        den += np.sum(ww)
    return num / den


@pytest.mark.parametrize("seed", range(10))
def test_query_rmse_equals_seed_formula(seed):
    y, a, ptr, _, w, _ = random_case(seed, "int")
    assert evaluate("QueryRMSE", y, a, ptr, w)[0] == pytest.approx(query_rmse_formula(y, a, ptr, w), rel=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_query_softmax_equals_seed_formula(seed):
    y, a, ptr, _, w, _ = random_case(seed, "small")
    for beta in (1.0, 0.7):
        expected = query_softmax_formula(y, a, ptr, w, beta)
        assert evaluate("QuerySoftMax", y, a, ptr, w, beta=beta)[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_query_cross_entropy_equals_exact_shift_formula(seed):
    # CatBoost's shift is a 30-step bisection (error <= 40 / 2^30); the group
    # term is stationary in the shift, so the value error is second order.
    y, a, ptr, _, w, _ = random_case(seed, "prob")
    y = np.clip(y, 1e-3, 1 - 1e-3)  # keep the exact root inside [-20, 20]
    expected = query_cross_entropy_formula(y, a, ptr, w, 0.95)
    assert evaluate("QueryCrossEntropy", y, a, ptr, w)[0] == pytest.approx(expected, rel=1e-10)


def test_hand_example_query_rmse():
    # one query, residuals r = t - a = (1, 2, 6); mean 3; deviations (-2, -1, 3)
    y = np.array([1.0, 2.0, 6.0])
    a = np.zeros(3)
    value, per_query, counted = evaluate("QueryRMSE", y, a, [0, 3])
    assert value == pytest.approx(np.sqrt((4 + 1 + 9) / 3))
    assert counted == 1


def test_query_rmse_invariant_to_per_query_shift():
    y, a, ptr, _, w, _ = random_case(3, "int")
    shifted = a + np.repeat(np.arange(len(ptr) - 1) * 3.7, np.diff(ptr))
    assert evaluate("QueryRMSE", y, shifted, ptr, w)[0] == pytest.approx(evaluate("QueryRMSE", y, a, ptr, w)[0])


def test_query_softmax_query_without_positive_target_not_counted():
    y = np.array([0.0, 0.0, 1.0, 0.0])
    a = np.array([0.3, -1.0, 2.0, 1.0])
    value, per_query, counted = evaluate("QuerySoftMax", y, a, [0, 2, 4])
    assert counted == 1 and np.isnan(per_query[0])
    assert value == pytest.approx(-np.log(np.exp(2.0) / (np.exp(2.0) + np.exp(1.0))))


def test_query_cross_entropy_single_class_query_is_plain_logloss():
    y = np.array([1.0, 1.0])
    a = np.array([0.2, -0.4])
    alpha = 0.95
    expected = (1 - alpha) * np.mean(-np.log(expit(a)))
    assert evaluate("QueryCrossEntropy", y, a, [0, 2])[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_query_cross_entropy_label_domain(bad):
    with pytest.raises(ValueError, match="QueryCrossEntropy"):
        evaluate("QueryCrossEntropy", np.array([0.0, bad]), np.zeros(2), [0, 2])


def test_query_softmax_refuses_a_negative_label_as_its_objective_does():
    # CatBoost refuses it in training; a negative label makes the target (labels over their sum) no distribution
    y = np.array([0.0, 2.0, 1.0, -1.0])
    message = r"QuerySoftMax needs labels >= 0; row 3 has label -1"
    with pytest.raises(ValueError, match=message):
        evaluate("QuerySoftMax", y, np.zeros(4), [0, 4])
    with pytest.raises(ValueError, match=message):
        GBRanker("QuerySoftMax", n_estimators=1, min_data_in_leaf=1).fit(np.eye(4), y, group=[4])


def test_directions_and_defaults():
    for name in DEFS:
        assert DEFS[name].higher_is_better is False
    assert fill_defaults(DEFS["QuerySoftMax"], {}) == {"use_weights": True, "beta": 1.0, "lambda": 0.0}
    assert fill_defaults(DEFS["QueryCrossEntropy"], {}) == {"use_weights": True, "alpha": 0.95}

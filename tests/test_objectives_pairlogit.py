"""PairLogit and PairLogitPairwise objectives: derivatives of the catalogue PairLogit metric.

The loss is the metric's numerator ``sum_pairs w_pn log(1 + exp(-(a_p - a_n)))``,
rebuilt here as ``evaluate(metric="PairLogit") * sum_pairs w_pn`` with
``sum_pairs w_pn = sum_q g_q w_first(q) n_pairs(q)`` (a formula). Gradients are
compared with central differences (step 1e-5, tolerance 1e-7 absolute + 1e-6
relative), hessian diagonals with second differences (step 1e-3, tolerance
2e-5 absolute + 1e-4 relative).
"""

import math
from itertools import combinations

import numpy as np
import pytest

import metricrank
from metricrank.objectives._base import as_training_data
from metricrank.objectives.pairlogit import DEFINITIONS, PairLogit, PairLogitPairwise, generate_pairs

SEEDS = [0, 1, 2, 3]


def make(name="PairLogit", **params):
    defn = {d.name: d for d in DEFINITIONS}[name]
    full = {p.name: p.default for p in defn.params}
    full.update(params)
    spec = name + (":" + ";".join(f"{k}={v}" for k, v in params.items()) if params else "")
    return defn.factory(spec, full)


def random_case(seed, max_size=8):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size, size=10)
    sizes[0] = 1  # single document: no pair
    sizes[1] = 4
    n = int(sizes.sum())
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    y = rng.integers(0, 3, size=n).astype(float)  # many tied labels
    y[ptr[1]:ptr[2]] = 1.0  # all labels equal: no pair
    raw = rng.normal(scale=1.5, size=n)
    raw[rng.random(n) < 0.2] = 0.25  # tied scores
    w = rng.uniform(0.2, 3.0, size=n)
    gw = rng.uniform(0.2, 3.0, size=sizes.size)
    return y, raw, ptr, w, gw


def n_pairs(y, ptr):
    return np.array([np.sum(y[s:e, None] > y[None, s:e]) for s, e in zip(ptr[:-1], ptr[1:])])


def metric_loss(y, raw, ptr, w, gw, pairs=None, pair_weights=None, spec="PairLogit"):
    value = metricrank.evaluate(y, raw, group_ptr=ptr, metric=spec, weights=w, group_weights=gw,
                                pairs=pairs, pair_weights=pair_weights)
    if pairs is not None:
        total = np.sum(pair_weights) if pair_weights is not None else len(pairs)
    else:
        total = np.sum(gw * w[ptr[:-1]] * n_pairs(y, ptr))  # Σ_q g_q w_first(q) n_pairs(q)
    return value * total


def finite_differences(f, raw, h, second=False):
    out = np.empty_like(raw)
    f0 = f(raw) if second else 0.0
    for i in range(raw.size):
        up, down = raw.copy(), raw.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - 2 * f0 + f(down)) / h ** 2 if second else (f(up) - f(down)) / (2 * h)
    return out


@pytest.mark.parametrize("name", ["PairLogit", "PairLogitPairwise"])
@pytest.mark.parametrize("seed", SEEDS)
def test_gradient_is_metric_derivative(name, seed):
    y, raw, ptr, w, gw = random_case(seed)
    grad, _ = make(name).gradient_hessian(y, raw, ptr, weights=w, group_weights=gw)
    fd = finite_differences(lambda a: metric_loss(y, a, ptr, w, gw, spec=name), raw, 1e-5)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)
    assert np.any(np.abs(grad) > 1e-2)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_hessian_is_metric_second_derivative(seed):
    y, raw, ptr, w, gw = random_case(seed)
    _, hess = make().gradient_hessian(y, raw, ptr, weights=w, group_weights=gw)
    fd = finite_differences(lambda a: metric_loss(y, a, ptr, w, gw), raw, 1e-3, second=True)
    np.testing.assert_allclose(hess, fd, rtol=1e-4, atol=2e-5)


def test_explicit_pairs_with_own_weights_are_metric_derivative():
    y, raw, ptr, w, gw = random_case(5)
    rng = np.random.default_rng(5)
    pairs, pw = [], []
    for s, e in zip(ptr[:-1], ptr[1:]):
        for _ in range(e - s - 1):
            i, j = rng.choice(np.arange(s, e), size=2, replace=False)
            pairs.append((i, j))  # whatever the labels
            pw.append(rng.uniform(0.1, 2.0))
    pairs, pw = np.array(pairs), np.array(pw)
    grad, hess = make().gradient_hessian(y, raw, ptr, weights=w, group_weights=gw, pairs=pairs, pair_weights=pw)
    fd = finite_differences(lambda a: metric_loss(y, a, ptr, w, gw, pairs, pw), raw, 1e-5)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)
    fd2 = finite_differences(lambda a: metric_loss(y, a, ptr, w, gw, pairs, pw), raw, 1e-3, second=True)
    np.testing.assert_allclose(hess, fd2, rtol=1e-4, atol=2e-5)


def test_explicit_pairs_equal_to_generated_pairs_give_identical_derivatives():
    y, raw, ptr, w, gw = random_case(6)
    data = as_training_data(y, ptr, weights=w, group_weights=gw)
    bound = make().bind(data)
    grad, hess = (v.copy() for v in bound(raw))
    win, lose, pw = bound.pairs()
    # generated: every y_i > y_j of a query, weight g_q * w_first(q)
    expected = {(i, j): gw[q] * w[s]
                for q, (s, e) in enumerate(zip(ptr[:-1], ptr[1:])) for i in range(s, e) for j in range(s, e)
                if y[i] > y[j]}
    got = {(int(i), int(j)): p for i, j, p in zip(win, lose, pw)}
    assert got.keys() == expected.keys() and len(win) == len(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-15)
    perm = np.random.default_rng(0).permutation(len(win))  # order must not matter
    g2, h2 = make().gradient_hessian(y, raw, ptr, pairs=np.c_[win, lose][perm], pair_weights=pw[perm])
    np.testing.assert_allclose(g2, grad, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(h2, hess, rtol=1e-13, atol=1e-15)


def test_group_weight_scales_the_query_pairs():
    y, raw, ptr, w, gw = random_case(7)
    g1, h1 = make().gradient_hessian(y, raw, ptr, weights=w)
    g2, h2 = make().gradient_hessian(y, raw, ptr, weights=w, group_weights=gw)
    rep = np.repeat(gw, np.diff(ptr))
    np.testing.assert_allclose(g2, rep * g1, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(h2, rep * h1, rtol=1e-13, atol=1e-15)
    # only the first row's weight of a query matters
    w2 = w.copy()
    w2[np.setdiff1d(np.arange(len(y)), ptr[:-1])] = 7.0
    np.testing.assert_array_equal(make().gradient_hessian(y, raw, ptr, weights=w2)[0], g1)


def test_use_weights_false_ignores_weights():
    y, raw, ptr, w, gw = random_case(8)
    g0, h0 = make().gradient_hessian(y, raw, ptr)
    g1, h1 = make(use_weights=False).gradient_hessian(y, raw, ptr, weights=w, group_weights=gw)
    np.testing.assert_array_equal(g1, g0)
    np.testing.assert_array_equal(h1, h0)
    pairs = np.array([[ptr[2], ptr[2] + 1]])
    g2, _ = make(use_weights=False).gradient_hessian(y, raw, ptr, pairs=pairs, pair_weights=[5.0])
    g3, _ = make().gradient_hessian(y, raw, ptr, pairs=pairs)
    np.testing.assert_array_equal(g2, g3)


def test_formula_and_degenerate_queries():
    # query 0: labels (2, 0, 1); query 1: one document; query 2: equal labels
    y = np.array([2.0, 0.0, 1.0, 5.0, 1.0, 1.0])
    raw = np.array([0.5, 0.0, 1.5, 3.0, -1.0, 2.0])
    grad, hess = make().gradient_hessian(y, raw, [0, 3, 4, 6])

    def s(d):  # 1 - sigmoid(d)
        return 1 / (1 + math.exp(d))

    s01, s02, s21 = s(0.5 - 0.0), s(0.5 - 1.5), s(1.5 - 0.0)
    np.testing.assert_allclose(grad[:3], [-(s01 + s02), s01 + s21, s02 - s21], rtol=1e-15)
    np.testing.assert_allclose(hess[:3], [s01 * (1 - s01) + s02 * (1 - s02), s01 * (1 - s01) + s21 * (1 - s21),
                                          s02 * (1 - s02) + s21 * (1 - s21)], rtol=1e-15)
    assert grad[3:].tolist() == [0.0] * 3 and hess[3:].tolist() == [0.0] * 3


def test_large_score_differences_do_not_overflow():
    grad, hess = make().gradient_hessian([1.0, 0.0], [-800.0, 800.0], [0, 2])
    assert grad.tolist() == [-1.0, 1.0] and hess.tolist() == [0.0, 0.0]


def test_max_pairs_keeps_at_most_k_distinct_valid_pairs():
    rng = np.random.default_rng(1)
    sizes = np.array([30, 3, 12, 1, 25, 6])
    ptr = np.concatenate(([0], np.cumsum(sizes)))
    y = rng.integers(0, 4, size=sizes.sum()).astype(float)
    y[ptr[-2]:] = [3, 2, 1, 1, 0, 0]  # 5 + 4 + 2 + 2 = 13 pairs, just above k
    k = 10
    data = as_training_data(y, ptr)
    win, lose, pw = make(max_pairs=k).bind(data, random_state=3).pairs()
    counts = n_pairs(y, ptr)
    q_of = np.searchsorted(ptr, win, side="right") - 1
    assert np.all(q_of == np.searchsorted(ptr, lose, side="right") - 1)
    assert np.all(np.diff(q_of) >= 0)  # sorted by query
    assert np.all(y[win] > y[lose])
    assert np.array_equal(np.bincount(q_of, minlength=len(sizes)), np.minimum(counts, k))
    assert len({(int(a), int(b)) for a, b in zip(win, lose)}) == len(win)
    # deterministic for a seed, different for another
    again = make(max_pairs=k).bind(data, random_state=3).pairs()
    assert np.array_equal(again[0], win) and np.array_equal(again[1], lose)
    other = make(max_pairs=k).bind(data, random_state=4).pairs()
    assert not (np.array_equal(other[0], win) and np.array_equal(other[1], lose))
    # the loss is the metric's numerator over exactly these pairs
    raw = rng.normal(size=y.size)
    grad, _ = make(max_pairs=k).bind(data, random_state=3)(raw)
    pairs = np.c_[win, lose]
    fd = finite_differences(lambda a: metric_loss(y, a, ptr, None, None, pairs, pw), raw, 1e-5)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)


def test_max_pairs_sample_is_uniform_over_subsets():
    # labels (2, 1, 1, 0, 0): 4 + 2 + 2 = 8 pairs; k = 3 gives C(8, 3) = 56 equally likely subsets
    y = np.array([2.0, 1.0, 1.0, 0.0, 0.0])
    ptr = np.array([0, 5])
    all_pairs = {(i, j) for i in range(5) for j in range(5) if y[i] > y[j]}
    subsets = {frozenset(c): 0 for c in combinations(sorted(all_pairs), 3)}
    draws = 56 * 60
    for seed in range(draws):
        win, lose, _ = generate_pairs(y, ptr, max_pairs=3, random_state=seed)
        subsets[frozenset(zip(win.tolist(), lose.tolist()))] += 1
    assert len(subsets) == math.comb(8, 3)
    expected = draws / len(subsets)
    chi2 = sum((c - expected) ** 2 / expected for c in subsets.values())
    # 55 degrees of freedom: mean 55, sd sqrt(110) ~ 10.5; P(chi2 > 110) < 1e-5
    assert chi2 < 110, chi2


def test_max_pairs_does_not_materialise_all_pairs():
    resource = pytest.importorskip("resource")  # Unix: peak resident memory
    n = 20_000
    y = np.random.default_rng(0).integers(0, 5, size=n).astype(float)  # ~1.6e8 pairs
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    win, lose, ptr = generate_pairs(y, np.array([0, n]), max_pairs=100, random_state=0)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert len(win) == 100 and np.all(y[win] > y[lose])
    assert grown_mib < 100  # all pairs would need 2.5 GiB


def test_pairs_crossing_queries_are_rejected():
    with pytest.raises(ValueError, match=r"pair 1 = \[1, 2\] joins rows of different queries"):
        make().gradient_hessian([1.0, 0.0, 1.0, 0.0], np.zeros(4), [0, 2, 4], pairs=[[0, 1], [1, 2]])


def test_classes_and_pairs_api():
    assert PairLogit.uses_pairs and PairLogitPairwise.uses_pairs
    assert PairLogit.accepts_pairs and PairLogitPairwise.accepts_pairs
    assert not PairLogit.pairwise_leaves and PairLogitPairwise.pairwise_leaves
    y, raw, ptr, w, gw = random_case(2)
    data = as_training_data(y, ptr, weights=w, group_weights=gw)
    a = make("PairLogit").bind(data)
    b = make("PairLogitPairwise").bind(data)
    for u, v in zip(a(raw), b(raw)):
        np.testing.assert_array_equal(u, v)
    for u, v in zip(a.pairs(), b.pairs()):
        np.testing.assert_array_equal(u, v)
    g1, _ = a(raw)
    g2, _ = a(raw + 1.0)  # shift-invariant, buffers reused
    assert g1 is g2


def test_registry():
    try:
        from metricrank.objectives.registry import get_objective
    except ImportError as err:  # other objective modules not written yet
        pytest.skip(f"registry not importable: {err}")
    obj = get_objective("PairLogitPairwise:max_pairs=50")
    assert isinstance(obj, PairLogitPairwise) and obj.params == {"max_pairs": 50, "use_weights": True}
    assert get_objective("pairlogit").params == {"max_pairs": -1, "use_weights": True}
    spec = get_objective("PairLogit:max_pairs=5;use_weights=false").eval_spec
    assert metricrank.metrics.get_metric(spec).params == {"max_pairs": 5, "use_weights": False}
    with pytest.raises(ValueError, match="max_pairs") as err:
        get_objective("PairLogit:top=3")
    assert "use_weights" in str(err.value)
    with pytest.raises(ValueError, match="max_pairs"):
        get_objective("PairLogit:max_pairs=0")

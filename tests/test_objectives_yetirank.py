"""YetiRank / YetiRankPairwise: pair weights and gradient against the noise model's expectation.

The exact expectation of a 3-document query is computed independently: the
probability of each of the 6 orderings of ``a_i + logistic noise`` by 1-D
numerical integration (scipy ``quad``), the weight of each ordering's adjacent
pairs written from the definition (0.15 decay^position |label difference|).
The Monte-Carlo side replicates the query ``Q`` times in one call (every copy
gets independent noise) and compares the mean with a tolerance of 5 standard
errors of that mean.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate

from metricrank.learners._boosting import numba_threads
from metricrank.objectives._base import as_training_data
from metricrank.objectives.registry import get_objective
from metricrank.objectives.yetirank import YETIRANK_PAIR_SCALE, YetiRank, YetiRankPairwise

Z = 5.0  # tolerance in standard errors


def _logistic_pdf(x):
    e = math.exp(-abs(x))
    return e / (1.0 + e) ** 2


def _logistic_cdf(x):
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def order_probability(a, order):
    """P(a_i + L_i ranked exactly as ``order``) for 3 documents, L_i iid standard logistic."""
    top, mid, low = order

    def f(x):
        return _logistic_pdf(x - a[mid]) * (1.0 - _logistic_cdf(x - a[top])) * _logistic_cdf(x - a[low])

    value, _ = integrate.quad(f, -60 + min(a), 60 + max(a), epsabs=1e-13, epsrel=1e-11, limit=200)
    return value


def expected_weights(a, y, decay, group_weight=1.0):
    """E[W] (3x3, W[w, l] the weight of pair winner w, loser l) from the definition."""
    n = len(a)
    W = np.zeros((n, n))
    total = 0.0
    for order in itertools.permutations(range(n)):
        p = order_probability(a, order)
        total += p
        for r in range(n - 1):
            i, j = order[r], order[r + 1]
            if y[i] != y[j]:
                w, l = (i, j) if y[i] > y[j] else (j, i)
                W[w, l] += p * YETIRANK_PAIR_SCALE * decay ** r * abs(y[i] - y[j])
    assert abs(total - 1.0) < 1e-8
    return W * group_weight


def pairlogit_gradient(a, W):
    """PairLogit loss gradient of dense pair weights W[w, l]."""
    g = np.zeros(len(a))
    for w in range(len(a)):
        for l in range(len(a)):
            if W[w, l]:
                s = 1.0 / (1.0 + math.exp(a[w] - a[l]))
                g[w] -= W[w, l] * s
                g[l] += W[w, l] * s
    return g


def yeti(decay=0.99, permutations=10, use_weights=True, cls=YetiRank):
    return cls(cls.name, {"decay": decay, "permutations": permutations, "use_weights": use_weights})


def replicate(y, a, Q):
    n = len(y)
    return np.tile(np.asarray(y, float), Q), np.tile(np.asarray(a, float), Q), np.arange(Q + 1) * n


def dense_weights(bound, ptr, n, Q):
    """Per-copy dense weight matrices (Q, n, n) from ``bound.pairs()``."""
    win, lose, w = bound.pairs()
    q = np.searchsorted(ptr, win, side="right") - 1
    np.testing.assert_array_equal(q, np.searchsorted(ptr, lose, side="right") - 1)
    out = np.zeros((Q, n, n))
    np.add.at(out, (q, win - ptr[q], lose - ptr[q]), w)
    return out


def assert_pairlogit_of_listed_pairs(bound, a, grad, hess):
    """``grad`` and ``hess`` are PairLogit's derivatives of ``bound.pairs()`` at scores ``a``, summed here with
    ``np.add.at``."""
    win, lose, w = bound.pairs()
    s = 1.0 / (1.0 + np.exp(a[win] - a[lose]))
    g_ref, h_ref = np.zeros_like(a), np.zeros_like(a)
    np.add.at(g_ref, win, -w * s)
    np.add.at(g_ref, lose, w * s)
    np.add.at(h_ref, win, w * s * (1.0 - s))
    np.add.at(h_ref, lose, w * s * (1.0 - s))
    np.testing.assert_allclose(grad, g_ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hess, h_ref, rtol=1e-12, atol=1e-15)


CASES = [
    # labels, scores, decay, permutations
    ([2.0, 0.0, 1.0], [0.3, -0.4, 0.1], 0.99, 1),
    ([1.0, 1.0, 0.0], [-1.0, 0.5, 0.8], 0.5, 3),
    ([0.0, 3.0, 1.0], [1.5, -1.0, 0.0], 0.8, 2),
]


@pytest.mark.parametrize("y, a, decay, perms", CASES)
def test_expected_pair_weights_and_gradient_match_noise_model(y, a, decay, perms):
    Q = 20000
    yy, aa, ptr = replicate(y, a, Q)
    bound = yeti(decay, perms).bind(as_training_data(yy, ptr), random_state=123)
    grad, hess = bound(aa)
    W = dense_weights(bound, ptr, 3, Q)
    exact_W = expected_weights(a, y, decay)
    mean_W, se_W = W.mean(0), W.std(0, ddof=1) / math.sqrt(Q)
    assert np.all(np.abs(mean_W - exact_W) <= Z * se_W + 1e-12), (mean_W, exact_W, se_W)
    # Pairs only ever go from the higher to the lower label.
    for w, l in zip(*np.nonzero(exact_W == 0)):
        assert np.all(W[:, w, l] == 0)
    G = grad.reshape(Q, 3)
    exact_g = pairlogit_gradient(a, exact_W)
    se_g = G.std(0, ddof=1) / math.sqrt(Q)
    assert np.all(np.abs(G.mean(0) - exact_g) <= Z * se_g + 1e-12), (G.mean(0), exact_g, se_g)
    # The gradient and the hessian are PairLogit's on the returned pairs, exactly.
    assert_pairlogit_of_listed_pairs(bound, aa, grad, hess)


def test_no_reordering_gives_adjacent_pairs_of_score_order():
    # Gaps of 100 cannot be reordered by logistic noise (P ~ e^-50).
    y = np.array([0.0, 2.0, 1.0, 1.0, 3.0])
    a = np.array([100.0, 400.0, 0.0, 300.0, 200.0])  # score order: 1, 3, 4, 0, 2
    for decay in (1.0, 0.5):
        bound = yeti(decay, 1).bind(as_training_data(y, [0, 5]), random_state=7)
        bound(a)
        got = {(int(w), int(l)): float(x) for w, l, x in zip(*bound.pairs())}
        order = [1, 3, 4, 0, 2]
        expected = {}
        for r in range(4):
            i, j = order[r], order[r + 1]
            if y[i] != y[j]:
                key = (i, j) if y[i] > y[j] else (j, i)
                expected[key] = YETIRANK_PAIR_SCALE * decay ** r * abs(y[i] - y[j])
        assert got.keys() == expected.keys()
        for key in expected:
            assert got[key] == pytest.approx(expected[key], rel=1e-12)
        # written out: positions r = 0..3 of the pairs (1,3), (4,3), (4,0), (2,0)
        assert expected == pytest.approx({(1, 3): 0.15 * 1, (4, 3): 0.15 * decay * 2,
                                          (4, 0): 0.15 * decay ** 2 * 3, (2, 0): 0.15 * decay ** 3 * 1})


def test_group_weights_and_use_weights():
    y, a, ptr = replicate([2.0, 0.0, 1.0], [0.0, 0.0, 0.0], 2)
    gw = np.array([1.0, 3.0])
    data = as_training_data(y, ptr, group_weights=gw, weights=np.arange(1.0, 7.0))
    b1 = yeti(0.9, 4).bind(data, random_state=5)
    b2 = yeti(0.9, 4).bind(as_training_data(y, ptr), random_state=5)
    b3 = yeti(0.9, 4, use_weights=False).bind(data, random_state=5)
    g1, _ = b1(a)
    g1 = g1.copy()
    g2, _ = b2(a)
    g3, _ = b3(a)
    # object weights are not used; group weights multiply the query (use_weights=true only)
    np.testing.assert_allclose(g1, g2 * np.repeat(gw, 3))
    np.testing.assert_allclose(g3, g2)


def test_deterministic_given_seed_and_independent_of_threads():
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 40, size=60)
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    y = rng.integers(0, 4, size=ptr[-1]).astype(float)
    a = rng.normal(size=ptr[-1])
    data = as_training_data(y, ptr)

    def run(seed, calls=1):
        b = yeti().bind(data, random_state=seed)
        for _ in range(calls):
            g, h = b(a)
        return g.copy(), h.copy(), [x.copy() for x in b.pairs()]

    g1, h1, p1 = run(42)
    g2, h2, p2 = run(42)
    np.testing.assert_array_equal(g1, g2)
    np.testing.assert_array_equal(h1, h2)
    for x1, x2 in zip(p1, p2):
        np.testing.assert_array_equal(x1, x2)
    g3, _, _ = run(43)
    assert not np.array_equal(g1, g3)
    g4, _, _ = run(42, calls=2)  # the second call (tree) draws new permutations
    assert not np.array_equal(g1, g4)
    for threads in (1, -1):  # one thread and every core, whatever the caller's default
        with numba_threads(threads):
            g5, h5, _ = run(42)
        np.testing.assert_array_equal(g1, g5)
        np.testing.assert_array_equal(h1, h5)


def test_degenerate_queries():
    # one-document query, all-equal labels: no pair, zero gradient and hessian
    y = np.array([1.0, 2.0, 2.0, 2.0])
    bound = yeti().bind(as_training_data(y, [0, 1, 4]), random_state=0)
    g, h = bound(np.array([0.0, 1.0, 2.0, 3.0]))
    assert np.all(g == 0) and np.all(h == 0)
    assert all(len(x) == 0 for x in bound.pairs())


def test_pairs_before_first_call_and_explicit_pairs():
    data = as_training_data([1.0, 0.0], [0, 2])
    with pytest.raises(RuntimeError, match="call the bound objective first"):
        yeti().bind(data).pairs()
    with pytest.raises(ValueError, match="explicit pairs are not used"):
        yeti().bind(as_training_data([1.0, 0.0], [0, 2], pairs=[[0, 1]]))


def test_pairwise_variant_and_registry():
    obj = get_objective("YetiRankPairwise:permutations=3;decay=0.9")
    assert isinstance(obj, YetiRankPairwise)
    assert obj.pairwise_leaves and obj.uses_pairs and obj.stochastic
    assert obj.params == {"mode": "Classic", "decay": 0.9, "permutations": 3, "noise": "Gumbel", "use_weights": True}
    obj = get_objective("yetirank")
    assert obj.params == {"mode": "Classic", "decay": 0.99, "permutations": 10, "noise": "Gumbel", "use_weights": True}
    assert not obj.pairwise_leaves
    y, a, ptr = replicate([2.0, 0.0, 1.0], [0.1, 0.2, 0.3], 3)
    g1, h1 = get_objective("YetiRank").gradient_hessian(y, a, ptr, random_state=3)
    g2, h2 = get_objective("YetiRankPairwise").gradient_hessian(y, a, ptr, random_state=3)
    np.testing.assert_array_equal(g1, g2)
    np.testing.assert_array_equal(h1, h2)


@pytest.mark.parametrize("spec, match", [
    ("YetiRank:colour=1", "no parameter 'colour'"),
    ("YetiRank:decay=0", r"decay must be in \(0, 1\]"),
    ("YetiRank:decay=1.5", r"decay must be in \(0, 1\]"),
    ("YetiRank:decay=-0.1", r"decay must be in \(0, 1\]"),
    ("YetiRankPairwise:permutations=0", "permutations must be an integer >= 1"),
    ("YetiRank:permutations=2.5", "expected an integer"),
    ("YetiRank:use_weights=maybe", "true or false"),
])
def test_bad_parameters(spec, match):
    with pytest.raises(ValueError, match=match):
        get_objective(spec)


def test_factory_rejects_direct_bad_values():
    from metricrank.objectives.yetirank import DEFINITIONS

    make = DEFINITIONS[0].factory
    with pytest.raises(ValueError, match="decay"):
        make("YetiRank", {"decay": 0.0, "permutations": 10, "use_weights": True})
    with pytest.raises(ValueError, match="permutations"):
        make("YetiRank", {"decay": 0.5, "permutations": 0, "use_weights": True})


@pytest.mark.parametrize("n", [20, 128, 129, 300, 512, 513, 4097])
def test_small_and_large_query_paths_give_the_same_pairs(n):
    """Queries up to 512 documents merge pairs in a dense table, larger ones by sorting; up to 4,096 they are
    ordered by packed keys, larger ones by argsort: the same result.

    With 3 permutations and gaps of 100 (no reordering), every permutation is the score order, so the
    merged weight of each adjacent pair is 3 times its single-permutation weight in both paths.
    """
    rng = np.random.default_rng(n)
    y = rng.integers(0, 4, n).astype(float)
    a = rng.permutation(n) * 100.0
    bound = yeti(0.9, 3).bind(as_training_data(y, [0, n]), random_state=1)
    bound(a)
    got = {(int(w), int(l)): float(x) for w, l, x in zip(*bound.pairs())}
    order = np.argsort(-a)
    expected = {}
    for r in range(n - 1):
        i, j = order[r], order[r + 1]
        if y[i] != y[j]:
            key = (int(i), int(j)) if y[i] > y[j] else (int(j), int(i))
            expected[key] = YETIRANK_PAIR_SCALE * 0.9 ** r * abs(y[i] - y[j])  # the mean over 3 permutations
    assert got.keys() == expected.keys()
    for key in expected:
        assert got[key] == pytest.approx(expected[key], rel=1e-12)
    winners = bound.pairs()[0]
    assert np.all(np.diff(winners * n + bound.pairs()[1]) > 0)  # keys in increasing order in both paths


def reference_pairs(y, a, ptr, uniforms, decay):
    """``{(winner row, loser row): weight}`` from the definition, with the objective's own uniform draws:
    each permutation sorts ``a + log(u) - log1p(-u)`` (descending, ties in input order) and weighs its
    adjacent pairs; weights are summed over the permutations and divided by their number."""
    out: dict = {}
    for q in range(len(ptr) - 1):
        s, e = ptr[q], ptr[q + 1]
        for u in uniforms[:, s:e]:
            order = s + np.argsort(-(a[s:e] + np.log(u) - np.log1p(-u)), kind="stable")
            for r in range(len(order) - 1):
                i, j = order[r], order[r + 1]
                if y[i] != y[j]:
                    key = (int(i), int(j)) if y[i] > y[j] else (int(j), int(i))
                    out[key] = out.get(key, 0.0) + YETIRANK_PAIR_SCALE * decay ** r * abs(y[i] - y[j])
    return {key: w / len(uniforms) for key, w in out.items()}


def test_pairs_match_the_definition_draw_by_draw():
    """Every pair and weight equals the definition's for the same uniform draws, on both orderings of the
    kernel (the exponential form for scores spanning at most 600, the sum beyond), every way of ordering a
    permutation (packed keys with 7 to 12 bits of position and by insertion or buckets, insertion on the
    values, argsort) and both ways of merging pairs (a dense table up to 512 documents, sorted keys beyond)."""
    rng = np.random.default_rng(3)
    sizes = [2, 17, 64, 128, 129, 200, 40, 150, 30, 140, 25, 300, 600, 4100, 33, 513, 3000]
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    y = rng.integers(0, 4, ptr[-1]).astype(float)
    y[ptr[8]:ptr[10]] = 2.0  # two queries of one label (no pair), small and large, skipped by the kernel
    y[ptr[10]:ptr[11]] = 0.0
    y[ptr[11] - 1] = 1.0  # and one whose labels differ only at its last document
    a = rng.normal(size=ptr[-1]) * 3.0
    for q in (6, 7, 15):  # scores spanning 800: the sum ordering, small and large queries
        s, e = ptr[q], ptr[q + 1]
        a[s:e] = np.linspace(-400.0, 400.0, e - s) + rng.normal(size=e - s)
    perms, decay = 4, 0.85
    bound = yeti(decay, perms).bind(as_training_data(y, ptr), random_state=11)
    bound(a)
    uniforms = np.random.default_rng(11).random((perms, ptr[-1]))  # the draws of the bound's first call
    got = {(int(w), int(l)): float(x) for w, l, x in zip(*bound.pairs())}
    expected = reference_pairs(y, a, ptr, uniforms, decay)
    assert got.keys() == expected.keys()
    for key, w in expected.items():
        assert got[key] == pytest.approx(w, rel=1e-12), key


def test_gradient_is_pairlogit_of_the_listed_pairs():
    """grad and hess are PairLogit's derivatives of the pairs the call lists, summed independently here with
    ``np.add.at``, on queries of every size path of the kernel with unequal query weights; the pairs listed
    after each of two calls are that call's."""
    rng = np.random.default_rng(7)
    sizes = [3, 40, 64, 65, 130, 600, 9]
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    y = rng.integers(0, 3, ptr[-1]).astype(float)
    bound = yeti(0.9, 5).bind(as_training_data(y, ptr, group_weights=rng.uniform(0.5, 2.0, len(sizes))), 3)
    for _ in range(2):
        a = rng.normal(size=ptr[-1]) * 2.0
        grad, hess = bound(a)
        assert_pairlogit_of_listed_pairs(bound, a, grad, hess)
        win = bound.pairs()[0]
        assert np.all(np.diff(np.searchsorted(ptr, win, side="right")) >= 0)  # sorted by query
        np.testing.assert_array_equal(bound.pair_ptr()[1:] - bound.pair_ptr()[:-1],
                                      [np.sum((win >= lo) & (win < hi)) for lo, hi in zip(ptr[:-1], ptr[1:])])

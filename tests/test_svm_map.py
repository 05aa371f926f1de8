"""SVM-MAP: Algorithm 2 against brute force, Psi coefficients, Yue's toy tables, an MQ2008 fit."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from metricrank import evaluate
from metricrank.learners.svm_map import SVMMAP, map_loss, map_most_violated, ranking_coefficients


# --- independent definitions ----------------------------------------------------------------

def ap_of(ranked_rel):
    """Average precision of a ranked 0/1 list (Yue section 2: every relevant document counts)."""
    ranked_rel = np.asarray(ranked_rel)
    hits = np.cumsum(ranked_rel)
    ranks = np.flatnonzero(ranked_rel) + 1
    return float(np.sum(hits[ranked_rel == 1] / ranks) / ranked_rel.sum())


def psi_dot(order, s, rel):
    """w^T Psi(x, y) from the pair sum of section 3 (``order``: doc indices, best first)."""
    pos = np.empty(len(order), dtype=int)
    pos[list(order)] = np.arange(len(order))
    P, N = int(rel.sum()), int((1 - rel).sum())
    total = 0.0
    for i in np.flatnonzero(rel == 1):
        for j in np.flatnonzero(rel == 0):
            total += (1 if pos[i] < pos[j] else -1) * (s[i] - s[j])
    return total / (P * N)


def h_value(order, s, rel, loss):
    true_order = list(np.flatnonzero(rel == 1)) + list(np.flatnonzero(rel == 0))
    if loss == "map":
        delta = 1.0 - ap_of(rel[list(order)])
    else:
        pos = np.empty(len(order), dtype=int)
        pos[list(order)] = np.arange(len(order))
        swapped = sum(pos[i] > pos[j] for i in np.flatnonzero(rel == 1) for j in np.flatnonzero(rel == 0))
        delta = swapped / (rel.sum() * (1 - rel).sum())
    return delta + psi_dot(order, s, rel) - psi_dot(true_order, s, rel)


def brute_interleavings(s, rel, loss):
    """max H over every interleaving of the two score-sorted lists (Observation 1)."""
    n = len(s)
    pos_docs = [i for i in np.argsort(-s, kind="stable") if rel[i] == 1]
    neg_docs = [i for i in np.argsort(-s, kind="stable") if rel[i] == 0]
    best = -np.inf
    for slots in itertools.combinations(range(n), len(pos_docs)):
        it_p, it_n = iter(pos_docs), iter(neg_docs)
        order = [next(it_p) if t in slots else next(it_n) for t in range(n)]
        best = max(best, h_value(order, s, rel, loss))
    return best


def brute_permutations(s, rel, loss):
    return max(h_value(order, s, rel, loss) for order in itertools.permutations(range(len(s))))


def random_query(rng, n):
    while True:
        rel = rng.integers(0, 2, n).astype(np.int8)
        if 0 < rel.sum() < n:
            break
    s = rng.normal(size=n) * rng.choice([0.05, 0.5, 2.0, 10.0])
    if rng.random() < 0.3:
        s = np.round(s)  # ties inside and across classes
    return s, rel


# --- Algorithm 2 ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_algorithm2_equals_brute_force_over_interleavings(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(2, 9))
        s, rel = random_query(rng, n)
        coef, delta, H = map_most_violated(s, rel, np.array([0, n]))
        assert H[0] == pytest.approx(brute_interleavings(s, rel, "map"), abs=1e-12)
        # H is consistent with the returned constraint: H = Delta - s . (c_bar - c_hat)
        assert H[0] == pytest.approx(delta[0] - s @ coef, abs=1e-12)


def test_algorithm2_equals_brute_force_over_all_permutations():
    rng = np.random.default_rng(11)
    for _ in range(25):
        n = int(rng.integers(2, 7))
        s, rel = random_query(rng, n)
        _, _, H = map_most_violated(s, rel, np.array([0, n]))
        assert H[0] == pytest.approx(brute_permutations(s, rel, "map"), abs=1e-12)


def test_returned_constraint_is_a_ranking_attaining_the_max():
    # decode y_hat from its coefficients: it must be a real ranking with AP = 1 - Delta
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(2, 8))
        s, rel = random_query(rng, n)
        coef, delta, H = map_most_violated(s, rel, np.array([0, n]))
        P, N = int(rel.sum()), n - int(rel.sum())
        c_bar = np.where(rel == 1, 1.0 / P, -1.0 / N)
        c_hat = c_bar - coef
        found = False
        for order in itertools.permutations(range(n)):
            ranking_scores = np.empty(n)
            ranking_scores[list(order)] = np.arange(n, 0, -1)
            c, ap = ranking_coefficients(ranking_scores, rel, [0, n])
            if np.allclose(c, c_hat, atol=1e-12) and np.isclose(1 - ap[0], delta[0], atol=1e-12):
                found = True
                assert h_value(order, s, rel, "map") == pytest.approx(H[0], abs=1e-12)
                break
        assert found


def test_many_queries_in_one_call_match_one_at_a_time():
    rng = np.random.default_rng(3)
    sizes = rng.integers(2, 30, size=40)
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    s = rng.normal(size=ptr[-1])
    rel = np.zeros(ptr[-1], dtype=np.int8)
    for q in range(40):
        rel[ptr[q]] = 1
        rel[ptr[q] + 1] = 0
        rel[ptr[q] + 2:ptr[q + 1]] = rng.integers(0, 2, sizes[q] - 2)
    coef, delta, H = map_most_violated(s, rel, ptr)
    for q in range(40):
        a, b = ptr[q], ptr[q + 1]
        c1, d1, h1 = map_most_violated(s[a:b], rel[a:b], np.array([0, b - a]))
        np.testing.assert_allclose(coef[a:b], c1, atol=1e-14)
        assert (delta[q], H[q]) == pytest.approx((d1[0], h1[0]), abs=1e-14)


def test_zero_weights_give_the_worst_ranking():
    # w = 0: H = Delta, maximised by putting all N non-relevant documents first
    rel = np.array([1, 0, 1, 0, 0, 1, 0], dtype=np.int8)
    _, delta, H = map_most_violated(np.zeros(7), rel, np.array([0, 7]))
    worst = 1 - (1 / 5 + 2 / 6 + 3 / 7) / 3
    assert delta[0] == pytest.approx(worst) and H[0] == pytest.approx(worst)


def test_separated_scores_give_the_true_ranking():
    # margin > 1 between classes: no ranking violates, H(y_bar) = 0 is the max
    rel = np.array([1, 0, 1, 0], dtype=np.int8)
    s = np.array([5.0, 0.0, 4.0, 1.0]) * 10
    coef, delta, H = map_most_violated(s, rel, np.array([0, 4]))
    assert delta[0] == 0 and H[0] == 0 and np.all(coef == 0)


# --- Psi coefficients -----------------------------------------------------------------------

def test_ranking_coefficients_equal_the_pair_sum():
    rng = np.random.default_rng(9)
    for _ in range(30):
        n = int(rng.integers(2, 10))
        s, rel = random_query(rng, n)
        s = s + 1e-9 * np.arange(n)  # no ties: the ranking is unambiguous
        w_dir = rng.normal(size=n)  # an arbitrary "feature" phi_d
        coef, ap = ranking_coefficients(s, rel, [0, n])
        order = np.argsort(-s, kind="stable")
        assert coef @ w_dir == pytest.approx(psi_dot(order, w_dir, rel), abs=1e-12)
        assert ap[0] == pytest.approx(ap_of(rel[order]))


# --- Yue et al. Tables 1-4 (learner side) ---------------------------------------------------

TABLE1_P = np.array([1, 0, 0, 0, 0, 1, 1, 0], dtype=np.int8)
TABLE3_P = np.array([1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0], dtype=np.int8)


def test_yue_tables_1_2_map_loss():
    # rank value 8 = top of the ranking (the reading Table 2's numbers support)
    h1, h2 = np.arange(8, 0, -1.0), np.arange(1, 9.0)
    map1, map2 = (1 / 1 + 2 / 6 + 3 / 7) / 3, (1 / 2 + 2 / 3 + 3 / 8) / 3
    assert 1 - map_loss(h1, TABLE1_P, [0, 8])[0] == pytest.approx(map1)
    assert 1 - map_loss(h2, TABLE1_P, [0, 8])[0] == pytest.approx(map2)
    assert (round(map1, 2), round(map2, 2)) == (0.59, 0.51)
    # the learner's loss agrees with the metric catalogue
    assert 1 - map_loss(h1, TABLE1_P, [0, 8])[0] == pytest.approx(evaluate(TABLE1_P, h1, metric="MAP"))
    # Delta_map prefers h1, the hypothesis MAP prefers
    assert map_loss(h1, TABLE1_P, [0, 8])[0] < map_loss(h2, TABLE1_P, [0, 8])[0]


def test_yue_tables_3_4_map_loss():
    h1, h2 = np.arange(11, 0, -1.0), np.arange(1, 12.0)
    map1 = (1 / 1 + 2 / 6 + 3 / 7 + 4 / 8 + 5 / 9) / 5
    map2 = (1 / 3 + 2 / 4 + 3 / 5 + 4 / 6 + 5 / 11) / 5
    assert 1 - map_loss(h1, TABLE3_P, [0, 11])[0] == pytest.approx(map1)
    assert 1 - map_loss(h2, TABLE3_P, [0, 11])[0] == pytest.approx(map2)
    assert (round(map1, 2), round(map2, 2)) == (0.56, 0.51)


def test_svm_map_h_of_the_toy_hypotheses():
    # With s = scores of h1, H(y_h1) = Delta_map(h1) + w^T Psi(h1) - w^T Psi(y_bar); the oracle's
    # max can only be larger. Checks the oracle against a concrete ranking of Table 1.
    s = np.arange(8, 0, -1.0) / 8
    _, _, H = map_most_violated(s, TABLE1_P, np.array([0, 8]))
    order = list(range(8))
    assert H[0] >= h_value(order, s, TABLE1_P, "map") - 1e-12


# --- the estimator --------------------------------------------------------------------------

def test_fit_learns_a_separable_ranking_and_clones():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    w_true = np.array([1.0, -2.0, 0.5, 0.0])
    qid = np.repeat(np.arange(6), 10)
    score = X @ w_true
    y = np.zeros(60)
    for q in range(6):
        rows = np.flatnonzero(qid == q)
        y[rows[np.argsort(-score[rows])[:3]]] = 1
    X[y == 1] += 2 * w_true / (w_true @ w_true)  # a score margin of 2 between the classes
    model = SVMMAP(C=100.0, epsilon=1e-4).fit(X, y, qid=qid)
    assert evaluate(y, model.predict(X), qid=qid, metric="MAP") == pytest.approx(1.0)
    assert model.n_iter_ == model.fit_report_.n_iter >= 1
    cloned = clone(model)
    assert cloned.get_params() == model.get_params() and not hasattr(cloned, "coef_")


def test_fit_without_queries_warns_that_all_rows_are_one_query():
    # SVM-MAP is a per-query method, so arrays without qid or group warn as the tree rankers do;
    # the one-set SVMs learn from one set by design and stay quiet
    from metricrank.data import OneQueryWarning, RankingDataset
    from metricrank.learners.svm_roc import SVMROCArea

    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.9, 0.2]])
    y = np.array([1, 0, 0, 1])
    with pytest.warns(OneQueryWarning, match="SVMMAP.fit: no qid or group given: all 4 rows"):
        one = SVMMAP(C=10.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = SVMMAP(C=10.0).fit(X, y, group=[4])
        SVMMAP(C=10.0).fit(RankingDataset(X, y, group=[4]))
        SVMROCArea(C=10.0).fit(X, y)
    np.testing.assert_array_equal(one.coef_, same.coef_)


@pytest.mark.slow
@pytest.mark.data
def test_mq2008_fold1_fit(shared_data):
    from metricrank.experiments._datasets import load_mq2008_fold

    fold = load_mq2008_fold(1, shared_data)
    model = SVMMAP(C=10.0).fit(fold.train.X, fold.train.y, group=fold.train.query_sizes)
    rep = model.fit_report_
    assert rep.converged and rep.max_violation <= 1e-3
    assert rep.n_queries == 471 and rep.n_queries_used + rep.n_queries_skipped == 471
    assert 0 <= rep.duality_gap <= 10.0 * 1e-3 + 1e-6
    # better than ranking by a random direction, and in the range LETOR baselines report
    test_map = evaluate(fold.test.y, model.predict(fold.test.X), group_ptr=fold.test.group_ptr, metric="MAP")
    assert test_map > 0.42

"""SVM-ROCArea: the O(n log n) most violated constraint against brute force, Delta_roc,
Yue's Tables 1-2, and Welleck's one-SVM-per-class baseline."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import evaluate
from metricrank.learners.svm_roc import SVMROCArea, SVMROCAreaMultiClass, roc_loss, roc_most_violated
from test_svm_map import TABLE1_P, brute_interleavings, brute_permutations, random_query


@pytest.mark.parametrize("seed", range(4))
def test_roc_oracle_equals_brute_force_over_interleavings(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        n = int(rng.integers(2, 9))
        s, rel = random_query(rng, n)
        coef, delta, H = roc_most_violated(s, rel, np.array([0, n]))
        assert H[0] == pytest.approx(brute_interleavings(s, rel, "roc"), abs=1e-12)
        assert H[0] == pytest.approx(delta[0] - s @ coef, abs=1e-12)


def test_roc_oracle_equals_brute_force_over_all_permutations():
    rng = np.random.default_rng(7)
    for _ in range(25):
        n = int(rng.integers(2, 7))
        s, rel = random_query(rng, n)
        _, _, H = roc_most_violated(s, rel, np.array([0, n]))
        assert H[0] == pytest.approx(brute_permutations(s, rel, "roc"), abs=1e-12)


def test_roc_oracle_delta_counts_pairs_closer_than_one_half():
    # y_ij = +1 exactly when s_i - s_j > 1/2: Delta = share of pairs with s_i - s_j <= 1/2
    rng = np.random.default_rng(1)
    s, rel = rng.normal(size=30), (rng.random(30) < 0.3).astype(np.int8)
    _, delta, _ = roc_most_violated(s, rel, np.array([0, 30]))
    diffs = s[rel == 1][:, None] - s[rel == 0][None, :]
    assert delta[0] == pytest.approx(np.mean(diffs <= 0.5))


def test_roc_loss_matches_pair_counting():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 60).astype(float)
    y[:10] = 0  # a query without a relevant document: NaN
    s = np.round(rng.normal(size=60), 1)  # ties count 1/2
    ptr = np.arange(0, 61, 10)
    mine = 1 - roc_loss(s, (y > 0).astype(np.int8), ptr)
    assert np.isnan(mine[0])
    for q in range(1, 6):
        sq, rq = s[ptr[q]:ptr[q + 1]], y[ptr[q]:ptr[q + 1]] > 0
        diffs = sq[rq][:, None] - sq[~rq][None, :]
        assert mine[q] == pytest.approx(np.mean((diffs > 0) + 0.5 * (diffs == 0)))


def test_yue_tables_1_2_roc():
    h1, h2 = np.arange(8, 0, -1.0), np.arange(1, 9.0)
    roc1 = 1 - roc_loss(h1, TABLE1_P, [0, 8])[0]
    roc2 = 1 - roc_loss(h2, TABLE1_P, [0, 8])[0]
    # h1: doc 1 above all 5 non-relevant, docs 6 and 7 above doc 8 only: 7 of 15 pairs
    assert roc1 == pytest.approx(7 / 15) and roc2 == pytest.approx(8 / 15)
    assert (round(roc1, 2), round(roc2, 2)) == (0.47, 0.53)
    # Delta_roc prefers h2 although MAP prefers h1 (section 2.1)
    assert roc_loss(h2, TABLE1_P, [0, 8])[0] < roc_loss(h1, TABLE1_P, [0, 8])[0]


def test_roc_svm_fits_and_reports():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 5))
    y = (X @ np.array([1.0, 0.5, 0, 0, -1]) + 0.3 * rng.normal(size=80) > 0.5).astype(float)
    qid = np.repeat(np.arange(8), 10)
    model = SVMROCArea(C=10.0).fit(X, y, qid=qid)
    rep = model.fit_report_
    assert rep.loss == "roc" and rep.converged and rep.n_constraints >= rep.n_iter
    auc = evaluate(y, model.predict(X), qid=qid, metric="ROCArea")
    assert auc > 0.9
    assert rep.mean_slack >= 1 - auc - 1e-9  # Proposition 1 for Delta_roc


def test_multiclass_score_is_the_weighted_sum_of_one_vs_rest_models():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(90, 4))
    latent = X @ np.array([1.0, -1.0, 0.5, 0.0])
    y = np.digitize(latent, [0.0, 1.0]).astype(float)  # classes 0, 1, 2
    qid = np.repeat(np.arange(9), 10)
    model = SVMROCAreaMultiClass(C=5.0).fit(X, y, qid=qid)
    assert model.classes_.tolist() == [1, 2] and model.skipped_classes_ == []
    f1 = SVMROCArea(C=5.0, border=0.5).fit(X, (y == 1).astype(float), qid=qid)
    f2 = SVMROCArea(C=5.0, border=0.5).fit(X, (y == 2).astype(float), qid=qid)
    np.testing.assert_allclose(model.predict(X), 1 * f1.predict(X) + 2 * f2.predict(X), atol=1e-9)
    np.testing.assert_allclose(model.coef_, f1.coef_ + 2 * f2.coef_, atol=1e-9)


def test_multiclass_skips_a_class_no_query_can_train_and_rejects_bad_labels():
    X = np.random.default_rng(0).normal(size=(8, 2))
    y = np.array([0, 1, 0, 1, 3, 3, 3, 3], dtype=float)  # class 3 only in a query of its own
    model = SVMROCAreaMultiClass().fit(X, y, qid=[0, 0, 0, 0, 1, 1, 1, 1])
    assert model.classes_.tolist() == [1] and model.skipped_classes_ == [2, 3]
    with pytest.raises(ValueError, match="integers >= 0"):
        SVMROCAreaMultiClass().fit(X, y + 0.5, qid=[0] * 8)
    with pytest.raises(ValueError, match="at least one label >= 1"):
        SVMROCAreaMultiClass().fit(X, np.zeros(8), qid=[0] * 8)
    with pytest.raises(ValueError, match="C must be"):
        SVMROCAreaMultiClass(C=-1).fit(X, y, qid=[0] * 8)

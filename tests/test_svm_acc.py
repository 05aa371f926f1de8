"""SVM-acc baselines: per-query transforms, agreement with scikit-learn, best-threshold accuracy."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.svm import SVC, LinearSVC

from metricrank.learners.binning import ThresholdBinner
from metricrank.learners.svm_acc import (
    SVMAcc,
    best_threshold_accuracy,
    binned_linear_kernel,
    query_minmax,
    query_percentiles,
)


def data(seed=0, n_queries=6, size=12, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * size, d)) + np.repeat(rng.normal(size=(n_queries, d)) * 3, size, axis=0)
    latent = X @ np.array([1.0, -0.5, 0.2][:d]) + rng.normal(size=len(X))
    y = np.zeros(len(X))
    for q in range(n_queries):
        rows = slice(q * size, (q + 1) * size)
        y[rows] = latent[rows] > np.quantile(latent[rows], 0.7)
    return X, y, np.repeat(np.arange(n_queries), size)


def test_query_percentiles_match_a_direct_count():
    X, _, qid = data(1)
    X = np.round(X)  # ties share a value
    ptr = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
    Z = query_percentiles(X, ptr)
    for q in range(len(ptr) - 1):
        block = X[ptr[q]:ptr[q + 1]]
        expected = (block[None, :, :] <= block[:, None, :]).mean(axis=1)
        np.testing.assert_allclose(Z[ptr[q]:ptr[q + 1]], expected)


def test_query_minmax_matches_numpy():
    X, _, qid = data(2)
    X[:12, 0] = 4.0  # a constant feature in query 0 becomes 0
    ptr = np.arange(0, 73, 12)
    Z = query_minmax(X, ptr)
    for q in range(6):
        b = X[ptr[q]:ptr[q + 1]]
        span = b.max(0) - b.min(0)
        expected = np.where(span > 0, (b - b.min(0)) / np.where(span > 0, span, 1), 0.0)
        np.testing.assert_allclose(Z[ptr[q]:ptr[q + 1]], expected)
    # Yue's example: range 0.2 .. 0.7, f = 0.6 -> 0.8
    assert query_minmax(np.array([[0.2], [0.7], [0.6]]), [0, 3])[2, 0] == pytest.approx(0.8)


@pytest.mark.parametrize("variant", ["acc", "acc2"])
def test_acc_and_acc2_are_scikit_learns_linear_svm(variant):
    X, y, qid = data(3)
    model = SVMAcc(C=2.0, variant=variant).fit(X, y, qid=qid)
    n_pos, n_neg = y.sum(), (1 - y).sum()
    weight = {0: 1.0, 1: n_neg / n_pos if variant == "acc2" else 1.0}
    ref = LinearSVC(C=2.0, loss="hinge", dual=True, class_weight=weight, max_iter=20000,
                    random_state=0).fit(X, y)
    np.testing.assert_allclose(model.predict(X), ref.decision_function(X), atol=1e-10)
    assert model.class_weight_ == weight


@pytest.mark.parametrize("variant,transform", [("acc3", query_percentiles), ("acc4", query_minmax)])
def test_acc3_acc4_equal_a_linear_svm_on_the_explicit_threshold_features(variant, transform):
    X, y, qid = data(4)
    ptr = np.arange(0, 73, 12)
    model = SVMAcc(C=1.0, variant=variant, n_thresholds=8).fit(X, y, qid=qid)
    binner = ThresholdBinner(8, strategy="uniform", value_range=(0, 1)).fit(transform(X, ptr))
    B = binner.transform(transform(X, ptr))
    ref = SVC(C=1.0, kernel="linear", tol=1e-3).fit(B, y)
    np.testing.assert_allclose(model.predict(X, qid=qid), ref.decision_function(B), atol=1e-6)
    # held-out queries are transformed with their own per-query statistics
    X2, _, qid2 = data(5)
    B2 = binner.transform(transform(X2, ptr))
    np.testing.assert_allclose(model.predict(X2, group=[12] * 6), ref.decision_function(B2), atol=1e-6)


def test_binned_linear_kernel_is_the_gram_matrix_of_the_indicators():
    rng = np.random.default_rng(6)
    Z = rng.random((30, 4))
    b = ThresholdBinner(10, strategy="uniform", value_range=(0, 1)).fit(Z)
    counts = np.stack([np.searchsorted(t, Z[:, f], side="left") for f, t in enumerate(b.thresholds_)], 1)
    B = b.transform(Z)
    np.testing.assert_allclose(binned_linear_kernel(counts, counts[:7]), B @ B[:7].T)


def test_unbinned_acc3_uses_the_percentiles_directly():
    X, y, qid = data(7)
    model = SVMAcc(C=1.0, variant="acc3", n_thresholds=0).fit(X, y, qid=qid)
    Z = query_percentiles(X, np.arange(0, 73, 12))
    ref = LinearSVC(C=1.0, loss="hinge", dual=True, max_iter=20000, random_state=0).fit(Z, y)
    np.testing.assert_allclose(model.predict(X, qid=qid), ref.decision_function(Z), atol=1e-10)


def test_yue_tables_3_4_best_accuracy():
    p = np.array([1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0])
    h1, h2 = np.arange(11, 0, -1), np.arange(1, 12)
    # h1: cut after document 1, documents 6-9 misclassified; h2: cut between 5 and 6, 3 errors
    assert best_threshold_accuracy(p, h1) == pytest.approx(7 / 11)
    assert best_threshold_accuracy(p, h2) == pytest.approx(8 / 11)
    assert (round(7 / 11, 2), round(8 / 11, 2)) == (0.64, 0.73)
    # an accuracy criterion prefers h2, MAP prefers h1 (section 2.2)
    assert best_threshold_accuracy(p, h2) > best_threshold_accuracy(p, h1)
    # tied scores cannot be split by a threshold
    assert best_threshold_accuracy([1, 0], [1.0, 1.0]) == pytest.approx(0.5)


def test_bad_input():
    X, y, qid = data(8)
    with pytest.raises(ValueError, match="variant"):
        SVMAcc(variant="acc5").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="C must be"):
        SVMAcc(C=0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="n_thresholds"):
        SVMAcc(variant="acc3", n_thresholds=-1).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="both relevant and non-relevant"):
        SVMAcc().fit(X, np.zeros_like(y), qid=qid)
    with pytest.raises(ValueError, match="Input X contains NaN"):  # scikit-learn's message
        SVMAcc().fit(np.where(X > 2, np.nan, X), y, qid=qid)
    model = SVMAcc(variant="acc4", n_thresholds=4).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="pass qid or group"):
        model.predict(X)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2], qid=qid)
    assert clone(model).get_params() == model.get_params()


@pytest.mark.parametrize("rel, scores, message", [
    ([1, np.nan, 0], [3.0, 2.0, 1.0], "rel must be finite"),
    ([1, 0, 0], [3.0, np.nan, 1.0], "scores must be finite"),
    ([1, 0, 0], [3.0, 2.0], "scores has 2 entries but there are 3 rows"),
    ([[1, 0], [0, 1]], [[3.0, 2.0], [1.0, 0.0]], "rel must be one-dimensional"),
    ([], [], "non-empty"),
])
def test_best_threshold_accuracy_refuses_what_it_cannot_score(rel, scores, message):
    # NaN relevance would count as not relevant, a NaN score would sort anywhere, a matrix was flattened
    with pytest.raises(ValueError, match=message):
        best_threshold_accuracy(rel, scores)

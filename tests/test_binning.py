"""Threshold features phi(x, d) = <1[f(d|x) > k]> (Yue et al. section 4.2)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from metricrank.learners.binning import ThresholdBinner


def test_transform_is_the_indicator_definition():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X[:50, 1] = 0.0  # many equal values
    b = ThresholdBinner(n_thresholds=10).fit(X)
    Z = b.transform(X)
    col = 0
    for f, thr in enumerate(b.thresholds_):
        for t in thr:
            np.testing.assert_array_equal(Z[:, col], (X[:, f] > t).astype(float))
            col += 1
    assert Z.shape == (200, b.n_features_out_) and col == b.n_features_out_
    np.testing.assert_array_equal(b.feature_index_, np.repeat([0, 1, 2], [t.size for t in b.thresholds_]))


def test_quantile_thresholds_are_deduplicated_and_below_the_max():
    X = np.array([[0.0]] * 50 + [[1.0]] * 50)
    b = ThresholdBinner(n_thresholds=9).fit(X)
    # numpy's (linear) quantile at k/10 sits at position 9.9 k of the sorted values: 0 for k <= 4,
    # 0.5 for k = 5, 1 (the maximum, never exceeded, so dropped) for k >= 6
    assert b.thresholds_[0].tolist() == [0.0, 0.5]
    const = ThresholdBinner(n_thresholds=5).fit(np.ones((4, 1)))
    assert const.thresholds_[0].size == 0 and const.transform(np.ones((2, 1))).shape == (2, 0)


def test_uniform_thresholds():
    b = ThresholdBinner(n_thresholds=50, strategy="uniform", value_range=(0, 1)).fit(np.zeros((1, 2)))
    np.testing.assert_allclose(b.thresholds_[1], np.arange(1, 51) / 51)
    data = ThresholdBinner(n_thresholds=3, strategy="uniform").fit(np.array([[2.0], [6.0]]))
    np.testing.assert_allclose(data.thresholds_[0], [3.0, 4.0, 5.0])


def test_a_linear_model_on_bins_is_piecewise_constant():
    # Figure 2: w^T phi = 0, w_a, w_a + w_b, w_a + w_b + w_c
    b = ThresholdBinner(n_thresholds=3, strategy="uniform", value_range=(0, 4)).fit(np.zeros((1, 1)))
    w = np.array([2.0, 1.0, -0.5])
    x = np.array([[0.5], [1.5], [2.5], [3.5]])
    np.testing.assert_allclose(b.transform(x) @ w, [0.0, 2.0, 3.0, 2.5])


def test_sparse_input_and_feature_names():
    X = np.array([[0.0, 1.0], [2.0, 0.0], [3.0, 5.0]])
    dense = ThresholdBinner(n_thresholds=2).fit(X)
    sparse = ThresholdBinner(n_thresholds=2).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(dense.transform(X), sparse.transform(sp.csr_matrix(X)))
    names = dense.get_feature_names_out(["a", "b"])
    assert names[0].startswith("a > ") and len(names) == dense.n_features_out_


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_thresholds=0), "n_thresholds"), (dict(n_thresholds=2.0), "n_thresholds"),
    (dict(strategy="kmeans"), "strategy"), (dict(value_range=(0, 1)), "only used"),
    (dict(strategy="uniform", value_range=(1, 0)), "lo < hi"),
    (dict(strategy="uniform", value_range="ab"), "value_range"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ThresholdBinner(**kwargs).fit(np.zeros((3, 1)))


def test_bad_input():
    with pytest.raises(ValueError, match="finite"):
        ThresholdBinner().fit(np.array([[np.nan]]))
    b = ThresholdBinner(n_thresholds=2).fit(np.arange(6.0).reshape(3, 2))
    with pytest.raises(ValueError, match="features"):
        b.transform(np.zeros((1, 3)))
    assert clone(b).get_params() == b.get_params()

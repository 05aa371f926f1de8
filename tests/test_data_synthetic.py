"""make_ltr: determinism, shapes, label distribution and feature signal."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from metricrank.data import RankingDataset, make_ltr
from metricrank.data.synthetic import default_label_probs


def test_same_seed_same_data():
    a = make_ltr(30, random_state=7)
    b = make_ltr(30, random_state=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.group_ptr, b.group_ptr)
    np.testing.assert_array_equal(a.qid, b.qid)
    assert a.doc_ids.tolist() == b.doc_ids.tolist()
    c = make_ltr(30, random_state=8)
    assert a.X.shape != c.X.shape or not np.array_equal(a.X, c.X)


def test_generator_as_random_state():
    a = make_ltr(5, random_state=np.random.default_rng(3))
    b = make_ltr(5, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(a.X, b.X)


def test_shapes_and_ids():
    ds = make_ltr(50, docs_per_query=(3, 7), n_features=9, n_informative=4, random_state=1)
    assert isinstance(ds, RankingDataset)
    assert ds.n_queries == 50 and ds.n_features == 9
    assert ds.query_sizes.min() >= 3 and ds.query_sizes.max() <= 7
    assert set(ds.query_sizes.tolist()) == set(range(3, 8))  # uniform over the range: all sizes occur
    assert ds.qid.tolist() == np.repeat(np.arange(50), ds.query_sizes).tolist()
    assert ds.doc_ids[:4].tolist()[:3] == ["q0-d0", "q0-d1", "q0-d2"]
    assert ds.doc_ids[ds.group_ptr[1]] == "q1-d0"
    assert len(set(ds.doc_ids.tolist())) == ds.n_docs
    assert ds.X.dtype == np.float64 and ds.y.dtype == np.float64
    fixed = make_ltr(4, docs_per_query=6, n_features=3, n_informative=1)
    assert fixed.query_sizes.tolist() == [6, 6, 6, 6]


def test_default_label_distribution():
    ds = make_ltr(400, docs_per_query=(40, 60), n_features=5, random_state=0)
    assert set(np.unique(ds.y).tolist()) == {0, 1, 2, 3, 4}
    freq = np.bincount(ds.y.astype(int), minlength=5) / ds.n_docs
    # Roughly 50 / 25 / 15 / 7 / 3 %.
    np.testing.assert_allclose(freq, [0.50, 0.25, 0.14, 0.07, 0.03], atol=0.025)
    assert np.all(np.diff(freq) < 0)


@pytest.mark.parametrize("n_labels", [2, 3, 7])
def test_derived_label_distribution(n_labels):
    p = default_label_probs(n_labels)
    assert p.shape == (n_labels,) and np.isclose(p.sum(), 1) and np.all(np.diff(p) < 0)
    ds = make_ltr(300, docs_per_query=(30, 40), n_features=3, n_informative=1, n_labels=n_labels)
    assert ds.y.max() <= n_labels - 1 and ds.y.min() == 0
    freq = np.bincount(ds.y.astype(int), minlength=n_labels) / ds.n_docs
    np.testing.assert_allclose(freq, p, atol=0.02)


def test_custom_label_probs():
    ds = make_ltr(100, docs_per_query=20, n_features=2, n_informative=1, n_labels=3, label_probs=[0, 1, 3])
    freq = np.bincount(ds.y.astype(int), minlength=3) / ds.n_docs
    assert freq[0] == 0 and abs(freq[2] - 0.75) < 0.03


def _within_query_corr(ds, j):
    x = ds.X[:, j].copy()
    y = ds.y.copy()
    for _, rows in ds.iter_queries():
        x[rows] -= x[rows].mean()
        y[rows] -= y[rows].mean()
    return float(np.corrcoef(x, y)[0, 1])


def test_informative_features_carry_signal_and_noise_does_not():
    ds = make_ltr(200, docs_per_query=(20, 30), n_features=8, n_informative=3, noise=0.5, random_state=4)
    for j in range(3):
        assert abs(_within_query_corr(ds, j)) > 0.4
    for j in range(3, 8):
        assert abs(_within_query_corr(ds, j)) < 0.06
    # Per-query offsets: query means of a noise feature vary far more than sampling error would.
    means = np.array([ds.X[rows, 5].mean() for _, rows in ds.iter_queries()])
    assert means.std() > 1.0


def test_more_noise_weakens_signal():
    quiet = make_ltr(200, docs_per_query=(20, 30), n_features=2, n_informative=1, noise=0.2)
    loud = make_ltr(200, docs_per_query=(20, 30), n_features=2, n_informative=1, noise=5.0)
    assert abs(_within_query_corr(quiet, 0)) > abs(_within_query_corr(loud, 0)) + 0.3


def test_sparse():
    ds = make_ltr(40, n_features=30, n_informative=5, sparse=True, random_state=2)
    assert sp.isspmatrix_csr(ds.X)
    density = ds.X.nnz / (ds.n_docs * ds.n_features)
    assert 0.25 < density < 0.45  # informative dense, noise ~20% non-zero
    dense = make_ltr(40, n_features=30, n_informative=5, random_state=2)
    np.testing.assert_array_equal(ds.y, dense.y)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"docs_per_query": (5, 2)}, "docs_per_query"),
        ({"docs_per_query": (0, 2)}, "docs_per_query"),
        ({"docs_per_query": (2.5, 4)}, "docs_per_query"),  # was truncated to 2
        ({"docs_per_query": (1, 2, 3)}, "docs_per_query"),
        ({"docs_per_query": 2.5}, "docs_per_query"),
        ({"n_features": 0}, "n_features"),
        ({"n_features": 3.7, "n_informative": 2}, "n_features"),
        ({"n_informative": 30}, "n_informative"),
        ({"n_labels": 0}, "n_labels"),
        ({"n_labels": 2.5}, "n_labels"),
        ({"label_probs": [1, 2]}, "label_probs"),
        ({"label_probs": [1, -1, 1, 1, 1]}, "label_probs"),
        ({"noise": -1}, "noise"),
        ({"noise": float("nan")}, "noise"),  # was NaN features, silently
        ({"n_queries": -1}, "n_queries"),
        ({"n_queries": 2.5}, "n_queries"),
        ({"n_queries": True}, "n_queries"),
    ],
)
def test_bad_parameters(kwargs, name):
    with pytest.raises(ValueError, match=f"^{name} must be"):
        make_ltr(**kwargs)


def test_numpy_integers_are_counts():
    ds = make_ltr(np.int64(3), docs_per_query=(2, np.int32(5)), n_features=np.int64(4), n_informative=np.int8(2))
    assert ds.n_queries == 3 and ds.X.shape[1] == 4


# --- issue 11: nonlinear relevance ----------------------------------------------------------

def _split_ndcg(ds, n_train):
    import lightgbm as lgb
    from sklearn.linear_model import Ridge

    from metricrank.metrics import evaluate

    cut = ds.group_ptr[n_train]
    X, y, Xt, yt = ds.X[:cut], ds.y[:cut], ds.X[cut:], ds.y[cut:]
    qt = ds.qid[cut:]
    ridge = Ridge(alpha=1.0).fit(X, y)
    trees = lgb.LGBMRanker(n_estimators=100, num_leaves=15, learning_rate=0.1, verbose=-1, n_jobs=1,
                           random_state=0).fit(X, y, group=np.diff(ds.group_ptr[: n_train + 1]))
    return (evaluate(yt, ridge.predict(Xt), qid=qt, metric="NDCG:top=10"),
            evaluate(yt, trees.predict(Xt), qid=qt, metric="NDCG:top=10"))


def test_nonlinear_relevance_trees_beat_ridge():
    ridge, trees = _split_ndcg(make_ltr(400, n_features=10, relevance="nonlinear", random_state=0), 250)
    assert trees > ridge + 0.1  # measured: 0.895 vs 0.692


def test_linear_relevance_ridge_ties_or_beats_trees():
    ridge, trees = _split_ndcg(make_ltr(400, n_features=10, relevance="linear", random_state=0), 250)
    assert ridge >= trees - 0.01  # measured: 0.958 vs 0.951


def test_nonlinear_is_deterministic_and_keeps_the_label_distribution():
    a = make_ltr(200, relevance="nonlinear", random_state=3, sparse=True)
    b = make_ltr(200, relevance="nonlinear", random_state=3, sparse=True)
    assert (a.X != b.X).nnz == 0 and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.y, make_ltr(200, relevance="nonlinear", random_state=4).y)
    share = np.bincount(a.y.astype(int), minlength=5) / a.y.size
    np.testing.assert_allclose(share, [16, 8, 4, 2, 1] / np.float64(31), atol=0.01)
    one = make_ltr(50, n_informative=1, relevance="nonlinear", random_state=0)
    none = make_ltr(50, n_informative=0, relevance="nonlinear", random_state=0)
    assert one.n_queries == none.n_queries == 50


def test_default_relevance_is_linear_and_unchanged():
    a = make_ltr(20, random_state=5)
    b = make_ltr(20, random_state=5, relevance="linear")
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    with pytest.raises(ValueError, match="relevance must be 'linear' or 'nonlinear'"):
        make_ltr(5, relevance="trees")


def test_query_effect_spreads_relevance_between_queries_and_no_feature_holds_it():
    def draw(effect):
        return make_ltr(600, docs_per_query=30, n_features=6, n_informative=3, n_labels=2, label_probs=[0.8, 0.2],
                        noise=1.0, relevance="nonlinear", random_state=0, query_effect=effect)

    plain, shifted = draw(0.0), draw(3.0)
    chance_sd = np.sqrt(0.8 * 0.2 / 30)  # binomial: each query's relevant share if only chance varied it
    for ds in (plain, shifted):
        assert ds.y.mean() == pytest.approx(0.2, abs=1 / ds.n_docs)  # the cut keeps the requested shares
    share = {name: ds.y.reshape(600, 30).mean(axis=1) for name, ds in (("plain", plain), ("shifted", shifted))}
    assert share["plain"].std() == pytest.approx(chance_sd, rel=0.1)  # measured 0.0734 against 0.0730
    assert share["shifted"].std() > 3 * chance_sd  # measured 0.327
    assert np.mean(share["shifted"] == 0) > 100 * 0.8 ** 30  # queries without a relevant document: 55 %, chance 0.1 %
    np.testing.assert_array_equal(plain.X[:, :3], shifted.X[:, :3])  # the shift is drawn after the features
    # 0 draws nothing: the noise features, whose per-query offsets and scales are drawn after the labels, are
    # those of the random stream without a shift (make_ltr's draws before query_effect, replayed in order)
    rng = np.random.default_rng(0)
    rng.integers(30, 31, size=600)  # query sizes
    features = rng.standard_normal((600 * 30, 6))
    rng.uniform(-0.5, 0.5, size=3), rng.uniform(1.0, 2.0, size=3), rng.choice([-1.0, 1.0], size=3)  # thresholds, steps
    rng.uniform(0.5, 1.5, size=3), rng.choice([-1.0, 1.0], size=3)  # interactions
    rng.standard_normal(600 * 30)  # the latent noise
    offsets, scales = rng.normal(0.0, 2.0, size=(600, 3)), rng.uniform(0.5, 2.0, size=600)
    qid = np.repeat(np.arange(600), 30)
    np.testing.assert_allclose(plain.X[:, 3:], features[:, 3:] * scales[qid, None] + offsets[qid], rtol=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"query_effect": -1.0, "relevance": "nonlinear"}, "query_effect must be finite and >= 0"),
    ({"query_effect": float("nan"), "relevance": "nonlinear"}, "query_effect must be finite and >= 0"),
    ({"query_effect": 1.0}, "with relevance='linear' it must be 0"),
])
def test_bad_query_effect(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_ltr(5, **kwargs)


def test_nonlinear_labels_cut_continuous_values_at_the_quantiles_as_before():
    # the rule of earlier versions (the suite's drawn data sets were made with it), wherever no value ties a cut
    from metricrank.data.synthetic import _labels_at_quantiles

    rng = np.random.default_rng(0)
    for n, probs in [(1, [0.5, 0.5]), (7, [0.2, 0.3, 0.5]), (1000, default_label_probs(5)), (999, [0.1] * 10)]:
        latent = rng.standard_normal(n)
        probs = np.asarray(probs) / np.sum(probs)
        old = np.searchsorted(np.quantile(latent, np.cumsum(probs)[:-1]), latent, side="right")
        np.testing.assert_array_equal(_labels_at_quantiles(latent, probs), old)


@pytest.mark.parametrize("probs", [[0.5, 0.5, 0, 0, 0], [0.5, 0, 0.5, 0, 0], [0, 0.25, 0.25, 0.5, 0]])
def test_nonlinear_labels_of_probability_zero_are_drawn_for_no_row(probs):
    ds = make_ltr(50, relevance="nonlinear", label_probs=probs, random_state=0)
    counts = np.bincount(ds.y.astype(int), minlength=5)
    assert np.all(counts[np.asarray(probs) == 0] == 0), counts  # the maximum was given label 4
    np.testing.assert_allclose(counts / ds.n_docs, probs, atol=2 / ds.n_docs)


def test_nonlinear_labels_of_a_constant_latent_keep_the_requested_shares():
    # no informative feature and no noise: every value ties every cut, and every row was given the top label
    ds = make_ltr(20, relevance="nonlinear", n_informative=0, noise=0.0, random_state=0)
    shares = np.bincount(ds.y.astype(int), minlength=5) / ds.n_docs
    np.testing.assert_allclose(shares, default_label_probs(5), atol=2 / ds.n_docs)

"""PairLogit, PairLogitPairwise, PairAccuracy, AUC and QueryAUC.

References: ``catboost.utils.eval_metric`` / ``CatBoost.eval_metrics`` (1.2.10),
scikit-learn's ``roc_auc_score`` and brute-force double loops written here.
Random data keep labels and weights float32-representable (CatBoost stores
them as float32) so agreement can be asked to 1e-9.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricrank.metrics._base import MetricInput, compute_value, fill_defaults
from metricrank.metrics._pairwise import DEFINITIONS, sample_without_replacement, sampled_pair_parts

catboost = pytest.importorskip("catboost")
from catboost.utils import eval_metric  # noqa: E402

DEFS = {d.name: d for d in DEFINITIONS}
SEEDS = range(20)
RTOL = 1e-9


# --- helpers ------------------------------------------------------------------------------

def _ptr(g):
    g = np.asarray(g)
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    return np.r_[starts, g.shape[0]].astype(np.int64)


def mine(name, y, a, g=None, w=None, gw=None, pairs=None, pw=None, full=False, **params):
    """Evaluate one of our definitions through the public contract."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    a = np.ascontiguousarray(a, dtype=np.float64)
    ptr = _ptr(np.zeros(y.shape[0]) if g is None else g)
    nq = ptr.shape[0] - 1
    inp = MetricInput(
        y, a, ptr,
        np.ones(y.shape[0]) if w is None else np.asarray(w, dtype=np.float64),
        np.ones(nq) if gw is None else np.asarray(gw, dtype=np.float64),
        None if pairs is None else np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2),
        None if pw is None else np.asarray(pw, dtype=np.float64),
        None, w is not None, gw is not None,
    )
    out = compute_value(DEFS[name], inp, fill_defaults(DEFS[name], params))
    return out if full else out[0]


def cb(label, approx, metric, **kw):
    return eval_metric(np.asarray(label, dtype=np.float64), np.asarray(approx, dtype=np.float64), metric, **kw)[0]


def make_data(seed, n_queries=12, max_size=9, levels=3):
    """Queries of size 1..max_size, one all-equal-label query, tied scores and labels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, n_queries)
    sizes[0] = 1  # a one-document query
    g = np.repeat(np.arange(n_queries), sizes)
    n = g.shape[0]
    y = rng.integers(0, levels, n).astype(np.float64)
    y[g == 1] = 1.0  # an all-equal-label query
    a = np.round(rng.normal(size=n), 1)  # deliberate score ties
    w = rng.integers(1, 9, n) / 4.0
    gwq = rng.integers(1, 9, n_queries) / 2.0
    soft = rng.integers(0, 5, n) / 4.0
    return dict(g=g, y=y, a=a, w=w, gwq=gwq, gw=gwq[g], soft=soft, sizes=sizes, rng=rng)


def generated_pairs(y, g):
    n = len(y)
    return np.array([(i, j) for i in range(n) for j in range(n) if g[i] == g[j] and y[i] > y[j]],
                    dtype=np.int64).reshape(-1, 2)


def brute_auc_parts(t, a, w, classic):
    """Double loop over the formula of the seed (soft labels split for Classic)."""
    num = den = 0.0
    for i in range(len(t)):
        for j in range(len(t)):
            if classic:
                pw = (1 - t[i]) * w[i] * t[j] * w[j]
            else:
                pw = w[i] * w[j] if t[i] < t[j] else 0.0
            if pw == 0.0:
                continue
            credit = 1.0 if a[j] > a[i] else (0.5 if a[j] == a[i] else 0.0)
            num += credit * pw
            den += pw
    return num, den


def close(x, y):
    return math.isclose(x, y, rel_tol=RTOL, abs_tol=1e-15)


# --- pair metrics vs CatBoost ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["PairLogit", "PairLogitPairwise", "PairAccuracy"])
@pytest.mark.parametrize("seed", SEEDS)
def test_pair_metrics_generated_pairs_match_catboost(name, seed):
    d = make_data(seed)
    pairs = generated_pairs(d["y"], d["g"])
    # eval_metric rejects "PairLogitPairwise" (Unsupported metric); its value is PairLogit's
    cb_name = "PairLogit" if name == "PairLogitPairwise" else name
    expected = cb(d["y"], d["a"], cb_name, group_id=d["g"], pairs=pairs)
    assert close(mine(name, d["y"], d["a"], d["g"]), expected)
    # explicit pairs (unit weight in eval_metric) give the same value
    assert close(mine(name, d["y"], d["a"], d["g"], pairs=pairs), expected)
    # use_weights=false ignores object and group weights
    got = mine(name, d["y"], d["a"], d["g"], w=d["w"], gw=d["gwq"], use_weights=False)
    assert close(got, expected)


@pytest.mark.parametrize("name", ["PairLogit", "PairAccuracy"])
@pytest.mark.parametrize("seed", range(5))
def test_explicit_pairs_are_used_as_given_whatever_the_labels(name, seed):
    d = make_data(seed)
    pairs = generated_pairs(d["y"], d["g"])[:, ::-1]  # winners have the lower label
    expected = cb(d["y"], d["a"], name, group_id=d["g"], pairs=pairs)
    assert close(mine(name, d["y"], d["a"], d["g"], pairs=pairs), expected)


@pytest.mark.parametrize("name", ["PairLogit", "PairAccuracy"])
@pytest.mark.parametrize("seed", range(5))
def test_generated_and_explicit_pair_weights_match_catboost_pool(name, seed, tmp_path):
    """Generated pairs weigh the query's first object weight (= group weight in a
    CatBoost pool); explicit pairs weigh pairs_weight only, never group weights."""
    from catboost import CatBoost, Pool

    rng = np.random.default_rng(100 + seed)
    sizes = rng.integers(1, 10, 10)
    g = np.repeat(np.arange(10), sizes)
    n = g.shape[0]
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 3, n).astype(np.float64)
    w = rng.integers(1, 9, n) / 4.0
    gwq = rng.integers(1, 9, 10) / 2.0
    model = CatBoost({"iterations": 3, "loss_function": "YetiRank", "verbose": 0,
                      "thread_count": 1, "random_seed": seed, "train_dir": str(tmp_path)})  # no catboost_info/ here
    model.fit(Pool(X, y, group_id=g))
    a = model.predict(Pool(X, y, group_id=g))

    def pool_value(**kw):
        return list(model.eval_metrics(Pool(X, y, group_id=g, **kw), [name]).values())[0][-1]

    assert close(mine(name, y, a, g, gw=gwq), pool_value(group_weight=gwq[g]))
    # object weights: CatBoost weighs each generated pair by the query's first row
    assert close(mine(name, y, a, g, w=w), pool_value(weight=w))
    pairs = generated_pairs(y, g)[::2]
    pw = rng.integers(1, 9, pairs.shape[0]) / 4.0
    expected = pool_value(pairs=pairs, pairs_weight=pw, group_weight=gwq[g])
    assert close(mine(name, y, a, g, gw=gwq, pairs=pairs, pw=pw), expected)
    # the formula, written out
    d = a[pairs[:, 0]] - a[pairs[:, 1]]
    vals = (d > 0).astype(float) if name == "PairAccuracy" else np.logaddexp(0.0, -d)
    assert close(mine(name, y, a, g, pairs=pairs, pw=pw), float(np.sum(pw * vals) / np.sum(pw)))


def test_pair_accuracy_ties_count_zero_and_pair_logit_tie_is_log2():
    y, a, g = [1.0, 0.0], [0.3, 0.3], [0, 0]
    assert mine("PairAccuracy", y, a, g) == 0.0
    assert cb(y, a, "PairAccuracy", group_id=g, pairs=[[0, 1]]) == 0.0
    assert close(mine("PairLogit", y, a, g), math.log(2.0))


def test_pair_logit_is_stable_for_large_differences():
    y, g = [1.0, 0.0, 2.0], [0, 0, 0]
    v = mine("PairLogit", y, [1000.0, -1000.0, 0.0], g)
    # pairs (0,1): log1p(exp(-2000)) = 0; (2,0): 1000; (2,1): log1p(exp(-1000)) = 0
    assert close(v, 1000.0 / 3)


def test_pair_metrics_without_pairs_are_nan_and_queries_without_pairs_not_counted():
    y, a, g = [1.0, 1.0, 0.0, 2.0, 1.0], [0.1, 0.2, 0.3, 0.4, 0.5], [0, 0, 1, 2, 2]
    value, per_query, counted = mine("PairLogit", y, a, g, full=True)
    assert counted == 1
    assert np.isnan(per_query[0]) and np.isnan(per_query[1])
    assert close(value, math.log1p(math.exp(-(0.4 - 0.5))))
    assert np.isnan(mine("PairLogit", [1.0, 1.0], [0.0, 1.0], [0, 0]))
    assert np.isnan(mine("PairAccuracy", [1.0], [0.0], [0]))


def test_max_pairs_bound_determinism_and_all_pairs():
    d = make_data(3, n_queries=6, max_size=30)
    ptr = _ptr(d["g"])
    kind_logit = 0
    full = mine("PairLogit", d["y"], d["a"], d["g"])
    n_pairs = np.array([len(generated_pairs(d["y"][s:e], np.zeros(e - s))) for s, e in zip(ptr[:-1], ptr[1:])])
    # max_pairs at least the largest count: exactly all pairs, as in CatBoost
    assert close(mine("PairLogit", d["y"], d["a"], d["g"], max_pairs=int(n_pairs.max())), full)
    for k in (1, 5, 17):
        num, den, used = sampled_pair_parts(d["y"], d["a"], np.ones(len(d["y"])), np.ones(len(ptr) - 1),
                                            ptr, kind_logit, k, 0)
        np.testing.assert_array_equal(used, np.minimum(n_pairs, k))
        np.testing.assert_array_equal(den, np.minimum(n_pairs, k))
        again = sampled_pair_parts(d["y"], d["a"], np.ones(len(d["y"])), np.ones(len(ptr) - 1),
                                   ptr, kind_logit, k, 0)
        np.testing.assert_array_equal(num, again[0])
        v1 = mine("PairLogit", d["y"], d["a"], d["g"], max_pairs=k)
        assert v1 == mine("PairLogit", d["y"], d["a"], d["g"], max_pairs=k)
        # each sampled pair's loss lies between the query's smallest and largest pair loss
        for q, (s, e) in enumerate(zip(ptr[:-1], ptr[1:])):
            if used[q] == 0:
                continue
            p = generated_pairs(d["y"][s:e], np.zeros(e - s))
            losses = np.logaddexp(0.0, -(d["a"][s:e][p[:, 0]] - d["a"][s:e][p[:, 1]]))
            assert losses.min() * used[q] - 1e-9 <= num[q] <= losses.max() * used[q] + 1e-9


def test_pair_sampler_draws_distinct_indices_deterministically():
    for count, k in ((10, 10), (50, 7), (1000, 999), (3, 1)):
        for stream in range(5):
            picks = sample_without_replacement(count, k, 0, stream)
            assert picks.shape == (k,)
            assert len(np.unique(picks)) == k
            assert picks.min() >= 0 and picks.max() < count
            np.testing.assert_array_equal(picks, sample_without_replacement(count, k, 0, stream))
    assert not np.array_equal(sample_without_replacement(1000, 20, 0, 0), sample_without_replacement(1000, 20, 0, 1))


def test_max_pairs_on_one_query_counts_sampled_pairs():
    # scores rise with the label: every pair is ordered right
    n = 12
    y = np.arange(n, dtype=float)
    a = np.arange(n, dtype=float)
    k = 20
    num, den, used = sampled_pair_parts(y, a, np.ones(n), np.ones(1), np.array([0, n]), 1, k, 0)
    assert used[0] == k and den[0] == k and num[0] == k
    assert mine("PairAccuracy", y, a, np.zeros(n)) == 1.0


# --- AUC vs CatBoost -------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("auc_type,labels", [("Classic", "binary"), ("Classic", "soft"),
                                             ("Ranking", "levels"), ("Ranking", "soft")])
def test_auc_matches_catboost(seed, auc_type, labels):
    d = make_data(seed)
    t = {"binary": (d["y"] > 0).astype(float), "soft": d["soft"], "levels": d["y"]}[labels]
    metric = f"AUC:type={auc_type}"
    # eval_metric ignores use_weights: it uses whatever weights it is given
    assert close(mine("AUC", t, d["a"], d["g"], type=auc_type), cb(t, d["a"], metric))
    assert close(mine("AUC", t, d["a"], d["g"], w=d["w"], type=auc_type, use_weights=True),
                 cb(t, d["a"], metric, weight=d["w"]))
    # default use_weights=false: weights given but not used
    assert close(mine("AUC", t, d["a"], d["g"], w=d["w"], type=auc_type), cb(t, d["a"], metric))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("auc_type,labels", [("Classic", "binary"), ("Classic", "soft"),
                                             ("Ranking", "levels"), ("Ranking", "soft")])
def test_query_auc_matches_catboost(seed, auc_type, labels):
    d = make_data(seed)
    t = {"binary": (d["y"] > 0).astype(float), "soft": d["soft"], "levels": d["y"]}[labels]
    metric = f"QueryAUC:type={auc_type}"
    assert close(mine("QueryAUC", t, d["a"], d["g"], type=auc_type), cb(t, d["a"], metric, group_id=d["g"]))
    # eval_metric applies group weights only when object weights are given too
    got = mine("QueryAUC", t, d["a"], d["g"], w=d["w"], gw=d["gwq"], type=auc_type, use_weights=True)
    assert close(got, cb(t, d["a"], metric, group_id=d["g"], weight=d["w"], group_weight=d["gw"]))


@pytest.mark.parametrize("seed", range(5))
def test_query_auc_default_type_is_classic(seed):
    d = make_data(seed)
    t = d["soft"]
    assert fill_defaults(DEFS["QueryAUC"], {})["type"] == "Classic"
    assert close(mine("QueryAUC", t, d["a"], d["g"]), cb(t, d["a"], "QueryAUC", group_id=d["g"]))
    assert close(mine("QueryAUC", t, d["a"], d["g"]), cb(t, d["a"], "QueryAUC:type=Classic", group_id=d["g"]))
    assert not close(mine("QueryAUC", t, d["a"], d["g"]),
                     mine("QueryAUC", t, d["a"], d["g"], type="Ranking"))


def test_query_auc_is_mean_of_query_aucs_with_empty_queries_zero():
    # query 0: one doc; query 1: all labels 1; query 2: AUC 1; query 3: AUC 0.5 (tie)
    y = [1, 1, 1, 0, 1, 0, 1]
    a = [0.0, 0.1, 0.2, 0.1, 0.9, 0.5, 0.5]
    g = [0, 1, 1, 2, 2, 3, 3]
    gw = np.array([1.0, 2.0, 3.0, 4.0])
    assert close(mine("QueryAUC", y, a, g), (0 + 0 + 1 + 0.5) / 4)
    assert close(cb(y, a, "QueryAUC", group_id=g), (0 + 0 + 1 + 0.5) / 4)
    value, per_query, counted = mine("QueryAUC", y, a, g, gw=gw, use_weights=True, full=True)
    assert counted == 4
    np.testing.assert_allclose(per_query, [0.0, 0.0, 1.0, 0.5])
    assert close(value, (3 * 1 + 4 * 0.5) / gw.sum())


def test_auc_without_valid_pairs_is_zero_like_catboost():
    for auc_type in ("Classic", "Ranking"):
        assert mine("AUC", [1.0, 1.0, 1.0], [0.1, 0.2, 0.3], type=auc_type) == 0.0
        assert cb([1.0, 1.0, 1.0], [0.1, 0.2, 0.3], f"AUC:type={auc_type}") == 0.0
        assert mine("AUC", [0.0], [0.5], type=auc_type) == 0.0
        assert mine("AUC", [0.0, 1.0], [0.5, 0.5], type=auc_type) == 0.5


# --- AUC vs independent oracles -------------------------------------------------------------

@pytest.mark.parametrize("seed", range(10))
def test_auc_classic_binary_equals_sklearn(seed):
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(seed)
    n = 200
    t = (rng.random(n) < 0.3).astype(float)
    s = np.round(rng.normal(size=n), 1)
    w = rng.random(n) + 0.1
    assert close(mine("AUC", t, s, type="Classic"), roc_auc_score(t, s))
    assert close(mine("AUC", t, s, w=w, use_weights=True), roc_auc_score(t, s, sample_weight=w))


@pytest.mark.parametrize("seed", range(10))
def test_auc_equals_brute_force_double_loop(seed):
    rng = np.random.default_rng(seed)
    n = 60
    t = rng.integers(0, 4, n) / 3.0
    s = np.round(rng.normal(size=n), 1)
    w = rng.random(n) + 0.1
    for auc_type in ("Classic", "Ranking"):
        num, den = brute_auc_parts(t, s, w, auc_type == "Classic")
        assert close(mine("AUC", t, s, w=w, type=auc_type, use_weights=True), num / den)
    t_wide = rng.normal(size=n).round(1) * 10  # any real labels for Ranking
    num, den = brute_auc_parts(t_wide, s, w, False)
    assert close(mine("AUC", t_wide, s, w=w, type="Ranking", use_weights=True), num / den)


def test_auc_large_input_runs():
    rng = np.random.default_rng(0)
    n = 1_000_000
    t = rng.integers(0, 5, n).astype(float)
    s = np.round(rng.normal(size=n), 3)
    v = mine("AUC", t, s, type="Ranking")
    assert 0.49 < v < 0.51


# --- properties ------------------------------------------------------------------------------

scores = st.lists(st.floats(-100, 100, allow_nan=False, allow_infinity=False), min_size=2, max_size=40)


@settings(max_examples=60, deadline=None)
@given(scores, st.data())
def test_auc_properties(s, data):
    s = np.array(s)
    n = s.shape[0]
    t = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))) / 4.0
    for auc_type in ("Classic", "Ranking"):
        v = mine("AUC", t, s, type=auc_type)
        assert 0.0 <= v <= 1.0
        # strictly monotone transform of the scores (skip examples where float rounding merges scores)
        s2 = np.arctan(s / 7.0) * 3 + 1
        if np.array_equal(np.sign(s[:, None] - s[None, :]), np.sign(s2[:, None] - s2[None, :])):
            assert close(mine("AUC", t, s2, type=auc_type), v)
        assert close(mine("AUC", t, 2.0 * s, type=auc_type), v)  # exact in floating point
        has_pairs = (t.min() < t.max()) if auc_type == "Ranking" else (t.sum() > 0 and (1 - t).sum() > 0)
        if has_pairs and len(np.unique(s)) == n:
            assert close(mine("AUC", t, -s, type=auc_type), 1.0 - v)


@settings(max_examples=60, deadline=None)
@given(scores, st.data())
def test_pair_accuracy_in_unit_interval(s, data):
    s = np.array(s)
    n = s.shape[0]
    y = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    g = np.sort(np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))))
    v = mine("PairAccuracy", y, s, g)
    assert np.isnan(v) or 0.0 <= v <= 1.0
    pl = mine("PairLogit", y, s, g)
    assert np.isnan(pl) or pl >= 0.0


# --- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["AUC", "QueryAUC"])
def test_classic_auc_rejects_labels_outside_unit_interval(name):
    with pytest.raises(ValueError, match=rf"{name}:type=Classic needs labels in \[0, 1\].*2\.0"):
        mine(name, [0.0, 1.0, 2.0], [0.1, 0.2, 0.3], [0, 0, 0])
    with pytest.raises(ValueError, match=r"-0\.5"):
        mine(name, [0.0, -0.5], [0.1, 0.2], [0, 0], type="Classic")
    # Ranking accepts any real label
    assert np.isfinite(mine(name, [0.0, 1.0, 2.0], [0.1, 0.2, 0.3], [0, 0, 0], type="Ranking"))


def test_unknown_auc_type_is_rejected():
    with pytest.raises(ValueError, match="Classic, Ranking"):
        fill_defaults(DEFS["AUC"], {"type": "Mu"})


def test_directions():
    assert not DEFS["PairLogit"].higher_is_better
    assert not DEFS["PairLogitPairwise"].higher_is_better
    assert DEFS["PairAccuracy"].higher_is_better
    assert DEFS["AUC"].higher_is_better and not DEFS["AUC"].per_query
    assert DEFS["QueryAUC"].higher_is_better and DEFS["QueryAUC"].per_query


def test_many_query_kernels_equal_query_by_query():
    # The prange drivers must read each query's rows through its offsets only.
    from metricrank.metrics import _pairwise as pw

    d = make_data(7, n_queries=300, max_size=60)
    ptr = _ptr(d["g"])
    for kind in (0, 1):
        whole = pw._pairs_kernel(d["y"], d["a"], d["w"], d["gwq"], ptr, kind, -1, 0)
        for q in range(ptr.size - 1):
            rows = slice(ptr[q], ptr[q + 1])
            one = pw._pairs_kernel(d["y"][rows], d["a"][rows], d["w"][rows], d["gwq"][q:q + 1],
                                   np.array([0, ptr[q + 1] - ptr[q]]), kind, -1, 0)
            for x, z in zip(whole, one):
                np.testing.assert_allclose(x[q], z[0], rtol=1e-12)
    for classic, t in ((True, d["soft"]), (False, d["y"])):
        whole = pw._auc_kernel(t, d["a"], d["w"], ptr, classic)
        for q in range(ptr.size - 1):
            rows = slice(ptr[q], ptr[q + 1])
            one = pw._auc_kernel(t[rows], d["a"][rows], d["w"][rows], np.array([0, ptr[q + 1] - ptr[q]]), classic)
            for x, z in zip(whole, one):
                np.testing.assert_allclose(x[q], z[0], rtol=1e-12)


def test_max_pairs_must_be_minus_one_or_positive():
    parse = DEFS["PairLogit"].param("max_pairs").parse
    assert parse("-1") == -1 and parse("7") == 7
    for bad in ("0", "-2", "1.5"):
        with pytest.raises(ValueError):
            parse(bad)
    with pytest.raises(ValueError, match="max_pairs"):
        mine("PairLogit", [1.0, 0.0], [0.0, 1.0], max_pairs=0)


def test_max_pairs_memory_follows_the_sample_not_the_pairs():
    """One query of 20,000 documents has ~1.3e8 pairs (2 GB as index arrays); max_pairs=50 must not build them."""
    import subprocess
    import sys

    code = (
        "import resource, numpy as np, metricrank\n"
        "rng = np.random.default_rng(0); n = 20000\n"
        "y = rng.integers(0, 3, n).astype(float); s = rng.normal(size=n)\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "v = metricrank.evaluate(y, s, metric='PairLogit:max_pairs=50')\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(v, (after - before) / 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    value, grown_mb = map(float, out.stdout.split())
    assert np.isfinite(value) and value > 0
    assert grown_mb < 200, f"peak memory grew by {grown_mb:.0f} MB"

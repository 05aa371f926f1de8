"""The O(n log n) λ kernel of the AUC targets against the exact O(n²) one (issue 13, section 2)."""

from __future__ import annotations

import time
import zlib

import numpy as np
import pytest

from metricrank.metrics._ordering import TIE_POLICIES
from scipy.special import expit

from metricrank.objectives import LambdaObjective, as_training_data, swap_delta_matrix
from metricrank.objectives._accumulate import lambda_gradients, query_constants
from metricrank.objectives._auc_fast import _P, _Q, EPS_P, EPS_Q
from metricrank.objectives.lambda_objective import _MAX_TRUNCATION, FAST_MIN_SIZE

#: What the issue asks (max norm, relative, against the exact kernel) and what the kernel states
#: (per document, relative to the sum of its pair terms' magnitudes, against an accurate reference):
#: ε_P, ε_Q <= 1e-13 plus rounding.
ISSUE_TOL = 1e-3
STATED_TOL = 1e-9
#: The exact O(n²) kernel's own rounding: its w = ρ (1 - ρ) loses ~u absolutely per pair when ρ ≈ 1
#: (|σ Δs| large), so it is compared with the fast kernel in max norm only.
KERNEL_TOL = 1e-6


def group(rng, n, *, n_classes=2, rare=None, ties=False, spread=1.0):
    if rare is None:
        y = rng.integers(0, n_classes, size=n).astype(float)
    else:  # one class at share `rare`
        y = (rng.random(n) < rare).astype(float) * (n_classes - 1)
        y[rng.random(n) < 0.5 * (1 - rare)] = rng.integers(0, n_classes)
    y[rng.integers(n)] = 0  # at least two classes
    y[rng.integers(n)] = n_classes - 1
    s = rng.normal(scale=spread, size=n)
    if ties:
        s = np.round(s * 2) / 2  # few distinct values: long tie blocks
    return y, s


def both(spec, y, s, ptr, **kw):
    weights = kw.pop("weights", None)
    group_weights = kw.pop("group_weights", None)
    out = []
    for exact in (True, False):
        obj = LambdaObjective(spec, norm=False, exact=exact, **kw)
        out.append(obj.gradient_hessian(y, s, ptr, weights=weights, group_weights=group_weights))
    return out


def reference(spec, y, s, ptr, *, sigma=1.0, truncation=None, weights=None, group_weights=None):
    """λ, w and Σ_j |λ_ij| from the delta matrix with scipy's expit for ρ and ρ (1 - ρ) (stable ties), in numpy.

    The third array is the bound's scale for λ: MAUC's pair terms of one document differ in sign (it is above
    the lower classes and below the higher ones), so λ_i may cancel to rounding noise while its terms do not.
    """
    grad, hess, scale = np.zeros_like(y), np.zeros_like(y), np.zeros_like(y)
    weights = np.ones_like(y) if weights is None else weights
    for q in range(len(ptr) - 1):
        a, b = ptr[q], ptr[q + 1]
        order = a + np.argsort(-s[a:b], kind="mergesort")
        lab, sc = y[order], s[order]
        d = swap_delta_matrix(spec, lab)
        if truncation is not None:
            d[truncation:, truncation:] = 0.0
        hi = lab[:, None] > lab[None, :]
        ds = np.where(hi, sc[:, None] - sc[None, :], sc[None, :] - sc[:, None])
        terms = sigma * d * expit(-sigma * ds)
        lam = (terms * np.where(hi, 1.0, -1.0)).sum(1)
        w = sigma * (terms * expit(sigma * ds)).sum(1)
        gw = 1.0 if group_weights is None else group_weights[q]
        grad[order] = -lam * gw * weights[order]
        hess[order] = w * gw * weights[order]
        scale[order] = terms.sum(1) * gw * weights[order]
    return grad, hess, scale


def assert_close(exact, fast, tol=KERNEL_TOL, hess=True):
    """Fast against the exact kernel, relative in the max norm (the issue asks for 1e-3).

    ``hess=False`` where every pair is far apart (|σ Δs| up to 1000): there the exact kernel's
    ``ρ (1 - ρ)`` cancels (ρ ≈ 1) and its w is off by up to 3e-3 in the max norm (100% for single
    documents), while the fast kernel's ``x / (1 + x)²`` has no cancellation; ``assert_bound`` then
    checks w against the expit reference, per document.
    """
    pairs = ((exact[0], fast[0], "grad"), (exact[1], fast[1], "hess"))
    for e, f, what in pairs[:2 if hess else 1]:
        scale = np.abs(e).max()
        assert np.abs(f - e).max() <= min(tol, ISSUE_TOL) * scale, what


def assert_bound(ref, fast, tol=STATED_TOL):
    """The stated bound, per document: |λ̃_i - λ_i| <= (ε + δ) Σ_j |λ_ij| and |w̃_i - w_i| <= (ε + δ) w_i."""
    for r, f, scale, what in ((ref[0], fast[0], ref[2], "grad"), (ref[1], fast[1], ref[1], "hess")):
        np.testing.assert_array_less(np.abs(f - r), tol * np.abs(scale) + 1e-300, err_msg=what)


@pytest.mark.parametrize("n", [2, 3, 5, 17, 64, 150, 1000, 5000, 20000])
@pytest.mark.parametrize("spec", ["ROCArea", "MAUC"])
def test_fast_matches_exact_on_random_groups(spec, n):
    if n == 20000 and spec == "MAUC":
        pytest.skip("one 20,000-document group (ROCArea) is enough: the exact kernel takes seconds")
    rng = np.random.default_rng(n + len(spec))
    y, s = group(rng, n, n_classes=4 if spec == "MAUC" else 2)
    sigma = float(rng.choice([0.3, 1.0, 2.5]))
    exact, fast = both(spec, y, s, np.array([0, n]), sigma=sigma)
    assert_close(exact, fast)
    if n <= 2000:
        assert_bound(reference(spec, y, s, np.array([0, n]), sigma=sigma), fast)


@pytest.mark.parametrize("spec", ["ROCArea", "QueryAUC", "MAUC", "MAUC:classes=all", "ROCArea:border=1"])
@pytest.mark.parametrize("case", ["ties", "rare", "common", "weights", "sigma", "far", "truncation"])
def test_fast_matches_exact_in_every_setting(spec, case):
    rng = np.random.default_rng(zlib.crc32(f"{spec}|{case}".encode()))  # hash() of a str varies by process
    n_classes = 2 if spec in ("ROCArea", "QueryAUC") else 4
    sizes = rng.integers(2, 400, size=6)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    parts = [group(rng, int(m), n_classes=n_classes, ties=case == "ties",
                   rare={"rare": 0.01, "common": 0.9}.get(case), spread=300.0 if case == "far" else 1.0)
             for m in sizes]
    y = np.concatenate([p[0] for p in parts])
    s = np.concatenate([p[1] for p in parts])
    kw = {}
    if case == "weights":
        kw = {"weights": rng.uniform(0, 3, size=y.shape[0]), "group_weights": rng.uniform(0, 2, size=len(sizes))}
        kw["group_weights"][2] = 0.0
    if case == "sigma":
        kw["sigma"] = 7.5
    if case == "truncation":
        kw["truncation"] = 20
    ref = reference(spec, y, s, ptr, **kw)
    exact, fast = both(spec, y, s, ptr, **kw)
    # far apart: the exact kernel's subnormal e = exp(σ (s - s_max)) cost it ~1e-6 on λ (see assert_close)
    assert_close(exact, fast, tol=ISSUE_TOL if case == "far" else KERNEL_TOL, hess=case != "far")
    assert_bound(ref, fast)


def test_mauc_bound_is_relative_to_the_pair_terms_not_to_a_cancelled_lambda():
    # far-apart scores, four classes: one document's λ cancels to rounding noise (|λ_i| ~ 1e-17 from pair terms
    # summing to 0.045), where the fast kernel misses a bound relative to |λ_i|; the stated one holds
    rng = np.random.default_rng(80)
    sizes = rng.integers(2, 400, size=6)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    parts = [group(rng, int(m), n_classes=4, spread=300.0) for m in sizes]
    y = np.concatenate([p[0] for p in parts])
    s = np.concatenate([p[1] for p in parts])
    ref = reference("MAUC", y, s, ptr)
    _, fast = both("MAUC", y, s, ptr)
    cancelled = np.abs(ref[0]) < 1e-12 * ref[2]
    assert cancelled.any()  # else this case shows nothing
    assert (np.abs(fast[0] - ref[0]) > STATED_TOL * np.abs(ref[0]))[cancelled].any()
    assert_bound(ref, fast)


@pytest.mark.parametrize("ties", sorted(TIE_POLICIES))
def test_every_tie_policy_is_handled_exactly(ties):
    rng = np.random.default_rng(len(ties))
    y, s = group(rng, 3000, ties=True)
    s = np.round(s)  # five distinct scores
    ptr = np.array([0, 3000])
    params = np.zeros(4)
    const, cptr = query_constants(6, params, y, ptr)
    out = []
    for fast_min in (_MAX_TRUNCATION, 0):
        g, h = np.empty(3000), np.empty(3000)
        lambda_gradients(6, params, const, cptr, s, y, ptr, TIE_POLICIES[ties], 1.3, _MAX_TRUNCATION, False, False,
                         np.ones(3000), np.ones(1), g, h, fast_min, 1)
        out.append((g, h))
    assert_close(*out)


def test_polynomials_meet_their_stated_relative_error():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    xs = [mp.mpf(i) / 20000 for i in range(20001)]
    err_p = max(abs(sum(mp.mpf(float(c)) * x**k for k, c in enumerate(_P)) * (1 + x) - 1) for x in xs[::4])
    err_q = max(abs(sum(mp.mpf(float(c)) * x**k for k, c in enumerate(_Q)) * (1 + x) ** 2 - 1) for x in xs[::4])
    assert err_p <= EPS_P and err_q <= EPS_Q
    # and the float64 evaluation (Σ|a_k| u, the rounding term of the bound) is small
    assert np.abs(_P).sum() < 20 and np.abs(_Q).sum() < 200


def test_automatic_selection_by_group_size():
    rng = np.random.default_rng(5)
    small, large = FAST_MIN_SIZE - 1, FAST_MIN_SIZE
    y, _ = group(rng, small + large)
    data = as_training_data(y, np.array([0, small, small + large]))
    assert LambdaObjective("ROCArea", norm=False).bind(data).fast_queries == 1
    assert LambdaObjective("MAUC", norm=False).bind(data).fast_queries == 1
    assert LambdaObjective("ROCArea", norm=False, exact=False).bind(data).fast_queries == 2
    assert LambdaObjective("ROCArea", norm=False, exact=True).bind(data).fast_queries == 0
    assert LambdaObjective("ROCArea", norm=True).bind(data).fast_queries == 0  # norm=True: exact kernel
    assert LambdaObjective("ROCArea").bind(data).fast_queries == 1  # norm="auto" is off for AUC targets
    assert LambdaObjective("NDCG", norm=False).bind(data).fast_queries == 0
    assert not LambdaObjective("ROCArea", norm=False).quadratic and not LambdaObjective("MAUC").quadratic
    assert LambdaObjective("ROCArea", norm=True).quadratic and LambdaObjective("NDCG", norm=False).quadratic
    with pytest.raises(ValueError, match="exact=False"):
        LambdaObjective("ROCArea", norm=True, exact=False)
    with pytest.raises(ValueError, match="exact=False"):
        LambdaObjective("MAP", norm=False, exact=False)
    with pytest.raises(ValueError, match="exact must be"):
        LambdaObjective("ROCArea", norm=False, exact="yes")


def test_one_million_document_group():
    rng = np.random.default_rng(7)
    n = 1_000_000
    y = (rng.random(n) < 0.3).astype(float)
    s = rng.normal(size=n) + 0.5 * y
    obj = LambdaObjective("ROCArea", norm=False)
    obj.gradient_hessian(y[:1000], s[:1000], np.array([0, 1000]))  # compile
    t = time.perf_counter()
    g, h = obj.gradient_hessian(y, s, np.array([0, n]))  # the exact kernel would need hours
    elapsed = time.perf_counter() - t
    assert elapsed < 60
    assert np.all(np.isfinite(g)) and np.all(h > 0)
    assert abs(g.sum()) <= 1e-9 * np.abs(g).sum()  # every pair adds +λ_ij and -λ_ij
    assert np.all(g[y == 1] < 0) and np.all(g[y == 0] > 0)
    # λ of a relevant document: σ Σ_j |j - i| ρ_ij / (m n) over the others, at most (n - 1) / (m n) · ... > 0
    m = y.sum()
    assert np.abs(g).max() <= n / (m * (n - m)) * n

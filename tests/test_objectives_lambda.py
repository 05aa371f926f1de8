"""λ-objectives: exact swap deltas against brute force, and the accumulator against a reference."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from scipy.special import expit

from metricrank import evaluate
from metricrank.objectives import LAMBDA_TARGETS, LambdaObjective, resolve_target, swap_delta_matrix

GRADED = [
    "NDCG", "NDCG:top=3", "NDCG:type=Exp;denominator=Position", "NDCG:top=5;type=Exp",
    "DCG:top=4", "DCG:type=Exp", "MAP", "MAP:top=3", "MAP:top=3;norm=retrieved", "MAP:top=4;norm=all",
    "MAP:border=1", "MRR", "MRR:top=3", "MRR:border=1", "ERR:type=Graded", "ERR:type=Graded;top=3",
    "PrecisionAt:top=3", "PrecisionAt:top=8;norm=top", "PrecisionAt:top=2;border=1",
    "ROCArea", "ROCArea:border=1", "MAUC", "MAUC:classes=all",
]
BINARY = ["QueryAUC", "ROCArea", "MAP", "MRR"]
PROBABILITY = ["ERR", "ERR:top=4"]


def metric_of(spec: str) -> str:
    """The metric whose per-query value the target's delta is the difference of."""
    return spec


def query_value(spec: str, ranked_labels: np.ndarray) -> float:
    """Metric value of one query whose documents are ranked in the given order (no tied scores)."""
    n = ranked_labels.shape[0]
    value = evaluate(ranked_labels, np.arange(n, 0, -1, dtype=float), qid=np.zeros(n), metric=metric_of(spec),
                     per_query=True)[0]
    return 0.0 if np.isnan(value) else float(value)


def brute_force_deltas(spec: str, lab: np.ndarray) -> np.ndarray:
    n = lab.shape[0]
    base = query_value(spec, lab)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            swapped = lab.copy()
            swapped[[i, j]] = swapped[[j, i]]
            out[i, j] = out[j, i] = abs(query_value(spec, swapped) - base)
    return out


def random_lists(rng, values, count):
    for _ in range(count):
        n = int(rng.integers(1, 11))
        yield rng.choice(values, size=n)


@pytest.mark.parametrize("spec", GRADED)
def test_swap_delta_equals_brute_force_graded(spec):
    rng = np.random.default_rng(zlib.crc32(spec.encode()))
    for lab in random_lists(rng, np.array([0.0, 0.0, 1.0, 1.0, 2.0, 3.0]), 12):
        expected = brute_force_deltas(spec, lab)
        got = swap_delta_matrix(spec, lab)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, err_msg=f"{spec} labels {lab}")


@pytest.mark.parametrize("spec", ["DCG:top=4", "DCG:type=Exp", "DCG:type=Exp;denominator=Position"])
def test_dcg_takes_negative_labels_as_evaluate_does(spec):
    # DCG is unnormalised, so a negative gain (l, or 2^l - 1) is as good a gain as any: the swap delta is
    # evaluate's difference, and the λ-gradients are the reference's, labels -2 to 1
    rng = np.random.default_rng(zlib.crc32(spec.encode()) + 2)
    for lab in random_lists(rng, np.array([-2.0, -1.0, -1.0, 0.0, 0.5, 1.0]), 12):
        np.testing.assert_allclose(swap_delta_matrix(spec, lab), brute_force_deltas(spec, lab),
                                   rtol=1e-10, atol=1e-12, err_msg=f"{spec} labels {lab}")
    y, s, ptr, _ = random_queries(7, tie_scores=False)
    y = y - 2.0
    grad, hess = LambdaObjective(spec, norm=False).gradient_hessian(y, s, ptr)
    ref_g, ref_h = reference_lambdas(spec, y, s, ptr, sigma=1.0, truncation=10**9, norm=False,
                                     weights=np.ones_like(y), group_weights=np.ones(len(ptr) - 1),
                                     ties="stable")
    assert np.any(grad != 0)
    np.testing.assert_allclose(grad, ref_g, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(hess, ref_h, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("spec", BINARY)
def test_swap_delta_equals_brute_force_binary(spec):
    rng = np.random.default_rng(zlib.crc32(spec.encode()) + 1)
    for lab in random_lists(rng, np.array([0.0, 0.0, 1.0]), 12):
        np.testing.assert_allclose(swap_delta_matrix(spec, lab), brute_force_deltas(spec, lab),
                                   rtol=1e-10, atol=1e-12, err_msg=f"{spec} labels {lab}")


def test_auc_is_not_a_target_and_names_the_per_query_ones():
    with pytest.raises(ValueError, match="global AUC.*'ROCArea'.*'QueryAUC'"):
        resolve_target("AUC")
    with pytest.raises(ValueError, match="QueryAUC needs binary labels 0/1; row 1 has label 2"):
        LambdaObjective("QueryAUC").gradient_hessian(np.array([1.0, 2.0]), np.zeros(2), np.array([0, 2]))


@pytest.mark.parametrize("spec", PROBABILITY)
def test_swap_delta_equals_brute_force_err_probabilities(spec):
    rng = np.random.default_rng(7)
    for lab in random_lists(rng, np.array([0.0, 0.0, 0.25, 0.5, 1.0]), 12):
        np.testing.assert_allclose(swap_delta_matrix(spec, lab), brute_force_deltas(spec, lab),
                                   rtol=1e-10, atol=1e-12)


def test_welleck_theorem_1_on_a_small_list():
    # labels in rank order 1 0 0 1 0: m = 2 relevant, n = 3 other
    lab = np.array([1.0, 0, 0, 1, 0])
    d = swap_delta_matrix("ROCArea", lab)
    for i in range(5):
        for j in range(i + 1, 5):
            assert d[i, j] == pytest.approx(abs(lab[j] - lab[i]) * (j - i) / (2 * 3))


def test_mauc_delta_is_prevalence_weighted_sum_of_class_aucs():
    # Welleck eq. 18 with classes 1, 2 (relevant), p(c) = n_c / 3, AUC(c) one-vs-rest over 5 documents
    lab = np.array([2.0, 0, 1, 1, 0])
    d = swap_delta_matrix("MAUC", lab)
    w1 = (2 / 3) / (2 * 3)  # p(1) / (n_1 (N - n_1))
    w2 = (1 / 3) / (1 * 4)
    assert d[0, 2] == pytest.approx(abs(w1 - w2) * 2)  # classes 2 and 1 swap: opposite signs
    assert d[0, 1] == pytest.approx(w2 * 1)  # class 2 with class 0: only AUC(2) changes
    assert d[1, 3] == pytest.approx(w1 * 2)


def test_ranknet_delta_is_one():
    d = swap_delta_matrix("RankNet", [2, 1, 0])
    np.testing.assert_array_equal(d, 1.0 - np.eye(3))


# --- the accumulator ----------------------------------------------------------------------

def reference_lambdas(target_spec, y, s, ptr, *, sigma, truncation, norm, weights, group_weights, ties):
    """Plain-Python λ accumulation from the delta matrix (Burges section 7)."""
    grad = np.zeros_like(y)
    hess = np.zeros_like(y)
    for q in range(len(ptr) - 1):
        a, b = ptr[q], ptr[q + 1]
        ys, ss = y[a:b], s[a:b]
        n = b - a
        if ties == "stable":
            order = sorted(range(n), key=lambda r: -ss[r])
        else:  # pessimistic: lower label first among equal scores
            order = sorted(range(n), key=lambda r: (-ss[r], ys[r]))
        lab = ys[order]
        sc = ss[order]
        d = swap_delta_matrix(target_spec, lab) if n > 1 else np.zeros((1, 1))
        lam = np.zeros(n)
        w = np.zeros(n)
        total = 0.0
        for i in range(min(n - 1, truncation)):
            for j in range(i + 1, n):
                if lab[i] == lab[j] or d[i, j] == 0:
                    continue
                hi, lo = (i, j) if lab[i] > lab[j] else (j, i)
                dz = d[i, j]
                if norm and sc[0] != sc[-1]:
                    dz /= 0.01 + abs(sc[hi] - sc[lo])
                rho = float(expit(-sigma * (sc[hi] - sc[lo])))  # 1 / (1 + exp(σ Δs)), no overflow
                rho_c = float(expit(sigma * (sc[hi] - sc[lo])))  # 1 - ρ without cancellation
                lam[hi] += sigma * dz * rho
                lam[lo] -= sigma * dz * rho
                w[hi] += sigma**2 * dz * rho * rho_c
                w[lo] += sigma**2 * dz * rho * rho_c
                total += 2 * sigma * dz * rho
        factor = group_weights[q] * (math.log2(1 + total) / total if norm and total > 0 else 1.0)
        for r in range(n):
            grad[a + order[r]] = -lam[r] * factor * weights[a + order[r]]
            hess[a + order[r]] = w[r] * factor * weights[a + order[r]]
    return grad, hess


def random_queries(seed, n_queries=12, tie_scores=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 14, size=n_queries)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    y = rng.integers(0, 4, size=ptr[-1]).astype(float)
    s = rng.integers(0, 4, size=ptr[-1]).astype(float) if tie_scores else rng.normal(size=ptr[-1])
    return y, s, ptr, rng


@pytest.mark.parametrize("spec", ["NDCG:top=5;type=Exp", "MAP", "MRR:top=3", "ERR:type=Graded;max_label=3",
                                  "PrecisionAt:top=3", "ROCArea", "MAUC", "RankNet", "DCG"])
@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("truncation", [None, 3])
def test_accumulator_matches_reference(spec, norm, truncation):
    y, s, ptr, rng = random_queries(len(spec) + 3 * norm + (truncation or 0))
    # and a query of one label (no pair), then one whose labels differ only at its last document
    y = np.concatenate([y, [2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0, 1.0]])
    s = np.concatenate([s, [0.5, 1.0, 0.0, 2.0], [3.0, 1.0, 2.0, 0.0, 1.5]])
    ptr = np.concatenate([ptr, [ptr[-1] + 4, ptr[-1] + 9]])
    weights = rng.uniform(0.5, 2.0, size=y.shape[0])
    group_weights = rng.uniform(0.5, 2.0, size=ptr.shape[0] - 1)
    obj = LambdaObjective(spec, sigma=1.7, truncation=truncation, norm=norm)
    grad, hess = obj.gradient_hessian(y, s, ptr, weights=weights, group_weights=group_weights)
    ref_g, ref_h = reference_lambdas(spec, y, s, ptr, sigma=1.7, truncation=truncation or 10**9, norm=norm,
                                     weights=weights, group_weights=group_weights, ties=obj.target.ties)
    np.testing.assert_allclose(grad, ref_g, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(hess, ref_h, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("spec", ["NDCG", "MAP", "RankNet"])
def test_hessian_keeps_its_size_when_pairs_are_far_apart(spec):
    # σ|Δs| = 30..60: ρ(1 - ρ) ≈ exp(-σ|Δs|) is tiny but positive; 1.0 - ρ would round it to 0
    y = np.array([0.0, 1.0, 2.0, 0.0, 1.0])
    s = np.array([0.0, 15.0, 30.0, 45.0, 60.0])  # every relevant pair misordered by 15 or more
    ptr = np.array([0, 5])
    obj = LambdaObjective(spec, sigma=2.0, norm=False)
    grad, hess = obj.gradient_hessian(y, s, ptr)
    ref_g, ref_h = reference_lambdas(spec, y, s, ptr, sigma=2.0, truncation=10**9, norm=False,
                                     weights=np.ones(5), group_weights=np.ones(1), ties=obj.target.ties)
    assert np.all(ref_h > 0)
    np.testing.assert_allclose(hess, ref_h, rtol=1e-10)
    np.testing.assert_allclose(grad, ref_g, rtol=1e-10)


@pytest.mark.parametrize("spec", ["NDCG", "MAP", "MRR", "ERR:type=Graded", "PrecisionAt:top=2", "ROCArea", "MAUC",
                                  "RankNet"])
def test_lambdas_sum_to_zero_and_degenerate_queries_get_nothing(spec):
    y, s, ptr, _ = random_queries(3)
    # add a single-document query and an all-equal-labels query
    y = np.concatenate([y, [2.0], [1.0, 1.0, 1.0]])
    s = np.concatenate([s, [0.3], [0.0, 1.0, 2.0]])
    ptr = np.concatenate([ptr, [ptr[-1] + 1, ptr[-1] + 4]])
    grad, hess = LambdaObjective(spec).gradient_hessian(y, s, ptr)
    assert np.all(np.isfinite(grad)) and np.all(np.isfinite(hess))
    assert np.all(hess >= 0)
    for q in range(len(ptr) - 1):
        assert grad[ptr[q]:ptr[q + 1]].sum() == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_array_equal(grad[ptr[-3]:], 0.0)
    np.testing.assert_array_equal(hess[ptr[-3]:], 0.0)


def test_gradient_and_hessian_are_derivatives_of_the_lambda_utility():
    # Burges: C = sum_{i > j} |ΔZ_ij| log(1 + exp(-σ (s_i - s_j))), |ΔZ| frozen at the current ranking.
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, size=9).astype(float)
    s = rng.normal(size=9)
    ptr = np.array([0, 9])
    sigma = 1.3
    order = np.argsort(-s, kind="mergesort")
    d_ranked = swap_delta_matrix("NDCG:type=Exp", y[order])
    d = np.empty_like(d_ranked)
    d[np.ix_(order, order)] = d_ranked

    def utility(scores):
        total = 0.0
        for i in range(9):
            for j in range(9):
                if y[i] > y[j]:
                    total += d[i, j] * np.log1p(np.exp(-sigma * (scores[i] - scores[j])))
        return total

    grad, hess = LambdaObjective("NDCG:type=Exp", sigma=sigma, norm=False).gradient_hessian(y, s, ptr)
    for r in range(9):
        e = np.zeros(9)
        e[r] = 1e-5
        fd_grad = (utility(s + e) - utility(s - e)) / 2e-5
        e[r] = 1e-4
        fd_hess = (utility(s + e) - 2 * utility(s) + utility(s - e)) / 1e-8
        assert grad[r] == pytest.approx(fd_grad, rel=1e-6, abs=1e-9)
        assert hess[r] == pytest.approx(fd_hess, rel=1e-4, abs=1e-7)


# --- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["PFound", "RecallAt:top=3", "PairLogit", "AUC", "QueryAUC:type=Ranking",
                                  "MAUC:pooled=true",
                                  "QueryRMSE", "nonsense"])
def test_targets_without_swap_delta_list_the_valid_choices(spec):
    with pytest.raises(ValueError, match="valid targets are NDCG, DCG, MAP"):
        resolve_target(spec)


def test_every_listed_target_resolves():
    for name in LAMBDA_TARGETS:
        target = resolve_target(name)
        assert (target.metric is None) == (name == "RankNet")
        assert target.eval_spec == ("NDCG:top=10" if name == "RankNet" else target.metric.spec)


def test_label_domain_errors_name_the_target():
    obj = LambdaObjective("NDCG")
    with pytest.raises(ValueError, match="NDCG needs graded labels >= 0; row 2 has label -0.5$"):
        obj.gradient_hessian(np.array([1.0, 0.0, -0.5, -3.0]), np.zeros(4), np.array([0, 4]))
    with pytest.raises(ValueError, match="MAUC needs integer relevance classes"):
        LambdaObjective("MAUC").gradient_hessian(np.array([1.5, 0.0]), np.zeros(2), np.array([0, 2]))
    with pytest.raises(ValueError, match=r"ERR:type=Probability needs labels \(probabilities\) in \[0, 1\]"):
        LambdaObjective("ERR").gradient_hessian(np.array([2.0, 0.0]), np.zeros(2), np.array([0, 2]))


@pytest.mark.parametrize("kwargs, message", [
    ({"sigma": 0.0}, "sigma must be a positive"),
    ({"truncation": 0}, "truncation must be a positive integer or None"),
    ({"truncation": 2.5}, "truncation must be a positive integer or None"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LambdaObjective("NDCG", **kwargs)


def test_accumulator_is_exact_when_scores_are_far_apart():
    # e = exp(σ (s - s_max)) underflows for the last two documents: ρ then comes from the direct formula.
    y = np.array([0.0, 2.0, 1.0, 0.0])
    s = np.array([5.0, 4.0, -900.0, -901.0])
    ptr = np.array([0, 4])
    obj = LambdaObjective("NDCG", norm=False)
    grad, hess = obj.gradient_hessian(y, s, ptr)
    ref_g, ref_h = reference_lambdas("NDCG", y, s, ptr, sigma=1.0, truncation=10**9, norm=False,
                                     weights=np.ones(4), group_weights=np.ones(1), ties=obj.target.ties)
    np.testing.assert_allclose(grad, ref_g, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(hess, ref_h, rtol=1e-12, atol=1e-300)
    assert grad[2] < 0  # the relevant document far below still gets pushed up (ρ ≈ 1)


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update(raw=np.array([0.0, np.nan, 1.0])), r"raw scores must be finite; row 1"),
    (lambda a: a.update(group_ptr=np.array([0, 2])), r"group_ptr must start at 0 and end at the number of rows"),
    (lambda a: a.update(weights=np.ones(2)), r"weights must have shape \(3,\)"),
    (lambda a: a.update(group_weights=np.ones(3)), r"group_weights must have shape \(1,\)"),
    (lambda a: a.update(weights=np.array([1.0, -1.0, 1.0])), r"weights must be >= 0"),
    (lambda a: a.update(raw=np.zeros(4)), r"raw scores must have shape \(3,\)"),
])
def test_public_gradient_hessian_validates_its_input(change, message):
    """The public entry point checks shapes, offsets and finiteness before the kernel reads anything."""
    args = dict(raw=np.zeros(3), group_ptr=np.array([0, 3]), weights=None, group_weights=None)
    change(args)
    with pytest.raises(ValueError, match=message):
        LambdaObjective("NDCG").gradient_hessian(np.array([2.0, 0.0, 1.0]), args["raw"], args["group_ptr"],
                                                 weights=args["weights"], group_weights=args["group_weights"])


def test_mauc_memory_follows_the_number_of_classes_not_the_largest_label():
    """A label of 10**9 would need a 10**9-entry class table per query; dense class ids make it 3 entries."""
    rng = np.random.default_rng(0)
    ptr = np.array([0, 40, 90], dtype=np.int64)
    small = rng.integers(0, 3, size=90).astype(float)
    huge = np.array([0.0, 7.0, 1e9])[small.astype(int)]  # the same classes, in the same order
    s = rng.normal(size=90)
    assert resolve_target("MAUC").transform_labels(huge).max() == 2  # the kernel's table size - 1
    for classes in ("relevant", "all"):
        obj = LambdaObjective(f"MAUC:classes={classes}")
        g_small, h_small = obj.gradient_hessian(small, s, ptr)
        g_huge, h_huge = obj.gradient_hessian(huge, s, ptr)
        np.testing.assert_array_equal(g_small, g_huge)
        np.testing.assert_array_equal(h_small, h_huge)
    # without a zero label every class is relevant: ids start at 1
    np.testing.assert_array_equal(LambdaObjective("MAUC").gradient_hessian(small + 5, s, ptr)[0],
                                  LambdaObjective("MAUC").gradient_hessian(small + 1, s, ptr)[0])


@pytest.mark.parametrize("spec, expected", [("NDCG:top=10", True), ("ERR:type=Graded", True), ("MRR", True),
                                            ("PrecisionAt:top=3", True), ("RankNet", True), ("MAP", False),
                                            ("ROCArea", False), ("QueryAUC", False), ("MAUC", False)])
def test_norm_auto_is_the_measured_choice_per_target(spec, expected):
    assert LambdaObjective(spec).norm is expected
    assert LambdaObjective(spec, norm=not expected).norm is (not expected)  # an explicit choice wins
    with pytest.raises(ValueError, match="norm must be True, False or 'auto'"):
        LambdaObjective(spec, norm="on")

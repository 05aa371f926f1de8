"""Objectives' derivatives against CatBoost's own: CatBoost's LambdaMart loss (``LambdaMart:metric=M``, with its
specs and inputs), QuerySoftMax's ``lambda``, and PairLogit and QueryRMSE at their defaults.

The oracle is a one-tree CatBoost model whose leaves each hold one document: binary features spelling each
row's index let a depth-⌈log2 n⌉ symmetric tree separate every row, the learning rate is 1, there is no L2
penalty, random strength or backtracking, and the current scores enter as the Pool's baseline. With
gradient leaves a leaf is the row's first derivative; with Newton leaves it is ``-grad / hess``.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from conftest import catboost_one_tree, ptr_of

from metricrank import GBRanker, evaluate, make_ltr
from metricrank.objectives import get_objective
from metricrank.objectives.registry import describe_objectives


def catboost_one_row_leaves(y, qid, spec, raw, method):
    model, X = catboost_one_tree(y, qid, spec, raw, leaf_estimation_method=method, leaf_estimation_iterations=1,
                                 leaf_estimation_backtracking="No")
    return model.predict(X)  # the tree's output, without the baseline


CASES = [  # (spec, label values)
    ("LambdaMart", (0, 1, 2, 3)),
    ("LambdaMart:metric=NDCG;top=3;type=Exp", (0, 1, 2)),
    ("LambdaMart:metric=DCG;denominator=Position;norm=false", (0, 1, 2)),
    ("LambdaMart:metric=MRR", (0, 1)),
    ("LambdaMart:metric=MRR;norm=false;sigma=0.5", (0, 1, 2)),
    ("LambdaMart:metric=MAP", (0, 1, 2)),
    ("LambdaMart:metric=ERR", (0, 0.25, 0.5, 1.0)),
    ("LambdaMart:metric=ERR;sigma=2;norm=false", (0, 0.3, 1.0)),
]


def _draw(rng, labels, tied):
    """Five queries of 2-12 documents (at most 60 rows: one leaf each at depth 6), labels drawn from ``labels``,
    scores all zero (``tied``) or rounded to one decimal, so that ties inside a query keep the input order."""
    sizes = rng.integers(2, 13, 5)
    qid = np.repeat(np.arange(5), sizes)
    y = rng.choice(labels, qid.size).astype(float)
    raw = np.zeros(qid.size) if tied else np.round(rng.normal(size=qid.size), 1)
    return y, qid, raw


@pytest.mark.parametrize("spec,labels", CASES)
def test_derivatives_equal_catboosts(spec, labels):
    rng = np.random.default_rng(zlib.crc32(spec.encode()))  # hash() of a str varies by process
    for draw in range(3):
        # tied scores on the first draw (all zero: CatBoost's start, where norm skips the score gap)
        y, qid, raw = _draw(rng, labels, tied=draw == 0)
        grad, hess = get_objective(spec).gradient_hessian(y, raw, ptr_of(qid))
        assert np.any(grad != 0)
        np.testing.assert_allclose(grad, catboost_one_row_leaves(y, qid, spec, raw, "Gradient"),
                                   rtol=1e-5, atol=1e-6)
        step = catboost_one_row_leaves(y, qid, spec, raw, "Newton")
        has = hess > 1e-9
        np.testing.assert_allclose(-grad[has] / hess[has], step[has], rtol=1e-4, atol=1e-6)


def test_a_two_document_query_by_the_formula():
    # labels (1, 0) in input order, equal scores: one pair, delta = |1/log2(2) - 1/log2(3)| / IDCG (IDCG = 1),
    # rho = 1/2; norm skips the score gap (all scores equal) and scales by log2(1 + S) / S, S = 2 * delta / 2
    delta = 1.0 - 1.0 / np.log2(3.0)
    grad, hess = get_objective("LambdaMart").gradient_hessian([1.0, 0.0], [0.0, 0.0], [0, 2])
    scale = np.log2(1.0 + delta) / delta
    np.testing.assert_allclose(grad, np.array([-0.5, 0.5]) * delta * scale)
    np.testing.assert_allclose(hess, np.array([0.25, 0.25]) * delta * scale)
    # unequal scores: the gap divides delta (norm), sigma scales gradient and hessian
    s, sigma = np.array([0.3, -0.2]), 2.0
    grad, hess = get_objective(f"LambdaMart:sigma={sigma}").gradient_hessian([1.0, 0.0], s, [0, 2])
    d = delta / (0.01 + 0.5)
    rho = 1.0 / (1.0 + np.exp(sigma * 0.5))
    total = 2 * sigma * d * rho
    scale = np.log2(1.0 + total) / total
    np.testing.assert_allclose(grad, np.array([-1.0, 1.0]) * sigma * d * rho * scale)
    np.testing.assert_allclose(hess, np.full(2, sigma**2 * d * rho * (1 - rho) * scale))


def test_group_weights_scale_whole_queries():
    y = np.array([2.0, 0.0, 1.0, 1.0, 0.0])
    raw = np.array([0.1, 0.4, -0.3, 0.2, 0.0])
    obj = get_objective("LambdaMart:metric=MAP")
    g1, h1 = obj.gradient_hessian(y, raw, [0, 3, 5])
    g2, h2 = obj.gradient_hessian(y, raw, [0, 3, 5], group_weights=[1.0, 3.0])
    np.testing.assert_allclose(g2, g1 * [1, 1, 1, 3, 3])
    np.testing.assert_allclose(h2, h1 * [1, 1, 1, 3, 3])


def test_spec_parameters_and_the_metric_that_judges_it():
    assert get_objective("lambdamart").params == {"metric": "NDCG", "sigma": 1.0, "norm": True, "top": -1,
                                                  "type": "Base", "denominator": "LogPosition"}
    assert get_objective("LambdaMart").eval_spec == "NDCG"
    assert get_objective("LambdaMart:metric=DCG;top=10;type=Exp").eval_spec == "DCG:top=10;type=Exp"
    # relevant means label > 0 in the loss, so in its judge too (the catalogue's MAP and MRR default to 0.5)
    assert get_objective("LambdaMart:metric=MAP").eval_spec == "MAP:border=0"
    assert get_objective("LambdaMart:metric=MRR").eval_spec == "MRR:border=0"
    assert get_objective("LambdaMart:metric=ERR").eval_spec == "ERR"
    listed = {name: params for name, params, _ in describe_objectives()}
    # defaults that apply to some metrics only are listed with the metrics they apply to, not as "none"
    assert listed["LambdaMart"] == ("metric=NDCG, sigma=1.0, norm=true, top=all (DCG, NDCG), type=Base (DCG, NDCG), "
                                    "denominator=LogPosition (DCG, NDCG)")
    assert "decay=0.85 (PFound)" in listed["StochasticRank"] and "none" not in listed["StochasticRank"]


@pytest.mark.parametrize("spec,message", [
    ("LambdaMart:metric=PFound", "LambdaMart optimises DCG, NDCG, MRR, ERR, MAP; got 'PFound'"),
    ("LambdaMart:sigma=0", "bad value for sigma: expected a positive number, got '0'"),
    ("LambdaMart:norm=maybe", "expected true or false, got 'maybe'"),
    ("LambdaMart:type=Linear", "type=Linear is not allowed; choose one of Base, Exp"),
    ("LambdaMart:denominator=Log", "denominator=Log is not allowed; choose one of LogPosition, Position"),
    ("LambdaMart:top=0", "top must be a positive integer or -1"),
    ("LambdaMart:metric=MAP;top=3", "LambdaMart:metric=MAP has no parameter 'top' (it belongs to metric=DCG"),
    ("LambdaMart:metric=ERR;type=Exp", "LambdaMart:metric=ERR has no parameter 'type'"),
    ("LambdaMart:beta=1", "beta"),
])
def test_bad_specs_are_refused_naming_the_parameter(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        get_objective(spec)


def test_labels_outside_the_metrics_domain_are_refused():
    obj = get_objective("LambdaMart:metric=ERR")
    with pytest.raises(ValueError, match=r"LambdaMart:metric=ERR needs labels in \[0, 1\] \(probabilities\); "
                                         r"row 1 has label 2"):
        obj.gradient_hessian([0.0, 2.0], [0.0, 0.0], [0, 2])
    with pytest.raises(ValueError, match=r"LambdaMart:metric=NDCG needs labels >= 0; row 0 has label -1"):
        get_objective("LambdaMart").gradient_hessian([-1.0, 2.0], [0.0, 0.0], [0, 2])
    with pytest.raises(ValueError, match="objective LambdaMart does not read explicit pairs"):
        get_objective("LambdaMart").gradient_hessian([1.0, 0.0], [0.0, 0.0], [0, 2], pairs=[[0, 1]])


def test_gbranker_trains_it_judges_it_by_its_metric_and_ignores_row_weights():
    train = make_ltr(60, n_features=6, docs_per_query=(5, 20), random_state=0)
    test = make_ltr(40, n_features=6, docs_per_query=(5, 20), random_state=1)
    model = GBRanker("LambdaMart:metric=MAP", n_estimators=30).fit(train.X, train.y, qid=train.qid)
    assert model.objective_.eval_spec == "MAP:border=0"
    trained = evaluate(test.y, model.predict(test.X), qid=test.qid, metric="MAP:border=0")
    untrained = evaluate(test.y, np.zeros(test.n_docs), qid=test.qid, metric="MAP:border=0")
    assert trained > untrained + 0.1
    with pytest.warns(UserWarning, match="LambdaMart does not read sample_weight"):
        GBRanker("LambdaMart", n_estimators=2).fit(train.X, train.y, qid=train.qid,
                                                   sample_weight=np.linspace(0.5, 2.0, train.n_docs))


@pytest.mark.parametrize("spec, lam", [("QuerySoftMax:lambda=0", 0.0), ("QuerySoftMax:lambda=0.5;beta=2", 0.5),
                                       ("QuerySoftMax:lambda=0.01", 0.01)])  # 0.01: CatBoost's default
def test_querysoftmax_lambda_is_catboosts_hessian_term(spec, lam):
    # CatBoost's Newton leaf of a row is -grad / (hess + beta T lambda), T the query's label sum
    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(4), 6)
    y = rng.integers(0, 3, qid.size).astype(float)
    raw = rng.normal(size=qid.size)
    beta = 2.0 if "beta" in spec else 1.0
    without = "QuerySoftMax:beta=2" if "beta" in spec else "QuerySoftMax"  # the same loss, lambda at its default 0
    grad, hess = get_objective(spec).gradient_hessian(y, raw, ptr_of(qid))
    exact, exact_hess = get_objective(without).gradient_hessian(y, raw, ptr_of(qid))
    label_sum = np.repeat(np.bincount(qid, weights=y), 6)
    np.testing.assert_allclose(grad, exact)
    np.testing.assert_allclose(hess, exact_hess + beta * label_sum * lam)
    np.testing.assert_allclose(-catboost_one_row_leaves(y, qid, spec, raw, "Gradient"), grad, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(catboost_one_row_leaves(y, qid, spec, raw, "Newton"), -grad / hess, rtol=1e-4,
                               atol=1e-6)
    # the metric takes the objective's spec, and lambda leaves its value alone (as in CatBoost)
    assert evaluate(y, raw, qid=qid, metric=spec) == evaluate(y, raw, qid=qid, metric=without)



@pytest.mark.parametrize("tied", [True, False])
def test_pairlogit_at_its_defaults_has_catboosts_derivatives(tied):
    # CatBoost shifts a pairwise loss's leaves to mean 0 over the rows (a query's scores moving together leave
    # the loss alone); its Gradient leaf averages the derivative over the row's pairs, -g / (number of documents
    # of the query with another label), and its Newton leaf is -g / h
    rng = np.random.default_rng(11 + tied)
    y, qid, raw = _draw(rng, (0, 1, 2), tied)
    grad, hess = get_objective("PairLogit").gradient_hessian(y, raw, ptr_of(qid))
    n_pairs = np.array([np.sum(y[qid == qid[i]] != y[i]) for i in range(y.size)])
    has = n_pairs > 0
    assert np.array_equal(has, hess > 0)

    def centred(v):
        return v - v.mean()

    def where_paired(num, den):
        return np.where(has, num / np.where(has, den, 1.0), 0.0)

    np.testing.assert_allclose(centred(catboost_one_row_leaves(y, qid, "PairLogit", raw, "Gradient")),
                               centred(where_paired(-grad, n_pairs)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(centred(catboost_one_row_leaves(y, qid, "PairLogit", raw, "Newton")),
                               centred(where_paired(-grad, hess)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("tied", [True, False])
def test_queryrmse_gradient_is_catboosts_and_its_hessian_is_the_exact_one(tied):
    # CatBoost's Gradient leaves are -g; its Newton leaves are -g / w (hessian 1 a row), where the exact
    # hessian here is w (1 - w / W), W the query's weight: a query of n documents steps n / (n - 1) as far
    rng = np.random.default_rng(21 + tied)
    y, qid, raw = _draw(rng, (0, 1, 2), tied)
    grad, hess = get_objective("QueryRMSE").gradient_hessian(y, raw, ptr_of(qid))
    sizes = np.bincount(qid)[qid]
    np.testing.assert_allclose(hess, 1.0 - 1.0 / sizes)
    np.testing.assert_allclose(catboost_one_row_leaves(y, qid, "QueryRMSE", raw, "Gradient"), -grad,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(catboost_one_row_leaves(y, qid, "QueryRMSE", raw, "Newton"), -grad,
                               rtol=1e-5, atol=1e-6)

"""``lambda_l2="auto"``: 10 (1 at the capacity check's added levels and for averaged randomised trees), at most 750
times the mean hessian per row; on symmetric trees 0 unless that bound is below 10.

The oracle of the hessian is PairLogit's written out: at scores s, a pair (i, j) of a query adds
``σ(s_i - s_j) σ(s_j - s_i)`` to both documents, so the sum is ``Σ_pairs 2 σ(d) (1 - σ(d))``: a half per pair
at scores 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr
from metricrank.learners._gbdt import (ADDED_LEVEL_LAMBDA_L2, AUTO_LAMBDA_L2, AUTO_LAMBDA_L2_FLOOR, AUTO_MODELS,
                                       AVERAGED_LAMBDA_L2, AVERAGED_PENALTY_MIN_DOCS, HESSIAN_ROWS, MIXED_KINDS,
                                       SYMMETRIC_LAMBDA_L2, auto_lambda_l2, auto_num_leaves, symmetric_lambda_l2)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def pairlogit_mass(y, qid, scores):
    """Σ over the pairs of different labels in a query of 2 σ(d)(1 - σ(d)), d the pair's score difference."""
    total = 0.0
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        for i in rows:
            for j in rows:
                if y[i] > y[j]:
                    p = sigmoid(scores[i] - scores[j])
                    total += 2 * p * (1 - p)
    return total


def sparse_relevance(n_queries=6, docs=40, seed=0):
    """One relevant document per query of ``docs``: 39 pairs each, a mass of 19.5 per query at scores 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * docs, 4))
    y = np.zeros(n_queries * docs)
    y[::docs] = 1.0
    X[::docs, 0] += 1.0  # something to learn
    qid = np.repeat(np.arange(n_queries), docs)
    return X, y, qid


def small_mean_scores(y, qid):
    """Base scores that order every pair by a margin of about 8 (each pair's hessian about 7e-4), and PairLogit's
    mean hessian per row at them (written out)."""
    base = 8.0 * y + np.random.default_rng(1).normal(scale=0.3, size=len(y))
    return base, pairlogit_mass(y, qid, base) / len(y)


def assert_fit_takes(params, X, y, qid, base, value):
    """A PairLogit fit from ``base`` resolves "auto" to ``value``, in the booster too, and grows the trees of
    ``lambda_l2=value`` given by hand."""
    model = GBRanker("PairLogit", **params).fit(X, y, qid=qid, init_score=base)
    assert model.lambda_l2_ == pytest.approx(value, rel=1e-12)
    assert model.booster_.params["lambda_l2"] == pytest.approx(value, rel=1e-12)
    by_hand = GBRanker("PairLogit", lambda_l2=value, **params).fit(X, y, qid=qid, init_score=base)
    np.testing.assert_allclose(model.predict(X), by_hand.predict(X), rtol=1e-12)


@pytest.mark.parametrize("mean, cap, expected", [
    (None, AUTO_LAMBDA_L2, AUTO_LAMBDA_L2), (0.0141, AUTO_LAMBDA_L2, AUTO_LAMBDA_L2),
    (0.0008, AUTO_LAMBDA_L2, HESSIAN_ROWS * 0.0008), (0.0, AUTO_LAMBDA_L2, AUTO_LAMBDA_L2_FLOOR),
    (0.00003, AUTO_LAMBDA_L2, AUTO_LAMBDA_L2_FLOOR), (0.00003, ADDED_LEVEL_LAMBDA_L2, AUTO_LAMBDA_L2_FLOOR),
    (0.0005, ADDED_LEVEL_LAMBDA_L2, HESSIAN_ROWS * 0.0005), (0.002, ADDED_LEVEL_LAMBDA_L2, ADDED_LEVEL_LAMBDA_L2)])
def test_rule(mean, cap, expected):
    assert auto_lambda_l2(mean, cap) == pytest.approx(expected, rel=1e-12)


def test_the_penalty_is_at_most_750_mean_hessians_at_the_first_trees_scores():
    X, y, qid = sparse_relevance()
    zeros = pairlogit_mass(y, qid, np.zeros(len(y))) / len(y)
    assert zeros == pytest.approx(39 / 2 / 40)  # at scores 0 every pair weighs, and 750 of 0.49 is far above 10
    params = dict(num_leaves=7, n_estimators=3, min_data_in_leaf=3, n_jobs=1, random_state=0)
    assert GBRanker("PairLogit", **params).fit(X, y, qid=qid).lambda_l2_ == AUTO_LAMBDA_L2
    base, mean = small_mean_scores(y, qid)
    assert 0 < HESSIAN_ROWS * mean < 1.0
    assert_fit_takes(params, X, y, qid, base, HESSIAN_ROWS * mean)
    # a number given is kept
    given = GBRanker("PairLogit", lambda_l2=30.0, **params).fit(X, y, qid=qid, init_score=base)
    assert given.lambda_l2_ == 30.0


def test_the_penalty_is_at_least_the_floor():
    """Base scores that order every pair by a margin of 12: 750 mean hessians are about 0.009, below 0.1."""
    X, y, qid = sparse_relevance()
    base = 12.0 * y
    mean = pairlogit_mass(y, qid, base) / len(y)
    assert 0 < HESSIAN_ROWS * mean < AUTO_LAMBDA_L2_FLOOR / 5
    model = GBRanker("PairLogit", num_leaves=7, n_estimators=2, min_data_in_leaf=3, n_jobs=1,
                     random_state=0).fit(X, y, qid=qid, init_score=base)
    assert model.lambda_l2_ == AUTO_LAMBDA_L2_FLOOR == model.booster_.params["lambda_l2"]


def test_the_penalty_does_not_depend_on_the_data_size():
    """The mean of a query subset is the whole set's on average: twice the queries, the same penalty."""
    from metricrank.objectives import get_objective
    from metricrank.objectives._base import as_training_data

    X, y, qid = sparse_relevance(n_queries=6)
    X2, y2, qid2 = sparse_relevance(n_queries=12)
    base, base2 = 8.0 * y, 8.0 * y2  # the same margin in every query
    params = dict(n_estimators=2, min_data_in_leaf=3, n_jobs=1, random_state=0)
    small = GBRanker("PairLogit", **params).fit(X, y, qid=qid, init_score=base)
    large = GBRanker("PairLogit", **params).fit(X2, y2, qid=qid2, init_score=base2)
    assert small.num_leaves_ == large.num_leaves_ and small.lambda_l2_ < 1.0
    assert small.lambda_l2_ == pytest.approx(large.lambda_l2_, rel=1e-12)
    _, hess = get_objective("PairLogit").bind(as_training_data(y2, np.arange(0, 481, 40)), 0)(base2)
    assert large.lambda_l2_ == pytest.approx(HESSIAN_ROWS * hess.mean(), rel=1e-12)


def test_yetirank_draws_in_training_are_not_disturbed():
    """The hessian comes from a binding of its own: where the bound does not bind, "auto" is exactly 10."""
    data = make_ltr(150, docs_per_query=(10, 20), n_features=5, random_state=0)
    auto = LambdaMART("NDCG:top=10", n_estimators=8, n_jobs=1, random_state=3).fit(data)
    assert auto.lambda_l2_ == AUTO_LAMBDA_L2
    ten = LambdaMART("NDCG:top=10", n_estimators=8, lambda_l2=AUTO_LAMBDA_L2, n_jobs=1, random_state=3).fit(data)
    np.testing.assert_array_equal(auto.predict(data.X), ten.predict(data.X))


def test_long_lists_with_few_relevant_documents_take_the_bound():
    """YetiRank on queries of 300 documents with one or two relevant: a mean hessian far below 10 / 750."""
    from metricrank.objectives import get_objective
    from metricrank.objectives._base import as_training_data

    data = make_ltr(12, docs_per_query=300, n_features=5, n_labels=3, label_probs=[0.99, 0.007, 0.003],
                    random_state=0)
    model = LambdaMART("MAP", n_estimators=3, n_jobs=1, random_state=5).fit(data)
    _, hess = get_objective("YetiRank").bind(as_training_data(data.y, data.group_ptr), 5)(np.zeros(data.n_docs))
    assert 0 < model.lambda_l2_ < 1.0
    assert model.lambda_l2_ == pytest.approx(HESSIAN_ROWS * hess.mean(), rel=1e-12)
    assert model.booster_.params["lambda_l2"] == pytest.approx(model.lambda_l2_, rel=1e-12)


def test_querysoftmax_keeps_the_cap_where_its_mean_hessian_is_small():
    """QuerySoftMax spreads a query's hessian over all its documents (written out: T p_i (1 - p_i), T the
    query's label sum, p its softmax; at scores 0 and one relevant document in 300 a mean of 299/300², 750 of
    which are 2.5): ``lambda_l2="auto"`` keeps 10 for it, while YetiRank on the same data takes the bound."""
    X, y, qid = sparse_relevance(n_queries=6, docs=300)
    mean = 300 * (1 / 300) * (1 - 1 / 300) / 300  # a query's hessian over its rows
    assert HESSIAN_ROWS * mean < 3.0
    from metricrank.objectives import get_objective

    _, hess = get_objective("QuerySoftMax").gradient_hessian(y, np.zeros(len(y)), np.arange(0, len(y) + 1, 300))
    assert hess.mean() == pytest.approx(mean, rel=1e-12)  # the oracle is the objective's hessian
    params = dict(num_leaves=7, n_estimators=3, min_data_in_leaf=3, n_jobs=1, random_state=0)
    model = GBRanker("QuerySoftMax", **params).fit(X, y, qid=qid)
    assert model.lambda_l2_ == AUTO_LAMBDA_L2
    assert model.booster_.params["lambda_l2"] == AUTO_LAMBDA_L2
    assert GBRanker("YetiRank", **params).fit(X, y, qid=qid).lambda_l2_ < AUTO_LAMBDA_L2


def test_the_capacity_check_bounds_its_added_levels():
    """The check's trials: the rule's trees and the added level, each with "auto" bounded by the mean hessian."""
    from metricrank.objectives import get_objective
    from metricrank.objectives._base import as_training_data

    data = make_ltr(110, docs_per_query=300, n_features=5, n_labels=2, label_probs=[0.99, 0.01],
                    relevance="nonlinear", random_state=0)
    assert data.n_docs >= 30_000 and data.n_queries >= 100  # where the check runs
    model = LambdaMART("NDCG:top=10", grow_policy="leafwise", n_estimators=3, n_jobs=1, random_state=2).fit(data)
    _, hess = get_objective("YetiRank").bind(as_training_data(data.y, data.group_ptr), 2)(np.zeros(data.n_docs))
    trials = model.capacity_check_.trials
    assert [t["num_leaves"] for t in trials[:2]] == [15, 31]
    assert AUTO_LAMBDA_L2_FLOOR < HESSIAN_ROWS * hess.mean() < ADDED_LEVEL_LAMBDA_L2  # bound below both caps
    for trial in trials[:2]:
        assert trial["lambda_l2"] == pytest.approx(HESSIAN_ROWS * hess.mean(), rel=1e-12)


def test_randomised_trees_averaged_over_several_models_take_the_smaller_cap():
    """YetiRank averages four models of randomised trees, from 30,000 training documents of 15 leaves: "auto" is
    then 1 (in the booster too), and 10 again with one model or without randomised splits; 1 with 7 leaves too
    (from 5,000 documents the leaves do not matter). Fewer than 100 queries: no check."""
    data = make_ltr(60, docs_per_query=520, n_features=5, random_state=0)
    assert auto_num_leaves(data.n_docs) == 15 and data.n_queries < 100
    # leaf-wise trees ("auto" grows completed symmetric ones beside them from 30,000 documents, whose penalty is 0 here)
    params = dict(n_estimators=2, grow_policy="leafwise", n_jobs=1, random_state=0)
    averaged = LambdaMART("MAP", **params).fit(data)
    assert (averaged.n_models_, averaged.extra_trees_, averaged.capacity_check_) == (AUTO_MODELS, True, None)
    assert averaged.lambda_l2_ == AVERAGED_LAMBDA_L2 == averaged.booster_.params["lambda_l2"] < AUTO_LAMBDA_L2
    assert LambdaMART("MAP", n_models=1, **params).fit(data).lambda_l2_ == AUTO_LAMBDA_L2
    assert LambdaMART("MAP", extra_trees=False, **params).fit(data).lambda_l2_ == AUTO_LAMBDA_L2
    seven = LambdaMART("MAP", num_leaves=7, **params).fit(data)  # from 5,000 documents, whatever the leaves
    assert (seven.n_models_, seven.extra_trees_, seven.lambda_l2_) == (AUTO_MODELS, True, AVERAGED_LAMBDA_L2)


def test_the_size_rules_seven_averaged_leaves_take_the_smaller_cap_from_five_thousand_documents():
    """Four averaged models of 7 randomised leaves: 10 below AVERAGED_PENALTY_MIN_DOCS training documents, 1 from
    there (LambdaMART's and GBRanker's fits alike); one model keeps 10."""
    data = make_ltr(100, docs_per_query=AVERAGED_PENALTY_MIN_DOCS // 100, n_features=5, random_state=0)
    below = data.subset_queries(np.arange(99))
    assert (below.n_docs, data.n_docs) == (AVERAGED_PENALTY_MIN_DOCS - 50, AVERAGED_PENALTY_MIN_DOCS)
    params = dict(n_estimators=2, n_jobs=1, random_state=0)
    for make in (lambda: LambdaMART("MAP", **params), lambda: GBRanker("YetiRank", **params)):
        small, large = make().fit(below), make().fit(data)
        assert (small.num_leaves_, small.extra_trees_, small.n_models_) == (7, True, AUTO_MODELS)
        assert (large.num_leaves_, large.extra_trees_, large.n_models_) == (7, True, AUTO_MODELS)
        assert small.lambda_l2_ == AUTO_LAMBDA_L2 == small.booster_.params["lambda_l2"]
        assert large.lambda_l2_ == AVERAGED_LAMBDA_L2 == large.booster_.params["lambda_l2"]
    assert LambdaMART("MAP", n_models=1, **params).fit(data).lambda_l2_ == AUTO_LAMBDA_L2


@pytest.mark.parametrize("mean, expected", [
    (None, SYMMETRIC_LAMBDA_L2), (0.0141, SYMMETRIC_LAMBDA_L2), (AUTO_LAMBDA_L2 / HESSIAN_ROWS, SYMMETRIC_LAMBDA_L2),
    (0.0008, HESSIAN_ROWS * 0.0008), (0.00003, AUTO_LAMBDA_L2_FLOOR), (0.0, AUTO_LAMBDA_L2_FLOOR)])
def test_symmetric_rule(mean, expected):
    assert symmetric_lambda_l2(mean) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("grow_policy", ["symmetric", "symmetric_then_leafwise"])
def test_symmetric_trees_take_the_bound_only_where_it_binds(grow_policy):
    """No penalty where 750 mean hessians exceed 10 (scores 0: a mean of 0.49); the leaf-wise bound where they do not."""
    X, y, qid = sparse_relevance()
    params = dict(grow_policy=grow_policy, max_depth=3, n_estimators=3, min_data_in_leaf=3, n_jobs=1, random_state=0)
    plain = GBRanker("PairLogit", **params).fit(X, y, qid=qid)
    assert plain.lambda_l2_ == SYMMETRIC_LAMBDA_L2 == plain.booster_.params["lambda_l2"]
    base, mean = small_mean_scores(y, qid)
    assert 0 < HESSIAN_ROWS * mean < 1.0
    assert_fit_takes(params, X, y, qid, base, HESSIAN_ROWS * mean)


def test_mixed_trees_give_both_kinds_the_bound_where_it_binds():
    """Both kinds of ``"mixed"`` take 750 mean hessians where that is below 10; the symmetric kind 0 elsewhere."""
    X, y, qid = sparse_relevance()
    params = dict(grow_policy="mixed", n_estimators=3, min_data_in_leaf=3, n_jobs=1, random_state=0)
    plain = GBRanker("PairLogit", **params).fit(X, y, qid=qid)
    assert [kind.lambda_l2 for kind in plain.kinds_] == [SYMMETRIC_LAMBDA_L2, AUTO_LAMBDA_L2]
    base, mean = small_mean_scores(y, qid)
    model = GBRanker("PairLogit", **params).fit(X, y, qid=qid, init_score=base)
    assert [kind.grow_policy for kind in model.kinds_] == list(MIXED_KINDS)
    for kind in model.kinds_:
        assert kind.lambda_l2 == pytest.approx(HESSIAN_ROWS * mean, rel=1e-12)

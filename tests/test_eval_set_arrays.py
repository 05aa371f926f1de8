"""An eval set's curve reads everything its RankingDataset holds, as ``evaluate`` and ``score`` do.

Row weights (QueryRMSE, PairAccuracy), query weights (MRR), explicit weighted pairs (PairAccuracy) and
doc ids (the order of tied scores under ``ties=docid``, trec_eval's; early trees tie plenty) all change a
metric's value.
The curve after tree (or epoch) k must equal ``evaluate`` of the model's own prediction with k trees on
the same data set, so that early stopping, ``best_score_`` and ``score`` judge one number.
"""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, RankingDataset, evaluate, make_ltr

SPECS = ["QueryRMSE", "PairAccuracy", "MRR", "NDCG:top=5;ties=docid"]


@pytest.fixture(scope="module")
def data():
    train = make_ltr(60, n_features=6, docs_per_query=(4, 16), random_state=0)
    plain = make_ltr(40, n_features=6, docs_per_query=(4, 16), random_state=1)
    rng = np.random.default_rng(2)
    pairs = []
    for q in range(plain.n_queries):  # a few pairs per query, some against the labels' order
        lo, hi = plain.group_ptr[q], plain.group_ptr[q + 1]
        pairs += [rng.choice(np.arange(lo, hi), 2, replace=False) for _ in range(3)]
    pairs = np.asarray(pairs)
    rich = RankingDataset(plain.X, plain.y, group_ptr=plain.group_ptr, weight=rng.uniform(0.1, 3.0, plain.n_docs),
                          group_weight=rng.uniform(0.1, 3.0, plain.n_queries), pairs=pairs,
                          pair_weight=rng.uniform(0.1, 3.0, len(pairs)),
                          doc_ids=rng.permutation(plain.n_docs).astype(str))
    return train, plain, rich


def _curve_matches_evaluate(model, ds, name="valid_0"):
    for spec in SPECS:
        curve = model.evals_result_[name][spec]
        expected = [evaluate(ds, model.predict(ds.X, num_iteration=k), metric=spec) for k in range(1, len(curve) + 1)]
        np.testing.assert_allclose(curve, expected, rtol=0, atol=1e-12, err_msg=spec)


@pytest.mark.parametrize("cls, objective", [(GBRanker, "YetiRank"), (LambdaMART, "MAP")])
def test_a_boosted_rankers_curve_reads_the_eval_sets_weights_pairs_and_doc_ids(data, cls, objective):
    train, plain, rich = data
    model = cls(objective, n_estimators=6, n_jobs=1, random_state=0).fit(
        train, eval_set=[rich, plain], eval_names=["rich", "plain"], eval_metrics=SPECS)
    _curve_matches_evaluate(model, rich, "rich")
    _curve_matches_evaluate(model, plain, "plain")
    for spec in SPECS:  # the arrays change every metric here, so the check above can tell them read from ignored
        assert model.evals_result_["rich"][spec] != model.evals_result_["plain"][spec], spec
    assert model.score(rich, metric="PairAccuracy") == pytest.approx(model.evals_result_["rich"]["PairAccuracy"][-1],
                                                                     abs=1e-12)


def test_early_stopping_reads_the_weighted_curve(data):
    train, plain, _ = data
    weighted = RankingDataset(plain.X, plain.y, group_ptr=plain.group_ptr,
                              weight=np.random.default_rng(0).uniform(0.1, 3.0, plain.n_docs))
    model = GBRanker("YetiRank", n_estimators=30, learning_rate=0.5, n_jobs=1, random_state=0).fit(
        train, eval_set=[weighted], eval_metrics=["PairAccuracy"], early_stopping_rounds=30)
    curves = {ds: [evaluate(ds, model.predict(plain.X, num_iteration=k), metric="PairAccuracy")
                   for k in range(1, model.n_estimators_ + 1)] for ds in (weighted, plain)}
    best = {ds: int(np.argmax(curve)) + 1 for ds, curve in curves.items()}
    assert best[weighted] != best[plain], "the weights no longer move the best tree count: the test cannot tell"
    assert model.best_iteration_ == best[weighted]


def test_a_nets_curve_reads_the_eval_sets_weights_pairs_and_doc_ids(data):
    pytest.importorskip("torch")
    from metricrank.learners import RankNet

    train, plain, rich = data
    model = RankNet(max_epochs=3, random_state=0).fit(train, eval_set=[rich, plain], eval_names=["rich", "plain"],
                                                      eval_metrics=SPECS)
    for spec in SPECS:
        assert model.evals_result_["rich"][spec][-1] == pytest.approx(
            evaluate(rich, model.predict(rich.X), metric=spec), abs=1e-12), spec
        assert model.evals_result_["rich"][spec][-1] != model.evals_result_["plain"][spec][-1], spec

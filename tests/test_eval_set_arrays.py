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
    # one model: four averaged ones smooth the curves until the weights no longer move the best tree here
    params = dict(n_estimators=30, learning_rate=0.5, n_models=1, n_jobs=1, random_state=0)
    model = GBRanker("YetiRank", **params).fit(train, eval_set=[weighted], eval_metrics=["PairAccuracy"],
                                               early_stopping_rounds=30)
    full = GBRanker("YetiRank", **params).fit(train)  # the same trees, every one kept
    curves = {ds: [evaluate(ds, full.predict(plain.X, num_iteration=k), metric="PairAccuracy")
                   for k in range(1, 31)] for ds in (weighted, plain)}
    best = {ds: int(np.argmax(curve)) + 1 for ds, curve in curves.items()}
    assert best[weighted] != best[plain], "the weights no longer move the best tree count: the test cannot tell"
    assert model.best_iteration_ == best[weighted]
    np.testing.assert_array_equal(model.predict(plain.X), full.predict(plain.X, num_iteration=best[weighted]))


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


# eval_sample_weight / eval_group_weight: LightGBM's fit argument, and the query weights beside it ----------------


def _weights(ds, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.1, 3.0, ds.n_docs), rng.uniform(0.1, 3.0, ds.n_queries)


@pytest.mark.filterwarnings("ignore:.*(are|is) ignored:UserWarning")  # each weight is read by one of the metrics
def test_eval_weights_of_an_array_entry_are_its_rows_and_queries_weights(data):
    train, plain, _ = data
    w, gw = _weights(plain)
    specs = ["QueryRMSE", "MRR"]  # one reads the row weights, the other the query weights
    model = GBRanker("YetiRank", n_estimators=4, n_jobs=1, random_state=0).fit(
        train, eval_set=[(plain.X, plain.y, plain.qid), (plain.X, plain.y, plain.qid)], eval_names=["w", "none"],
        eval_sample_weight=[w, None], eval_group_weight=[gw, None], eval_metrics=specs)
    for spec in specs:
        expected = [evaluate(plain.y, model.predict(plain.X, num_iteration=k), qid=plain.qid, metric=spec,
                             weights=w, group_weights=gw) for k in range(1, 5)]
        np.testing.assert_allclose(model.evals_result_["w"][spec], expected, rtol=0, atol=1e-12, err_msg=spec)
        assert model.evals_result_["w"][spec] != model.evals_result_["none"][spec], spec


@pytest.mark.parametrize("spec, arg, why", [
    ("NDCG:top=10", "eval_sample_weight", "NDCG reads no per-row weights"),  # LightGBM's NDCG would read them
    ("MAP", "eval_group_weight", "MAP reads no per-query weights"),
    ("AUC:type=Ranking", "eval_sample_weight", "AUC reads them only with use_weights=true")])
def test_eval_weights_no_eval_metric_reads_are_warned_at_the_fit_call(data, spec, arg, why):
    train, plain, _ = data
    w, gw = _weights(plain)
    given = {"eval_sample_weight": [w], "eval_group_weight": [gw]}[arg]
    with pytest.warns(UserWarning, match=f"eval metric {spec}: {arg} is ignored: {why}") as record:
        GBRanker("YetiRank", n_estimators=2, n_jobs=1).fit(train, eval_set=[(plain.X, plain.y, plain.qid)],
                                                           eval_metrics=[spec], **{arg: given})
    assert {r.filename for r in record if arg in str(r.message)} == {__file__}


def test_eval_weights_a_metric_reads_draw_no_warning(data, recwarn):
    train, plain, _ = data
    w, gw = _weights(plain)
    GBRanker("YetiRank", n_estimators=2, n_jobs=1).fit(train, eval_set=[(plain.X, plain.y, plain.qid)],
                                                       eval_metrics=["PairAccuracy"], eval_sample_weight=[w],
                                                       eval_group_weight=[gw])
    assert not [r for r in recwarn if "ignored" in str(r.message)]


def test_eval_weights_are_refused_beside_a_dataset_and_in_the_wrong_number(data):
    train, plain, rich = data
    w, _ = _weights(plain)
    with pytest.raises(ValueError, match=r"eval_set\[0\] is a RankingDataset, which holds its own queries and "
                                         r"weights; eval_sample_weight\[0\] must be None"):
        GBRanker("YetiRank", n_estimators=2, n_jobs=1).fit(train, eval_set=[rich], eval_sample_weight=[w])
    with pytest.raises(ValueError, match="eval_group_weight has 2 entries and eval_set 1"):
        GBRanker("YetiRank", n_estimators=2, n_jobs=1).fit(train, eval_set=[(plain.X, plain.y, plain.qid)],
                                                           eval_group_weight=[None, None])
    with pytest.raises(ValueError, match=r"eval_set\[0\]: weight must be finite and >= 0; entry 0 is -"):
        GBRanker("YetiRank", n_estimators=2, n_jobs=1).fit(train, eval_set=[(plain.X, plain.y, plain.qid)],
                                                           eval_sample_weight=[-w])


def test_query_ids_given_twice_for_an_eval_set_must_agree(data):
    # an (X, y, qid) entry or a RankingDataset holds its queries: eval_qid or eval_group beside it is not ignored
    train, plain, rich = data
    model = LambdaMART("NDCG:top=5", n_estimators=3, n_jobs=1, min_data_in_leaf=5)
    one_query = np.zeros(plain.n_docs)
    with pytest.raises(ValueError, match=r"eval_set\[0\] is \(X, y, qid\) and eval_qid\[0\] gives other query ids"):
        model.fit(train, eval_set=[(plain.X, plain.y, plain.qid)], eval_qid=[one_query])
    for arg, value in (("eval_qid", plain.qid), ("eval_group", np.diff(plain.group_ptr))):
        with pytest.raises(ValueError, match=rf"eval_set\[0\] is a RankingDataset, which holds its own queries and "
                                             rf"weights; {arg}\[0\] must be None"):
            model.fit(train, eval_set=[rich], **{arg: [value]})
    same = model.fit(train, eval_set=[(plain.X, plain.y, plain.qid)], eval_qid=[plain.qid.copy()]).evals_result_
    assert same == model.fit(train, eval_set=[(plain.X, plain.y, plain.qid)]).evals_result_


@pytest.mark.filterwarnings("ignore:.*are ignored:UserWarning")  # the oracle passes both weights to both metrics
@pytest.mark.filterwarnings("ignore:eval metric QueryRMSE.*is ignored:UserWarning")
def test_a_nets_eval_weights_are_read_as_the_trees_are(data):
    pytest.importorskip("torch")
    from metricrank.learners import LambdaRank

    train, plain, _ = data
    w, gw = _weights(plain)
    with pytest.warns(UserWarning, match="eval metric NDCG:top=10: eval_sample_weight is ignored") as record:
        model = LambdaRank(max_epochs=2, random_state=0).fit(
            train, eval_set=[(plain.X, plain.y, plain.qid)], eval_sample_weight=[w], eval_group_weight=[gw],
            eval_metrics=["NDCG:top=10", "QueryRMSE"])
    assert {r.filename for r in record if "ignored" in str(r.message)} == {__file__}
    for spec in ("NDCG:top=10", "QueryRMSE"):
        assert model.evals_result_["valid_0"][spec][-1] == pytest.approx(evaluate(
            plain.y, model.predict(plain.X), qid=plain.qid, metric=spec, weights=w, group_weights=gw), abs=1e-12)

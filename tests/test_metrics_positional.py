"""Position-based metrics against CatBoost, pytrec_eval, written formulas and properties."""

from math import log2

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricrank.metrics import evaluate, get_metric

catboost_utils = pytest.importorskip("catboost.utils")

CATBOOST_SPECS = [
    "NDCG", "NDCG:top=3", "NDCG:type=Exp;top=5", "NDCG:denominator=Position", "DCG",
    "DCG:top=2;type=Exp", "MAP", "MAP:top=3", "MAP:top=2;border=2", "MAP:use_weights=false", "MRR",
    "MRR:top=3;border=1", "PrecisionAt:top=3", "PrecisionAt", "PrecisionAt:top=2;use_weights=false", "RecallAt:top=4",
    "RecallAt:top=3;use_weights=false", "AverageGain:top=3", "QueryAverage:top=2", "PFound",
    "PFound:top=3;decay=0.5", "ERR", "ERR:top=3", "FilteredDCG",
    "FilteredDCG:type=Exp;denominator=LogPosition",
]
PROBABILITY_LABELS = ("PFound", "ERR")


def random_queries(seed, max_queries=8, max_size=12, n_labels=5):
    """Queries with tied scores, tied labels, single documents and all-equal labels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size, size=rng.integers(1, max_queries))
    qid = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, n_labels, size=qid.size).astype(float)
    y[: sizes[0]] = y[0]  # first query: all labels equal
    score = np.round(rng.normal(size=qid.size), 1)  # one decimal: many ties
    # CatBoost stores weights as float32: use float32-exact values.
    group_w = rng.integers(1, 12, size=sizes.size) / 4
    return y, score, qid, group_w, sizes


@pytest.mark.filterwarnings("ignore:.* are ignored:UserWarning")  # MAP and PrecisionAt read no query weight
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("spec", CATBOOST_SPECS)
def test_matches_catboost(spec, seed):
    y, score, qid, group_w, sizes = random_queries(seed)
    if spec.startswith(PROBABILITY_LABELS):
        y = y / 4
    expected = catboost_utils.eval_metric(y, score, spec, group_id=qid)[0]
    assert evaluate(y, score, qid=qid, metric=spec) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    if not spec.startswith("FilteredDCG"):  # CatBoost rejects weights for FilteredDCG
        row_gw = np.repeat(group_w, sizes)
        expected = catboost_utils.eval_metric(y, score, spec, group_id=qid, group_weight=row_gw)[0]
        got = evaluate(y, score, qid=qid, metric=spec, group_weights=group_w)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.filterwarnings("ignore:.* are ignored:UserWarning")  # what this test shows
def test_map_precision_and_recall_take_catboosts_use_weights_and_weight_no_query_as_catboost():
    y, score, qid, group_w, sizes = random_queries(3)
    for spec in ("MAP", "PrecisionAt:top=2", "RecallAt:top=3"):
        plain = evaluate(y, score, qid=qid, metric=spec)
        for flag in ("true", "false"):
            assert evaluate(y, score, qid=qid, metric=f"{spec}{';' if ':' in spec else ':'}use_weights={flag}",
                            group_weights=group_w) == plain


def test_ndcg_formula_with_pessimistic_ties():
    # Scores tie for the last two documents: CatBoost puts the lower label first.
    y, s = [0, 1, 2], [1.0, 1.0, 1.0]
    dcg = 0 / log2(2) + 1 / log2(3) + 2 / log2(4)
    ideal = 2 / log2(2) + 1 / log2(3) + 0 / log2(4)
    assert evaluate(y, s, metric="NDCG") == pytest.approx(dcg / ideal)
    assert evaluate(y, s, metric="NDCG:ties=optimistic") == pytest.approx(1.0)
    stable = (0 + 1 / log2(3) + 2 / log2(4)) / ideal
    assert evaluate(y, s, metric="NDCG:ties=stable") == pytest.approx(stable)


def test_exp_gain_and_position_discount():
    y, s = [3, 0, 1], [0.9, 0.5, 0.7]  # ranked labels 3, 1, 0
    assert evaluate(y, s, metric="DCG:type=Exp") == pytest.approx(7 + 1 / log2(3))
    assert evaluate(y, s, metric="DCG:denominator=Position") == pytest.approx(3 + 1 / 2)
    assert evaluate(y, s, metric="dcg@1") == pytest.approx(3.0)


def test_map_denominators():
    # ranked labels 1, 0, 1, 1, 0, 2 -> relevant at 1, 3, 4, 6 (R = 4)
    y = [1, 0, 1, 1, 0, 2]
    s = [6, 5, 4, 3, 2, 1]
    p_hits = [1 / 1, 2 / 3, 3 / 4, 4 / 6]
    assert evaluate(y, s, metric="MAP") == pytest.approx(sum(p_hits) / 4)
    assert evaluate(y, s, metric="MAP:top=3") == pytest.approx((1 + 2 / 3) / 3)  # min(R, 3)
    assert evaluate(y, s, metric="MAP:top=3;norm=retrieved") == pytest.approx((1 + 2 / 3) / 2)
    assert evaluate(y, s, metric="MAP:top=3;norm=all") == pytest.approx((1 + 2 / 3) / 4)


def test_err_graded_burges():
    # Burges: R = (2^l - 1) / 2^l_max with l_max the top grade of the label scale.
    y, s = [2, 1, 0], [3, 2, 1]
    r = [(2**2 - 1) / 4, (2**1 - 1) / 4, 0.0]
    expected = r[0] + (1 - r[0]) * r[1] / 2 + (1 - r[0]) * (1 - r[1]) * r[2] / 3
    assert evaluate(y, s, metric="ERR:type=Graded;max_label=2") == pytest.approx(expected)
    r4 = [(2**2 - 1) / 16, (2**1 - 1) / 16]
    expected4 = r4[0] + (1 - r4[0]) * r4[1] / 2
    assert evaluate(y, s, metric="ERR:type=Graded;max_label=4") == pytest.approx(expected4)
    # default: the 0-4 scale, not the data's maximum (2 here)
    assert evaluate(y, s, metric="ERR:type=Graded") == pytest.approx(expected4)


def test_err_graded_query_value_independent_of_other_queries():
    y, s = [2, 1, 0], [3, 2, 1]
    alone = evaluate(y, s, metric="ERR:type=Graded", per_query=True)
    with_other = evaluate(y + [4, 0], s + [1, 2], qid=[1, 1, 1, 2, 2], metric="ERR:type=Graded",
                          per_query=True)
    assert with_other[0] == pytest.approx(alone[0])


def test_err_graded_label_above_max_label_names_metric_and_label():
    with pytest.raises(ValueError, match=r"ERR:type=Graded has max_label=4 but row 1 has label 5"):
        evaluate([0, 5], [0.1, 0.2], metric="ERR:type=Graded")
    with pytest.raises(ValueError, match="max_label >= 0"):
        evaluate([0, 1], [0.1, 0.2], metric="ERR:type=Graded;max_label=-1")


def test_huge_labels_never_nan_nor_overflow():
    # ERR: R = 2^(l - l_max) - 2^-l_max, no 2^l formed: label 1500 of a 0-1500 scale is R ~ 1
    value = evaluate([1500, 0], [0.2, 0.1], metric="ERR:type=Graded;max_label=1500")
    assert value == pytest.approx(1.0)
    value = evaluate([1499, 0], [0.2, 0.1], metric="ERR:type=Graded;max_label=1500")
    assert value == pytest.approx(0.5)
    for metric in ("NDCG:type=Exp", "DCG:type=Exp", "FilteredDCG:type=Exp"):
        with pytest.raises(ValueError, match=metric.replace(":", ":") + r": label 1024 \(row 1\)"):
            evaluate([0, 1024, 1], [0.1, 0.2, 0.3], metric=metric)
    # type=Base takes any label
    assert np.isfinite(evaluate([0, 1024, 1], [0.1, 0.2, 0.3], metric="NDCG"))


def test_empty_query_conventions():
    y, s, qid = [0, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], [1, 1, 2, 2]
    # query 1 has no relevant document
    assert evaluate(y, s, qid=qid, metric="NDCG", per_query=True)[0] == 1.0
    assert evaluate(y, s, qid=qid, metric="NDCG:empty=0") == pytest.approx((0 + 1 / log2(3)) / 2)
    assert evaluate(y, s, qid=qid, metric="NDCG:empty=skip") == pytest.approx(1 / log2(3))
    assert evaluate(y, s, qid=qid, metric="MAP", per_query=True)[0] == 0.0
    assert evaluate(y, s, qid=qid, metric="MAP", preset="lightgbm", per_query=True)[0] == 1.0
    assert evaluate(y, s, qid=qid, metric="RecallAt:top=1", per_query=True)[0] == 1.0
    per_q = evaluate(y, s, qid=qid, metric="MRR:empty=skip", per_query=True)
    assert np.isnan(per_q[0]) and per_q[1] == 0.5


def test_single_document_queries():
    y, s, qid = [2, 0, 1], [0.3, 0.1, 0.2], [1, 2, 3]
    assert evaluate(y, s, qid=qid, metric="NDCG", per_query=True).tolist() == [1.0, 1.0, 1.0]
    assert evaluate(y, s, qid=qid, metric="MAP", per_query=True).tolist() == [1.0, 0.0, 1.0]


def test_filtered_dcg_keeps_non_negative_scores_in_input_order():
    y, s = [1, 0, 1, 1, 0, 2], [0.9, 0.0, 0.7, -0.6, 0.5, 0.4]
    # kept: rows 0, 1, 2, 4, 5 -> positions 1..5
    assert evaluate(y, s, metric="FilteredDCG") == pytest.approx(1 / 1 + 0 + 1 / 3 + 0 + 2 / 5)


def _trec_eval_case(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=rng.integers(1, 8))
    qid = np.repeat(np.arange(sizes.size), sizes)
    y = rng.integers(0, 3, size=qid.size)
    y[: sizes[0]] = 0  # a query without relevant documents
    score = np.round(rng.normal(size=qid.size), 1)
    ids = np.array([f"d{i:07d}" for i in rng.permutation(10**6)[: qid.size]])
    return y, score, qid, ids


@pytest.mark.parametrize("seed", range(20))
def test_trec_eval_preset_matches_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, score, qid, ids = _trec_eval_case(seed)
    qrels, run = {}, {}
    for i in range(y.size):
        qrels.setdefault(str(qid[i]), {})[ids[i]] = int(y[i])
        run.setdefault(str(qid[i]), {})[ids[i]] = float(score[i])
    measures = {"ndcg", "ndcg_cut.3,10", "map", "map_cut.5", "recip_rank", "P.5", "recall.5"}
    res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    pairs = [("ndcg", "NDCG"), ("ndcg_cut_3", "ndcg@3"), ("ndcg_cut_10", "NDCG:top=10"),
             ("map", "MAP"), ("map_cut_5", "MAP:top=5"), ("recip_rank", "MRR"),
             ("P_5", "p@5"), ("recall_5", "recall@5")]
    for key, spec in pairs:
        expected = [res[str(q)][key] for q in range(qid.max() + 1)]
        got = evaluate(y, score, qid=qid, metric=spec, preset="trec_eval", doc_ids=ids, per_query=True)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=spec)


def test_lightgbm_preset_matches_lightgbm_metric():
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(3)
    sizes = rng.integers(2, 20, size=30)
    n = sizes.sum()
    y = rng.integers(0, 4, size=n)
    y[: sizes[0]] = 0
    score = np.round(rng.normal(size=n), 1)
    X = rng.normal(size=(n, 2))
    # Zero gradients give a tree that adds nothing to init_score, so LightGBM
    # evaluates its own metrics on `score` itself.
    train = lgb.Dataset(X, y, group=sizes, init_score=score)

    def zero_objective(preds, data):
        return np.zeros_like(preds), np.ones_like(preds)

    params = {"objective": zero_objective, "metric": ["ndcg", "map"], "eval_at": [3, 10],
              "verbosity": -1, "num_threads": 1}
    record = {}
    lgb.train(params, train, num_boost_round=1, valid_sets=[train], valid_names=["t"],
              callbacks=[lgb.record_evaluation(record)])
    for k in (3, 10):
        assert evaluate(y, score, group=sizes, metric=f"ndcg@{k}", preset="lightgbm") == pytest.approx(
            record["t"][f"ndcg@{k}"][0], rel=1e-6)
        assert evaluate(y, score, group=sizes, metric=f"map@{k}", preset="lightgbm") == pytest.approx(
            record["t"][f"map@{k}"][0], rel=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(-50, 50)), min_size=1, max_size=30),
       st.sampled_from(["NDCG", "NDCG:top=5;type=Exp", "MAP", "MRR", "PrecisionAt:top=3",
                        "RecallAt:top=3", "ERR:type=Graded"]))
def test_bounded_and_invariant_to_monotone_transforms(rows, spec):
    y = np.array([r[0] for r in rows], float)
    s = np.array([r[1] for r in rows], float)
    value = evaluate(y, s, metric=spec)
    assert -1e-12 <= value <= 1 + 1e-12
    # a strictly increasing transform (distinct in float64 on this grid) keeps order and ties
    assert evaluate(y, np.exp(s / 10) * 3 + 1, metric=spec) == pytest.approx(value, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=30))
def test_perfect_ranking_scores_one(labels):
    y = np.array(labels, float)
    for spec in ("NDCG", "NDCG:top=3;type=Exp", "MAP:empty=1", "MRR:empty=1"):
        assert evaluate(y, y, metric=spec) == pytest.approx(1.0)


def test_label_domain_errors_name_the_metric():
    with pytest.raises(ValueError, match=r"ERR:type=Probability needs labels .* in \[0, 1\].*use ERR:type=Graded"):
        evaluate([0, 2], [0.1, 0.2], metric="ERR")
    with pytest.raises(ValueError, match="PFound needs labels"):
        evaluate([0, 1.5], [0.1, 0.2], metric="PFound")
    with pytest.raises(ValueError, match="ERR:type=Graded needs graded labels"):
        evaluate([0, -1], [0.1, 0.2], metric="ERR:type=Graded")


def test_pfound_decay_is_a_probability():
    # PFound = sum over ranks of look * rel, look *= (1 - rel) * decay: a decay above 1 let it pass 1 (1.5 here)
    y, s = [0.5, 1.0], [0.2, 0.1]
    assert evaluate(y, s, metric="PFound:decay=1") == pytest.approx(0.5 + 0.5 * 1.0)
    assert evaluate(y, s, metric="PFound:decay=0") == pytest.approx(0.5)
    for bad in ("2", "-0.1"):
        message = rf"PFound: bad value for decay: expected a number in \[0, 1\], got '{bad}'"
        with pytest.raises(ValueError, match=message):
            evaluate(y, s, metric=f"PFound:decay={bad}")


def test_ndcg_refuses_negative_labels_and_dcg_sums_them():
    # labels 1, -2, 0 ranked -2, 1, 0: the ideal order's DCG is 1 + 0 - 2/2 = 0, where CatBoost's NDCG reads 1
    y, s = [1, -2, 0], [0.2, 0.3, 0.1]
    for spec in ("NDCG", "NDCG:type=Exp;top=2", "ndcg@10"):
        with pytest.raises(ValueError, match="NDCG needs labels >= 0 .*row 1 has label -2"):
            evaluate(y, s, metric=spec)
    assert evaluate(y, s, metric="DCG") == pytest.approx(-2 + 1 / log2(3))
    assert evaluate(y, s, metric="DCG:type=Exp") == pytest.approx(-0.75 + 1 / log2(3))
    assert evaluate([0, 0, 0], s, metric="NDCG") == 1.0  # no relevant document: the empty value, as before


def test_spec_errors():
    with pytest.raises(ValueError, match="unknown metric 'NDGC'.*available metrics: .*NDCG"):
        get_metric("NDGC")
    with pytest.raises(ValueError, match="NDCG: type=Linear is not allowed; choose one of Base, Exp"):
        get_metric("NDCG:type=Linear")
    with pytest.raises(ValueError, match="NDCG has no parameter 'k'"):
        get_metric("NDCG:k=3")
    with pytest.raises(ValueError, match="NDCG: bad value for top: top must be a positive integer"):
        get_metric("NDCG:top=0")
    with pytest.raises(ValueError, match="AverageGain needs the parameter 'top'"):
        get_metric("AverageGain")
    with pytest.raises(ValueError, match="unknown preset 'sklearn'"):
        get_metric("NDCG", preset="sklearn")


def test_spec_shorthands_and_presets():
    assert get_metric("ndcg@10").spec == "NDCG:top=10"
    assert get_metric("NDCG:top=10;type=Exp").params["type"] == "Exp"
    m = get_metric("ndcg@5", preset="lightgbm")
    assert (m.params["type"], m.params["ties"], m.params["top"]) == ("Exp", "stable", 5)
    # an explicit parameter wins over the preset
    assert get_metric("NDCG:type=Base", preset="lightgbm").params["type"] == "Base"
    assert get_metric("MAP", preset="trec_eval").params["norm"] == "all"


def test_bad_arrays():
    with pytest.raises(ValueError, match="y_score must be finite; 1 value"):
        evaluate([0, 1], [0.1, np.nan], metric="NDCG")
    with pytest.raises(ValueError, match="y_true \\(labels\\) must be finite"):
        evaluate([0, np.inf], [0.1, 0.2], metric="NDCG")
    with pytest.raises(ValueError, match="y_score has 3 entries but there are 2 rows"):
        evaluate([0, 1], [0.1, 0.2, 0.3], metric="NDCG")
    with pytest.raises(ValueError, match="query id 1 reappears"):
        evaluate([0, 1, 0], [0.1, 0.2, 0.3], qid=[1, 2, 1], metric="NDCG")
    with pytest.raises(ValueError, match="group_weights has 3 entries; expected one per query"):
        evaluate([0, 1], [0.1, 0.2], qid=[1, 2], group_weights=[1, 1, 1], metric="NDCG")
    with pytest.raises(ValueError, match=r"qid must be one-dimensional, got shape \(2, 2\)"):
        evaluate([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], qid=[[1, 1], [2, 2]], metric="NDCG")
    # a matrix whose size is the number of rows is not taken for per-row weights
    with pytest.raises(ValueError, match=r"group_weights must be one-dimensional, got shape \(2, 2\)"):
        evaluate([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], qid=[1, 1, 2, 2], group_weights=[[1, 1], [2, 2]], metric="NDCG")
    # a column of one weight per query is one weight per query
    column = evaluate([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.3], qid=[1, 1, 2, 2], group_weights=[[1], [3]], metric="NDCG")
    assert column == evaluate([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.3], qid=[1, 1, 2, 2], group_weights=[1, 3],
                              metric="NDCG")


def _best_threshold_accuracy(p, rank_value):
    """Best accuracy of 'the top t documents are relevant' over every cutoff t (Yue Table 4)."""
    ordered = np.asarray(p)[np.argsort(-np.asarray(rank_value), kind="stable")]
    n, total_rel = ordered.size, ordered.sum()
    return max((ordered[:t].sum() + (n - t) - (total_rel - ordered[:t].sum())) / n for t in range(n + 1))


def test_yue_toy_tables():
    # Yue et al. Tables 1-2: eight documents, one query; rank value 8 is the top.
    p = np.array([1, 0, 0, 0, 0, 1, 1, 0])
    h1, h2 = np.arange(8, 0, -1), np.arange(1, 9)
    map1 = (1 / 1 + 2 / 6 + 3 / 7) / 3
    map2 = (1 / 2 + 2 / 3 + 3 / 8) / 3
    assert evaluate(p, h1, metric="MAP") == pytest.approx(map1)
    assert evaluate(p, h2, metric="MAP") == pytest.approx(map2)
    assert (round(map1, 2), round(map2, 2)) == (0.59, 0.51)
    assert evaluate(p, h1, metric="ROCArea") == pytest.approx(7 / 15)  # paper: 0.47
    assert evaluate(p, h2, metric="ROCArea") == pytest.approx(8 / 15)  # paper: 0.53
    # Tables 3-4: eleven documents; MAP 0.56 / 0.51 and best accuracy 0.64 / 0.73.
    p = np.array([1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0])
    h1, h2 = np.arange(11, 0, -1), np.arange(1, 12)
    map1 = (1 / 1 + 2 / 6 + 3 / 7 + 4 / 8 + 5 / 9) / 5
    map2 = (1 / 3 + 2 / 4 + 3 / 5 + 4 / 6 + 5 / 11) / 5
    assert evaluate(p, h1, metric="MAP") == pytest.approx(map1)
    assert evaluate(p, h2, metric="MAP") == pytest.approx(map2)
    assert (round(map1, 2), round(map2, 2)) == (0.56, 0.51)
    assert _best_threshold_accuracy(p, h1) == pytest.approx(7 / 11)  # paper: 0.64
    assert _best_threshold_accuracy(p, h2) == pytest.approx(8 / 11)  # paper: 0.73


def test_bad_pairs_are_rejected_by_evaluate():
    y, s, qid = [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
    with pytest.raises(ValueError, match=r"pair 0 = \[0, 2\] joins rows of different queries \(query ids 1 and 2\)"):
        evaluate(y, s, qid=qid, metric="PairAccuracy", pairs=[[0, 2]])
    with pytest.raises(ValueError, match=r"joins rows of different queries \(queries at positions 0 and 1\)"):
        evaluate(y, s, group=[2, 2], metric="PairAccuracy", pairs=[[0, 2]])  # no ids: positions
    from metricrank import RankingDataset

    ds = RankingDataset(np.zeros((4, 1)), y, qid=[7, 7, 9, 9])
    with pytest.raises(ValueError, match=r"pair 0 = \[1, 3\] joins rows of different queries \(query ids 7 and 9\)"):
        evaluate(ds, s, metric="PairAccuracy", pairs=[[1, 3]])  # a data set's ids name its queries
    with pytest.raises(ValueError, match=r"pair 1 = \[2, 9\] has a row index outside 0..3"):
        evaluate(y, s, qid=qid, metric="PairAccuracy", pairs=[[0, 1], [2, 9]])
    with pytest.raises(ValueError, match="pair_weights must be >= 0"):
        evaluate(y, s, qid=qid, metric="PairLogit", pairs=[[0, 1, -1.0]])
    # a third column carries the pair weights
    assert evaluate(y, s, qid=qid, metric="PairAccuracy", pairs=[[0, 1, 2.0], [3, 2, 1.0]]) == pytest.approx(2 / 3)


@pytest.mark.data
def test_mq2008_fold_against_catboost_and_pytrec_eval(shared_data):
    from metricrank import load_letor

    ds = load_letor(shared_data / "MQ2008" / "Fold1" / "test.txt.gz")
    score = np.asarray(ds.X[:, 24]).ravel()  # a real feature: many tied values
    for spec in ("NDCG:top=10", "MAP", "MRR", "PrecisionAt:top=5"):
        expected = catboost_utils.eval_metric(ds.y, score, spec, group_id=ds.qid)[0]
        assert evaluate(ds, score, metric=spec) == pytest.approx(expected, rel=1e-9), spec
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {}, {}
    for q, d, lab, sc in zip(ds.qid.tolist(), ds.doc_ids.tolist(), ds.y.tolist(), score.tolist()):
        qrels.setdefault(str(q), {})[d] = int(lab)
        run.setdefault(str(q), {})[d] = sc
    res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"}).evaluate(run)
    for key, spec in (("map", "MAP"), ("ndcg_cut_10", "ndcg@10")):
        expected = np.mean([r[key] for r in res.values()])
        assert evaluate(ds, score, metric=spec, preset="trec_eval") == pytest.approx(expected, rel=1e-12), spec


def test_with_scores_evaluates_new_scores_and_checks_them_as_make_input_does():
    from metricrank.metrics.evaluate import make_input, with_scores

    rng = np.random.default_rng(0)
    y, qid = rng.integers(0, 3, 60).astype(float), np.repeat(np.arange(6), 10)
    doc_ids = [f"d{i % 7}" for i in range(60)]  # ties broken by doc id, cached per input
    first, second = np.round(rng.normal(size=60), 1), np.round(rng.normal(size=60), 1)
    metric = get_metric("NDCG:top=5;ties=docid")
    inp = make_input(y, first, qid=qid, doc_ids=doc_ids)
    metric.compute(inp)  # fills the first scores' cache
    got = metric.compute(with_scores(inp, second))[0]
    assert got == evaluate(y, second, qid=qid, doc_ids=doc_ids, metric="NDCG:top=5;ties=docid")
    assert got != metric.compute(inp)[0]
    with pytest.raises(ValueError, match="y_score must be finite"):
        with_scores(inp, np.where(np.arange(60) == 3, np.nan, second))
    with pytest.raises(ValueError, match="y_score has 59 entries"):
        with_scores(inp, second[:59])


def test_weights_a_metric_does_not_read_are_a_warning():
    # scikit-learn's metrics read sample_weight; CatBoost's positional metrics read none, its AUC none by default
    import warnings

    y, s, q, w = [1, 0, 1, 0], [0.3, 0.2, 0.1, 0.5], [1, 1, 2, 2], [1, 2, 1, 1]
    for spec, why in (("NDCG", "NDCG reads no per-row weights"), ("MAP:top=2", "MAP reads no per-row weights"),
                      ("AUC", r"AUC reads them only with use_weights=true")):
        with pytest.warns(UserWarning, match=rf"{spec}: weights are ignored: {why}"):
            unweighted = evaluate(y, s, qid=q, metric=spec, weights=w)
        assert unweighted == evaluate(y, s, qid=q, metric=spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for spec in ("AUC:use_weights=true", "AUC:use_weights=false", "QueryRMSE", "PairLogit", "NDCG"):
            evaluate(y, s, qid=q, metric=spec, weights=w if spec != "NDCG" else None)
    with pytest.warns(UserWarning, match=r"MAP: group_weights are ignored: MAP reads no per-query weights"):
        evaluate(y, s, qid=q, metric="MAP", group_weights=[1, 3])
    with pytest.warns(UserWarning, match=r"MAUC: group_weights are ignored: MAUC reads them only with use_weights"):
        evaluate(y, s, qid=q, metric="MAUC", group_weights=[1, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(y, s, qid=q, metric="NDCG", group_weights=[1, 3])
        evaluate(y, s, qid=q, metric="MAP:use_weights=false", weights=w, group_weights=[1, 3])  # asked for
    # AUC with the weights: pairs (positive, negative) weighted w_p * w_n, ties 0.5, by hand
    pos, neg = [(0.3, 1), (0.1, 1)], [(0.2, 2), (0.5, 1)]
    won = sum(wp * wn * ((sp > sn) + 0.5 * (sp == sn)) for sp, wp in pos for sn, wn in neg)
    assert evaluate(y, s, metric="AUC:use_weights=true", weights=w) == pytest.approx(won / (2 * 3))


def test_weight_flags_are_what_each_metric_reads():
    # the warnings' premise: a metric flagged object_weights (query_weights) changes with per-row (per-query)
    # weights, every other one does not
    import warnings

    from metricrank.metrics import REGISTRY

    rng = np.random.default_rng(0)
    q = np.repeat(np.arange(6), 8)
    y = rng.integers(0, 2, q.size).astype(float)
    s, w, gw = rng.normal(size=q.size), rng.uniform(0.1, 3.0, q.size), rng.uniform(0.1, 3.0, 6)
    for name, defn in REGISTRY.items():
        params = ["use_weights=true"] if any(p.name == "use_weights" for p in defn.params) else []
        params += {"ClassAUC": ["cls=1"], "AverageGain": ["top=3"]}.get(name, [])
        spec = name + (":" + ";".join(params) if params else "")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = evaluate(y, s, qid=q, metric=spec)
            by_row = evaluate(y, s, qid=q, metric=spec, weights=w) != plain
            by_query = evaluate(y, s, qid=q, metric=spec, group_weights=gw) != plain
        assert (by_row, by_query) == (defn.object_weights, defn.query_weights), name


def test_a_datasets_own_weights_are_read_without_a_warning():
    # a RankingDataset carries its training weights; evaluating it by a metric that reads none is no mistake
    import warnings

    from metricrank import RankingDataset

    ds = RankingDataset(np.zeros((4, 1)), [1, 0, 1, 0], qid=[1, 1, 2, 2], weight=[1, 2, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate(ds, [0.3, 0.2, 0.1, 0.5], metric="NDCG") == evaluate(ds.y, [0.3, 0.2, 0.1, 0.5], qid=ds.qid,
                                                                              metric="NDCG")


@pytest.mark.parametrize("metric, keyword, some", [
    ("QueryRMSE", "weights", [0.0, 0.0, 1.0, 0.0]),      # all zero was NaN: 0 / 0
    ("NDCG", "group_weights", [0.0, 1.0]),               # was NaN
    ("NDCG", "group_weights", [0.0, 0.0, 1.0, 1.0]),     # CatBoost's per-row form
    ("PairLogit", "pair_weights", [1.0, 0.0]),           # was NaN
])
def test_all_zero_weights_are_refused_as_a_ranking_dataset_refuses_them(metric, keyword, some):
    y, s, qid = [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
    pairs = {"pairs": [[0, 1], [2, 3]]} if keyword == "pair_weights" else {}
    with pytest.raises(ValueError, match=f"{keyword} is 0 for every entry: every weighted metric would be 0 / 0"):
        evaluate(y, s, qid=qid, metric=metric, **pairs, **{keyword: np.zeros(len(some))})
    assert np.isfinite(evaluate(y, s, qid=qid, metric=metric, **pairs, **{keyword: some}))  # some zeros are fine

"""``LambdaMART(target=...)``: the gradient, and ``"auto"`` (YetiRank for judged NDCG, MAP, graded ERR and
MAUC, and for judged MRR from 30,000 training documents; PairLogit for judged MRR below; λ targets only
when λ options or row weights are set, whole-list NDCG for judged MRR and graded ERR)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr
from metricrank.learners._capacity import CHECK_MIN_DOCS
from metricrank.objectives import target_choice
from metricrank.objectives.target_choice import SMALL_MRR_TARGET, STOCHASTIC_MRR_MIN_DOCS, choose_target

SMALL = dict(n_estimators=12, num_leaves=7, min_data_in_leaf=5, random_state=0, n_jobs=1)


@pytest.fixture(scope="module")
def data():
    train = make_ltr(60, docs_per_query=(5, 25), n_features=8, random_state=0)
    valid = make_ltr(30, docs_per_query=(5, 25), n_features=8, random_state=1)
    return train, valid


@pytest.mark.parametrize("metric, labels, expected", [
    # judged NDCG (any cut and gain), MAP, graded ERR and MAUC: YetiRank, whatever the labels
    ("NDCG:top=10;type=Exp", [0, 1, 2], "YetiRank"),
    ("NDCG", [0, 0.5], "YetiRank"),
    ("MAP", [0, 1], "YetiRank"),
    ("MAUC", [0, 1, 2], "YetiRank"),
    ("ERR:type=Graded;top=10", [0, 1, 4], "YetiRank"),
    ("ERR:type=Graded;max_label=2", [0, 2], "YetiRank"),
    # MRR on grades >= 0 with its border 0.5: relevant (> 0.5) = positive grade -> PairLogit (below 30,000 labels)
    ("MRR", [0, 1, 2, 0], SMALL_MRR_TARGET),
    ("MRR", [0, 1], SMALL_MRR_TARGET),
    ("MRR:top=10;ties=optimistic", [0, 3, 7], SMALL_MRR_TARGET),
    ("MRR:use_weights=false", [0, 1], SMALL_MRR_TARGET),
    # cases where the judged metric's relevant documents are not NDCG's positive gains: the metric itself
    ("MRR", [0, 0.3, 1], "MRR"),                  # 0.3 has a gain but is not > border 0.5
    ("MRR:border=1", [0, 1, 2], "MRR:border=1"),  # grade 1 is not relevant to MRR here
    ("MRR:border=-1", [0, 1], "MRR:border=-1"),   # grade 0 is relevant to MRR here
    ("MRR", [-1, 0, 1], "MRR"),                   # no negative gains
    ("MRR", [0, 1001], "MRR"),                    # beyond the gain 2^l - 1's label range
    ("MRR", [], "MRR"),
    # ERR on stop probabilities (CatBoost's default type) and the metrics not measured: their own λ
    ("ERR", [0, 0.5, 1], "ERR"),
    ("PrecisionAt:top=5", [0, 1], "PrecisionAt:top=5"),
    ("DCG:top=10", [0, 1, 2], "DCG:top=10"),
    ("ROCArea", [0, 1], "ROCArea"),
    ("RankNet", [0, 1], "RankNet"),
])
def test_the_rule_matches_its_description(metric, labels, expected):
    assert choose_target(metric, np.asarray(labels, dtype=float)) == expected


@pytest.mark.parametrize("metric, labels, expected", [
    # with λ options only λ targets: the metric's own, graded ERR and MRR on whole-list NDCG (stop 17's rule)
    ("NDCG:top=10;type=Exp", [0, 1, 2], "NDCG:top=10;type=Exp"),
    ("MAP", [0, 1], "MAP"),
    ("MAUC", [0, 1, 2], "MAUC"),
    ("ERR:type=Graded;top=10", [0, 1, 4], "NDCG:type=Exp"),
    ("ERR:type=Graded;max_label=2", [0, 2], "NDCG:type=Exp"),
    ("ERR:type=Graded", [-1, 2], "ERR:type=Graded"),  # no negative gains
    ("MRR", [0, 1, 2, 0], "NDCG:type=Exp"),
    ("MRR:top=10;ties=optimistic", [0, 3, 7], "NDCG:type=Exp;ties=optimistic"),
    ("MRR:use_weights=false", [0, 1], "NDCG:type=Exp;use_weights=false"),
    ("MRR:border=1", [0, 1, 2], "MRR:border=1"),
])
def test_lambda_only_chooses_lambda_targets(metric, labels, expected):
    assert choose_target(metric, np.asarray(labels, dtype=float), lambda_only=True) == expected


def test_judged_mrr_trains_on_yetirank_from_the_size_where_the_capacity_check_starts():
    assert STOCHASTIC_MRR_MIN_DOCS == CHECK_MIN_DOCS == 30_000
    below = np.zeros(STOCHASTIC_MRR_MIN_DOCS - 1)
    below[::7] = 1.0
    at = np.append(below, 2.0)
    assert choose_target("MRR", below) == SMALL_MRR_TARGET == "PairLogit:max_pairs=250000"
    assert choose_target("MRR", at) == "YetiRank"
    assert choose_target("MRR:top=10;ties=optimistic", at) == "YetiRank"
    # λ options or row weights ask for a λ target; labels outside MRR's relevance keep MRR's own λ
    assert choose_target("MRR", at, lambda_only=True) == "NDCG:type=Exp"
    assert choose_target("MRR:border=1", at) == "MRR:border=1"
    assert choose_target("MRR", at - 1.0) == "MRR"


def test_the_mrr_size_rule_counts_dask_labels_of_unknown_chunk_sizes():
    da = pytest.importorskip("dask.array")
    labels = np.zeros(STOCHASTIC_MRR_MIN_DOCS)
    labels[::5] = 1.0

    def unknown_chunks(values):
        y = da.from_array(values, chunks=7_000)
        return y[y >= 0]  # every row, in chunks of unknown size

    assert np.isnan(unknown_chunks(labels).size)
    assert choose_target("MRR", unknown_chunks(labels)) == "YetiRank"
    assert choose_target("MRR", unknown_chunks(labels[1:])) == SMALL_MRR_TARGET


def test_judged_mrr_on_yetirank_is_judged_by_mrr(data, monkeypatch):
    # the size rule at a size the test can train: the fit takes YetiRank, still judged by MRR
    train, valid = data
    monkeypatch.setattr(target_choice, "STOCHASTIC_MRR_MIN_DOCS", train.n_docs)
    model = LambdaMART("MRR", **SMALL).fit(train, eval_set=[valid], eval_names=["valid"])
    assert model.target_ == "YetiRank" and model.objective_.name == "YetiRank"
    assert model.objective_.eval_spec == "MRR" and list(model.evals_result_["valid"]) == ["MRR"]
    np.testing.assert_array_equal(model.predict(valid.X),
                                  LambdaMART("MRR", target="YetiRank", **SMALL).fit(train).predict(valid.X))
    monkeypatch.setattr(target_choice, "STOCHASTIC_MRR_MIN_DOCS", train.n_docs + 1)
    assert LambdaMART("MRR", **SMALL).fit(train).target_ == SMALL_MRR_TARGET


def test_without_labels_mrr_keeps_its_own_target():
    assert choose_target("MRR") == "MRR" and choose_target("MAP") == "YetiRank"


def test_auto_trains_judged_mrr_on_pairlogit_and_judges_it_by_mrr(data):
    train, valid = data
    auto = LambdaMART("MRR", **SMALL).fit(train, eval_set=[valid], eval_names=["valid"])
    assert auto.target == "auto" and auto.target_ == SMALL_MRR_TARGET
    assert auto.objective_.name == "PairLogit" and auto.objective_.params["max_pairs"] == 250_000
    # the very trees of GBRanker's PairLogit (no query here has 250,000 pairs: every pair is kept) ...
    pairlogit = GBRanker("PairLogit", **SMALL).fit(train)
    np.testing.assert_array_equal(auto.predict(valid.X), pairlogit.predict(valid.X))
    # ... and not those of the whole-list NDCG λ, which λ options or row weights ask for (stop 17's rule)
    ndcg = LambdaMART("MRR", target="NDCG:type=Exp", **SMALL).fit(train)
    assert not np.array_equal(ndcg.predict(valid.X), auto.predict(valid.X))
    with_option = LambdaMART("MRR", sigma=2.0, **SMALL).fit(train)
    assert with_option.target_ == "NDCG:type=Exp" and with_option.objective_.target.spec == "NDCG:type=Exp"
    np.testing.assert_array_equal(with_option.predict(valid.X),
                                  LambdaMART("MRR", target="NDCG:type=Exp", sigma=2.0, **SMALL).fit(train)
                                  .predict(valid.X))
    # exact λ-MRR stays what target="MRR" gives
    exact = LambdaMART("MRR", target="MRR", **SMALL).fit(train)
    assert exact.target_ == "MRR" and exact.objective_.target.spec == "MRR"
    # judged by MRR: the per-tree curve, early stopping and score read MRR, not PairLogit's own loss
    assert list(auto.evals_result_["valid"]) == ["MRR"]
    mrr = evaluate(valid, auto.predict(valid.X), metric="MRR")
    assert auto.evals_result_["valid"]["MRR"][-1] == pytest.approx(mrr)
    assert auto.score(valid.X, valid.y, qid=valid.qid) == pytest.approx(mrr)


def test_the_small_mrr_target_keeps_every_pair_up_to_its_cap():
    # PairLogit's generated pairs of one query: every (i, j) with y_i > y_j, here 1 * 299 + 300 * 600 = 180,299
    # of them (under the cap: all kept), then 300 * 300 + 900 * 600 = 630,000 (over it: a sample of 250,000)
    from metricrank.objectives import get_objective
    from metricrank.objectives._base import as_training_data

    target = get_objective(SMALL_MRR_TARGET)
    under = np.repeat([2.0, 1.0, 0.0], [1, 299, 600])
    win, lose, _ = target.bind(as_training_data(under, [0, under.size]), random_state=0).pairs()
    assert win.size == 1 * 299 + 300 * 600 and np.all(under[win] > under[lose])
    assert len(set(zip(win.tolist(), lose.tolist()))) == win.size  # each pair once
    over = np.repeat([2.0, 1.0, 0.0], [300, 300, 600])
    win, lose, _ = target.bind(as_training_data(over, [0, over.size]), random_state=0).pairs()
    assert 300 * 300 + 900 * 600 > 250_000 == win.size and np.all(over[win] > over[lose])
    assert not target.quadratic  # the cap bounds a query's pairs, so max_query_size does not apply


def test_row_weights_make_auto_train_judged_mrr_on_whole_list_ndcg(data):
    train, valid = data
    w = np.random.default_rng(0).uniform(0.2, 3.0, train.n_docs)
    auto = LambdaMART("MRR", **SMALL).fit(train.X, train.y, qid=train.qid, sample_weight=w)
    explicit = LambdaMART("MRR", target="NDCG:type=Exp", **SMALL).fit(train.X, train.y, qid=train.qid,
                                                                     sample_weight=w)
    assert auto.target_ == "NDCG:type=Exp"
    np.testing.assert_array_equal(auto.predict(valid.X), explicit.predict(valid.X))
    with pytest.raises(ValueError, match="target='PairLogit' does not read sample_weight"):
        LambdaMART("MRR", target="PairLogit", **SMALL).fit(train.X, train.y, qid=train.qid, sample_weight=w)


@pytest.mark.parametrize("metric", ["NDCG:top=10;type=Exp", "MAP", "ERR:type=Graded;top=10", "MAUC"])
def test_auto_trains_on_yetirank_and_is_judged_by_the_metric(data, metric):
    train, valid = data
    auto = LambdaMART(metric, **SMALL).fit(train, eval_set=[valid], eval_names=["valid"])
    assert auto.target == "auto" and auto.target_ == "YetiRank" and auto.objective_.name == "YetiRank"
    # the very trees of GBRanker's YetiRank (same tree defaults, same seed) ...
    yeti = GBRanker("YetiRank", **SMALL).fit(train)
    np.testing.assert_array_equal(auto.predict(valid.X), yeti.predict(valid.X))
    # ... and not those of the metric's exact λ, which naming it still gives
    exact = LambdaMART(metric, target=metric, **SMALL).fit(train)
    assert exact.target_ == metric and exact.objective_.name == "lambda"
    assert not np.array_equal(exact.predict(valid.X), auto.predict(valid.X))
    # judged by the metric: per-tree curve and score read it, not YetiRank's default NDCG@10
    assert list(auto.evals_result_["valid"]) == [metric]
    value = evaluate(valid, auto.predict(valid.X), metric=metric)
    assert auto.evals_result_["valid"][metric][-1] == pytest.approx(value)
    assert auto.score(valid.X, valid.y, qid=valid.qid) == pytest.approx(value)


def test_early_stopping_of_a_yetirank_target_reads_the_judged_metric(data):
    train, valid = data
    model = LambdaMART("MAP", n_estimators=60, learning_rate=0.5, num_leaves=7, min_data_in_leaf=5, random_state=0,
                       n_jobs=1).fit(train, eval_set=[valid], eval_names=["valid"], early_stopping_rounds=3)
    curve = model.evals_result_["valid"]["MAP"]
    assert model.best_iteration_ == int(np.argmax(curve)) + 1 < model.n_estimators


@pytest.mark.parametrize("options", [dict(sigma=2.0), dict(truncation=5), dict(norm=True), dict(exact=True)])
def test_lambda_options_make_auto_train_on_the_metrics_own_lambda(data, options):
    train, valid = data
    metric = "MAUC" if "exact" in options else "MAP"
    auto = LambdaMART(metric, **options, **SMALL).fit(train)
    explicit = LambdaMART(metric, target=metric, **options, **SMALL).fit(train)
    assert auto.target_ == metric and auto.objective_.name == "lambda"
    np.testing.assert_array_equal(auto.predict(valid.X), explicit.predict(valid.X))
    # and a λ option with an explicit YetiRank target is an error naming it, not ignored
    with pytest.raises(ValueError, match=f"{next(iter(options))} applies to λ targets, not to target='YetiRank'"):
        LambdaMART(metric, target="YetiRank", **options, **SMALL).fit(train)


def test_row_weights_make_auto_train_on_the_metrics_own_lambda(data):
    # YetiRank does not read sample_weight (as CatBoost's): the λ, which multiplies a row's λ by it, trains
    train, valid = data
    w = np.random.default_rng(0).uniform(0.2, 3.0, train.n_docs)
    auto = LambdaMART("MAP", **SMALL).fit(train.X, train.y, qid=train.qid, sample_weight=w)
    explicit = LambdaMART("MAP", target="MAP", **SMALL).fit(train.X, train.y, qid=train.qid, sample_weight=w)
    assert auto.target_ == "MAP"
    np.testing.assert_array_equal(auto.predict(valid.X), explicit.predict(valid.X))
    unweighted = LambdaMART("MAP", target="MAP", **SMALL).fit(train)
    assert not np.array_equal(auto.predict(valid.X), unweighted.predict(valid.X))  # the weights were read
    # unit row weights are no weights; query weights are YetiRank's own: both keep it
    ones = LambdaMART("MAP", **SMALL).fit(train.X, train.y, qid=train.qid, sample_weight=np.ones(train.n_docs))
    assert ones.target_ == "YetiRank"
    gw = np.random.default_rng(1).uniform(0.2, 3.0, train.n_queries)
    assert LambdaMART("MAP", **SMALL).fit(train.X, train.y, qid=train.qid, group_weight=gw).target_ == "YetiRank"
    with pytest.raises(ValueError, match="target='YetiRank' does not read sample_weight"):
        LambdaMART("MAP", target="YetiRank", **SMALL).fit(train.X, train.y, qid=train.qid, sample_weight=w)


def test_auto_trains_judged_graded_err_on_whole_list_ndcg_with_lambda_options(data):
    train, valid = data
    auto = LambdaMART("ERR:type=Graded;top=10", sigma=2.0, **SMALL).fit(train, eval_set=[valid],
                                                                       eval_names=["valid"])
    ndcg = LambdaMART("NDCG:type=Exp", target="NDCG:type=Exp", sigma=2.0, **SMALL).fit(train)
    assert auto.target_ == "NDCG:type=Exp" and list(auto.evals_result_["valid"]) == ["ERR:type=Graded;top=10"]
    np.testing.assert_array_equal(auto.predict(valid.X), ndcg.predict(valid.X))


def test_an_explicit_target_trains_on_it_and_is_judged_by_the_metric(data):
    train, valid = data
    model = LambdaMART("MAP", target="NDCG:top=5", **SMALL).fit(train, eval_set=[valid], eval_names=["valid"])
    ndcg = LambdaMART("NDCG:top=5", target="NDCG:top=5", **SMALL).fit(train)
    np.testing.assert_array_equal(model.predict(valid.X), ndcg.predict(valid.X))
    assert list(model.evals_result_["valid"]) == ["MAP"]
    # YetiRank's own parameters are accepted in the target spec
    yeti = LambdaMART("MAP", target="YetiRank:permutations=3", **SMALL).fit(train)
    assert yeti.objective_.params["permutations"] == 3 and yeti.objective_.eval_spec == "MAP"
    np.testing.assert_array_equal(yeti.predict(valid.X),
                                  GBRanker("YetiRank:permutations=3", **SMALL).fit(train).predict(valid.X))


def test_labels_outside_ndcg_gains_keep_exact_mrr(data):
    train, valid = data
    shifted = train.y - 1.0  # grades -1..3: MRR (> 0.5) still has relevant documents, NDCG has no negative gain
    model = LambdaMART("MRR", **SMALL).fit(train.X, shifted, qid=train.qid)
    assert model.target_ == "MRR"
    exact = LambdaMART("MRR", target="MRR", **SMALL).fit(train.X, shifted, qid=train.qid)
    np.testing.assert_array_equal(model.predict(valid.X), exact.predict(valid.X))


def test_training_labels_outside_the_judged_metric_are_an_error(data):
    # graded ERR with max_label=2 rejects grade 3, even though its NDCG target could train on it
    train, _ = data
    assert train.y.max() > 2
    with pytest.raises(ValueError, match="max_label=2 but row"):
        LambdaMART("ERR:type=Graded;max_label=2", **SMALL).fit(train)
    with pytest.raises(ValueError, match="max_label=2 but row"):
        LambdaMART("ERR:type=Graded;max_label=2", target="NDCG", **SMALL).fit(train)
    with pytest.raises(ValueError, match="max_label=2 but row"):
        LambdaMART("ERR:type=Graded;max_label=2", sigma=2.0, **SMALL).fit(train)
    with pytest.raises(ValueError, match="max_label=2 but row"):  # PairLogit itself takes any labels
        LambdaMART("ERR:type=Graded;max_label=2", target="PairLogit", **SMALL).fit(train)
    GBRanker("PairLogit", **SMALL).fit(train)


def test_save_load_keeps_the_resolved_target(tmp_path, data):
    train, valid = data
    model = LambdaMART("MRR", **SMALL).fit(train)
    model.save(tmp_path / "m.json")
    loaded = LambdaMART.load(tmp_path / "m.json")
    assert loaded.target_ == model.target_ == SMALL_MRR_TARGET and loaded.objective_.spec == SMALL_MRR_TARGET
    assert loaded.objective_.eval_spec == "MRR"
    np.testing.assert_array_equal(loaded.predict(valid.X), model.predict(valid.X))
    # a file from before ``target`` existed trained on its metric: that is what loading says
    doc = json.loads((tmp_path / "m.json").read_text())
    state = doc["state"]
    del state["target"]
    del state["params"]["target"]
    old = LambdaMART._from_state(state)
    assert old.target_ == "MRR" and old.objective_.target.spec == "MRR"
    # a YetiRank target is saved and loaded the same way, still judged by its metric
    yeti = LambdaMART("MAP", **SMALL).fit(train)
    yeti.save(tmp_path / "y.json")
    loaded = LambdaMART.load(tmp_path / "y.json")
    assert loaded.target_ == "YetiRank" and loaded.objective_.name == "YetiRank"
    assert loaded.objective_.eval_spec == "MAP"
    np.testing.assert_array_equal(loaded.predict(valid.X), yeti.predict(valid.X))


def test_target_is_validated(data):
    train, _ = data
    with pytest.raises(ValueError, match="target must be 'auto', a λ target spec"):
        LambdaMART("MRR", target=3, **SMALL).fit(train)
    with pytest.raises(ValueError, match="cannot be a λ target"):
        LambdaMART("MRR", target="AUC", **SMALL).fit(train)
    with pytest.raises(ValueError, match="permutations must be an integer >= 1"):
        LambdaMART("MAP", target="YetiRank:permutations=0", **SMALL).fit(train)
    with pytest.raises(ValueError, match="cannot be a λ target"):  # pairwise leaves are GBRanker's
        LambdaMART("MAP", target="YetiRankPairwise", **SMALL).fit(train)
    with pytest.raises(ValueError, match="metric='RankNet' is a λ target"):
        LambdaMART("RankNet", target="YetiRank", **SMALL).fit(train)
    with pytest.raises(ValueError, match="metric='RankNet' is a λ target"):
        LambdaMART("RankNet", target="PairLogit", **SMALL).fit(train)
    with pytest.raises(ValueError, match="sigma applies to λ targets, not to target='PairLogit'"):
        LambdaMART("MRR", target="PairLogit", sigma=2.0, **SMALL).fit(train)
    with pytest.raises(ValueError, match="max_pairs"):
        LambdaMART("MRR", target="PairLogit:max_pairs=0", **SMALL).fit(train)


@pytest.mark.parametrize("objective, extra, target, spec", [
    # --objective lambda:M names the gradient; --target auto asks for LambdaMART's choice, --target T for T
    ("lambda:MRR", [], "MRR", "lambda:MRR"),
    ("lambda:MRR", ["--target", "auto"], SMALL_MRR_TARGET, SMALL_MRR_TARGET),
    ("lambda:MRR", ["--target", "MAP"], "MAP", "lambda:MAP"),
    ("lambda:MAP", [], "MAP", "lambda:MAP"),
    ("lambda:MAP", ["--target", "auto"], "YetiRank", "YetiRank"),
    ("lambda:MAP", ["--target", "YetiRank:permutations=3"], "YetiRank:permutations=3", "YetiRank:permutations=3"),
    ("lambda:MRR", ["--target", "PairLogit:max_pairs=100"], "PairLogit:max_pairs=100", "PairLogit:max_pairs=100"),
])
def test_cli_lambda_objective_trains_its_exact_target_unless_told(tmp_path, capsys, objective, extra, target, spec):
    from metricrank import save_letor
    from metricrank.cli import main

    metric = objective.split(":", 1)[1]
    train = make_ltr(30, docs_per_query=(5, 15), n_features=5, random_state=3)
    save_letor(train, tmp_path / "train.txt")
    assert main(["train", "--train", str(tmp_path / "train.txt"), "--objective", objective, "--trees", "3",
                 "--threads", "1", "--quiet", "--out", str(tmp_path / "m.json"), *extra]) == 0
    model = LambdaMART.load(tmp_path / "m.json")
    assert (model.metric, model.target_, model.objective_.spec) == (metric, target, spec)
    assert model.objective_.eval_spec == metric
    err = capsys.readouterr().err
    assert (f"target: {target} (judged by {metric})" in err) == (target != metric) and f"train: {metric}=" in err

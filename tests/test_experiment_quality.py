"""The quality suite's protocol: tree count chosen on validation by the judged metric, test value there."""

from __future__ import annotations

import json
import sqlite3
import time

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr
from metricrank.experiments import quality


@pytest.fixture(scope="module")
def split():
    # one draw split by query: make_ltr draws its relevance function from the seed
    data = make_ltr(70, docs_per_query=(5, 15), n_features=8, relevance="nonlinear", random_state=0)
    return quality.Split("tiny", 1, data.subset_queries(np.arange(40)), data.subset_queries(np.arange(40, 55)),
                         data.subset_queries(np.arange(55, 70)))


def test_synthetic_parts_share_one_relevance_function():
    # make_ltr draws thresholds, steps and interaction signs from its seed: parts drawn with
    # different seeds disagree on the sign of about half the informative features' correlations
    # with the label (each |corr| ~0.1; a part here has ~2,000 documents, so one SE is ~0.02)
    parts = quality._synthetic(80, 0)
    assert [p.n_queries for p in parts] == [80, 20, 20]
    corr = np.array([[np.corrcoef(p.X[:, j], p.y)[0, 1] for j in range(12)] for p in parts])
    clear = np.abs(corr[0]) > 0.06
    assert clear.sum() >= 8
    assert np.all(np.sign(corr[1:, clear]) == np.sign(corr[0, clear]))
    assert len({tuple(map(tuple, p.X[:2])) for p in parts}) == 3  # three different parts


def test_run_system_selects_the_tree_count_on_validation(split):
    metrics = ["NDCG:top=5", "MAP"]
    fit = quality.lambdamart("NDCG:top=5", num_leaves=4, min_data_in_leaf=3)
    out = quality.run_system(fit, split, metrics, lr=0.3, trees=15, threads=1)
    # independent oracle: the same model, every tree count evaluated by hand
    model = LambdaMART("NDCG:top=5", n_estimators=15, learning_rate=0.3, num_leaves=4, min_data_in_leaf=3,
                       n_jobs=1, random_state=0).fit(split.train)
    for metric in metrics:
        curve = [evaluate(split.vali, model.predict(split.vali.X, num_iteration=k), metric=metric)
                 for k in range(1, 16)]
        k = int(np.argmax(curve)) + 1
        assert out[metric]["trees"] == k
        assert out[metric]["vali"] == pytest.approx(curve[k - 1], rel=1e-12)
        assert out[metric]["test"] == pytest.approx(
            evaluate(split.test, model.predict(split.test.X, num_iteration=k), metric=metric), rel=1e-12)
        assert len(out[metric]["per_query"]) == split.test.n_queries


def test_lightgbm_anchor_selects_on_validation_like_an_independent_refit(split):
    import lightgbm as lgb

    out = quality.run_system(quality.ANCHORS["LightGBM lambdarank"], split, ["NDCG:top=5"], lr=0.3, trees=8,
                             threads=1)
    model = lgb.train({"objective": "lambdarank", "learning_rate": 0.3, "num_threads": 1, "seed": 0,
                       "verbosity": -1}, lgb.Dataset(split.train.X, split.train.y, group=split.train.query_sizes),
                      num_boost_round=8)
    curve = [evaluate(split.vali, model.predict(split.vali.X, num_iteration=k), metric="NDCG:top=5")
             for k in range(1, 9)]
    k = int(np.argmax(curve)) + 1
    assert out["NDCG:top=5"]["trees"] == k
    assert out["NDCG:top=5"]["test"] == pytest.approx(
        evaluate(split.test, model.predict(split.test.X, num_iteration=k), metric="NDCG:top=5"), rel=1e-12)


def test_catboost_anchor_runs_on_offsets_only_data(split):
    """A smoke test of the CatBoost wrapper on data without qid (group ids derived from offsets)."""
    from metricrank.data import RankingDataset

    offsets_only = quality.Split("tiny", 1, RankingDataset(split.train.X, split.train.y,
                                                           group_ptr=split.train.group_ptr), split.vali, split.test)
    out = quality.run_system(quality.ANCHORS["CatBoost YetiRank"], offsets_only, ["NDCG:top=5"], lr=0.3, trees=8,
                             threads=1)
    assert 1 <= out["NDCG:top=5"]["trees"] <= 8 and 0 < out["NDCG:top=5"]["test"] <= 1


def test_run_writes_a_report_with_every_system(split, tmp_path):
    systems = {"LambdaMART(NDCG:top=10;type=Exp)": (("NDCG:top=10;type=Exp",), quality.lambdamart(
        "NDCG:top=10;type=Exp", num_leaves=4, min_data_in_leaf=3))}
    report = quality.run(out_dir=tmp_path, splits=[split], lr=0.3, trees=6, threads=1,
                         anchors=["LightGBM lambdarank"], metricrank_systems=systems, progress=False)
    assert "## tiny" in report and "LightGBM lambdarank (best anchor)" in report
    assert "LambdaMART(NDCG:top=10;type=Exp)" in report
    assert (tmp_path / "results.json").exists() and (tmp_path / "report.md").exists()
    assert (tmp_path / "tiny.png").exists()


def test_report_says_which_trial_each_search_kept(split, tmp_path):
    metric = "NDCG:top=10;type=Exp"
    systems = {f"tuned LambdaMART({metric})": ((metric,), quality.tuned(metric, n_trials=3))}
    # at 0.5 with 4 trees the search keeps its trial 1 (p 0.0066 < 0.025)
    kwargs = dict(out_dir=tmp_path, splits=[split], lr=0.5, trees=4, threads=1, anchors=["LightGBM lambdarank"],
                  metricrank_systems=systems, progress=False)
    report = quality.run(**kwargs)
    cache = json.loads((tmp_path / "results.json").read_text())
    (entry,) = [v for k, v in cache.items() if k.startswith("tuned")]
    line = f"tuned LambdaMART({metric}): {entry['tune']['selected_trial']}."
    assert line in report and entry["tune"]["selected_trial"] != 0
    # an entry from before the record: the report says it is unknown
    del entry["tune"]
    (tmp_path / "results.json").write_text(json.dumps(cache))
    assert f"tuned LambdaMART({metric}): ?." in quality.run(**kwargs)


def test_run_completes_cached_entries_with_the_missing_metrics_only(split, tmp_path):
    key = quality._key("LightGBM lambdarank", split, 0.3, 6)
    full = quality.run_system(quality.ANCHORS["LightGBM lambdarank"], split, list(quality.JUDGED), lr=0.3, trees=6,
                              threads=1)
    # a cache from an earlier run that judged MAP only, with a marker value the rerun must keep
    (tmp_path / "results.json").write_text(json.dumps({key: {"seconds": 1.0, "MAP": {**full["MAP"], "test": -1.0}}}))
    quality.run(out_dir=tmp_path, splits=[split], lr=0.3, trees=6, threads=1, anchors=["LightGBM lambdarank"],
                metricrank_systems={}, progress=False)
    entry = json.loads((tmp_path / "results.json").read_text())[key]
    assert entry["MAP"]["test"] == -1.0  # not recomputed
    for metric in quality.JUDGED:
        if metric != "MAP":
            assert entry[metric]["test"] == full[metric]["test"]


def test_run_tries_again_a_system_whose_library_was_missing(split, tmp_path):
    # an ImportError is cached as an error entry; it was skipped on every later run, even once installed
    key = quality._key("LightGBM lambdarank", split, 0.3, 6)
    (tmp_path / "results.json").write_text(json.dumps({key: {"error": "No module named 'lightgbm'"}}))
    quality.run(out_dir=tmp_path, splits=[split], lr=0.3, trees=6, threads=1, anchors=["LightGBM lambdarank"],
                metricrank_systems={}, progress=False)
    entry = json.loads((tmp_path / "results.json").read_text())[key]
    full = quality.run_system(quality.ANCHORS["LightGBM lambdarank"], split, list(quality.JUDGED), lr=0.3, trees=6,
                              threads=1)
    assert "error" not in entry and entry["MAP"]["test"] == full["MAP"]["test"]


def test_tuned_system_trains_the_parameters_tune_finds_on_validation(split):
    from metricrank.model_selection import tune

    # at 8 trees the search keeps its trial 1 (p 0.017 < 0.025)
    curves, predict, details = quality.tuned("NDCG:top=5", n_trials=3)(split, ["NDCG:top=5"], 0.3, 8, 1, 0)
    # the search the system runs, repeated by hand: train on train queries, score on validation queries
    X = np.vstack([split.train.X, split.vali.X])
    y = np.concatenate([split.train.y, split.vali.y])
    qid = np.repeat(np.arange(split.train.n_queries + split.vali.n_queries),
                    np.concatenate([split.train.query_sizes, split.vali.query_sizes]))
    rows = np.arange(len(y))
    result = tune(LambdaMART("NDCG:top=5", n_estimators=8, learning_rate=0.3, n_jobs=1, random_state=0), X, y,
                  qid=qid, metric="NDCG:top=5", n_trials=3, cv=[(rows[:split.train.n_docs], rows[split.train.n_docs:])],
                  random_state=0, show_progress=False)
    params = {k: v for k, v in result.best_params_.items() if k != "n_estimators"}
    model = LambdaMART("NDCG:top=5", n_estimators=8, n_jobs=1, random_state=0, **params)
    model.fit(split.train, eval_set=[split.vali], eval_names=["vali"], eval_metrics=["NDCG:top=5"])
    assert params["num_leaves"] != LambdaMART().num_leaves or params["lambda_l2"] != LambdaMART().lambda_l2
    np.testing.assert_allclose(curves["NDCG:top=5"], model.evals_result_["vali"]["NDCG:top=5"])
    np.testing.assert_array_equal(predict(4), model.predict(split.test.X, num_iteration=4))
    # the search's summary is recorded: the kept trial, its parameters, the selection's test
    record = json.loads(json.dumps(details["tune"]))
    assert record["selected_trial"] == result.selected_trial_ != 0
    assert record["best_params"] == result.best_params_
    assert record["selection_pvalue"] < record["selection_level"] == result.selection_level_


def test_tuned_system_keeps_each_search_in_storage_and_resumes_it(split, tmp_path):
    optuna = pytest.importorskip("optuna", reason="tune needs the tune extra")
    storage = f"sqlite:///{tmp_path / 'searches.db'}"
    metric = "NDCG:top=5"

    def trials(seed):
        name = quality.study_name(metric, None, split, 0.3, 6, seed)
        return optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)

    quality.tuned(metric, n_trials=2, storage=storage)(split, [metric], 0.3, 6, 1, 0)
    # as if the first run's two trials had taken 1000 s longer each
    with sqlite3.connect(tmp_path / "searches.db") as db:
        db.execute("UPDATE trials SET datetime_start = strftime('%Y-%m-%d %H:%M:%f', datetime_start, '-1000 seconds')")
    first = trials(0)
    assert len(first) == 2 and all(t.duration.total_seconds() > 1000 for t in first)
    # the same search asked for three trials runs only the one it lacks, and selects from all three; the entry's
    # seconds count the first run's trials too
    start = time.perf_counter()
    out = quality.run_system(quality.tuned(metric, n_trials=3, storage=storage), split, [metric], lr=0.3, trees=6,
                             threads=1)
    wall = time.perf_counter() - start
    again = trials(0)
    assert len(again) == 3 and [t.datetime_start for t in again[:2]] == [t.datetime_start for t in first]
    assert out["tune"]["n_trials"] == 3 and quality.EARLIER_SECONDS not in out
    earlier = sum(t.duration.total_seconds() for t in first)
    assert earlier + again[2].duration.total_seconds() < out["seconds"] <= earlier + wall
    assert out["tune"]["trial_seconds"] == pytest.approx(earlier + again[2].duration.total_seconds())
    # another random state is another search: its own study
    quality.tuned(metric, n_trials=2, storage=storage)(split, [metric], 0.3, 6, 1, 1)
    assert len(trials(1)) == 2 and len(trials(0)) == 3


def test_run_passes_tune_storage_to_every_tuned_system(split, tmp_path, monkeypatch):
    seen = []
    real = quality.tuned
    monkeypatch.setattr(quality, "tuned", lambda *args, **kwargs: seen.append(kwargs.get("storage"))
                        or real(*args, **kwargs))
    assert len(quality.tuned_systems("sqlite:///x.db")) == len(seen) == 7 and set(seen) == {"sqlite:///x.db"}
    seen.clear()
    # run builds the tuned systems with its storage (the systems themselves are not run here)
    monkeypatch.setattr(quality, "default_systems", dict)
    monkeypatch.setattr(quality, "tuned_systems", lambda storage=None: seen.append(storage) or {})
    quality.run(out_dir=tmp_path, splits=[split], lr=0.3, trees=2, threads=1, anchors=[], progress=False,
                tune_storage="sqlite:///y.db")
    assert seen == ["sqlite:///y.db"]
    # systems of one's own do not take it silently
    with pytest.raises(ValueError, match="give each tuned system its storage"):
        quality.run(out_dir=tmp_path, splits=[split], metricrank_systems={}, tune_storage="sqlite:///y.db")


def test_tuned_system_fits_its_kept_parameters_once(split, monkeypatch):
    # tune's own refit on train + validation would be a wasted fit: the system trains on the training queries
    import metricrank.model_selection as ms

    seen = []
    real = ms.tune
    monkeypatch.setattr(ms, "tune", lambda *args, **kwargs: seen.append(real(*args, **kwargs)) or seen[-1])
    quality.tuned("NDCG:top=5", n_trials=2)(split, ["NDCG:top=5"], 0.3, 6, 1, 0)
    assert len(seen) == 1 and seen[0].best_estimator_ is None


def test_xgboost_anchor_takes_query_ids_in_any_order(split):
    pytest.importorskip("xgboost", reason="XGBoost is a bench extra")
    from metricrank.data import RankingDataset

    descending = split.train.n_queries - np.repeat(np.arange(split.train.n_queries), split.train.query_sizes)
    reordered = quality.Split("tiny", 1, RankingDataset(split.train.X, split.train.y, qid=descending),
                              split.vali, split.test)
    out = quality.run_system(quality.ANCHORS["XGBoost rank:ndcg"], reordered, ["NDCG:top=5"], lr=0.3, trees=8,
                             threads=1)
    same = quality.run_system(quality.ANCHORS["XGBoost rank:ndcg"], split, ["NDCG:top=5"], lr=0.3, trees=8, threads=1)
    assert out["NDCG:top=5"]["per_query"] == same["NDCG:top=5"]["per_query"]


def test_report_leaves_out_queries_a_metric_cannot_score(split, tmp_path):
    from metricrank.data import RankingDataset

    y = split.test.y.copy()
    y[split.test.group_ptr[0]:split.test.group_ptr[1]] = 0  # one class only: MAUC cannot score it (NaN)
    test = RankingDataset(split.test.X, y, group_ptr=split.test.group_ptr)
    blank = quality.Split("tiny", 1, split.train, split.vali, test)
    systems = {"LambdaMART(MAUC)": (("MAUC",), quality.lambdamart("MAUC", num_leaves=4, min_data_in_leaf=3))}
    report = quality.run(out_dir=tmp_path, splits=[blank], lr=0.3, trees=6, threads=1,
                         anchors=["LightGBM lambdarank"], metricrank_systems=systems, progress=False)
    row = next(line for line in report.splitlines() if line.startswith("| LambdaMART(MAUC)"))
    wins, losses = map(int, row.split("|")[4].split(",")[0].split("/"))
    assert wins + losses <= test.n_queries - 1


def test_noisy_set_is_one_draw_split_by_query_with_letor_like_labels():
    (split,) = quality.load_suite(["synthetic-noisy-40k"], folds=1)
    assert (split.train.n_queries, split.vali.n_queries, split.test.n_queries) == (1000, 250, 250)
    y = np.concatenate([split.train.y, split.vali.y, split.test.y])
    np.testing.assert_allclose(np.bincount(y.astype(int)) / y.size, [0.74, 0.19, 0.07], atol=0.005)
    assert split.train.n_docs + split.vali.n_docs + split.test.n_docs > 55_000
    corr = np.array([[np.corrcoef(p.X[:, j], p.y)[0, 1] for j in range(12)] for p in (split.train, split.test)])
    clear = np.abs(corr[0]) > 0.03
    assert clear.sum() >= 6 and np.all(np.sign(corr[1, clear]) == np.sign(corr[0, clear]))


def test_run_system_records_the_capacity_check_when_it_runs(monkeypatch):
    from metricrank.learners import _capacity

    data = make_ltr(400, docs_per_query=(5, 15), n_features=8, relevance="nonlinear", random_state=1)
    split = quality.Split("small", 1, data.subset_queries(np.arange(300)), data.subset_queries(np.arange(300, 350)),
                          data.subset_queries(np.arange(350, 400)))
    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 1_000)
    out = quality.run_system(quality.gbranker("YetiRank", min_data_in_leaf=3), split, ["MAP"], lr=0.3, trees=5,
                             threads=1)
    # the same system fitted by hand: its check's text is recorded
    model = GBRanker("YetiRank", n_estimators=5, learning_rate=0.3, min_data_in_leaf=3, n_jobs=1,
                     random_state=0).fit(split.train, eval_set=[split.vali], eval_metrics=["MAP"])
    assert out["capacity_check"] == str(model.capacity_check_)
    assert out["capacity_check"].startswith("capacity check by MAP on held-out training queries (up to 5 looks of 60 more queries")
    # without the check (explicit leaves) nothing is recorded
    fixed = quality.run_system(quality.gbranker("YetiRank", num_leaves=7), split, ["MAP"], lr=0.3, trees=5, threads=1)
    assert "capacity_check" not in fixed


def test_tuned_systems_search_for_every_judged_metric():
    # every judged metric has a search on the validation queries, each judged by its own metric only; NDCG@10 and
    # MAP also by 3-fold CV
    systems = quality.tuned_systems()
    on_vali = {f"tuned LambdaMART({m})": (m,) for m in quality.JUDGED}
    by_cv = {f"tuned (3-fold CV) LambdaMART({m})": (m,) for m in quality.JUDGED[:2]}
    assert {name: metrics for name, (metrics, _) in systems.items()} == {**on_vali, **by_cv}


def test_several_random_states_average_each_fold_and_each_query(split, tmp_path):
    from metricrank.analysis import compare_per_query

    fit = quality.lambdamart("MAP", num_leaves=4, min_data_in_leaf=3)  # YetiRank: its pairs are drawn from the seed
    systems = {"LambdaMART(MAP)": (("MAP",), fit)}
    report = quality.run(out_dir=tmp_path, splits=[split], lr=0.3, trees=6, threads=1, anchors=["LightGBM lambdarank"],
                         metricrank_systems=systems, progress=False, random_states=[0, 5])
    # the oracle: each state fitted on its own, then averaged by hand
    runs = [quality.run_system(fit, split, ["MAP"], lr=0.3, trees=6, threads=1, seed=r)["MAP"] for r in (0, 5)]
    assert runs[0]["per_query"] != runs[1]["per_query"]  # the states differ, so the average is a real one
    anchor = quality.run_system(quality.ANCHORS["LightGBM lambdarank"], split, ["MAP"], lr=0.3, trees=6,
                                threads=1)["MAP"]
    mean = (runs[0]["test"] + runs[1]["test"]) / 2
    per_query = (np.asarray(runs[0]["per_query"]) + np.asarray(runs[1]["per_query"])) / 2
    cmp = compare_per_query(per_query, np.asarray(anchor["per_query"]))
    section = report.split("### MAP")[1].split("###")[0]
    row = next(line for line in section.splitlines() if line.startswith("| LambdaMART(MAP)"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{mean:.4f}" and cells[2] == f"{mean - anchor['test']:+.4f}"
    assert cells[3] == f"{cmp.wins}/{cmp.losses}, {cmp.pvalue:.3g}"
    assert "random states 0, 5" in report
    cache = json.loads((tmp_path / "results.json").read_text())
    # state 0 keeps the keys of a one-state run, so the committed cache stays valid
    assert quality._key("LambdaMART(MAP)", split, 0.3, 6) in cache
    assert cache[quality._key("LambdaMART(MAP)", split, 0.3, 6, 5)]["MAP"]["test"] == runs[1]["test"]


@pytest.mark.parametrize("states", [[], [1, 1], [-1], [2**31], [1.5], [True], "12", 5])
def test_random_states_are_checked(states):
    with pytest.raises(ValueError, match="random_states must be distinct integers"):
        quality.check_random_states(states)


def _small_run(split, tmp_path, metric) -> dict:
    """``quality.run``'s arguments for one small LambdaMART(metric) and LightGBM's lambdarank on ``split``."""
    systems = {f"LambdaMART({metric})": ((metric,), quality.lambdamart(metric, num_leaves=4, min_data_in_leaf=3))}
    return dict(out_dir=tmp_path, splits=[split], lr=0.3, trees=4, threads=1, anchors=["LightGBM lambdarank"],
                metricrank_systems=systems, progress=False)


def test_report_says_which_trees_each_fit_grew(split, tmp_path):
    metric = "NDCG:top=10;type=Exp"
    kwargs = _small_run(split, tmp_path, metric)
    head = "Trees grown, split by split (? an entry older than this record that ran no capacity check): "
    assert head + f"LambdaMART({metric}): leafwise." in quality.run(**kwargs)
    # entries older than the record: read from their capacity checks, one per kind of tree
    path = tmp_path / "results.json"
    cache = json.loads(path.read_text())
    (key,) = [k for k in cache if k.startswith("LambdaMART")]
    del cache[key]["grow_policy"]
    for checks, grown in [("c -> depth 5, lambda_l2 0 | c -> 31 leaves, lambda_l2 1", "mixed"),
                          ("c -> depth 5, lambda_l2 0", "symmetric_then_leafwise"), ("c -> 15 leaves", "leafwise")]:
        cache[key]["capacity_check"] = checks
        path.write_text(json.dumps(cache))
        assert head + f"LambdaMART({metric}): {grown}." in quality.run(**kwargs)
    # neither a record nor a check: no line
    del cache[key]["capacity_check"]
    path.write_text(json.dumps(cache))
    assert head not in quality.run(**kwargs)


def test_report_says_where_every_system_scored_1_on_every_validation_query(split, tmp_path):
    metric = "NDCG:top=10;type=Exp"
    kwargs = _small_run(split, tmp_path, metric)
    head = "Validation saturated on split 1: every system scored 1"
    assert head not in quality.run(**kwargs)  # tiny's validation queries are far from perfect
    path = tmp_path / "results.json"
    cache = json.loads(path.read_text())
    entries = {k.split("|")[0]: v for k, v in cache.items()}
    assert entries["LightGBM lambdarank"][metric]["vali"] < 1 and entries[f"LambdaMART({metric})"][metric]["vali"] < 1
    for entry in entries.values():
        entry[metric]["vali"] = 1.0
    path.write_text(json.dumps(cache))
    report = quality.run(**kwargs)
    # under the judged metric's table only: LightGBM's MAP was not set to 1
    assert report.count(head) == 1 and report.index(f"### {metric}") < report.index(head) < report.index("### MAP")
    entries["LightGBM lambdarank"][metric]["vali"] = 0.999  # one system short of 1: no line
    path.write_text(json.dumps(cache))
    assert head not in quality.run(**kwargs)

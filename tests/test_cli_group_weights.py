"""The command line's CatBoost group-weights files: ``train``, ``eval`` and ``tune`` read the queries' weights.

Each oracle is the library called on a RankingDataset holding the same weights, and each case first checks that
the weights move the figure (else the comparison would show nothing).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from metricrank import GBRanker, RankingDataset, evaluate, make_ltr, save_letor
from metricrank.cli import main

METRIC = "NDCG:top=10"


def _files(tmp_path, name, ds, seed):
    """Save ``ds`` and a group-weights file for it; return (data path, weights path, ds with the weights)."""
    weights = np.random.default_rng(seed).uniform(0.1, 4.0, ds.n_queries)
    data, gw = tmp_path / f"{name}.txt", tmp_path / f"{name}.group_weights"
    save_letor(ds, data)
    order = np.random.default_rng(seed + 1).permutation(ds.n_queries)  # any line order
    gw.write_text("".join(f"{ds.query_ids[q]}\t{float(weights[q])!r}\n" for q in order))
    return str(data), str(gw), RankingDataset(ds.X, ds.y, qid=ds.qid, group_weight=weights)


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gw")
    train = make_ltr(40, docs_per_query=(5, 12), n_features=6, noise=0.5, random_state=1)
    valid = make_ltr(15, docs_per_query=(5, 12), n_features=6, noise=0.5, random_state=2)
    valid = RankingDataset(valid.X, valid.y, qid=valid.qid + 1000)  # ids of its own
    return _files(tmp, "train", train, 0), _files(tmp, "valid", valid, 5)


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out + err


def test_train_weighs_the_training_and_validation_queries(sets, tmp_path, capsys):
    (train, train_gw, train_ds), (valid, valid_gw, valid_ds) = sets
    out = tmp_path / "model.json"
    argv = ["train", "--train", train, "--valid", valid, "--objective", "QueryRMSE", "--metric", METRIC,
            "--trees", "8", "--threads", "1", "--seed", "0", "--quiet", "--out", str(out)]
    printed = _run(argv + ["--group-weights", train_gw, "--valid-group-weights", valid_gw], capsys)
    cli = GBRanker.load(out)
    oracle = GBRanker(**cli.get_params()).fit(train_ds, eval_set=[valid_ds], eval_metrics=[METRIC])
    np.testing.assert_allclose(cli.predict(valid_ds.X), oracle.predict(valid_ds.X), rtol=1e-12)
    unweighted = GBRanker(**cli.get_params()).fit(train_ds.X, train_ds.y, qid=train_ds.qid)
    assert not np.allclose(cli.predict(valid_ds.X), unweighted.predict(valid_ds.X))  # the weights trained
    judged = evaluate(valid_ds, cli.predict(valid_ds.X), metric=METRIC)
    plain = evaluate(valid_ds.y, cli.predict(valid_ds.X), qid=valid_ds.qid, metric=METRIC)
    assert f"{judged:.6f}" != f"{plain:.6f}"
    assert f"valid: {METRIC}={judged:.6f}" in printed


def test_eval_reads_the_weights(sets, tmp_path, capsys):
    _, (valid, valid_gw, valid_ds) = sets
    scores = np.random.default_rng(3).normal(size=valid_ds.n_docs)
    np.savetxt(tmp_path / "scores.txt", scores)
    argv = ["eval", "--data", valid, "--scores", str(tmp_path / "scores.txt"), "--metric", METRIC, "--format", "json"]
    weighted = json.loads(_run(argv + ["--group-weights", valid_gw], capsys))[METRIC]
    assert weighted == pytest.approx(evaluate(valid_ds, scores, metric=METRIC), rel=1e-12)
    assert weighted != pytest.approx(json.loads(_run(argv, capsys))[METRIC], rel=1e-6)


@pytest.mark.parametrize("split", ["cv", "valid"])
def test_tune_weighs_every_fold(sets, tmp_path, capsys, split):
    pytest.importorskip("optuna")
    from metricrank.model_selection import tune

    (train, train_gw, train_ds), (valid, valid_gw, valid_ds) = sets
    argv = ["tune", "--train", train, "--objective", "QueryRMSE", "--metric", METRIC, "--trials", "2", "--seed", "0",
            "--trees", "6", "--early-stopping", "3", "--threads", "1", "--quiet", "--out", str(tmp_path / "m.json")]
    # the command's query ids are positions, the validation file's after the training file's
    sizes = [train_ds.query_sizes] + ([valid_ds.query_sizes] if split == "valid" else [])
    positions = np.repeat(np.arange(sum(s.size for s in sizes)), np.concatenate(sizes))
    if split == "cv":
        argv += ["--cv", "3", "--group-weights", train_gw]
        ds, cv = RankingDataset(train_ds.X, train_ds.y, qid=positions, group_weight=train_ds.group_weight), 3
    else:  # only --valid's queries weighed: the training file's weigh 1
        argv += ["--valid", valid, "--valid-group-weights", valid_gw]
        ds = RankingDataset(np.vstack([train_ds.X, valid_ds.X]), np.concatenate([train_ds.y, valid_ds.y]),
                            qid=positions, group_weight=np.concatenate([np.ones(train_ds.n_queries),
                                                                        valid_ds.group_weight]))
        cv = [(np.arange(train_ds.n_docs), np.arange(train_ds.n_docs, ds.n_docs))]
    weighted, plain = tmp_path / "weighted.json", tmp_path / "plain.json"
    _run(argv + ["--params-out", str(weighted)], capsys)
    unweighted = [a for a in argv if a not in (train_gw, valid_gw, "--group-weights", "--valid-group-weights")]
    _run(unweighted + ["--params-out", str(plain)], capsys)
    got = json.loads(weighted.read_text())
    expected = tune(GBRanker("QueryRMSE", n_estimators=6, n_jobs=1, random_state=0), ds, metric=METRIC, n_trials=2,
                    cv=cv, early_stopping_rounds=3, random_state=0, show_progress=False)
    assert got["best_score"] == pytest.approx(expected.best_score_, rel=1e-12)
    assert got["best_params"] == expected.summary()["best_params"]
    assert got["best_score"] != pytest.approx(json.loads(plain.read_text())["best_score"], rel=1e-6)


@pytest.mark.parametrize("argv, message", [
    (["train", "--valid", "TRAIN", "--valid-group-weights", "TRAIN", "--valid-group-weights", "TRAIN"],
     "--valid-group-weights is given 2 times for 1 --valid files"),
    (["train", "--group-weights", "/no/such/gw"], "--group-weights /no/such/gw: no such file"),
    (["train", "--group-weights", "TRAIN", "--dask", "127.0.0.1:8786"],
     "--group-weights weighs --train's queries, and a --dask fit reads row weights only"),
    (["tune", "--valid-group-weights", "TRAIN"], "--valid-group-weights weighs --valid's queries; pass --valid"),
    (["tune", "--group-weights", "/no/such/gw"], "--group-weights /no/such/gw: no such file"),
])
def test_weight_options_are_checked_before_reading(sets, tmp_path, capsys, argv, message):
    (train, _, _), _ = sets
    argv = [train if a == "TRAIN" else a for a in argv]
    # train checks that its input files exist first, so it gets one; tune must fail before reading a missing one
    data = train if argv[0] == "train" else str(tmp_path / "missing.txt")
    extra = ["--train", data, "--out", str(tmp_path / "m.json"), "--quiet"]
    assert main(argv[:1] + extra + argv[1:]) == 2
    err = capsys.readouterr().err
    assert message in err and "missing.txt" not in err


def test_a_weights_file_that_misses_a_query_names_it(sets, tmp_path, capsys):
    _, (valid, valid_gw, valid_ds) = sets
    lines = open(valid_gw).read().splitlines()
    short = tmp_path / "short.group_weights"
    short.write_text("\n".join(lines[1:]) + "\n")
    missing = lines[0].split("\t")[0]
    np.savetxt(tmp_path / "scores.txt", np.zeros(valid_ds.n_docs))
    code = main(["eval", "--data", valid, "--scores", str(tmp_path / "scores.txt"), "--group-weights", str(short)])
    assert code == 2
    err = capsys.readouterr().err
    assert str(short) in err and missing in err


def test_a_metric_that_reads_no_query_weights_says_so(sets, tmp_path, capsys):
    # MAP reads no query weights (CatBoost's definition), NDCG does: only MAP is named
    (train, _, _), (valid, valid_gw, valid_ds) = sets
    np.savetxt(tmp_path / "scores.txt", np.zeros(valid_ds.n_docs))
    printed = _run(["eval", "--data", valid, "--scores", str(tmp_path / "scores.txt"), "--metric", "MAP",
                    "--metric", METRIC, "--group-weights", valid_gw], capsys)
    assert "metricrank: warning: metric MAP: --group-weights is ignored: MAP reads no per-query weights" in printed
    assert f"metric {METRIC}:" not in printed
    printed = _run(["train", "--train", train, "--valid", valid, "--valid-group-weights", valid_gw, "--metric", "MAP",
                    "--trees", "2", "--threads", "1", "--quiet", "--out", str(tmp_path / "m.json")], capsys)
    assert "metricrank: warning: metric MAP: --valid-group-weights is ignored: MAP reads no" in printed

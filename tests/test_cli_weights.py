"""The command line's weight files: LightGBM's row weights (``--weights``) and CatBoost's group weights
(``--group-weights``), read by ``train``, ``tune`` and ``eval``.

Each oracle is the library called on a RankingDataset holding the same weights, and each case first checks that
the weights move the figure (else the comparison would show nothing).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from metricrank import GBRanker, RankingDataset, evaluate, make_ltr, save_letor
from metricrank.cli import main
from metricrank.data import save_group_weights, save_weights

# a metric that reads each kind: QueryRMSE the rows' weights, NDCG (CatBoost's) the queries'
METRIC = {"weight": "QueryRMSE", "group_weight": "NDCG:top=10"}
OPTIONS = {"weight": ("--weights", "--valid-weights"), "group_weight": ("--group-weights", "--valid-group-weights")}


def _files(tmp_path, name, ds, seed):
    """Save ``ds`` with a weight file and a group-weights file; return (data path, {kind: (file, ds with it)})."""
    rng = np.random.default_rng(seed)
    weight, group_weight = rng.uniform(0.1, 4.0, ds.n_docs), rng.uniform(0.1, 4.0, ds.n_queries)
    data = tmp_path / f"{name}.txt"
    save_letor(ds, data)
    save_weights(tmp_path / f"{name}.w", weight)
    order = rng.permutation(ds.n_queries)  # any line order
    save_group_weights(tmp_path / f"{name}.gw", ds.query_ids[order], group_weight[order])
    return str(data), {"weight": (str(tmp_path / f"{name}.w"), RankingDataset(ds.X, ds.y, qid=ds.qid, weight=weight)),
                       "group_weight": (str(tmp_path / f"{name}.gw"),
                                        RankingDataset(ds.X, ds.y, qid=ds.qid, group_weight=group_weight))}


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("weights")
    train = make_ltr(40, docs_per_query=(5, 12), n_features=6, noise=0.5, random_state=1)
    valid = make_ltr(15, docs_per_query=(5, 12), n_features=6, noise=0.5, random_state=2)
    valid = RankingDataset(valid.X, valid.y, qid=valid.qid + 1000)  # ids of its own
    return _files(tmp, "train", train, 0), _files(tmp, "valid", valid, 5)


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out + err


@pytest.mark.parametrize("kind", sorted(METRIC))
def test_train_weighs_the_training_and_validation_sets(sets, tmp_path, capsys, kind):
    (train, train_files), (valid, valid_files) = sets
    (train_w, train_ds), (valid_w, valid_ds) = train_files[kind], valid_files[kind]
    metric, out = METRIC[kind], tmp_path / "model.json"
    argv = ["train", "--train", train, "--valid", valid, "--objective", "QueryRMSE", "--metric", metric,
            "--trees", "8", "--threads", "1", "--seed", "0", "--quiet", "--out", str(out)]
    printed = _run(argv + [OPTIONS[kind][0], train_w, OPTIONS[kind][1], valid_w], capsys)
    cli = GBRanker.load(out)
    oracle = GBRanker(**cli.get_params()).fit(train_ds, eval_set=[valid_ds], eval_metrics=[metric])
    np.testing.assert_allclose(cli.predict(valid_ds.X), oracle.predict(valid_ds.X), rtol=1e-12)
    unweighted = GBRanker(**cli.get_params()).fit(train_ds.X, train_ds.y, qid=train_ds.qid)
    assert not np.allclose(cli.predict(valid_ds.X), unweighted.predict(valid_ds.X))  # the weights trained
    judged = evaluate(valid_ds, cli.predict(valid_ds.X), metric=metric)
    plain = evaluate(valid_ds.y, cli.predict(valid_ds.X), qid=valid_ds.qid, metric=metric)
    assert f"{judged:.6f}" != f"{plain:.6f}"
    assert f"valid: {metric}={judged:.6f}" in printed


@pytest.mark.parametrize("kind", sorted(METRIC))
def test_eval_reads_the_weights(sets, tmp_path, capsys, kind):
    _, (valid, valid_files) = sets
    path, valid_ds = valid_files[kind]
    scores = np.random.default_rng(3).normal(size=valid_ds.n_docs)
    np.savetxt(tmp_path / "scores.txt", scores)
    metric = METRIC[kind]
    argv = ["eval", "--data", valid, "--scores", str(tmp_path / "scores.txt"), "--metric", metric, "--format", "json"]
    weighted = json.loads(_run(argv + [OPTIONS[kind][0], path], capsys))[metric]
    assert weighted == pytest.approx(evaluate(valid_ds, scores, metric=metric), rel=1e-12)
    assert weighted != pytest.approx(json.loads(_run(argv, capsys))[metric], rel=1e-6)


@pytest.mark.parametrize("kind", sorted(METRIC))
@pytest.mark.parametrize("split", ["cv", "valid"])
def test_tune_weighs_every_fold(sets, tmp_path, capsys, split, kind):
    pytest.importorskip("optuna")
    from metricrank.model_selection import tune

    (train, train_files), (valid, valid_files) = sets
    (train_w, train_ds), (valid_w, valid_ds) = train_files[kind], valid_files[kind]
    metric = METRIC[kind]
    argv = ["tune", "--train", train, "--objective", "QueryRMSE", "--metric", metric, "--trials", "2", "--seed", "0",
            "--trees", "6", "--early-stopping", "3", "--threads", "1", "--quiet", "--out", str(tmp_path / "m.json")]
    # the command's query ids are positions, the validation file's after the training file's
    sizes = [train_ds.query_sizes] + ([valid_ds.query_sizes] if split == "valid" else [])
    positions = np.repeat(np.arange(sum(s.size for s in sizes)), np.concatenate(sizes))
    if split == "cv":
        argv += ["--cv", "3", OPTIONS[kind][0], train_w]
        ds, cv = RankingDataset(train_ds.X, train_ds.y, qid=positions, **{kind: getattr(train_ds, kind)}), 3
    else:  # only --valid's weights given: the training file's rows or queries weigh 1
        argv += ["--valid", valid, OPTIONS[kind][1], valid_w]
        ones = np.ones(train_ds.n_docs if kind == "weight" else train_ds.n_queries)
        ds = RankingDataset(np.vstack([train_ds.X, valid_ds.X]), np.concatenate([train_ds.y, valid_ds.y]),
                            qid=positions, **{kind: np.concatenate([ones, getattr(valid_ds, kind)])})
        cv = [(np.arange(train_ds.n_docs), np.arange(train_ds.n_docs, ds.n_docs))]
    weighted, plain = tmp_path / "weighted.json", tmp_path / "plain.json"
    _run(argv + ["--params-out", str(weighted)], capsys)
    _run(argv[:-2] + ["--params-out", str(plain)], capsys)  # the same without the weight file
    got = json.loads(weighted.read_text())
    expected = tune(GBRanker("QueryRMSE", n_estimators=6, n_jobs=1, random_state=0), ds, metric=metric, n_trials=2,
                    cv=cv, early_stopping_rounds=3, random_state=0, show_progress=False)
    assert got["best_score"] == pytest.approx(expected.best_score_, rel=1e-12)
    assert got["best_params"] == expected.summary()["best_params"]
    assert got["best_score"] != pytest.approx(json.loads(plain.read_text())["best_score"], rel=1e-6)


@pytest.mark.parametrize("argv, message", [
    (["train", "--valid", "TRAIN", "--valid-group-weights", "TRAIN", "--valid-group-weights", "TRAIN"],
     "--valid-group-weights is given 2 times for 1 --valid files"),
    (["train", "--valid", "TRAIN", "--valid-weights", "TRAIN", "--valid-weights", "TRAIN"],
     "--valid-weights is given 2 times for 1 --valid files"),
    (["train", "--group-weights", "/no/such/gw"], "--group-weights /no/such/gw: no such file"),
    (["train", "--weights", "/no/such/w"], "--weights /no/such/w: no such file"),
    (["train", "--group-weights", "TRAIN", "--dask", "127.0.0.1:8786"],
     "--group-weights weighs --train's queries, and a --dask fit reads row weights only"),
    (["tune", "--valid-group-weights", "TRAIN"], "--valid-group-weights weighs --valid's queries; pass --valid"),
    (["tune", "--valid-weights", "TRAIN"], "--valid-weights weighs --valid's rows; pass --valid"),
    (["tune", "--group-weights", "/no/such/gw"], "--group-weights /no/such/gw: no such file"),
    (["tune", "--weights", "/no/such/w"], "--weights /no/such/w: no such file"),
])
def test_weight_options_are_checked_before_reading(sets, tmp_path, capsys, argv, message):
    (train, _), _ = sets
    argv = [train if a == "TRAIN" else a for a in argv]
    # train checks that its input files exist first, so it gets one; tune must fail before reading a missing one
    data = train if argv[0] == "train" else str(tmp_path / "missing.txt")
    extra = ["--train", data, "--out", str(tmp_path / "m.json"), "--quiet"]
    assert main(argv[:1] + extra + argv[1:]) == 2
    err = capsys.readouterr().err
    assert message in err and "missing.txt" not in err


def test_a_weight_file_that_misses_a_row_or_a_query_names_it(sets, tmp_path, capsys):
    _, (valid, valid_files) = sets
    n_docs = valid_files["weight"][1].n_docs
    np.savetxt(tmp_path / "scores.txt", np.zeros(n_docs))
    argv = ["eval", "--data", valid, "--scores", str(tmp_path / "scores.txt")]
    lines = open(valid_files["group_weight"][0]).read().splitlines()
    short = tmp_path / "short.gw"
    short.write_text("\n".join(lines[1:]) + "\n")
    assert main(argv + ["--group-weights", str(short)]) == 2
    err = capsys.readouterr().err
    assert str(short) in err and lines[0].split("\t")[0] in err
    save_weights(tmp_path / "short.w", np.ones(n_docs - 1))
    assert main(argv + ["--weights", str(tmp_path / "short.w")]) == 2
    assert f"{tmp_path / 'short.w'}: {n_docs - 1} weights for {n_docs} rows" in capsys.readouterr().err
    (tmp_path / "bad.w").write_text("1\n-2\n")
    assert main(argv + ["--weights", str(tmp_path / "bad.w")]) == 2
    assert f"{tmp_path / 'bad.w'}, line 2: weight '-2' must be finite and >= 0" in capsys.readouterr().err
    # all zero: the data set's check, named by the option and file that gave the weights
    save_weights(tmp_path / "zero.w", np.zeros(n_docs))
    assert main(argv + ["--weights", str(tmp_path / "zero.w")]) == 2
    assert f"--weights {tmp_path / 'zero.w'}: weight is 0 for every entry" in capsys.readouterr().err
    zero = tmp_path / "zero.gw"
    zero.write_text("".join(line.split("\t")[0] + "\t0\n" for line in lines))
    assert main(argv + ["--group-weights", str(zero)]) == 2
    assert f"--group-weights {zero}: group_weight is 0 for every entry" in capsys.readouterr().err


def test_a_metric_that_leaves_the_weights_unread_says_so(sets, tmp_path, capsys):
    # MAP reads no weights (CatBoost's definition), NDCG only the queries': each unread one is named
    (train, _), (valid, valid_files) = sets
    n_docs = valid_files["weight"][1].n_docs
    np.savetxt(tmp_path / "scores.txt", np.zeros(n_docs))
    printed = _run(["eval", "--data", valid, "--scores", str(tmp_path / "scores.txt"), "--metric", "MAP",
                    "--metric", "NDCG:top=10", "--group-weights", valid_files["group_weight"][0],
                    "--weights", valid_files["weight"][0]], capsys)
    assert "metricrank: warning: metric MAP: --group-weights is ignored: MAP reads no per-query weights" in printed
    assert "metricrank: warning: metric MAP: --weights is ignored: MAP reads no per-row weights" in printed
    assert "metric NDCG:top=10: --weights is ignored" in printed
    assert "metric NDCG:top=10: --group-weights" not in printed
    printed = _run(["train", "--train", train, "--valid", valid, "--valid-group-weights",
                    valid_files["group_weight"][0], "--metric", "MAP", "--trees", "2", "--threads", "1", "--quiet",
                    "--out", str(tmp_path / "m.json")], capsys)
    assert "metricrank: warning: metric MAP: --valid-group-weights is ignored: MAP reads no" in printed


def test_a_lightgbm_weight_file_beside_the_data_is_named_not_read(sets, tmp_path, capsys):
    # LightGBM reads DATA.weight by default; metricrank reads what --weights names, and says the file is there
    _, (valid, valid_files) = sets
    path, valid_ds = valid_files["weight"]
    data = tmp_path / "valid.txt"
    with pytest.warns(UserWarning, match=r"save_letor writes no weights \(save_weights\)"):
        save_letor(valid_ds, data)
    save_weights(f"{data}.weight", valid_ds.weight)
    scores = np.random.default_rng(3).normal(size=valid_ds.n_docs)
    np.savetxt(tmp_path / "scores.txt", scores)
    argv = ["eval", "--data", str(data), "--scores", str(tmp_path / "scores.txt"), "--metric", "QueryRMSE",
            "--format", "json"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0
    assert f"metricrank: warning: {data}.weight is not read (LightGBM reads it by default): pass --weights " \
           f"{data}.weight to weigh the rows" in err
    assert err.count(".weight is not read") == 1  # the command line's word, not load_letor's too
    assert json.loads(out)["QueryRMSE"] == pytest.approx(
        evaluate(valid_ds.y, scores, qid=valid_ds.qid, metric="QueryRMSE"), rel=1e-12)
    printed = _run(argv + ["--weights", f"{data}.weight"], capsys)
    assert "is not read" not in printed
    printed = _run(["train", "--train", str(data), "--valid", str(data), "--trees", "2", "--threads", "1", "--quiet",
                    "--out", str(tmp_path / "m.json")], capsys)
    assert f"pass --weights {data}.weight" in printed and f"pass --valid-weights {data}.weight" in printed

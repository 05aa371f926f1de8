"""The command line refuses, before any long work, what would otherwise overwrite an input, lose results or
mislead: an output that is an input, a pipe the reader reads twice, a metric the training labels leave, two
metrics for a one-metric search, an unknown database, a plot that cannot be written, strict JSON's NaN."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from metricrank import LambdaMART, make_ltr, save_letor
from metricrank.cli import main
from metricrank.learners import GBRanker


@pytest.fixture
def files(tmp_path):
    train = make_ltr(20, docs_per_query=(4, 10), n_features=6, random_state=0)
    save_letor(train, tmp_path / "train.txt")
    return tmp_path, train


def no_fit(monkeypatch):
    for cls in (GBRanker, LambdaMART):
        monkeypatch.setattr(cls, "fit", lambda *args, **kwargs: pytest.fail("the command fitted before its checks"))


def test_train_checks_its_metrics_against_the_training_labels_before_the_fit(files, capsys, monkeypatch):
    # graded labels 0-4 under ERR (CatBoost's: probabilities in [0, 1]) failed after every tree, model written
    root, _ = files
    no_fit(monkeypatch)
    out = root / "m.json"
    code = main(["train", "--train", str(root / "train.txt"), "--objective", "YetiRank", "--metric", "ERR",
                 "--trees", "5", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and f"--train {root / 'train.txt'}: ERR:type=Probability needs labels" in err
    assert not out.exists()


def test_train_writes_the_model_after_its_last_report(files, capsys, monkeypatch):
    # a failure in the closing evaluation leaves no model behind (the command fails, so nothing is written)
    import metricrank.metrics

    root, _ = files
    out = root / "m.json"

    def broken(*args, **kwargs):
        raise ValueError("closing evaluation failed")

    monkeypatch.setattr(metricrank.metrics, "evaluate_many", broken)
    code = main(["train", "--train", str(root / "train.txt"), "--trees", "3", "--leaves", "4",
                 "--min-data-in-leaf", "3", "--out", str(out), "--quiet"])
    assert code == 2 and "closing evaluation failed" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("command", ["train", "predict", "eval"])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(files, capsys, command):
    root, train = files
    data = root / "train.txt"
    before = data.read_bytes()
    scores = root / "scores.txt"
    np.savetxt(scores, np.arange(train.n_docs, dtype=float))
    LambdaMART(n_estimators=2, min_data_in_leaf=3).fit(train).save(root / "m.json")
    argv = {"train": ["train", "--train", str(data), "--out", str(root / "." / "train.txt"), "--quiet"],
            "predict": ["predict", "--model", str(root / "m.json"), "--data", str(data), "--out", str(data)],
            "eval": ["eval", "--data", str(data), "--scores", str(scores), "--per-query", str(data)]}[command]
    assert main(argv) == 2
    assert "file: the" in capsys.readouterr().err
    assert data.read_bytes() == before


def test_eval_refuses_two_results_on_stdout_and_writes_strict_json(files, capsys):
    root, train = files
    scores = root / "scores.txt"
    np.savetxt(scores, np.arange(train.n_docs, dtype=float))
    data = str(root / "train.txt")
    assert main(["eval", "--data", data, "--scores", str(scores), "--per-query", "-", "--format", "json"]) == 2
    assert "--per-query - and --format json both write to standard output" in capsys.readouterr().err
    # a metric that is NaN on these labels (MAP, queries without a relevant document skipped: all of them)
    flat = root / "flat.txt"
    save_letor(make_ltr(3, docs_per_query=(3, 3), n_features=6, random_state=0).subset_queries([0]), flat)
    text = flat.read_text().splitlines()
    flat.write_text("".join("0" + line[line.index(" "):] + "\n" for line in text))
    np.savetxt(scores, np.arange(len(text), dtype=float))
    assert main(["eval", "--data", str(flat), "--scores", str(scores), "--metric", "MAP:empty=skip",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    parsed = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} is no JSON"))
    assert parsed == {"MAP:empty=skip": None}


@pytest.fixture
def piped():
    """A pipe holding a file's bytes, its writer closed: ``/dev/fd/N`` (the shell's ``<(cat path)``)."""
    ends = []

    def pipe(path) -> str:
        read, write = os.pipe()
        ends.append(read)
        os.write(write, path.read_bytes())  # small: it fits in the pipe's buffer
        os.close(write)
        return f"/dev/fd/{read}"

    yield pipe
    for end in ends:
        os.close(end)


def test_a_pipe_is_refused_where_the_reader_reads_twice_and_read_where_once(files, capsys, piped):
    # the data reader reads a file twice: from a pipe the second pass read no rows ("sklearn read 0 rows")
    root, train = files
    scores = root / "scores.txt"
    np.savetxt(scores, np.arange(train.n_docs, dtype=float))
    data = piped(root / "train.txt")
    assert main(["eval", "--data", data, "--scores", str(scores)]) == 2
    assert f"--data: {data}: is not a regular file (a pipe or a device)" in capsys.readouterr().err
    data = piped(root / "train.txt")
    assert main(["train", "--train", data, "--out", str(root / "m.json")]) == 2
    assert f"--train {data}: is not a regular file" in capsys.readouterr().err
    assert main(["eval", "--data", str(root / "train.txt"), "--scores", piped(scores)]) == 0  # read once
    # so are the side files: a weight file through a pipe weighs as the file does
    weights = root / "rows.weight"
    np.savetxt(weights, np.linspace(0.5, 2.0, train.n_docs))
    argv = ["eval", "--data", str(root / "train.txt"), "--scores", str(scores), "--metric", "QueryRMSE",
            "--format", "json"]
    capsys.readouterr()
    assert main(argv + ["--weights", str(weights)]) == 0
    from_file = capsys.readouterr().out
    assert main(argv + ["--weights", piped(weights)]) == 0
    assert capsys.readouterr().out == from_file
    assert main(["train", "--train", str(root / "train.txt"), "--weights", piped(weights), "--trees", "2",
                 "--quiet", "--out", str(root / "m.json")]) == 0


def test_zero_based_files_get_command_line_advice(files, capsys):
    root, _ = files
    (root / "zero.txt").write_text("1 qid:1 0:1.0 1:2\n0 qid:1 0:0.5 1:1\n")
    (root / "s.txt").write_text("1\n2\n")
    assert main(["eval", "--data", str(root / "zero.txt"), "--scores", str(root / "s.txt")]) == 2
    err = capsys.readouterr().err
    assert "feature index 0" in err and "zero_based=True" not in err
    assert "the command line reads 1-based files only" in err


@pytest.mark.skipif(__import__("importlib").util.find_spec("optuna") is None, reason="Optuna is the tune extra")
@pytest.mark.parametrize("extra, message", [
    (["--metric", "NDGC_TYPO", "--metric", "MAP"], "--metric given 2 times (NDGC_TYPO, MAP); tune optimises one"),
    (["--storage", "bogus://x"], "--storage bogus://x: SQLAlchemy knows no database 'bogus'"),
    (["--params-out", "OUT"], "--out and --params-out are the same file"),
    (["--weights", "PARAMS", "--params-out", "PARAMS"],
     "--params-out PARAMS is --weights's file: the parameters would replace it"),
    (["--group-weights", "PARAMS", "--params-out", "PARAMS"],
     "--params-out PARAMS is --group-weights's file: the parameters would replace it"),
    (["--params-out", "TRAIN"], "--params-out TRAIN is --train's file: the parameters would replace it"),
    (["--valid", "TRAIN", "--valid-query-file", "PARAMS", "--params-out", "PARAMS"],
     "--params-out PARAMS is --valid-query-file's file: the parameters would replace it"),
])
def test_tune_refuses_before_reading(files, capsys, monkeypatch, extra, message):
    root, _ = files
    no_fit(monkeypatch)
    out = str(root / "m.json")
    argv = ["tune", "--train", str(root / "train.txt"), "--out", out, "--quiet", "--trials", "1"]
    params = root / "params.json"  # an existing file, which the output would replace
    params.write_text("1\n" * 10)
    named = {"OUT": out, "PARAMS": str(params), "TRAIN": str(root / "train.txt")}
    train = (root / "train.txt").read_text()
    assert main(argv + [named.get(a, a) for a in extra]) == 2
    for key, path in named.items():
        message = message.replace(key, path)
    assert message in capsys.readouterr().err
    assert params.read_text() == "1\n" * 10 and (root / "train.txt").read_text() == train


@pytest.mark.skipif(__import__("importlib").util.find_spec("optuna") is None, reason="Optuna is the tune extra")
def test_tune_refuses_a_model_over_an_input(files, capsys, monkeypatch):
    root, _ = files
    no_fit(monkeypatch)
    weights = root / "weights.txt"
    weights.write_text("1\n" * 10)
    assert main(["tune", "--train", str(root / "train.txt"), "--weights", str(weights), "--out", str(weights),
                 "--quiet", "--trials", "1"]) == 2
    assert f"--out {weights} is --weights's file: the model would replace it" in capsys.readouterr().err
    assert weights.read_text() == "1\n" * 10


def test_analyze_checks_the_plot_path_before_computing(files, capsys, monkeypatch):
    import metricrank.analysis

    root, train = files
    LambdaMART(n_estimators=2, min_data_in_leaf=3).fit(train).save(root / "m.json")
    monkeypatch.setattr(metricrank.analysis, "local_optimality",
                        lambda *args, **kwargs: pytest.fail("computed before checking --plot"))
    code = main(["analyze", "optimality", "--model", str(root / "m.json"), "--data", str(root / "train.txt"),
                 "--plot", str(root)])
    assert code == 2 and f"--plot {root} is a directory" in capsys.readouterr().err


def test_an_experiment_without_its_data_makes_no_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("METRICRANK_DATA", str(tmp_path / "missing"))
    assert main(["experiment", "welleck"]) == 2
    assert "shared data directory not found" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, folder", [(["welleck"], "MQ2008"), (["ataman"], "uci"),
                                          (["quality", "--datasets", "lgb-example"], "lightgbm-rank-example")])
def test_an_experiment_whose_data_directory_lacks_its_folder_makes_nothing(tmp_path, capsys, argv, folder):
    # it made --out, then failed with a bare "No such file or directory" (exit 1)
    data = tmp_path / "data"
    data.mkdir()
    assert main(["experiment", *argv, "--data-dir", str(data), "--out", str(tmp_path / "out")]) == 2
    assert f"--data-dir {data} holds no {folder}/, which experiment {argv[0]} reads" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [data]


def test_a_quality_run_on_drawn_data_alone_needs_no_data_directory(tmp_path, monkeypatch):
    from metricrank.experiments import quality

    monkeypatch.setattr(quality, "run", lambda **kwargs: "report")
    assert main(["experiment", "quality", "--datasets", "synthetic-50k", "--data-dir", str(tmp_path),
                 "--out", str(tmp_path / "out")]) == 0


def test_all_zero_weights_are_refused(files):
    from metricrank import RankingDataset

    _, train = files
    for name, size in (("weight", train.n_docs), ("group_weight", train.n_queries)):
        with pytest.raises(ValueError, match=f"{name} is 0 for every entry: every weighted metric and gradient"):
            RankingDataset(train.X, train.y, group_ptr=train.group_ptr, **{name: np.zeros(size)})
    kept = RankingDataset(train.X, train.y, group_ptr=train.group_ptr, weight=np.r_[np.zeros(train.n_docs - 1), 1])
    assert math.isclose(kept.weight.sum(), 1.0)


def test_a_score_file_names_the_line_of_bad_text(files, capsys):
    root, _ = files
    data = root / "two.txt"
    data.write_text("1 qid:1 1:1\n0 qid:1 1:2\n")
    for text, message in ((b"1\n\xff2\n", "line 2: not UTF-8 text"), (b"1\n1_5\n", "line 2: '1_5' is not a number")):
        (root / "s.txt").write_bytes(text)
        assert main(["eval", "--data", str(data), "--scores", str(root / "s.txt")]) == 2
        assert message in capsys.readouterr().err


@pytest.mark.skipif(__import__("importlib").util.find_spec("optuna") is None, reason="Optuna is the tune extra")
def test_ctrl_c_in_tune_is_one_line_without_optunas_traceback(files, capsys, monkeypatch):
    import logging
    import sys

    import optuna  # noqa: F401 - its logger and handler

    import metricrank.model_selection

    def interrupted_trial(*args, **kwargs):  # what Optuna logs when Ctrl-C stops a trial (study._optimize)
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            logger = logging.getLogger("optuna.study._optimize")
            logger.warning("Trial 0 failed with parameters: {} because of the following error: KeyboardInterrupt().",
                           exc_info=sys.exc_info())
            logger.warning("Trial 0 failed with value None.")
            logger.warning("an unrelated warning stays")
            raise

    monkeypatch.setattr(metricrank.model_selection, "tune", interrupted_trial)
    # Optuna's own handler writes where stderr was at its import (another test's capture): two to this one's
    # (each handler of the logger asks the filter about every record)
    monkeypatch.setattr(logging.getLogger("optuna"), "handlers", [logging.StreamHandler(sys.stderr) for _ in "ab"])
    root, _ = files
    code = main(["tune", "--train", str(root / "train.txt"), "--out", str(root / "m.json"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 130 and err.rstrip().endswith("metricrank: interrupted")
    assert "Traceback" not in err and "Trial 0 failed" not in err and "an unrelated warning stays" in err


def test_label_errors_name_the_file_and_line_of_the_row(tmp_path, capsys):
    # the checks count rows from 0; the file has comments and a blank line, so row 3 is line 6
    bad = tmp_path / "neg.txt"
    bad.write_text("# header\n1 qid:1 1:1 2:0\n0 qid:1 1:2 2:1\n\n2 qid:2 1:3 2:0\n-1 qid:2 1:0 2:1 #docid = x\n")
    good = tmp_path / "pos.txt"
    good.write_text("".join(f"{i % 3} qid:{i // 2} 1:{i / 10} 2:{i % 2}\n" for i in range(8)))
    (tmp_path / "s.txt").write_text("1\n2\n3\n4\n")
    where = f"row 3 ({bad}, line 6) has label -1"
    small = ["--trees", "2", "--leaves", "2", "--min-data-in-leaf", "1", "--quiet", "--out", str(tmp_path / "m.json")]
    tuning = ["--trials", "1", "--trees", "2", "--quiet", "--out", str(tmp_path / "m.json")]
    for argv, prefix in [
        (["eval", "--data", str(bad), "--scores", str(tmp_path / "s.txt"), "--metric", "NDCG"], ""),
        (["train", "--train", str(bad), "--metric", "NDCG", *small], f"--train {bad}: "),
        (["train", "--train", str(good), "--valid", str(bad), "--metric", "NDCG", *small], "eval set valid: "),
        (["train", "--train", str(bad), "--objective", "QuerySoftMax", *small], ""),
        (["tune", "--train", str(bad), "--metric", "NDCG", *tuning], ""),
        # tune joins --train and --valid: row 11 of the data is --valid's row 3
        (["tune", "--train", str(good), "--valid", str(bad), "--metric", "NDCG", *tuning], ""),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"metricrank: error: {prefix}" in err and where in err, err

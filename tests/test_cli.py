"""The command line, called in-process and once as a real subprocess."""

import csv
import importlib.util
import json
import os
import subprocess
import sys
from math import log2

import numpy as np
import pytest

from metricrank import LambdaMART, evaluate
from metricrank.cli import main

LETOR = """2 qid:1 1:0.1 2:0.5 #docid = a
0 qid:1 1:0.3 2:0.1 #docid = b
1 qid:1 1:0.2 2:0.2 #docid = c
0 qid:2 1:0.9 2:0.4 #docid = d
1 qid:2 1:0.1 2:0.3 #docid = e
"""
SCORES = [0.9, 0.8, 0.1, 0.3, 0.2]
NEEDS_OPTUNA = pytest.mark.skipif(importlib.util.find_spec("optuna") is None, reason="Optuna is the tune extra")


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "test.txt"
    data.write_text(LETOR)
    scores = tmp_path / "scores.txt"
    scores.write_text("\n".join(map(str, SCORES)) + "\n")
    return data, scores


def test_eval_json_matches_api(files, capsys):
    data, scores = files
    assert main(["eval", "--data", str(data), "--scores", str(scores), "--metric", "NDCG:top=10",
                 "--metric", "MAP", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    y = [2, 0, 1, 0, 1]
    q1 = (2 + 0 + 1 / log2(4)) / (2 + 1 / log2(3))
    q2 = (0 + 1 / log2(3)) / 1
    assert out["NDCG:top=10"] == pytest.approx((q1 + q2) / 2)
    assert out["MAP"] == pytest.approx(evaluate(y, SCORES, qid=[1, 1, 1, 2, 2], metric="MAP"))


def test_eval_warns_where_a_metric_judges_any_scores_alike(files, tmp_path, capsys):
    data, scores = files
    shifted = tmp_path / "grades1-3.txt"  # every document relevant to MAP (label > border 0.5)
    shifted.write_text("".join(f"{int(line[0]) + 1}{line[1:]}\n" for line in LETOR.splitlines()))
    assert main(["eval", "--data", str(shifted), "--scores", str(scores), "--metric", "MAP", "--metric", "p@3",
                 "--metric", "NDCG:top=10", "--format", "json"]) == 0
    captured = capsys.readouterr()
    values = json.loads(captured.out)
    assert (values["MAP"], values["p@3"]) == (1.0, 1.0)  # what the warnings say; NDCG@10 reads the order
    warned = [line for line in captured.err.splitlines() if "scores every query the same" in line]
    assert warned == [
        f"metricrank: warning: {shifted}: MAP scores every query the same (1) whether its documents are ranked best "
        "or worst first; MAP counts a label above border=0.5 as relevant, so it judges any scores by a constant; "
        "check the labels (and qid) against the metric",
        f"metricrank: warning: {shifted}: p@3 scores every query the same (1) whether its documents are ranked best "
        "or worst first; its top=3 holds every document of every query (at most 3), so it judges any scores by a "
        "constant; check the labels (and qid) against the metric"]
    assert main(["eval", "--data", str(data), "--scores", str(scores), "--metric", "MAP", "--format", "json"]) == 0
    assert "scores every query the same" not in capsys.readouterr().err  # grades 0-2: MAP moves


def test_eval_table_and_per_query_csv(files, tmp_path, capsys):
    data, scores = files
    out_csv = tmp_path / "per_query.csv"
    assert main(["eval", "--data", str(data), "--scores", str(scores), "--metric", "mrr@10",
                 "--per-query", str(out_csv), "--preset", "trec_eval"]) == 0
    table = capsys.readouterr().out
    assert "mrr@10" in table and "queries counted" in table
    rows = list(csv.reader(out_csv.open()))
    assert rows[0] == ["query", "n_docs", "mrr@10"]
    assert [r[:2] for r in rows[1:]] == [["1", "3"], ["2", "2"]]
    assert [float(r[2]) for r in rows[1:]] == [1.0, 0.5]


def test_eval_errors_name_the_problem(files, tmp_path, capsys):
    data, scores = files
    short = tmp_path / "short.txt"
    short.write_text("0.1\n0.2\n")
    assert main(["eval", "--data", str(data), "--scores", str(short)]) == 2
    assert "short.txt has 2 scores but the data has 5 rows" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_text("0.1\n0.2\nnan\n0.3\n0.4\n")
    assert main(["eval", "--data", str(data), "--scores", str(bad)]) == 2
    assert "bad.txt, line 3" in capsys.readouterr().err
    assert main(["eval", "--data", str(data), "--scores", str(scores), "--metric", "NDCG:type=Linear"]) == 2
    assert "choose one of Base, Exp" in capsys.readouterr().err


def test_metrics_listing(capsys):
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    for name in ("NDCG", "QueryCrossEntropy", "MAUC", "AUC", "PairLogit"):
        assert name in out


def test_module_entry_point_runs(files):
    data, scores = files
    proc = subprocess.run([sys.executable, "-m", "metricrank", "eval", "--data", str(data),
                           "--scores", str(scores), "--metric", "ERR:type=Graded", "--format", "json"],
                          capture_output=True, text=True, check=True)
    value = json.loads(proc.stdout)["ERR:type=Graded"]
    assert value == pytest.approx(evaluate([2, 0, 1, 0, 1], SCORES, qid=[1, 1, 1, 2, 2],
                                           metric="ERR:type=Graded"))


def test_demo_trains_and_compares(capsys):
    from metricrank.demo import run_demo

    results = run_demo(n_queries=60, seed=1, n_estimators=10)
    assert "LightGBM lambdarank" in results
    assert {"λ-NDCG@10", "λ-MAP", "λ-MAUC", "λ-ROCArea", "RankNet", "LambdaMART(metric=MRR)",
            "LambdaMART(metric=NDCG@10e)"} <= set(results)
    assert results["λ-MAUC"]["MAUC"] > results["random"]["MAUC"]
    learned = results["LightGBM lambdarank"]["NDCG:top=10"]
    assert learned > results["random"]["NDCG:top=10"]
    assert all(np.isfinite(v) for r in results.values() for v in r.values())


@pytest.mark.parametrize("argv, message", [
    (["--queries", "4"], "--queries must be >= 5 (60/20/20 % of the queries train, validate and test); got 4"),
    (["--seed", "-1"], "--seed must be an integer in [0, 2**31); got -1"),
])
def test_demo_checks_its_options(capsys, argv, message):
    # (4 queries left the test split empty, and a negative seed raised NumPy's message)
    assert main(["demo", *argv]) == 2
    assert message in capsys.readouterr().err


def test_run_demo_checks_its_arguments():
    from metricrank.demo import run_demo

    with pytest.raises(ValueError, match="n_queries must be an integer >= 5"):
        run_demo(n_queries=2.5)
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 2\*\*31\); got -3"):
        run_demo(seed=-3)


# --- issue 11: hardening -------------------------------------------------------------------

def test_scores_with_two_columns_name_file_and_line(files, tmp_path, capsys):
    data, _ = files
    two = tmp_path / "two.txt"
    two.write_text("0.9\n0.8\n0.1 7\n0.3\n0.2\n")
    assert main(["eval", "--data", str(data), "--scores", str(two)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("metricrank: error:") and "two.txt, line 3: 2 columns" in err


def test_scores_with_lines_ended_by_a_carriage_return_alone_name_file_and_line(files, tmp_path, capsys):
    data, _ = files
    mac = tmp_path / "mac.txt"
    mac.write_bytes(b"0.9\r0.8\r0.1\r0.3\r0.2\r")
    assert main(["eval", "--data", str(data), "--scores", str(mac)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("metricrank: error:") and "mac.txt, line 1: carriage returns (\\r) split the line into rows" in err


def test_data_without_qid_warns_one_query(tmp_path, capsys):
    data = tmp_path / "noqid.txt"
    data.write_text("2 1:0.1\n0 1:0.3\n1 1:0.2\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.3\n0.1\n0.2\n")
    assert main(["eval", "--data", str(data), "--scores", str(scores), "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "metricrank: warning:" in out.err and "treated as one query" in out.err
    assert "noqid.txt" in out.err
    assert json.loads(out.out)["NDCG:top=10"] == pytest.approx(1.0)


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    import metricrank

    assert capsys.readouterr().out.strip() == f"metricrank {metricrank.__version__}"
    # the installed package's metadata reads the same one place (pyproject's version is dynamic)
    from importlib.metadata import version

    assert version("metricrank") == metricrank.__version__


def test_top_level_help_names_every_command_and_no_docstring_markup(capsys):
    from metricrank.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "``" not in text and all(f"\n    {name}" in text for name in commands)
    for name, sub in commands.items():  # no reST markup in any command's help either
        assert "``" not in sub.format_help(), name


@pytest.mark.parametrize("command", ["eval", "metrics", "demo", "experiment"])
def test_every_option_has_help_with_its_default(command):
    from metricrank.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    formatter = sub._get_formatter()
    for action in sub._actions:
        if not action.option_strings or action.dest == "help":
            continue
        assert action.help, f"{command} {action.option_strings} has no help"
        text = formatter._expand_help(action) if action.help else ""
        text = formatter._get_help_string(action) % {"default": action.default}
        assert action.required or "default" in text, f"{command} {action.option_strings}: {text}"


def test_output_problems_fail_before_work(files, tmp_path, capsys, monkeypatch):
    data, scores = files
    import metricrank.cli as cli

    def never(*a, **k):
        raise AssertionError("data were read before the options were checked")

    monkeypatch.setattr("metricrank.data.load_letor", never)
    cases = [
        (["--per-query", str(tmp_path / "missing" / "q.csv")], "does not exist"),
        (["--per-query", str(tmp_path)], "is a directory"),
        (["--metric", "NDCG:top=x"], "--metric 'NDCG:top=x'"),
        (["--metric", "NoSuchMetric"], "unknown metric"),
        (["--query-file", str(tmp_path / "none.query")], "none.query: no such file"),
        (["--metric", "MAP", "--metric", "MAP"], "--metric MAP is given 2 times; give each metric once"),
    ]
    weights = tmp_path / "gw.txt"  # an input the per-query values would replace
    weights.write_text("1\n")
    cases.append((["--group-weights", str(weights), "--per-query", str(weights)],
                  f"--per-query {weights} is --group-weights's file: the values would replace it"))
    for extra, message in cases:
        code = cli.main(["eval", "--data", str(data), "--scores", str(scores)] + extra)
        err = capsys.readouterr().err
        assert code == 2 and message in err, (extra, err)
        assert err.count("\n") == 1 and err.startswith("metricrank: error:")
    code = cli.main(["eval", "--data", str(tmp_path / "nope.txt"), "--scores", str(scores)])
    assert code == 2 and "nope.txt: no such file" in capsys.readouterr().err


def test_system_errors_are_one_line_not_a_traceback(files, capsys, monkeypatch):
    data, scores = files

    def disk_full(*a, **k):
        raise OSError(28, "No space left on device", "/full/per_query.csv")

    monkeypatch.setattr("metricrank.cli._write_per_query", disk_full)
    code = main(["eval", "--data", str(data), "--scores", str(scores), "--per-query", "q.csv"])
    err = capsys.readouterr().err
    assert code == 1
    assert err == "metricrank: error: /full/per_query.csv: No space left on device\n"


@pytest.mark.parametrize("command", ["eval", "predict"])
def test_an_infinite_feature_is_named_by_file_line_and_index(tmp_path, capsys, command):
    # the estimators' check says "row 1, feature 1", counted from 0 and with no file
    data = tmp_path / "inf.txt"
    data.write_text("# a comment line\n1 qid:1 1:0.5 2:1\n0 qid:1 1:0.2 2:inf\n")
    (tmp_path / "s.txt").write_text("1\n2\n")
    LambdaMART(n_estimators=1, min_data_in_leaf=1).fit(np.arange(8.0).reshape(4, 2), [1, 0, 1, 0],
                                                        group=[2, 2]).save(tmp_path / "m.json")
    argv = (["eval", "--data", str(data), "--scores", str(tmp_path / "s.txt")] if command == "eval" else
            ["predict", "--model", str(tmp_path / "m.json"), "--data", str(data), "--out", str(tmp_path / "o.txt")])
    assert main(argv) == 2
    assert f"row 1 ({data}, line 3): feature 2 is inf; features must be finite" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["predict", "--model", "m.json", "--data", "a.txt", "--data", "b.txt", "--out", "s.txt"],
    ["analyze", "combine", "--data", "d.txt", "--scores-a", "a", "--scores-b", "b", "--metric", "MAP", "--met",
     "NDCG"],  # an abbreviation is the same option
    ["train", "--train", "t.txt", "--out", "m.json", "--trees", "5", "--trees=7"],
])
def test_a_single_valued_option_given_twice_is_refused(argv, capsys):
    # argparse keeps the last value silently: predict scored only b.txt
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "given twice" in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly(capsys, monkeypatch):
    # `metricrank metrics | head -1`: the reader left; Unix tools stop without a word (it was "error: Broken pipe")
    def closed(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("metricrank.cli._cmd_metrics", closed)
    assert main(["metrics"]) == 141  # 128 + SIGPIPE
    assert capsys.readouterr().err == ""
    with pytest.raises(SystemExit):
        main(["metrics", "--width", "0"])
    assert "argument --width: expected an integer >= 20, got 0" in capsys.readouterr().err


def test_per_query_dash_writes_csv_to_stdout(files, capsys):
    data, scores = files
    assert main(["eval", "--data", str(data), "--scores", str(scores), "--metric", "mrr@10",
                 "--per-query", "-", "--preset", "trec_eval"]) == 0
    out = capsys.readouterr()
    rows = list(csv.reader(out.out.splitlines()))
    assert rows[0] == ["query", "n_docs", "mrr@10"] and len(rows) == 3
    assert "queries counted" in out.err  # the summary moved to stderr


def test_experiment_out_checked_first(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["experiment", "welleck", "--out", str(blocker / "report")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "not a directory" in err


def test_experiment_out_created_before_any_work(tmp_path, capsys, monkeypatch):
    from metricrank.experiments import welleck_mq2008

    monkeypatch.setattr(welleck_mq2008, "run", lambda **kwargs: pytest.fail("the experiment started"))
    real = os.makedirs

    def makedirs(path, exist_ok=False):  # as root under /proc: the permission probe passes, mkdir fails
        if "refused" in str(path):
            raise FileNotFoundError(2, "No such file or directory")
        real(path, exist_ok=exist_ok)

    monkeypatch.setattr(os, "makedirs", makedirs)
    assert main(["experiment", "welleck", "--out", str(tmp_path / "refused" / "report")]) == 2
    err = capsys.readouterr().err
    assert "--out: cannot create" in err and "No such file or directory" in err
    monkeypatch.setattr(welleck_mq2008, "run", lambda **kwargs: "report")
    assert main(["experiment", "welleck", "--out", str(tmp_path / "made" / "report")]) == 0
    assert (tmp_path / "made" / "report").is_dir()


def test_experiment_quality_passes_random_states(tmp_path, monkeypatch, capsys):
    from metricrank.experiments import quality

    seen = {}
    monkeypatch.setattr(quality, "run", lambda **kwargs: seen.update(kwargs) or "report")
    assert main(["experiment", "quality", "--random-states", "0", "1000", "--out", str(tmp_path / "q")]) == 0
    assert seen["random_states"] == (0, 1000)
    seen.clear()
    assert main(["experiment", "quality", "--out", str(tmp_path / "q")]) == 0
    assert "random_states" not in seen  # the module's default (state 0 alone)


@pytest.mark.parametrize("args, message", [
    (["welleck", "--random-states", "1", "2"], "--random-states: only the quality experiment takes it, not welleck"),
    (["quality", "--random-states", "3", "3"], "--random-states: random_states must be distinct integers"),
    (["quality", "--random-states", "-1"], "--random-states: random_states must be distinct integers"),
    (["welleck", "--datasets", "mq2008"], "--datasets: only the quality experiment takes it, not welleck"),
    (["yue", "--threads", "1"], "--threads: only the quality experiment takes it, not yue"),
    (["quality", "--datasets", "mq2008", "MQ2007"], "--datasets: MQ2007; choose distinct names among mq2008, "),
    (["quality", "--datasets", "mq2008", "mq2008"], "--datasets: a data set named twice"),
    (["quality", "--threads", "0"], "--threads must be a positive integer; got 0"),
    pytest.param(["welleck", "--tune-storage", "sqlite:///s.db"],
                 "--tune-storage: only the quality experiment takes it", marks=NEEDS_OPTUNA),
    pytest.param(["quality", "--tune-storage", "not a url"], "--tune-storage must be a database URL",
                 marks=NEEDS_OPTUNA),
    pytest.param(["quality", "--tune-storage", "sqlite:///:memory:"], "name a database file", marks=NEEDS_OPTUNA),
    pytest.param(["quality", "--tune-storage", "sqlite:////no/such/dir/s.db"],
                 "directory /no/such/dir does not exist", marks=NEEDS_OPTUNA),
])
def test_experiment_options_checked_before_any_work(args, message, tmp_path, capsys, monkeypatch):
    from metricrank.experiments import quality, welleck_mq2008, yue_mq2008

    def no_run(**kwargs):
        raise AssertionError("the experiment started")

    for module in (quality, welleck_mq2008, yue_mq2008):
        monkeypatch.setattr(module, "run", no_run)
    assert main(["experiment", *args, "--out", str(tmp_path / "report")]) == 2
    assert message in capsys.readouterr().err


def test_experiment_quality_passes_datasets_and_threads(tmp_path, monkeypatch, capsys):
    from metricrank.cli import build_parser
    from metricrank.experiments import quality

    seen = {}
    monkeypatch.setattr(quality, "run", lambda **kwargs: seen.update(kwargs) or "report")
    assert main(["experiment", "quality", "--datasets", "synthetic-50k", "mq2008", "--threads", "1",
                 "--out", str(tmp_path / "q")]) == 0
    assert seen["datasets"] == ("synthetic-50k", "mq2008") and seen["threads"] == 1
    seen.clear()
    assert main(["experiment", "quality", "--out", str(tmp_path / "q")]) == 0
    assert "datasets" not in seen and "threads" not in seen  # the module's defaults
    # the help names the suite's data sets, all of them
    experiment = build_parser()._subparsers._group_actions[0].choices["experiment"]
    (action,) = [a for a in experiment._actions if a.dest == "datasets"]
    assert action.help.split("(")[1].split(";")[0] == ", ".join(quality.SUITE)


@NEEDS_OPTUNA
def test_experiment_quality_passes_tune_storage(tmp_path, monkeypatch, capsys):
    from metricrank.experiments import quality

    seen = {}
    monkeypatch.setattr(quality, "run", lambda **kwargs: seen.update(kwargs) or "report")
    url = f"sqlite:///{tmp_path / 'searches.db'}"
    assert main(["experiment", "quality", "--tune-storage", url, "--out", str(tmp_path / "q")]) == 0
    assert seen["tune_storage"] == url
    seen.clear()
    assert main(["experiment", "quality", "--out", str(tmp_path / "q")]) == 0
    assert "tune_storage" not in seen  # searches in memory, the module's default


def test_metrics_listing_fits_80_columns(capsys):
    assert main(["metrics", "--width", "80"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "NDCG (higher is better)" in out


def test_metrics_default_width_at_most_80_without_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["metrics"]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= 80


@pytest.mark.parametrize("name, argv, expected", [
    ("welleck", ["--folds", "1", "3", "--trees", "20"], {"folds": (1, 3), "n_estimators": 20}),
    ("yue", ["--folds", "2"], {"folds": (2,)}),
    ("burges", ["--trees", "50"], {"n_estimators": 50}),
    ("quality", ["--trees", "40", "--datasets", "synthetic-50k"], {"trees": 40, "datasets": ("synthetic-50k",)}),
])
def test_experiment_folds_and_trees_shrink_a_run(tmp_path, monkeypatch, name, argv, expected, request):
    import importlib

    from metricrank.cli import EXPERIMENTS

    if name != "quality":  # their MQ2008 folder is checked before the run
        argv = [*argv, "--data-dir", str(request.getfixturevalue("shared_data"))]

    module = importlib.import_module(f"metricrank.experiments.{EXPERIMENTS[name][0]}")
    seen = {}
    monkeypatch.setattr(module, "run", lambda **kwargs: seen.update(kwargs) or "report")
    assert main(["experiment", name, *argv, "--out", str(tmp_path / "out")]) == 0
    assert {k: seen[k] for k in expected} == expected


@pytest.mark.parametrize("argv, message", [
    (["yue", "--trees", "5"], "--trees: only the welleck, burges, quality experiments take it, not yue"),
    (["ataman", "--folds", "1"], "--folds: only the welleck, yue, burges experiments take it, not ataman"),
    (["welleck", "--folds", "6"], "--folds: distinct MQ2008 folds among 1, 2, 3, 4, 5; got 6"),
    (["welleck", "--folds", "1", "1"], "--folds: distinct MQ2008 folds among 1, 2, 3, 4, 5; got 1 1"),
    (["burges", "--trees", "0"], "--trees must be a positive integer; got 0"),
])
def test_experiment_folds_and_trees_are_checked_first(tmp_path, capsys, argv, message):
    assert main(["experiment", *argv, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "out").exists()

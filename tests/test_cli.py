"""The command line, called in-process and once as a real subprocess."""

import csv
import json
import subprocess
import sys
from math import log2

import numpy as np
import pytest

from metricrank import evaluate
from metricrank.cli import main

LETOR = """2 qid:1 1:0.1 2:0.5 #docid = a
0 qid:1 1:0.3 2:0.1 #docid = b
1 qid:1 1:0.2 2:0.2 #docid = c
0 qid:2 1:0.9 2:0.4 #docid = d
1 qid:2 1:0.1 2:0.3 #docid = e
"""
SCORES = [0.9, 0.8, 0.1, 0.3, 0.2]


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
    assert {"λ-NDCG@10", "λ-MAP", "λ-MAUC", "λ-ROCArea", "RankNet"} <= set(results)
    assert results["λ-MAUC"]["MAUC"] > results["random"]["MAUC"]
    learned = results["LightGBM lambdarank"]["NDCG:top=10"]
    assert learned > results["random"]["NDCG:top=10"]
    assert all(np.isfinite(v) for r in results.values() for v in r.values())

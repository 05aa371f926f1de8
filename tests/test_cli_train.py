"""``metricrank train`` and ``metricrank predict``."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import LambdaMART, evaluate, make_ltr, save_letor
from metricrank.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    train = make_ltr(40, docs_per_query=(5, 20), n_features=6, random_state=3)
    valid = make_ltr(15, docs_per_query=(5, 20), n_features=6, random_state=4)
    save_letor(train, root / "train.txt")
    save_letor(valid, root / "valid.txt.gz")
    return root, train, valid


def test_train_then_predict(files, capsys):
    root, train, valid = files
    model_path = root / "model.json"
    code = main(["train", "--train", str(root / "train.txt"), "--valid", str(root / "valid.txt.gz"),
                 "--objective", "lambda:NDCG:top=5;type=Exp", "--metric", "MAP", "--metric", "NDCG:top=5",
                 "--trees", "12", "--learning-rate", "0.2", "--leaves", "5", "--min-data-in-leaf", "3",
                 "--threads", "1", "--quiet", "--out", str(model_path)])
    assert code == 0
    err = capsys.readouterr().err
    assert "λ target NDCG:top=5;type=Exp" in err and "valid: MAP=" in err
    model = LambdaMART.load(model_path)
    assert model.metric == "NDCG:top=5;type=Exp" and model.n_estimators_ == 12
    assert set(model.evals_result_["valid"]) == {"MAP", "NDCG:top=5"}
    assert main(["predict", "--model", str(model_path), "--data", str(root / "valid.txt.gz"),
                 "--out", str(root / "scores.txt")]) == 0
    scores = np.loadtxt(root / "scores.txt")
    np.testing.assert_array_equal(scores, model.predict(valid.X))  # %.17g round-trips exactly
    assert evaluate(valid, scores, metric="MAP") == pytest.approx(model.evals_result_["valid"]["MAP"][-1])


def test_ranknet_objective_and_progress_bar(files, capsys):
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--objective", "ranknet", "--trees", "3",
                 "--leaves", "4", "--min-data-in-leaf", "3", "--out", str(root / "rn.json")])
    assert code == 0
    assert LambdaMART.load(root / "rn.json").metric == "RankNet"


@pytest.mark.parametrize("objective, message", [
    ("MAP", "use lambda:<metric spec>"),
    ("lambda:PFound", "valid targets are NDCG, DCG, MAP"),
    ("lambda:", "use lambda:<metric spec>"),
])
def test_bad_objective(files, capsys, objective, message):
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--objective", objective, "--out",
                 str(root / "bad.json")])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (root / "bad.json").exists()


def test_predict_rejects_a_non_model(files, capsys):
    root, _, _ = files
    code = main(["predict", "--model", str(root / "train.txt"), "--data", str(root / "train.txt"),
                 "--out", str(root / "s.txt")])
    assert code == 2
    assert "not a metricrank model file" in capsys.readouterr().err
    assert not (root / "s.txt").exists()

"""``metricrank train --dask``: training on a Dask cluster from the command line."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("distributed", reason="--dask needs dask and distributed (pip install metricrank[dask])")

from metricrank import LambdaMART, make_ltr, save_letor  # noqa: E402
from metricrank.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli_dask")
    save_letor(make_ltr(60, docs_per_query=(5, 20), n_features=6, random_state=3), root / "train.txt")
    save_letor(make_ltr(20, docs_per_query=(5, 20), n_features=6, random_state=4), root / "valid.txt")
    return root


def _train(root, out, *extra):
    return main(["train", "--train", str(root / "train.txt"), "--valid", str(root / "valid.txt"),
                 "--objective", "lambda:NDCG:top=5", "--metric", "MAP", "--trees", "15", "--learning-rate", "0.3",
                 "--min-data-in-leaf", "5", "--early-stopping", "3", "--threads", "1", "--quiet", "--out", str(out),
                 *extra])


def test_dask_local_one_worker_writes_the_model_normal_training_writes(files, capsys):
    # one worker holds the one partition: LightGBM's serial learner on the same rows, so the same trees
    assert _train(files, files / "plain.json") == 0
    assert _train(files, files / "dask.json", "--dask", "local:1") == 0
    assert "dask: 1 worker(s)" in capsys.readouterr().err
    plain, dask = LambdaMART.load(files / "plain.json"), LambdaMART.load(files / "dask.json")
    assert dask.n_estimators_ == plain.n_estimators_ and dask.best_iteration_ == plain.best_iteration_
    assert dask.evals_result_ == plain.evals_result_
    X = make_ltr(20, docs_per_query=(5, 20), n_features=6, random_state=4).X
    np.testing.assert_array_equal(dask.predict(X), plain.predict(X))


def test_dask_trains_models_side_by_side_as_one_machine_does(files, capsys):
    # --models 2 on one worker: the two score columns of the normal fit, tree for tree (randomised thresholds
    # make the two models differ)
    assert _train(files, files / "m2_plain.json", "--models", "2") == 0
    assert _train(files, files / "m2_dask.json", "--models", "2", "--dask", "local:1") == 0
    capsys.readouterr()
    plain, dask = LambdaMART.load(files / "m2_plain.json"), LambdaMART.load(files / "m2_dask.json")
    assert dask.n_models_ == plain.n_models_ == 2 and dask.evals_result_ == plain.evals_result_
    X = make_ltr(20, docs_per_query=(5, 20), n_features=6, random_state=4).X
    raw = dask.booster_.predict(X, raw_score=True)
    assert raw.shape == (len(X), 2) and not np.allclose(raw[:, 0], raw[:, 1])
    np.testing.assert_array_equal(dask.predict(X), plain.predict(X))


def test_dask_local_two_workers_then_predict(files, capsys):
    assert _train(files, files / "two.json", "--dask", "local:2") == 0
    err = capsys.readouterr().err
    assert "trained on 2 worker(s), 2 partition(s)" in err and "valid: MAP=" in err
    assert main(["predict", "--model", str(files / "two.json"), "--data", str(files / "valid.txt"),
                 "--out", str(files / "scores.txt")]) == 0
    valid = make_ltr(20, docs_per_query=(5, 20), n_features=6, random_state=4)
    scores = np.loadtxt(files / "scores.txt")
    np.testing.assert_array_equal(scores, LambdaMART.load(files / "two.json").predict(valid.X))


@pytest.mark.parametrize("extra, message", [
    (["--dask", "tcp://scheduler"], "expected a scheduler address such as tcp://host:8786"),
    (["--dask", "local:0"], "local:N needs a number of workers N >= 1"),
    (["--dask", "local:1", "--objective", "PairLogitPairwise"], "cannot train distributed.*'PairLogit'"),
])
def test_bad_dask_options_fail_before_training(files, capsys, extra, message):
    import re

    assert main(["train", "--train", str(files / "train.txt"), "--out", str(files / "never.json"), *extra]) != 0
    assert re.search(message, capsys.readouterr().err)
    assert not (files / "never.json").exists()


def test_dask_trains_on_the_row_weights(files, capsys):
    # one worker: the weighted trees of the normal fit, and other trees than the unweighted fit's
    from metricrank.data import save_weights

    n_docs = make_ltr(60, docs_per_query=(5, 20), n_features=6, random_state=3).n_docs
    save_weights(files / "train.w", np.random.default_rng(0).uniform(0.1, 4.0, n_docs))
    weights = ["--weights", str(files / "train.w")]
    assert _train(files, files / "w_plain.json", *weights) == 0
    assert _train(files, files / "w_dask.json", *weights, "--dask", "local:1") == 0
    assert _train(files, files / "unweighted.json") == 0
    capsys.readouterr()
    X = make_ltr(20, docs_per_query=(5, 20), n_features=6, random_state=4).X
    plain, dask = LambdaMART.load(files / "w_plain.json"), LambdaMART.load(files / "w_dask.json")
    assert dask.evals_result_ == plain.evals_result_
    # lightgbm.dask hands the objective the weights its Dataset keeps, as float32: the gradients differ by their
    # rounding (relative 6e-8), the scores by about 1e-6 of themselves
    np.testing.assert_allclose(dask.predict(X), plain.predict(X), rtol=1e-5)
    assert not np.allclose(dask.predict(X), LambdaMART.load(files / "unweighted.json").predict(X), rtol=1e-3)

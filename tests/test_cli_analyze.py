"""``metricrank analyze optimality`` and ``metricrank analyze combine``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metricrank import LambdaMART, make_ltr, save_letor
from metricrank.analysis import local_optimality, optimal_combination
from metricrank.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("analyze")
    ds = make_ltr(30, docs_per_query=(5, 15), n_features=5, random_state=6)
    save_letor(ds, root / "data.txt")
    model = LambdaMART("NDCG:top=10", n_estimators=8, num_leaves=5, min_data_in_leaf=5, n_jobs=1,
                       random_state=0).fit(ds)
    model.save(root / "model.json")
    np.savetxt(root / "a.txt", ds.X[:, 0], fmt="%.17g")
    np.savetxt(root / "b.txt", ds.X[:, 1], fmt="%.17g")
    return root, ds, model


def test_optimality_json_and_plot(files, capsys):
    root, ds, model = files
    code = main(["analyze", "optimality", "--model", str(root / "model.json"), "--data", str(root / "data.txt"),
                 "--metric", "NDCG:top=5", "--directions", "25", "--seed", "1", "--format", "json",
                 "--plot", str(root / "opt.png")])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    expected = local_optimality(LambdaMART.load(root / "model.json"), ds, metric="NDCG:top=5", random_state=1,
                                n_directions=25)
    assert out["n_directions"] == 25 and out["n_ascent"] == expected.n_ascent
    assert out["base_value"] == pytest.approx(expected.base_value)
    assert (root / "opt.png").stat().st_size > 1000


def test_optimality_reads_any_model_train_writes(files, capsys):
    # a GBRanker (train --objective YetiRank writes one) was refused as "not a LambdaMART"
    from metricrank import GBRanker

    root, ds, _ = files
    GBRanker("YetiRank", n_estimators=5, num_leaves=5, min_data_in_leaf=5, random_state=0).fit(ds).save(
        root / "yeti.json")
    assert main(["analyze", "optimality", "--model", str(root / "yeti.json"), "--data", str(root / "data.txt"),
                 "--directions", "5", "--seed", "1", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = local_optimality(GBRanker.load(root / "yeti.json"), ds, metric="NDCG:top=10", random_state=1,
                                n_directions=5)
    assert out["base_value"] == pytest.approx(expected.base_value) and out["n_ascent"] == expected.n_ascent


def test_combine_table_and_json(files, capsys):
    root, ds, _ = files
    args = ["analyze", "combine", "--data", str(root / "data.txt"), "--scores-a", str(root / "a.txt"),
            "--scores-b", str(root / "b.txt"), "--metric", "MAP"]
    assert main(args + ["--plot", str(root / "comb.png")]) == 0
    assert "alpha" in capsys.readouterr().out and (root / "comb.png").exists()
    assert main(args + ["--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = optimal_combination(ds.X[:, 0], ds.X[:, 1], ds.y, group_ptr=ds.group_ptr, metric="MAP")
    assert out["alpha"] == pytest.approx(expected.alpha) and out["value"] == pytest.approx(expected.value)


def test_options_are_checked_first(files, capsys):
    root, _, _ = files
    base = ["analyze", "optimality", "--model", str(root / "model.json"), "--data", str(root / "data.txt")]
    with pytest.raises(SystemExit):
        main(base + ["--delta", "1.5"])
    assert "--delta must be strictly between 0 and 1" in capsys.readouterr().err
    assert main(base + ["--metric", "NoSuchMetric"]) == 2
    assert "--metric 'NoSuchMetric': unknown metric" in capsys.readouterr().err
    # the figure's format and its path are checked before the work, whose results a failed write would lose
    assert main(base + ["--plot", str(root / "result.txt")]) == 2
    assert f"--plot {root / 'result.txt'}: matplotlib writes no 'txt' figure" in capsys.readouterr().err
    combine = ["analyze", "combine", "--data", str(root / "data.txt"), "--scores-b", str(root / "b.txt")]
    for name, option in (("a.txt", "--scores-a"), ("data.txt", "--data")):
        (root / "copy.png").write_bytes((root / name).read_bytes())
        args = [option, str(root / "copy.png")] if option == "--scores-a" else ["--scores-a", str(root / "a.txt")]
        data = ["--data", str(root / "copy.png"), "--scores-b", str(root / "b.txt")] if option == "--data" else []
        command = ["analyze", "combine", *(data or combine[2:]), *args, "--plot", str(root / "copy.png")]
        assert main(command) == 2
        assert f"--plot {root / 'copy.png'} is {option}'s file: the figure would replace it" in capsys.readouterr().err
        assert (root / "copy.png").read_bytes() == (root / name).read_bytes()
    assert main(["analyze", "combine", "--data", str(root / "data.txt"), "--scores-a", str(root / "missing.txt"),
                 "--scores-b", str(root / "b.txt")]) == 2
    assert "--scores-a" in capsys.readouterr().err


@pytest.mark.parametrize("command, option, value, message", [
    ("optimality", "--directions", "0", "argument --directions: expected an integer >= 1, got 0"),
    ("optimality", "--seed", "-1", "argument --seed: expected an integer >= 0, got -1"),
    ("optimality", "--threads", "0", "argument --threads: expected an integer >= 1, got 0"),
    ("combine", "--threads", "-1", "argument --threads: expected an integer >= 1, got -1"),
    ("optimality", "--directions", "two", "argument --directions: expected an integer >= 1, got 'two'"),
    ("optimality", "--step", "0", "argument --step: expected a positive number, got 0"),
    ("optimality", "--step", "inf", "argument --step: expected a positive number, got inf"),
    ("optimality", "--step", "x", "argument --step: expected a positive number, got 'x'"),
])
def test_counts_are_checked_as_options(files, capsys, command, option, value, message):
    # (they reached the library, which named its own parameter after the model and data were read)
    root, _, _ = files
    inputs = (["--model", str(root / "model.json"), "--data", str(root / "data.txt")] if command == "optimality"
              else ["--data", str(root / "data.txt"), "--scores-a", str(root / "a.txt"), "--scores-b",
                    str(root / "b.txt")])
    with pytest.raises(SystemExit):
        main(["analyze", command, *inputs, option, value])
    assert message in capsys.readouterr().err

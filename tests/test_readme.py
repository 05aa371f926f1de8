"""Every python block and ``metricrank`` command of README.md runs as written.

Each ``## `` section's blocks run in order in one namespace, from a scratch
directory beside a link to ``../shared``, so the README's relative data paths
and the files its examples write work as they would in a checkout. A section
may use what its prose assumes from earlier sections (:func:`given`): the
MQ2008 Fold1 sets ``train``, ``vali`` and ``test`` of the first example, explicit
``pairs`` with weights ``w``, a DataFrame ``df`` with labels ``y``, queries ``qid``
and matrix ``X``, a fitted ``model``, and the files ``train.txt.gz`` and ``test.txt``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import metricrank
from conftest import SHARED_DATA, require_data_dir

README = Path(__file__).resolve().parents[1] / "README.md"


def python_sections() -> dict[str, list[tuple[int, str]]]:
    """``{section heading: [(line, code), ...]}`` for every ``## `` section with python blocks."""
    text = README.read_text()
    sections: dict[str, list[tuple[int, str]]] = {}
    heading = ""
    for match in re.finditer(r"^## ([^\n]+)$|^```python\n(.*?)^```", text, flags=re.M | re.S):
        if match.group(1) is not None:
            heading = match.group(1).strip()
        else:
            line = text.count("\n", 0, match.start()) + 2
            sections.setdefault(heading, []).append((line, match.group(2)))
    return sections


SECTIONS = python_sections()
NEEDS = {"Distributed training with Dask": "distributed", "Neural rankers: RankNet and LambdaRank (optional extra)":
         "torch", "Tuning": "optuna"}


def explicit_pairs(data, n_queries: int = 50) -> np.ndarray:
    """Every (more relevant, less relevant) row pair of the first ``n_queries`` queries."""
    ptr, y = data.group_ptr, data.y
    return np.array([(a, b) for q in range(n_queries) for a in range(ptr[q], ptr[q + 1])
                     for b in range(ptr[q], ptr[q + 1]) if y[a] > y[b]], dtype=np.int64)


def fake_shap() -> types.ModuleType:
    """A stand-in for the shap package (not a dependency) that checks what the README hands it."""
    module = types.ModuleType("shap")

    def summary_plot(values, features):
        assert values.shape == np.shape(features), (values.shape, np.shape(features))
        module.plotted = True

    module.summary_plot = summary_plot
    return module


@pytest.fixture(scope="module")
def given(tmp_path_factory):
    """What the README's prose assumes, and a scratch directory with ``../shared`` beside it."""
    require_data_dir(SHARED_DATA)
    root = tmp_path_factory.mktemp("readme")
    (root / "shared").symlink_to(SHARED_DATA.parent, target_is_directory=True)
    work = root / "work"
    work.mkdir()
    fold = SHARED_DATA / "MQ2008" / "Fold1"
    train = metricrank.load_letor(fold / "train.txt.gz")
    vali = metricrank.load_letor(fold / "vali.txt.gz", n_features=train.n_features)
    test = metricrank.load_letor(fold / "test.txt.gz", n_features=train.n_features)
    metricrank.save_letor(train, work / "train.txt.gz")
    metricrank.save_letor(test, work / "test.txt")
    pairs = explicit_pairs(train)
    pandas = pytest.importorskip("pandas")
    df = pandas.DataFrame(train.X, columns=[f"f{j}" for j in range(train.n_features)])
    model = metricrank.LambdaMART("NDCG:top=10", n_estimators=30, n_jobs=1).fit(train)
    names = dict(metricrank=metricrank, train=train, vali=vali, test=test, pairs=pairs, w=np.ones(len(pairs)),
                 df=df, y=train.y, qid=train.qid, X=train.X, model=model)
    return work, names


@pytest.mark.parametrize("heading", list(SECTIONS))
def test_readme_section_runs_as_written(heading, given, monkeypatch):
    if heading in NEEDS:
        pytest.importorskip(NEEDS[heading])
    work, names = given
    monkeypatch.chdir(work)
    shap = fake_shap()
    monkeypatch.setitem(sys.modules, "shap", shap)
    namespace = {"__name__": "__main__", **names}
    with warnings.catch_warnings():
        # an example should run clean: a warning it prints (an unconverged solver, one query) is a
        # failure; the dependencies' deprecation notices are theirs to fix and stay warnings
        warnings.simplefilter("error")
        for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
            warnings.simplefilter("default", category)
        # the machine's, not the example's: another Dask cluster holds the dashboard's port
        warnings.filterwarnings("default", message="Port .* is already in use")
        for line, code in SECTIONS[heading]:
            exec(compile(code, f"README.md, block at line {line}", "exec"), namespace)  # noqa: S102
    if "shap.summary_plot" in "".join(code for _, code in SECTIONS[heading]):
        assert getattr(shap, "plotted", False)


def test_the_readme_sections_with_code_are_the_expected_ones():
    """A renamed heading or a block moved out of its section is seen here, not skipped silently."""
    assert set(NEEDS) <= set(SECTIONS)
    assert {"Train a ranker for your metric", "Evaluate", "Data"} <= set(SECTIONS)
    assert sum(len(blocks) for blocks in SECTIONS.values()) == README.read_text().count("```python\n")


# --- commands ------------------------------------------------------------------------------

#: README commands that cannot run here, and why.
NOT_RUN = {
    "--dask tcp://": "needs a running Dask scheduler",
    "experiment welleck": "runs the whole experiment on MQ2008's five folds (tests/test_experiment_welleck.py)",
}


def command_blocks() -> list[tuple[int, list[list[str]]]]:
    """``[(line, [argv, ...]), ...]``: the ``metricrank`` commands of every bash block, comments dropped."""
    text = README.read_text()
    blocks = []
    for match in re.finditer(r"^```bash\n(.*?)^```", text, flags=re.M | re.S):
        commands = [shlex.split(line, comments=True) for line in match.group(1).replace("\\\n", " ").splitlines()]
        commands = [argv[1:] for argv in commands if argv and argv[0] == "metricrank"]
        if commands:
            blocks.append((text.count("\n", 0, match.start()) + 2, commands))
    return blocks


@pytest.fixture(scope="module")
def command_files(given, tmp_path_factory):
    """A directory with small files of the names the README's commands use."""
    work = tmp_path_factory.mktemp("readme_commands")
    names = given[1]
    train = names["train"].subset_queries(range(150))  # the MAUC fit then keeps 40 iterations (`--num-iteration 20`)
    metricrank.save_letor(train, work / "train.txt")
    metricrank.save_letor(names["vali"].subset_queries(range(60)), work / "vali.txt")
    test = names["test"].subset_queries(range(60))
    metricrank.save_letor(test, work / "test.txt")
    metricrank.data.save_pairs(work / "train.pairs", explicit_pairs(train, n_queries=30))
    for name, data in (("train", train), ("vali", names["vali"].subset_queries(range(60))), ("test", test)):
        metricrank.data.save_group_weights(work / f"{name}.gw", data, np.linspace(0.5, 2.0, data.n_queries))
    metricrank.data.save_weights(work / "train.txt.weight", np.linspace(0.5, 2.0, train.n_docs))
    np.savetxt(work / "scores.txt", test.X[:, 38])
    return work


def run_apart(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``metricrank *argv`` in a fresh process with numba at one thread: ``(exit code, stderr)``.

    Under a test worker's passive OpenMP policy (conftest.py) a search on the README's small files took
    three to four times as long in a worker as from a shell, likely from waking numba's sleeping pool
    thread at each of its many small parallel regions; ``NUMBA_NUM_THREADS=1`` took that away, where
    ``numba.set_num_threads(1)`` did not (BENCHMARKS.md, "Stop 120"). Only a new process reads it.
    """
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "metricrank", *argv], cwd=cwd, env=env, capture_output=True, text=True)
    return done.returncode, done.stderr


@pytest.mark.parametrize("line, commands", command_blocks(), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_readme_commands_run_as_written(line, commands, command_files, monkeypatch, capsys):
    from metricrank.cli import main

    if any(argv[0] == "tune" for argv in commands):
        pytest.importorskip("optuna")
    if any("--dask" in argv for argv in commands):
        pytest.importorskip("distributed")
    monkeypatch.chdir(command_files)
    for argv in commands:
        joined = " ".join(argv)
        if any(key in joined for key in NOT_RUN):
            continue
        if argv[0] == "tune":
            code, err = run_apart(argv, command_files)
        else:
            code = main(argv)
            err = capsys.readouterr().err
        assert code == 0, f"README line {line}: metricrank {joined} -> {code}: {err}"
    for argv in commands:  # what the commands said they write is there
        for option in ("--out", "--params-out", "--per-query"):
            if option in argv and not any(key in " ".join(argv) for key in NOT_RUN):
                assert (command_files / argv[argv.index(option) + 1]).stat().st_size > 0


def test_readme_commands_are_found():
    commands = [" ".join(argv) for _, block in command_blocks() for argv in block]
    bash = "".join(re.findall(r"^```bash\n(.*?)^```", README.read_text(), flags=re.M | re.S))
    assert len(commands) == len(re.findall(r"^metricrank ", bash, flags=re.M))  # one per line that starts one
    assert any(c.startswith("eval ") for c in commands) and any(c.startswith("tune ") for c in commands)
    assert all(any(key in c for c in commands) for key in NOT_RUN)

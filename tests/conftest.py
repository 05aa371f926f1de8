"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Several workers share the cores: OpenMP threads (LightGBM's, numba's) that spin while they wait
    # would take the cores the other workers need (a two-worker run took twice the CPU and crawled).
    # Read by the OpenMP runtime when it loads, which is later than this (no test module is imported yet).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: Real public data sets, read in place (never copied): ``../shared/data``
#: relative to the repository root.
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def require_data_dir(path: Path) -> Path:
    """Return ``path`` if it is a directory; otherwise skip the calling test,
    or fail it when ``METRICRANK_REQUIRE_DATA=1``."""
    if not path.is_dir():
        reason = f"shared data directory {path} is absent"
        if os.environ.get("METRICRANK_REQUIRE_DATA") == "1":
            pytest.fail(f"{reason} but METRICRANK_REQUIRE_DATA=1", pytrace=False)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of the shared data directory (``../shared/data``).

    Skips the test when the directory is absent, unless the environment
    variable ``METRICRANK_REQUIRE_DATA=1`` is set, in which case the test fails.
    """
    return require_data_dir(SHARED_DATA)


@pytest.fixture
def low_threshold(monkeypatch):
    """The capacity check from 1,000 training documents, so that small data exercise it; the averaged models'
    penalty (:data:`~metricrank.learners._gbdt.AVERAGED_PENALTY_MIN_DOCS`) raised past these sets' sizes, so that
    the size rule's 7 leaves start the check with 10, the capacity the check's tests were built on."""
    from metricrank.learners import _capacity, _gbdt

    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 1_000)
    monkeypatch.setattr(_gbdt, "AVERAGED_PENALTY_MIN_DOCS", 10**9)


def ptr_of(qid) -> np.ndarray:
    """Query offsets of rows sorted by ``qid``."""
    return np.concatenate(([0], np.flatnonzero(np.diff(qid)) + 1, [len(qid)]))


def catboost_one_tree(y, qid, spec, raw, **params):
    """``(model, X)``: one CatBoostRanker tree fitted to ``spec`` from the scores ``raw`` (the Pool's baseline),
    on binary features spelling each row's index, so that a tree of depth ceil(log2 n) can give every row a leaf
    of its own; learning rate 1, no L2 penalty, random strength or bootstrap, one thread. ``params`` adds
    CatBoost's (the leaf method, say). Skips the test without CatBoost."""
    catboost = pytest.importorskip("catboost")
    n = len(y)
    depth = int(np.ceil(np.log2(n)))
    X = ((np.arange(n)[:, None] >> np.arange(depth)) & 1).astype(float)
    model = catboost.CatBoostRanker(loss_function=spec, iterations=1, learning_rate=1.0, depth=depth,
                                    l2_leaf_reg=0.0, random_strength=0, bootstrap_type="No", thread_count=1,
                                    verbose=0, allow_writing_files=False, **params)  # no catboost_info/ in the cwd
    model.fit(catboost.Pool(X, y, group_id=qid, baseline=np.array(raw, dtype=float)))
    return model, X

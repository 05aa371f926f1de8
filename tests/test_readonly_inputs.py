"""Read-only inputs (pandas 3 hands them out) reach the numba kernels as writable arrays.

numba compiles a kernel once per argument type and a read-only array is a type of its own, so a read-only
label or score array would compile every kernel it reaches a second time (the λ kernel: tens of seconds).
"""

import sys

import numba
import numpy as np
import pandas as pd
import pytest
from numba.core.registry import CPUDispatcher

import metricrank as mr


def _kernels():
    for name, module in list(sys.modules.items()):
        if name.startswith("metricrank"):
            for value in vars(module).values():
                if isinstance(value, CPUDispatcher):
                    yield value


def _read_only_signatures() -> set:
    return {(kernel.py_func.__qualname__, sig) for kernel in _kernels() for sig in kernel.signatures
            if any(isinstance(t, numba.types.Array) and not t.mutable for t in sig)}


def _frozen(values) -> np.ndarray:
    out = np.array(values)
    out.flags.writeable = False
    return out


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), rng.integers(5, 15, 30))
    X = rng.normal(size=(qid.size, 5))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=qid.size)), 0, 2)
    return X, y, qid


@pytest.mark.skipif(int(pd.__version__.split(".")[0]) < 3, reason="pandas 2 hands out writable arrays")
def test_pandas_3_columns_are_read_only():
    assert not pd.DataFrame({"label": [1.0, 0.0]})["label"].to_numpy().flags.writeable


@pytest.mark.parametrize("metric", ["NDCG:top=10;type=Exp", "MAP", "MRR", "MAUC", "PairAccuracy"])
def test_evaluate_compiles_no_read_only_kernel(data, metric):
    X, y, qid = data
    before = _read_only_signatures()
    mr.evaluate(_frozen(y), _frozen(X[:, 0]), qid=_frozen(qid), metric=metric)
    assert _read_only_signatures() - before == set()


@pytest.mark.parametrize("make", [lambda: mr.LambdaMART(metric="MAP", target="NDCG:top=10;type=Exp"),
                                  lambda: mr.GBRanker(objective="YetiRank")], ids=["LambdaMART", "GBRanker"])
def test_fit_on_read_only_arrays_compiles_no_read_only_kernel(data, make):
    X, y, qid = data
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    before = _read_only_signatures()
    make().set_params(n_estimators=2, n_jobs=1).fit(frame, _frozen(y), qid=_frozen(qid),
                                                    sample_weight=_frozen(np.ones(y.size)))
    assert _read_only_signatures() - before == set()

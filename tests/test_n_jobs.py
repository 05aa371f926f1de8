"""``n_jobs`` of the boosted estimators: read as joblib and LightGBM's scikit-learn estimators read it, checked
at ``fit`` with the parameter's name."""

from __future__ import annotations

import joblib
import numba
import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART
from metricrank.learners import MARTClassifier
from metricrank.learners._boosting import numba_threads, thread_count

CORES = joblib.cpu_count()


@pytest.mark.parametrize("n_jobs", [1, 3, -1, -2, -CORES, -CORES - 5])
def test_thread_count_follows_joblib(n_jobs):
    # joblib's own reading is the oracle: cores + 1 + n_jobs for a negative value, never below one thread
    assert thread_count(n_jobs) == joblib.effective_n_jobs(n_jobs)


def test_thread_count_leaves_none_to_the_libraries():
    assert thread_count(None) is None


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    return X, y, np.repeat(np.arange(12), 10)


def _fit(estimator, data):
    X, y, qid = data
    if isinstance(estimator, MARTClassifier):
        return estimator.fit(X, y)
    return estimator.fit(X, y, qid=qid)


ESTIMATORS = [GBRanker, LambdaMART, MARTClassifier]


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True])
def test_fit_refuses_an_n_jobs_that_is_no_thread_count(data, estimator, n_jobs):
    with pytest.raises(ValueError, match=r"n_jobs must be None \(all cores\), a positive integer"):
        _fit(estimator(n_estimators=2, n_jobs=n_jobs), data)


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("n_jobs", [1, -1, -2])
def test_lightgbm_trains_on_the_threads_n_jobs_asks_for(data, estimator, n_jobs):
    model = _fit(estimator(n_estimators=2, n_jobs=n_jobs, random_state=0), data)
    assert model.booster_.params["num_threads"] == joblib.effective_n_jobs(n_jobs)


def test_numba_kernels_run_on_the_threads_n_jobs_asks_for():
    before = numba.get_num_threads()
    with numba_threads(-1):
        assert numba.get_num_threads() == min(CORES, numba.config.NUMBA_NUM_THREADS)
    with numba_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before

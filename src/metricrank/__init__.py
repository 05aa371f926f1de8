"""metricrank: learning to rank that optimises the metric you are judged by.

The foundation is one catalogue of ranking metrics (:mod:`metricrank.metrics`)
and one data layer (:mod:`metricrank.data`); learners build on both.

Examples
--------
>>> import metricrank
>>> metricrank.evaluate([2, 0, 1], [0.9, 0.8, 0.1], qid=[7, 7, 7], metric="MRR")
1.0
"""

import importlib as _importlib

from . import _numba_cache

_numba_cache.install()  # before any kernel is defined: see _numba_cache

# The public names load on first use (PEP 562), so ``metricrank --help`` and ``--version`` do not import
# scikit-learn, LightGBM and SciPy's statistics; ``from metricrank import LambdaMART`` works as before.
_EXPORTS = {
    "compare_per_query": "analysis",
    "RankingDataset": "data", "load_letor": "data", "make_ltr": "data", "save_letor": "data",
    "GBRanker": "learners", "LambdaMART": "learners", "LPRanker": "learners", "SVMAcc": "learners",
    "load_model": "learners",
    "LambdaRank": "learners", "RankNet": "learners",  # the nets' classes: torch loads when one is built
    "SVMMAP": "learners", "SVMROCArea": "learners", "SVMROCAreaMultiClass": "learners",
    "ThresholdBinner": "learners",
    "available_metrics": "metrics", "evaluate": "metrics", "evaluate_many": "metrics", "get_metric": "metrics",
    "make_scorer": "model_selection", "tune": "model_selection",
}
_SUBPACKAGES = ("analysis", "dask", "data", "experiments", "learners", "metrics", "model_selection", "objectives")


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(_importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBPACKAGES:  # ``metricrank.learners`` works after a bare ``import metricrank``, as before
        value = _importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | set(_SUBPACKAGES))


__version__ = "0.1.0"

__all__ = ["__version__", *sorted(_EXPORTS)]

"""metricrank: learning to rank that optimises the metric you are judged by.

The foundation is one catalogue of ranking metrics (:mod:`metricrank.metrics`)
and one data layer (:mod:`metricrank.data`); learners build on both.

Examples
--------
>>> import metricrank
>>> metricrank.evaluate([2, 0, 1], [0.9, 0.8, 0.1], qid=[7, 7, 7], metric="MRR")
1.0
"""

from . import _numba_cache

_numba_cache.install()  # before any kernel is defined: see _numba_cache

from .analysis import compare_per_query
from .data import RankingDataset, load_letor, make_ltr, save_letor
from .learners import SVMMAP, GBRanker, LambdaMART, LPRanker, SVMAcc, SVMROCArea, SVMROCAreaMultiClass, ThresholdBinner
from .metrics import available_metrics, evaluate, evaluate_many, get_metric
from .model_selection import make_scorer, tune

__version__ = "0.1.0"

__all__ = [
    "GBRanker", "LPRanker", "LambdaMART", "RankingDataset", "SVMAcc", "SVMMAP", "SVMROCArea", "SVMROCAreaMultiClass",
    "ThresholdBinner", "__version__", "available_metrics", "compare_per_query", "evaluate", "evaluate_many",
    "get_metric", "load_letor", "make_ltr", "make_scorer", "save_letor", "tune",
]

"""Rankers: GBRanker and LambdaMART (LightGBM engine), structural SVMs, the LP-AUC ranker and (with the
``nets`` extra) RankNet and LambdaRank on PyTorch."""

from ._dataset_cache import clear_dataset_cache
from ._struct_svm import StructSVMFitReport, StructSVMSolverError
from .binning import ThresholdBinner
from .gbranker import GBRanker, load_ranker
from .lambdamart import LambdaMART
from .lp_ranker import LPFitReport, LPRanker, LPSolveError
from .mart import MARTClassifier
from .svm_acc import SVMAcc
from .svm_map import SVMMAP
from .svm_roc import SVMROCArea, SVMROCAreaMultiClass

__all__ = [
    "GBRanker", "LPFitReport", "LPRanker", "LPSolveError", "LambdaMART", "LambdaRank", "MARTClassifier", "RankNet",
    "SVMMAP", "SVMAcc", "SVMROCArea", "SVMROCAreaMultiClass", "StructSVMFitReport", "StructSVMSolverError",
    "ThresholdBinner", "clear_dataset_cache", "load_ranker", "model_classes",
]

_NETS = ("RankNet", "LambdaRank")


def model_classes() -> dict:
    """The boosting estimators a model file may name, by class name.

    Examples
    --------
    >>> sorted(model_classes())
    ['GBRanker', 'LambdaMART']
    """
    return {"GBRanker": GBRanker, "LambdaMART": LambdaMART}


def __getattr__(name):
    # the neural rankers load on first use, so ``import metricrank`` never imports torch
    if name in _NETS:
        from . import nets

        return getattr(nets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

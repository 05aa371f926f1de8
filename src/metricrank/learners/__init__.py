"""Rankers: LambdaMART (LightGBM engine), structural SVMs, the LP-AUC ranker and (with the
``nets`` extra) RankNet and LambdaRank on PyTorch."""

from ._struct_svm import StructSVMFitReport, StructSVMSolverError
from .binning import ThresholdBinner
from .lambdamart import LambdaMART
from .lp_ranker import LPFitReport, LPRanker, LPSolveError
from .mart import MARTClassifier
from .svm_acc import SVMAcc
from .svm_map import SVMMAP
from .svm_roc import SVMROCArea, SVMROCAreaMultiClass

__all__ = [
    "LPFitReport", "LPRanker", "LPSolveError", "LambdaMART", "MARTClassifier", "SVMMAP", "SVMAcc", "SVMROCArea",
    "SVMROCAreaMultiClass", "StructSVMFitReport", "StructSVMSolverError", "ThresholdBinner",
    "RankNet", "LambdaRank",
]

_NETS = ("RankNet", "LambdaRank")


def __getattr__(name):
    # the neural rankers load on first use, so ``import metricrank`` never imports torch
    if name in _NETS:
        from . import nets

        return getattr(nets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

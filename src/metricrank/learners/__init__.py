"""Rankers: GBRanker and LambdaMART (LightGBM engine), structural SVMs and the LP-AUC ranker."""

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
    "GBRanker", "LPFitReport", "LPRanker", "LPSolveError", "LambdaMART", "MARTClassifier", "SVMMAP", "SVMAcc",
    "SVMROCArea", "SVMROCAreaMultiClass", "StructSVMFitReport", "StructSVMSolverError", "ThresholdBinner",
    "load_ranker", "model_classes",
]


def model_classes() -> dict:
    """The boosting estimators a model file may name, by class name."""
    return {"GBRanker": GBRanker, "LambdaMART": LambdaMART}

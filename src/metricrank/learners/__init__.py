"""Rankers: LambdaMART (LightGBM engine), structural SVMs and the LP-AUC ranker."""

from .lambdamart import LambdaMART
from .lp_ranker import LPFitReport, LPRanker, LPSolveError
from .mart import MARTClassifier

__all__ = ["LPFitReport", "LPRanker", "LPSolveError", "LambdaMART", "MARTClassifier"]

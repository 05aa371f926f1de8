"""Rankers: LambdaMART (LightGBM engine), structural SVMs and the LP-AUC ranker."""

from .lambdamart import LambdaMART
from .mart import MARTClassifier

__all__ = ["LambdaMART", "MARTClassifier"]

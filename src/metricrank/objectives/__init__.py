"""Objectives: (gradient, hessian) of a loss over query offsets, for the tree engine and the nets.

:func:`get_objective` resolves a spec (``"YetiRank:permutations=20"``, ``"lambda:MAP"``) into an
:class:`Objective`; ``metricrank objectives`` lists them all.
"""

from ._base import BoundObjective, Objective, TrainingData, as_training_data
from .binary import LogisticObjective
from .lambda_objective import LAMBDA_TARGETS, LambdaObjective, LambdaTarget, resolve_target, swap_delta_matrix
from .registry import available_objectives, describe_objectives, get_objective

__all__ = ["LAMBDA_TARGETS", "BoundObjective", "LambdaObjective", "LambdaTarget", "LogisticObjective", "Objective",
           "TrainingData", "as_training_data", "available_objectives", "describe_objectives", "get_objective",
           "resolve_target", "swap_delta_matrix"]

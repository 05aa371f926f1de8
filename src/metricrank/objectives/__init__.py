"""Objectives: (gradient, hessian) of a loss over query offsets, for the tree engine and the nets."""

from .binary import LogisticObjective
from .lambda_objective import LAMBDA_TARGETS, LambdaObjective, LambdaTarget, resolve_target, swap_delta_matrix

__all__ = ["LAMBDA_TARGETS", "LambdaObjective", "LambdaTarget", "LogisticObjective", "resolve_target",
           "swap_delta_matrix"]

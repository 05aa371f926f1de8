"""The ranking-metric catalogue: one definition per metric, used everywhere.

Use :func:`evaluate` for one metric, :func:`evaluate_many` for several, and
:func:`get_metric` to parse a spec such as ``"NDCG:top=10;type=Exp"``.
"""

from ._base import MetricDef, MetricInput, Param
from .conventions import PRESETS
from .evaluate import EvaluationResult, evaluate, evaluate_many, make_input
from .registry import ALIASES, REGISTRY, Metric, available_metrics, get_metric, parse_spec

__all__ = [
    "ALIASES", "PRESETS", "REGISTRY", "EvaluationResult", "Metric", "MetricDef", "MetricInput", "Param",
    "available_metrics", "evaluate", "evaluate_many", "get_metric", "make_input", "parse_spec",
]

"""Analysis tools: significance of per-query differences between systems."""

from .significance import ComparisonResult, compare_per_query

__all__ = ["ComparisonResult", "compare_per_query"]

"""Analysis tools: significance of per-query differences, the optimal combination of two
rankers, a linear λ-combination of several, and Burges' Monte-Carlo test of local optimality."""

from .combination import CombinationResult, optimal_combination
from .linear_combination import LinearCombinationResult, combine_rankers
from .significance import ComparisonResult, compare_per_query

__all__ = ["CombinationResult", "ComparisonResult", "LinearCombinationResult", "combine_rankers",
           "compare_per_query", "optimal_combination"]

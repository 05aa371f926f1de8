"""Analysis tools: significance of per-query differences, the optimal combination of two
rankers, a linear λ-combination of several, and Burges' Monte-Carlo test of local optimality."""

from ._params import ADAPTERS, get_params_vector, register_adapter, set_params_vector
from .combination import CombinationResult, optimal_combination
from .linear_combination import LinearCombinationResult, combine_rankers
from .optimality import OptimalityResult, local_optimality, n_directions_for
from .significance import ComparisonResult, compare_per_query

__all__ = ["ADAPTERS", "CombinationResult", "ComparisonResult", "LinearCombinationResult", "OptimalityResult",
           "combine_rankers", "compare_per_query", "get_params_vector", "local_optimality", "n_directions_for",
           "optimal_combination", "register_adapter", "set_params_vector"]

"""Per-query comparison of two systems: win/loss counts and a Wilcoxon signed-rank test.

Yue et al. (seed ``004``, Tables 6-11) report, for each baseline, the number
of queries on which SVM-MAP scored higher and lower ("W/L 39/11") and mark
significance with a *two-tailed Wilcoxon signed-rank test*.
:func:`compare_per_query` computes exactly these from two aligned arrays of
per-query metric values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._checks import check_flag

__all__ = ["ComparisonResult", "compare_per_query"]

_ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class ComparisonResult:
    """Outcome of :func:`compare_per_query`.

    Attributes
    ----------
    wins, losses, ties : int
        Queries where system ``a`` is better than, worse than, or equal to ``b``
        (in the metric's direction).
    statistic : float
        Wilcoxon signed-rank statistic as returned by ``scipy.stats.wilcoxon``
        (two-sided: ``min(R+, R-)``; one-sided: ``R+``, the rank sum of the
        queries ``a`` wins).
    pvalue : float
    n : int
        Number of paired queries (ties included).
    alternative : str
    higher_is_better : bool
    """

    wins: int
    losses: int
    ties: int
    statistic: float
    pvalue: float
    n: int
    alternative: str = "two-sided"
    higher_is_better: bool = True

    def significant(self, level: float = 0.05) -> bool:
        """Whether ``pvalue < level`` (Yue et al. mark the 0.05 level with **)."""
        return bool(self.pvalue < level)

    def __str__(self) -> str:
        tie_text = f" ({self.ties} ties)" if self.ties else ""
        return f"W/L {self.wins}/{self.losses}{tie_text}, p = {self.pvalue:.3g}"


def compare_per_query(a, b, *, higher_is_better: bool = True, alternative: str = "two-sided") -> ComparisonResult:
    """Compare two systems' per-query metric values.

    Parameters
    ----------
    a, b : array-like of float, shape (n_queries,)
        Per-query values of system ``a`` and system ``b`` on the same queries,
        in the same order.
    higher_is_better : bool, default=True
        Direction of the metric. Differences are taken as ``a - b`` (or
        ``b - a`` when lower is better), so a positive difference is always a
        win for ``a``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Passed to ``scipy.stats.wilcoxon``; ``"greater"`` tests whether ``a``
        is better than ``b``.

    Returns
    -------
    ComparisonResult

    Notes
    -----
    The test is ``scipy.stats.wilcoxon(d, zero_method="wilcox",
    alternative=alternative)`` on the oriented differences ``d`` (scipy's
    defaults otherwise). With ``zero_method="wilcox"`` the queries with a zero
    difference (ties) are dropped before ranking, as in Wilcoxon's original
    test; they are still reported in ``ties`` and ``n``. If every difference
    is zero the result is statistic 0 and p-value 1 (what scipy returns, without
    calling it and its divide-by-zero warning).

    Raises
    ------
    ValueError
        If the arrays differ in shape, are not one-dimensional, are empty, or
        contain NaN or infinite values.

    Examples
    --------
    >>> r = compare_per_query([0.5, 0.7, 0.2, 0.9], [0.4, 0.7, 0.3, 0.1])
    >>> (r.wins, r.losses, r.ties)
    (2, 1, 1)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"a and b must be one-dimensional; got shapes {a.shape} and {b.shape}")
    if a.shape != b.shape:
        raise ValueError(f"a and b must hold the same queries; got {a.shape[0]} and {b.shape[0]} values")
    if a.size == 0:
        raise ValueError("a and b are empty; there is nothing to compare")
    for name, arr in (("a", a), ("b", b)):
        bad = ~np.isfinite(arr)
        if np.any(bad):
            raise ValueError(
                f"{name} has {int(np.count_nonzero(bad))} NaN or infinite per-query value(s) "
                f"(first at query {int(np.flatnonzero(bad)[0])}); drop or fill the queries the "
                "metric could not score before comparing"
            )
    check_flag(higher_is_better, "higher_is_better")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(_ALTERNATIVES)}; got {alternative!r}")
    d = a - b if higher_is_better else b - a
    wins = int(np.count_nonzero(d > 0))
    losses = int(np.count_nonzero(d < 0))
    ties = int(d.size - wins - losses)
    if wins + losses == 0:
        # scipy returns (0, 1) here too, with a divide-by-zero RuntimeWarning
        statistic, pvalue = 0.0, 1.0
    else:
        res = stats.wilcoxon(d, zero_method="wilcox", alternative=alternative)
        statistic, pvalue = float(res.statistic), float(res.pvalue)
    return ComparisonResult(
        wins=wins, losses=losses, ties=ties, statistic=statistic, pvalue=pvalue,
        n=int(d.size), alternative=alternative, higher_is_better=bool(higher_is_better),
    )

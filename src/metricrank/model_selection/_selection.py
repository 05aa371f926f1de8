"""Query-grouped folds and the test that lets a tuned trial replace the estimator as given."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._arrays import numeric_array
from .._checks import check_flag, is_integer, is_real

__all__ = ["SELECTION_ALPHA", "improvement_pvalue", "query_folds", "selection_level"]

#: ``tune(selection="significant")`` keeps the best trial only below this one-sided p-value,
#: divided by the number of completed trials it was chosen among (Bonferroni).
SELECTION_ALPHA = 0.05


def selection_level(n_candidates: int, alpha: float = SELECTION_ALPHA) -> float:
    """The p-value below which ``tune`` prefers its best trial to the first: ``alpha / n_candidates``.

    The best trial is the maximum of ``n_candidates`` completed trials other than the first;
    the maximum of many noisy means beats the first by luck far more often than one trial
    chosen in advance would, so the level is shared among them (Bonferroni). Without the
    division, on MQ2008 and LightGBM's example the kept trials scored below the first on new
    queries (BENCHMARKS.md, "Quality suite").

    Parameters
    ----------
    n_candidates : int >= 0
        Completed trials the best was chosen among (0 counts as 1).
    alpha : float in (0, 1), default=0.05
        The level for one comparison chosen in advance.

    Returns
    -------
    float

    Examples
    --------
    >>> selection_level(1), selection_level(19)
    (0.05, 0.002631578947368421)
    """
    if not (is_integer(n_candidates) and n_candidates >= 0):
        raise ValueError(f"n_candidates must be an integer >= 0; got {n_candidates!r}")
    if not (is_real(alpha) and 0.0 < alpha < 1.0):
        raise ValueError(f"alpha must be a number strictly between 0 and 1; got {alpha!r}")
    return alpha / max(int(n_candidates), 1)


def improvement_pvalue(candidate, reference, higher_is_better=True) -> float:
    """One-sided paired Wilcoxon p-value that ``candidate`` beats ``reference`` query by query.

    Queries where either value is NaN (a metric undefined there) are left out; 1.0 when
    no query differs.

    Parameters
    ----------
    candidate, reference : array-like of shape (n_queries,)
        Per-query values of the two systems on the same queries, in the same order
        (``evaluate(..., per_query=True)``).
    higher_is_better : bool, default=True
        False for losses: then ``candidate`` beats ``reference`` where it is lower.

    Returns
    -------
    float
        The p-value of SciPy's ``wilcoxon(..., alternative="greater")`` on the differences
        (zero differences dropped).

    Raises
    ------
    ValueError
        The two are not one-dimensional arrays of one length, or the flag is not a bool.

    Examples
    --------
    >>> round(improvement_pvalue([0.9, 0.8, 0.7, 0.95, 0.85, 0.9], [0.5, 0.6, 0.4, 0.7, 0.6, 0.5]), 4)
    0.0156
    """
    from scipy.stats import wilcoxon

    check_flag(higher_is_better, "higher_is_better")
    a = numeric_array(candidate, "candidate").astype(np.float64)
    b = numeric_array(reference, "reference").astype(np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"candidate and reference must be per-query values of the same queries (one-dimensional, "
                         f"one length); got shapes {a.shape} and {b.shape}")
    keep = np.isfinite(a) & np.isfinite(b)
    diff = (a - b)[keep] if higher_is_better else (b - a)[keep]
    if not np.any(diff != 0):
        return 1.0
    return float(wilcoxon(diff, alternative="greater", zero_method="wilcox").pvalue)


def query_folds(qid, cv=3, random_state=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Train/test row indices that never cut a query: ``GroupKFold`` on ``qid``.

    ``cv`` is a number of folds (shuffled by query with ``random_state`` when it is
    given), a splitter with ``split(X, y, groups)``, or an iterable of
    ``(train rows, test rows)``. Every split is checked: no query on both sides.
    """
    from sklearn.model_selection import GroupKFold

    qid = np.asarray(qid)
    n = qid.shape[0]
    text = isinstance(cv, (str, bytes))  # a string has a split method and is iterable, but is no cv
    if is_integer(cv):
        n_queries = np.unique(qid).size
        if not 2 <= cv <= n_queries:
            raise ValueError(f"cv must be between 2 and the number of queries ({n_queries}); got {cv}")
        splitter = GroupKFold(n_splits=int(cv), shuffle=random_state is not None, random_state=random_state)
        splits = splitter.split(np.zeros((n, 1)), None, groups=qid)
    elif hasattr(cv, "split") and not text:
        splits = cv.split(np.zeros((n, 1)), None, groups=qid)
    elif isinstance(cv, Iterable) and not text:
        splits = cv
    else:
        raise ValueError(f"cv must be a number of folds >= 2, a splitter with split(X, y, groups) or an iterable of "
                         f"(train rows, test rows); got {cv!r}")
    folds = []
    for k, split in enumerate(splits):
        try:
            train, test = split
        except (TypeError, ValueError):
            raise ValueError(f"cv's fold {k} must be a pair (train rows, test rows); got {split!r}") from None
        train, test = np.sort(np.asarray(train, dtype=np.int64)), np.sort(np.asarray(test, dtype=np.int64))
        shared = np.intersect1d(qid[train], qid[test])
        if shared.size:
            raise ValueError(f"fold {k} puts query {shared[0].item()!r} in both training and test rows; split by query "
                             "(GroupKFold with groups=qid)")
        if train.size == 0 or test.size == 0:
            raise ValueError(f"fold {k} has an empty training or test side")
        folds.append((train, test))
    if not folds:
        raise ValueError("cv produced no folds")
    return folds

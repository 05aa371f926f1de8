"""Burges' one-sided Monte-Carlo test of local optimality (seed ``003``, sec. 4.2).

Move the learned parameters ``θ*`` a little along ``n`` random directions drawn from a
spherical Gaussian and check that the mean metric ``M`` never improves. If a fraction
``p`` of directions ascends, all ``n`` miss it with probability ``(1 - p)^n``; so with

    n = ⌈log δ / log(1 - p0)⌉      (459 for δ = p0 = 0.01)

directions and no ascent, we have confidence ``1 - δ`` that ``p <= p0``. The test is
necessary, not sufficient, and it holds at the scale of the chosen ``step``: ``M`` is a
step function of θ, so a step too small to reorder any pair shows no change at all
(see :attr:`OptimalityResult.n_unchanged`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._checks import check_generator_seed, check_positive_finite, is_integer, is_real
from .._io import save_figure
from .._seeds import as_generator
from ..metrics import get_metric
from ..metrics.evaluate import make_input, with_scores
from ..learners._boosting import numba_threads
from ._params import adapter_for

__all__ = ["OptimalityResult", "local_optimality", "n_directions_for"]

DEFAULT_RELATIVE_STEP = 0.01  # the move's length as a fraction of ||θ||


def n_directions_for(delta: float, p0: float) -> int:
    """Number of random directions: ``⌈log δ / log(1 - p0)⌉``.

    If a fraction ``p0`` of directions improved the metric, that many draws would all miss
    them with probability at most ``δ`` (Burges' Monte-Carlo test).

    Parameters
    ----------
    delta : float in (0, 1)
        The chance, accepted, of missing improving directions that exist.
    p0 : float in (0, 1)
        The smallest fraction of improving directions the test should detect.

    Returns
    -------
    int

    Examples
    --------
    >>> n_directions_for(0.01, 0.01)
    459
    """
    _check_probability(delta, "delta")
    _check_probability(p0, "p0")
    return int(math.ceil(math.log(delta) / math.log1p(-p0)))


def _check_probability(value, name: str) -> None:
    if not isinstance(value, (int, float, np.floating)) or not (0.0 < float(value) < 1.0):
        raise ValueError(f"{name} must be a number strictly between 0 and 1; got {value!r}")


@dataclass(frozen=True)
class OptimalityResult:
    """Outcome of :func:`local_optimality`.

    Attributes
    ----------
    n_directions, n_ascent, n_unchanged : int
        Directions tried, directions where ``M`` improved by more than ``tol``, and
        directions where ``M`` did not change at all.
    base_value : float
        ``M`` at the model's parameters.
    gains : ndarray of shape (n_directions,)
        Improvement of ``M`` along each direction (``M_after - M_before``, sign flipped for
        lower-is-better metrics, so positive is always better).
    max_gain : float
    best_direction : ndarray
        Unit direction with the largest gain.
    step : float
        Length of the move along each unit direction.
    bound : str
        The conclusion in words.
    profile_steps, profile_values : ndarray of shape (17,)
        ``M`` along the best direction at ``-4..4`` times ``step``.
    """

    n_directions: int
    n_ascent: int
    n_unchanged: int
    base_value: float
    gains: np.ndarray = field(repr=False)
    max_gain: float = 0.0
    best_direction: np.ndarray = field(default=None, repr=False)
    step: float = 0.0
    bound: str = ""
    metric: str = ""
    higher_is_better: bool = True
    delta: float = 0.01
    p0: float = 0.01
    profile_steps: np.ndarray = field(default=None, repr=False)
    profile_values: np.ndarray = field(default=None, repr=False)

    def plot(self, path) -> None:
        """Draw ``M`` along the best direction (multiples of ``step``) to ``path``."""
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(self.profile_steps, self.profile_values, "o-", markersize=3)
        ax.axvline(0.0, color="gray", linestyle=":")
        ax.axhline(self.base_value, color="gray", linestyle=":")
        ax.set_xlabel("move along the best direction (multiples of step)")
        ax.set_ylabel(self.metric)
        ax.set_title(f"{self.n_ascent}/{self.n_directions} ascent directions; step {self.step:.3g}")
        fig.tight_layout()
        save_figure(fig, path, dpi=120)


def _bound_text(n: int, n_ascent: int, delta: float, p0: float, spec: str, max_gain: float) -> str:
    if n_ascent == 0:
        reached = 1.0 - delta ** (1.0 / n)  # the p0 these n directions support
        p_text = f"{p0:g}" if reached <= p0 * (1 + 1e-12) else f"{reached:.4g} (only {n} directions)"
        return (f"no ascent direction in {n}: with confidence 1 - δ = {1 - delta:g}, the fraction of "
                f"ascent directions is at most p0 = {p_text}")
    return (f"{n_ascent} of {n} directions ascend (largest gain {max_gain:.4g}): ascent directions exist, "
            f"so the model is not at a local optimum of {spec} at this step size")


def local_optimality(model, X, y=None, *, qid=None, group_ptr=None, metric="NDCG:top=10", delta=0.01, p0=0.01,
                     step=None, random_state=None, n_directions=None, tol=0.0, preset=None,
                     n_jobs=None) -> OptimalityResult:
    """Monte-Carlo test that a model's parameters are a local optimum of a metric.

    Parameters
    ----------
    model : fitted estimator
        LambdaMART (or anything with a LightGBM ``booster_``), a linear model with
        ``coef_``, or a torch model (see :mod:`metricrank.analysis._params`).
    X : array-like, sparse matrix or RankingDataset
        Rows to score; a RankingDataset also supplies ``y`` and the queries.
    y : array-like of shape (n,), optional
        Labels (taken from ``X`` when it is a RankingDataset).
    qid, group_ptr : optional
        Queries, as for :func:`metricrank.evaluate`.
    metric : str, default="NDCG:top=10"
        ``M`` is this metric's overall value (the mean over queries, eq. 8).
    delta, p0 : float in (0, 1), default 0.01
        Confidence ``1 - delta`` that the fraction of ascent directions is ``<= p0``.
    step : float, optional
        Length of the move along each unit direction. Default ``0.01 * ||θ||`` (each
        coordinate moves by about 1% of the parameters' RMS); ``0.01`` when θ is zero.
    random_state : int, numpy Generator or RandomState, optional
    n_directions : int, optional
        Override ``⌈log δ / log(1 - p0)⌉``; the reported bound then uses the ``p0``
        that this many directions support.
    tol : float, default=0
        A direction ascends when its gain exceeds ``tol``.
    preset : str, optional
    n_jobs : int, optional
        Threads for the metric kernels during the test (restored afterwards); default the
        caller's numba setting. One thread is often fastest: each evaluation is small.

    Returns
    -------
    OptimalityResult

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> X = np.array([[3.0, 0.0], [2.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> y = np.array([3.0, 2.0, 1.0, 0.0])
    >>> model = LinearRegression().fit(X, y)           # ranks the one query perfectly
    >>> r = local_optimality(model, X, y, metric="NDCG", random_state=0)
    >>> r.n_directions, r.n_ascent, r.base_value
    (459, 0, 1.0)
    """
    _check_probability(delta, "delta")
    _check_probability(p0, "p0")
    m = get_metric(metric, preset)
    if n_directions is None:
        n = n_directions_for(delta, p0)
    elif not is_integer(n_directions) or n_directions < 1:
        raise ValueError(f"n_directions must be a positive integer; got {n_directions!r}")
    else:
        n = int(n_directions)
    if step is not None:
        check_positive_finite(step, "step")
    if not (is_real(tol) and np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a non-negative number; got {tol!r}")
    check_generator_seed(random_state)
    if isinstance(model, BaseEstimator):
        check_is_fitted(model)  # scikit-learn's NotFittedError, not "no parameters to perturb"
    _check_feature_count(model, X)
    adapter = adapter_for(model)
    theta0 = adapter.get()
    if theta0.shape[0] == 0:
        raise ValueError("model: it has no parameters to perturb (empty parameter vector)")
    with numba_threads(n_jobs):
        return _run(adapter, theta0, m, X, y, qid, group_ptr, n, step, random_state, tol, float(delta), float(p0))


def _check_feature_count(model, X) -> None:
    """Refuse ``X`` whose column count differs from the fitted model's ``n_features_in_``."""
    expected = getattr(model, "n_features_in_", None)
    features = X.X if hasattr(X, "group_ptr") and hasattr(X, "X") else X
    shape = getattr(features, "shape", None)
    if expected is not None and shape is not None and len(shape) == 2 and shape[1] != expected:
        raise ValueError(f"X has {shape[1]} features, but {type(model).__name__} was fitted on {expected}")


def _run(adapter, theta0, m, X, y, qid, group_ptr, n, step, random_state, tol, delta, p0) -> OptimalityResult:
    if hasattr(X, "group_ptr") and hasattr(X, "X"):
        data = X
        y = data.y if y is None else y
        if qid is None and group_ptr is None:
            group_ptr = data.group_ptr
    if y is None:
        raise ValueError("y is required unless X is a RankingDataset")
    scores = adapter.scorer(X)
    first = scores(theta0)
    if np.shape(y)[0] != first.shape[0]:
        raise ValueError(f"y has {np.shape(y)[0]} labels but X has {first.shape[0]} rows")
    inp = make_input(y, first, qid=qid, group_ptr=group_ptr)
    m.compute(inp)  # label checks once, before the long loop

    def value(theta) -> float:
        return m.compute(with_scores(inp, scores(theta)))[0]

    if step is None:
        norm = float(np.linalg.norm(theta0))
        step = DEFAULT_RELATIVE_STEP * norm if norm > 0 else DEFAULT_RELATIVE_STEP
    sign = 1.0 if m.higher_is_better else -1.0
    base = value(theta0)
    rng = as_generator(random_state)
    gains = np.empty(n)
    best_gain, best_dir = -np.inf, None
    for k in range(n):
        u = rng.standard_normal(theta0.shape[0])
        u /= np.linalg.norm(u)
        gains[k] = sign * (value(theta0 + step * u) - base)
        if gains[k] > best_gain:
            best_gain, best_dir = gains[k], u
    n_ascent = int(np.count_nonzero(gains > tol))
    multiples = np.linspace(-4.0, 4.0, 17)
    profile = np.array([value(theta0 + t * step * best_dir) for t in multiples])
    return OptimalityResult(
        n_directions=n, n_ascent=n_ascent, n_unchanged=int(np.count_nonzero(gains == 0)), base_value=float(base),
        gains=gains, max_gain=float(gains.max()), best_direction=best_dir, step=float(step),
        bound=_bound_text(n, n_ascent, delta, p0, m.spec, float(gains.max())), metric=m.spec,
        higher_is_better=m.higher_is_better, delta=delta, p0=p0, profile_steps=multiples,
        profile_values=profile,
    )

"""LightGBM's own callbacks (``lgb.early_stopping``, ``lgb.log_evaluation``, ``lgb.record_evaluation``) in a fit.

metricrank's boosting loop calls a plain callback with an :class:`~metricrank.learners._boosting.IterationInfo`.
A LightGBM callback expects LightGBM's ``CallbackEnv`` instead, and stops training by raising
``EarlyStopException`` with the best iteration; LightGBM's scikit-learn API then predicts with that iteration.
:class:`LightGBMCallbacks` gives the callbacks marked as LightGBM's (an ``order`` or ``before_iteration``
attribute, which LightGBM's protocol defines, or a class of the ``lightgbm`` package) that environment after each
iteration, in LightGBM's order, and keeps the best iteration they name.
"""

from __future__ import annotations

from typing import Sequence

import lightgbm as lgb

__all__ = ["LightGBMCallbacks", "is_lightgbm_callback", "split_callbacks"]

#: lightgbm 4.7's result type (a named tuple read by attribute); earlier releases read plain 4-tuples.
_EvalResult = getattr(lgb.callback, "EvalResult", None)


def is_lightgbm_callback(callback) -> bool:
    """Whether ``callback`` follows LightGBM's protocol (``CallbackEnv``), not metricrank's (``IterationInfo``)."""
    return (hasattr(callback, "order") or hasattr(callback, "before_iteration")
            or type(callback).__module__.split(".")[0] == "lightgbm")


def split_callbacks(callbacks) -> tuple[list, list]:
    """``(metricrank's callbacks, LightGBM's)`` of a fit's ``callbacks``; refuses the LightGBM callbacks that run
    before an iteration (``before_iteration``), which a metricrank fit does not call."""
    callbacks = list(callbacks or ())
    lightgbm = [cb for cb in callbacks if is_lightgbm_callback(cb)]
    before = [cb for cb in lightgbm if getattr(cb, "before_iteration", False)]
    if before:
        raise ValueError(f"callbacks: LightGBM callbacks that run before an iteration (before_iteration=True, as "
                         f"lgb.reset_parameter's) are not supported, got {before[0]!r}; a metricrank fit calls its "
                         f"callbacks after each iteration (set learning_rate and the tree parameters on the "
                         f"estimator instead)")
    return [cb for cb in callbacks if not is_lightgbm_callback(cb)], lightgbm


class LightGBMCallbacks:
    """A metricrank callback that runs LightGBM callbacks after each iteration.

    Parameters
    ----------
    callbacks : sequence of LightGBM callbacks
        Run in the order of their ``order`` attribute, as LightGBM runs them.
    params : dict
        LightGBM parameters shown to them (``CallbackEnv.params``).
    n_estimators : int
        The iterations asked for (``CallbackEnv.end_iteration``).
    train_name : str, default "training"
        The name of the eval set that is the training data itself (``lgb.early_stopping`` skips it by this name,
        the booster's ``_train_data_name``, as in LightGBM).

    Attributes
    ----------
    best_iteration : int or None
        1-based: the best iteration an ``EarlyStopException`` named, once one was raised.
    """

    def __init__(self, callbacks: Sequence, params: dict, n_estimators: int, train_name: str = "training"):
        self.callbacks = sorted(callbacks, key=lambda cb: getattr(cb, "order", 0))
        self.train_name = train_name
        self.params = dict(params)
        self.n_estimators = int(n_estimators)
        self.best_iteration: int | None = None

    def __call__(self, info) -> bool:
        results = [(name, spec, value, info.higher_is_better[name, spec])
                   for name, metrics in info.evaluations.items() for spec, value in metrics.items()]
        if _EvalResult is not None:
            results = [_EvalResult(*result) for result in results]
        info.booster._train_data_name = self.train_name
        env = lgb.callback.CallbackEnv(model=info.booster, params=self.params, iteration=info.iteration - 1,
                                       begin_iteration=0, end_iteration=self.n_estimators,
                                       evaluation_result_list=results)
        try:
            for callback in self.callbacks:
                callback(env)
        except lgb.callback.EarlyStopException as stop:
            self.best_iteration = int(stop.best_iteration) + 1
            return True
        return False

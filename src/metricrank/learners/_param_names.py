"""A keyword an estimator does not take: Python's TypeError, saying what to pass instead.

LightGBM's users write its scikit-learn names (``subsample``, ``colsample_bytree``, ``reg_lambda``,
``min_child_samples``) and its aliases, CatBoost's its own (``iterations``, ``depth``, ``l2_leaf_reg``,
``loss_function``). metricrank's boosted rankers take LightGBM's primary names, and any other LightGBM parameter
through ``lgb_params``. Python's own error names the keyword and nothing else.
"""

from __future__ import annotations

import difflib
import inspect

from .._checks import is_integer

__all__ = ["CATBOOST_NAMES", "FIT_KEYWORDS", "NamesUnknownKeywords", "unknown_keyword_message"]

#: keywords of ``fit`` that other libraries' constructors take (XGBoost's ``eval_metric``,
#: ``early_stopping_rounds`` and ``callbacks``; CatBoost's ``eval_metric``)
FIT_KEYWORDS = ("eval_metric", "eval_at", "early_stopping_rounds", "callbacks")

#: LightGBM parameters that the estimator sets under another name than ``OWNED_PARAMS`` gives (``lgb_params`` may
#: set the thread count, and never the number of trees)
ESTIMATOR_NAMES = {"num_threads": "n_jobs", "num_iterations": "n_estimators"}

#: CatBoost's names (GBRanker trains CatBoost's ranking objectives): the estimator's parameter, and what differs
CATBOOST_NAMES = {
    "iterations": ("n_estimators", ""),
    "depth": ("max_depth", " (CatBoost's trees are symmetric: add grow_policy='symmetric')"),
    "l2_leaf_reg": ("lambda_l2", " (LightGBM's L2 penalty on the leaf values)"),
    "loss_function": ("objective", ""),
    "thread_count": ("n_jobs", ""),
    "border_count": ("max_bin", " (bins, not borders: CatBoost's n borders make n + 1 bins)"),
}


class NamesUnknownKeywords:
    """Mixin for a scikit-learn estimator: a keyword its ``__init__`` does not take raises a TypeError that names
    the estimator's parameter (or ``lgb_params`` entry) it means. ``_absent_params`` maps a parameter that a
    sibling estimator takes and this one does not to why."""

    _absent_params: dict[str, str] = {}

    def __new__(cls, *args, **kwargs):
        if kwargs and not _takes_any_keyword(cls.__init__):  # before __init__, whose signature stays the same
            params = cls._get_param_names()
            for key in sorted(set(kwargs) - set(params)):
                raise TypeError(unknown_keyword_message(cls.__name__, key, kwargs[key], params, cls._absent_params,
                                                        fit_params=inspect.signature(cls.fit).parameters))
        return super().__new__(cls)


def _takes_any_keyword(init) -> bool:
    """A subclass's ``__init__`` with ``**kwargs``: its keywords are its own to check."""
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(init).parameters.values())


def unknown_keyword_message(owner: str, key: str, value, params, absent: dict | None = None, *,
                            fit_params=()) -> str:
    """Python's message for an unexpected keyword, and what ``key`` means here: a parameter this estimator leaves
    out (``absent``: each one's why), one of ``fit``'s (``fit_params``), a CatBoost or LightGBM name (what to pass
    instead), or a near miss of one of ``params``.

    >>> print(unknown_keyword_message("LambdaMART", "subsample", 0.8, ["bagging_fraction", "bagging_freq"]))
    LambdaMART.__init__() got an unexpected keyword argument 'subsample': LightGBM's name for bagging_fraction; pass bagging_fraction=0.8
    >>> print(unknown_keyword_message("GBRanker", "n_estimator", 5, ["n_estimators", "n_jobs"]))
    GBRanker.__init__() got an unexpected keyword argument 'n_estimator' (did you mean 'n_estimators'?)
    """
    from ._gbdt import OBJECTIVE_ALIASES, OWNED_PARAMS, UNREAD_PARAMS, lightgbm_parameters

    head = f"{owner}.__init__() got an unexpected keyword argument {key!r}"
    absent = absent or {}
    if key in absent:
        return f"{head}: {absent[key]}"
    if key in FIT_KEYWORDS and key in fit_params:
        return f"{head}: it is fit's; pass {key}={value!r} to fit, as to LightGBM's estimators"
    objective = f"{head}: metricrank's objective gives the gradients; choose it with " + (
        "objective=" if "objective" in params else "metric= (and target=)")
    if key in CATBOOST_NAMES:
        own, differs = CATBOOST_NAMES[key]
        if own in absent:
            return f"{head}: CatBoost's name for {own}; {owner} has no {own}: {absent[own]}"
        if own in params:
            value = int(value) + 1 if key == "border_count" and is_integer(value) else value
            if own == "max_depth" and "grow_policy" not in params:
                differs = ""
            return f"{head}: CatBoost's name for {own}; pass {own}={value!r}{differs}"
        if own == "objective":
            return objective
    primary = lightgbm_parameters().get(key)
    if primary is None:
        close = difflib.get_close_matches(key, params, n=1)
        return head + (f" (did you mean {close[0]!r}?)" if close else "")
    named = "LightGBM's parameter" if primary == key else f"LightGBM's name for {primary}"
    own = ESTIMATOR_NAMES.get(primary) or OWNED_PARAMS.get(primary, primary)
    if own in absent:
        return f"{head}: {named}, {own} here; {owner} has no {own}: {absent[own]}"
    if own in params:
        return f"{head}: {named}; pass {own}={value!r}"
    if primary in OBJECTIVE_ALIASES:
        return objective
    if primary == "metric" or primary in UNREAD_PARAMS:
        if "eval_set" not in fit_params:  # the reasons name fit's eval sets (MARTClassifier has none)
            return f"{head}: {named}, which training here does not read"
        if primary == "metric":
            return f"{head}: metricrank evaluates the eval sets itself; pass eval_metric or eval_metrics to fit"
        return f"{head}: {named}, which training here does not read: {UNREAD_PARAMS[primary]}"
    return f"{head}: {named}; pass it to LightGBM as lgb_params={{{primary!r}: {value!r}}}"

"""The parameters :func:`~metricrank.model_selection.tune` searches: Optuna distributions, checked."""

from __future__ import annotations

import numpy as np

from .._checks import is_integer
from .._io import check_writable

__all__ = ["check_storage", "default_param_space"]


def _optuna():
    try:
        import optuna
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError("metricrank.tune needs Optuna: pip install 'metricrank[tune]' (or pip install optuna)") \
            from None
    return optuna


def default_param_space(n_train_docs: int | None = None, grow_policy: str = "leafwise") -> dict:
    """The search space :func:`tune` uses for GBRanker / LambdaMART (Optuna distributions).

    Log scales for the parameters that act multiplicatively (leaves, minimum data and
    hessian per leaf, L2, learning rate). The upper bound of ``min_data_in_leaf`` is a
    twentieth of the training fold (at least 5, at most 200) so that small data can split.
    ``extra_trees`` (randomised split thresholds) is searched too: it is the default below
    62,000 documents, where it helps noisy data but cost the suite's clean 52,000-document
    set 0.013 NDCG@10 (BENCHMARKS.md, "Capacity for the YetiRank gradient").

    For ``grow_policy`` "symmetric" and "symmetric_then_leafwise" the depth (``max_depth``,
    2-8) replaces the leaves, and the options symmetric trees refuse (randomised splits,
    feature and row sampling) are left out, as is ``lambda_l2``: the trials keep the estimator's,
    by default "auto", 0 on symmetric trees as CatBoost's YetiRank (a penalty leaves unsplit the
    nodes whose gain it makes non-positive) unless the mean hessian is small
    (:func:`~metricrank.learners._gbdt.symmetric_lambda_l2`).

    Parameters
    ----------
    n_train_docs : int, optional
        Documents in the smallest training fold; sets the bound of ``min_data_in_leaf``
        (200 when not given).
    grow_policy : {"leafwise", "symmetric", "symmetric_then_leafwise", "mixed", "auto"}, default="leafwise"
        The trees the trials grow: the two symmetric policies get the depth space, the
        others the leaf-wise one (:func:`tune` resolves "auto" on the training folds first).

    Returns
    -------
    dict
        Parameter name to Optuna distribution, the form ``tune(param_space=...)`` takes.

    Examples
    --------
    >>> space = default_param_space(10_000)
    >>> space["num_leaves"].low, space["num_leaves"].high, space["num_leaves"].log
    (4, 128, True)
    >>> sorted(default_param_space(100_000, "symmetric_then_leafwise"))
    ['learning_rate', 'max_depth', 'min_data_in_leaf', 'min_sum_hessian_in_leaf']
    """
    from ..learners._gbdt import GROW_POLICIES, SYMMETRIC_POLICIES

    if n_train_docs is not None and not (is_integer(n_train_docs) and n_train_docs >= 1):
        raise ValueError(f"n_train_docs must be None or an integer >= 1; got {n_train_docs!r}")
    if not (isinstance(grow_policy, str) and grow_policy in GROW_POLICIES):
        raise ValueError(f"grow_policy must be one of {', '.join(map(repr, GROW_POLICIES))}; got {grow_policy!r}")
    optuna = _optuna()
    d = optuna.distributions
    hi = 200 if n_train_docs is None else int(min(200, max(5, n_train_docs // 20)))

    if grow_policy in SYMMETRIC_POLICIES:
        from ..learners._symmetric import MAX_DEPTH

        return {
            "max_depth": d.IntDistribution(2, MAX_DEPTH),
            "min_data_in_leaf": d.IntDistribution(min(5, hi), hi, log=True) if hi > 5 else d.IntDistribution(1, 5),
            "min_sum_hessian_in_leaf": d.FloatDistribution(1e-3, 10.0, log=True),
            "learning_rate": d.FloatDistribution(0.01, 0.3, log=True),
        }
    return {
        "num_leaves": d.IntDistribution(4, 128, log=True),
        "min_data_in_leaf": d.IntDistribution(min(5, hi), hi, log=True) if hi > 5 else d.IntDistribution(1, 5),
        "min_sum_hessian_in_leaf": d.FloatDistribution(1e-3, 10.0, log=True),
        "lambda_l2": d.FloatDistribution(1e-3, 100.0, log=True),
        "learning_rate": d.FloatDistribution(0.01, 0.3, log=True),
        "feature_fraction": d.FloatDistribution(0.5, 1.0),
        "bagging_fraction": d.FloatDistribution(0.5, 1.0),
        "bagging_freq": d.IntDistribution(0, 5),
        "extra_trees": d.CategoricalDistribution([True, False]),
    }


def _suggest(trial, name, dist):
    optuna = _optuna()
    d = optuna.distributions
    if isinstance(dist, d.IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, d.FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, d.CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    raise TypeError(f"param_space[{name!r}] must be an Optuna distribution or a list of choices; got {dist!r}")


def check_storage(url: str, name: str = "storage") -> None:
    """A database URL that Optuna can open; for SQLite, a file in an existing, writable directory. Else a
    ValueError naming ``name`` (the parameter or option that gave it)."""
    from sqlalchemy.engine import make_url  # (SQLAlchemy comes with Optuna)
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(f"{name} must be a database URL such as sqlite:///search.db; got {url!r}") from None
    try:
        parsed.get_dialect()  # the kind of database, known to SQLAlchemy (its driver is loaded on connecting)
    except Exception as err:  # noqa: BLE001 - NoSuchModuleError, or a dialect that fails to load
        raise ValueError(f"{name} {url}: SQLAlchemy knows no database {parsed.drivername!r} ({err})") from None
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise ValueError(f"{name} {url}: name a database file (sqlite:///search.db), not memory")
        check_writable(parsed.database, name)


def _check_space(estimator, space) -> dict:
    optuna = _optuna()
    valid = estimator.get_params(deep=False)
    out = {}
    for name, dist in space.items():
        if name not in valid:
            raise ValueError(f"param_space names {name!r}, which is not a parameter of {type(estimator).__name__}")
        if isinstance(dist, (list, tuple)):
            dist = optuna.distributions.CategoricalDistribution(list(dist))
        if not isinstance(dist, optuna.distributions.BaseDistribution):
            raise TypeError(f"param_space[{name!r}] must be an Optuna distribution or a list of choices; got {dist!r}")
        out[name] = dist
    return out


def _values_in_space(estimator, space, n_train_docs: int, grow_policy: str | None = None) -> dict:
    """The estimator's values of the searched parameters that the space contains.

    ``num_leaves="auto"`` and ``extra_trees="auto"`` count as what the size rule gives
    ``n_train_docs`` (and ``lambda_l2="auto"`` as the rule's penalty cap,
    :func:`~metricrank.learners._gbdt.rule_lambda_l2_cap`); ``grow_policy`` is the estimator's policy
    as resolved on the training folds (default its own), and for symmetric trees an unset depth counts
    as the rule's leaves' depth, where the capacity check starts. These are the values the first trial
    records; its fits leave those parameters as the estimator has them (:func:`tune`), as does the
    refit if it is kept.
    """
    from ..learners._gbdt import (SYMMETRIC_POLICIES, auto_extra_trees, auto_n_models, auto_num_leaves,
                                 rule_lambda_l2_cap)

    optuna = _optuna()
    d = optuna.distributions
    params = estimator.get_params(deep=False)
    if params.get("num_leaves") == "auto":
        params["num_leaves"] = auto_num_leaves(n_train_docs)
    if params.get("extra_trees") == "auto":
        params["extra_trees"] = auto_extra_trees(n_train_docs)
    if grow_policy is not None:
        params["grow_policy"] = grow_policy
    if params.get("grow_policy") in SYMMETRIC_POLICIES and params.get("max_depth", -1) <= 0:
        from ..learners._symmetric import symmetric_depth

        params["max_depth"] = symmetric_depth(params["num_leaves"], -1)
    if params.get("lambda_l2") == "auto":
        n_models = params.get("n_models", 1)
        if n_models == "auto":
            n_models = auto_n_models(estimator._make_objective())
        params["lambda_l2"] = rule_lambda_l2_cap(n_models, params.get("extra_trees", False), params["num_leaves"],
                                                 n_train_docs)
    out = {}
    for name, dist in space.items():
        value = params[name]
        if isinstance(dist, d.CategoricalDistribution):
            matches = [c for c in dist.choices if c == value and isinstance(c, bool) == isinstance(value, bool)]
            inside, value = (True, matches[0]) if matches else (False, value)
        elif isinstance(dist, (d.IntDistribution, d.FloatDistribution)):
            inside = (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
                      and dist.low <= value <= dist.high
                      and (dist.step is None or abs((value - dist.low) / dist.step
                                                    - round((value - dist.low) / dist.step)) < 1e-9))
            if isinstance(dist, d.IntDistribution):
                inside = inside and float(value).is_integer()
        else:
            inside = False
        if inside:
            out[name] = value
    return out

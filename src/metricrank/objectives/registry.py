"""The objective registry: one spec syntax for every training objective.

Specs use the metric syntax (:mod:`metricrank._spec`): ``YetiRank``,
``YetiRank:permutations=20;decay=0.95``, ``StochasticRank:metric=NDCG;top=10``,
``QuerySoftMax:beta=2``. λ-objectives are written ``lambda:<metric spec>``
(``lambda:NDCG:top=10;type=Exp``, ``lambda:MAP``); ``RankNet`` is
``lambda:RankNet``. Names are case-insensitive.
"""

from __future__ import annotations

import importlib

from .._spec import parse_param_values, split_spec
from ..metrics._base import REQUIRED, fill_defaults
from ._base import Objective, ObjectiveDef

__all__ = ["OBJECTIVES", "available_objectives", "describe_objectives", "get_objective"]

# Modules that define ``DEFINITIONS``: a tuple of ObjectiveDef.
_MODULES = ("pairlogit", "yetirank", "stochastic_filter", "stochastic_rank", "query_losses", "catboost_lambdamart")

OBJECTIVES: dict[str, ObjectiveDef] = {}
_BY_LOWER: dict[str, str] = {}


def _load() -> None:
    """Fill the registry on first use (the objective modules import numba kernels)."""
    if OBJECTIVES:
        return
    for module in _MODULES:
        for defn in importlib.import_module(f"{__package__}.{module}").DEFINITIONS:
            OBJECTIVES[defn.name] = defn
    _BY_LOWER.update({name.lower(): name for name in OBJECTIVES})


def available_objectives() -> list[str]:
    """Canonical names of every objective (``lambda:<metric>`` and ``RankNet`` included).

    Examples
    --------
    >>> names = available_objectives()
    >>> "YetiRank" in names and "QuerySoftMax" in names, names[-2:]
    (True, ['RankNet', 'lambda:<metric>'])
    """
    _load()
    return sorted(OBJECTIVES) + ["RankNet", "lambda:<metric>"]


#: LightGBM's and XGBoost's ranking objectives, by name: what trains the same way here.
OTHER_LIBRARIES = {
    "lambdarank": "LightGBM's; here LambdaMART('NDCG:type=Exp'), or GBRanker('lambda:NDCG:type=Exp')",
    "rank_xendcg": "LightGBM's; the closest here is QuerySoftMax",
    "rank:ndcg": "XGBoost's; here LambdaMART('NDCG:type=Exp'), or GBRanker('lambda:NDCG:type=Exp')",
    "rank:map": "XGBoost's; here LambdaMART('MAP'), or GBRanker('lambda:MAP')",
    "rank:pairwise": "XGBoost's; here GBRanker('lambda:RankNet') or PairLogit",
}


def get_objective(spec, *, preset: str | None = None) -> Objective:
    """Resolve an objective spec.

    Parameters
    ----------
    spec : str or Objective
        ``Name[:param=value;...]`` or ``lambda:<metric spec>``; an Objective is
        returned as it is.
    preset : str, optional
        Metric convention preset for a λ target (see :mod:`metricrank.metrics.conventions`).

    Returns
    -------
    Objective
        The objective with every parameter filled in; ``gradient_hessian(y, raw, group_ptr)``
        gives the gradients and hessians at the scores ``raw``.

    Raises
    ------
    ValueError
        For an unknown objective or parameter (listing the valid ones), a bad
        value, or a combination the objective rejects.

    Examples
    --------
    >>> get_objective("YetiRank:permutations=20").params["permutations"]
    20
    >>> get_objective("lambda:MAP").spec
    'lambda:MAP'
    """
    from .lambda_objective import LambdaObjective

    if isinstance(spec, Objective):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an objective spec must be a non-empty string, got {spec!r}")
    text = spec.strip()
    if text.lower().startswith("lambda:"):
        target = text[len("lambda:"):].strip()
        if not target:
            raise ValueError("objective 'lambda:' needs a metric spec, e.g. lambda:NDCG:top=10")
        return LambdaObjective(target, preset=preset)
    if text.lower() == "ranknet":
        return LambdaObjective("RankNet")
    _load()
    other = OTHER_LIBRARIES.get(text.lower())
    if other is not None:
        raise ValueError(f"unknown objective {text!r} ({other}); objectives are {', '.join(available_objectives())}")
    head = text.split(":", 1)[0].split("@", 1)[0].strip()
    name, k, raw = split_spec(text, what="objective") if head.lower() in _BY_LOWER else (head, None, {})
    canonical = _BY_LOWER.get(name.lower())
    if canonical is None or k is not None:
        from .lambda_objective import LAMBDA_TARGETS

        hint = ""
        if name.lower() in {t.lower() for t in LAMBDA_TARGETS} or k is not None:
            hint = f" (to train on the λ-gradients of the metric, write lambda:{text})"
        raise ValueError(f"unknown objective {text!r}{hint}; objectives are {', '.join(available_objectives())}")
    defn = OBJECTIVES[canonical]
    explicit = parse_param_values(defn.name, defn.params, raw)
    params = fill_defaults(defn, explicit)  # the metrics' rule: defaults, REQUIRED and choices checked
    canonical_spec = defn.name + ("" if not explicit else ":" + ";".join(
        f"{key}={raw[key]}" for key in raw))
    return defn.factory(canonical_spec, params)


def _default_text(value) -> str:
    if value is REQUIRED:
        return "required"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or value == -1:
        return "all" if value == -1 else "none"
    return str(value)


def describe_objectives() -> list[tuple[str, str, str]]:
    """``(name, "param=default, ...", description)`` of every objective, λ targets last.

    Examples
    --------
    >>> [params for name, params, _ in describe_objectives() if name == "PairLogit"]
    ['max_pairs=all, use_weights=true']
    """
    _load()
    rows = []
    for name in sorted(OBJECTIVES):
        defn = OBJECTIVES[name]
        params = ", ".join(f"{p.name}={p.shown_default or _default_text(p.default)}" for p in defn.params) or "-"
        rows.append((name, params, defn.doc))
    rows.append(("lambda:<metric>", "the metric's own parameters",
                 "exact λ-gradients (LambdaMART) of NDCG, DCG, MAP, MRR, ERR, PrecisionAt, ROCArea, QueryAUC, MAUC"))
    rows.append(("RankNet", "-", "λ-gradients with |ΔZ| = 1 (RankNet's pairwise cross-entropy)"))
    return rows

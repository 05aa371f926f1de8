"""Metric specs: one parser and one registry for the API, the CLI and early stopping.

A spec is CatBoost's syntax ``Name[:param=value[;param=value...]]``
(``NDCG:top=10;type=Exp``, ``AUC:type=Ranking``) or a shorthand
``name@k`` (``ndcg@10``, ``map@5``, ``p@3``) optionally followed by
``:param=value`` pairs. Names are case-insensitive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._spec import parse_param_values, split_spec
from . import _multiclass, _pairwise, _positional, _query_losses
from ._base import MetricDef, MetricInput, compute_value, fill_defaults
from .conventions import preset_defaults

REGISTRY: dict[str, MetricDef] = {}
for _module in (_positional, _pairwise, _query_losses, _multiclass):
    for _defn in _module.DEFINITIONS:
        REGISTRY[_defn.name] = _defn

#: alias -> canonical name (an alias is another name of the same definition)
ALIASES: dict[str, str] = {}
for _defn in REGISTRY.values():
    for _alias in _defn.aliases:
        if _alias in REGISTRY or _alias in ALIASES:
            raise RuntimeError(f"metric alias {_alias!r} is already a metric name")
        ALIASES[_alias] = _defn.name

_BY_LOWER = {name.lower(): name for name in REGISTRY}
_BY_LOWER.update({alias.lower(): canonical for alias, canonical in ALIASES.items()})

# shorthand prefix -> canonical metric taking ``top``
SHORTHANDS = {
    "ndcg": "NDCG", "dcg": "DCG", "map": "MAP", "mrr": "MRR", "err": "ERR", "pfound": "PFound",
    "p": "PrecisionAt", "precision": "PrecisionAt", "r": "RecallAt", "recall": "RecallAt",
    "averagegain": "AverageGain", "precision_micro": "PrecisionMicro", "precision_macro": "PrecisionMicro",
}



@dataclass(frozen=True)
class Metric:
    """A parsed metric spec: a definition with every parameter resolved.

    Examples
    --------
    >>> m = get_metric("ndcg@10")
    >>> m.spec, m.higher_is_better
    ('NDCG:top=10', True)
    """

    definition: MetricDef
    params: dict
    explicit: dict

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def higher_is_better(self) -> bool:
        return self.definition.higher_is_better

    @property
    def spec(self) -> str:
        """Canonical spec with the parameters that were written explicitly."""
        if not self.explicit:
            return self.name
        return self.name + ":" + ";".join(f"{k}={_fmt(v)}" for k, v in self.explicit.items())

    def compute(self, inp: MetricInput):
        """``(value, per_query_values, n_queries_counted)`` on validated input."""
        return compute_value(self.definition, inp, self.params)

    def __str__(self) -> str:
        return self.spec


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def available_metrics() -> list[str]:
    """Canonical names of every registered metric (aliases: :data:`ALIASES`).

    Examples
    --------
    >>> names = available_metrics()
    >>> "NDCG" in names and "MAUC" in names, names == sorted(names)
    (True, True)
    """
    return sorted(REGISTRY)


def _lookup(name: str) -> MetricDef:
    canonical = _BY_LOWER.get(name.lower())
    if canonical is None:
        raise ValueError(f"unknown metric {name!r}; available metrics: {', '.join(available_metrics())} "
                         f"(aliases: {', '.join(f'{a}={c}' for a, c in sorted(ALIASES.items()))})")
    return REGISTRY[canonical]


def parse_spec(spec: str) -> tuple[MetricDef, dict]:
    """Split a spec into its definition and the explicitly written parameters (parsed).

    The text is split by :func:`metricrank._spec.split_spec`, the one parser that
    objective specs use too.

    Parameters
    ----------
    spec : str
        ``"Name"``, ``"Name:param=value;param=value"`` or the ``"name@k"`` shorthand; names
        and aliases are matched without regard to case.

    Returns
    -------
    definition : MetricDef
        The metric's registered definition (its parameters and their defaults).
    params : dict
        The parameters the spec writes, parsed to their types; defaults are not filled in.

    Raises
    ------
    ValueError
        An unknown metric or parameter, a value outside the parameter's domain, or a
        parameter written twice.

    Examples
    --------
    >>> definition, params = parse_spec("NDCG:top=5;type=Exp")
    >>> definition.name, params
    ('NDCG', {'top': 5, 'type': 'Exp'})
    >>> parse_spec("ndcg@5")[1]   # the name@k shorthand
    {'top': 5}
    """
    name, k, raw = split_spec(spec, what="metric")
    if k is not None:
        target = SHORTHANDS.get(name.lower())
        if target is None:
            raise ValueError(
                f"{name}@k is not a known shorthand in {spec!r}; shorthands: "
                f"{', '.join(sorted(SHORTHANDS))}"
            )
        if "top" in raw:
            raise ValueError(f"metric spec {spec!r} sets 'top' twice")
        defn = REGISTRY[target]
        raw = {"top": k, **raw}
    else:
        defn = _lookup(name)
    return defn, parse_param_values(defn.name, defn.params, raw)


def get_metric(spec, preset: str | None = None) -> Metric:
    """Resolve a spec (or an already parsed :class:`Metric`) under a preset.

    Parameters
    ----------
    spec : str or Metric
    preset : {"catboost", "lightgbm", "xgboost", "trec_eval"}, optional
        Convention defaults for parameters the spec does not set.

    Returns
    -------
    Metric
        The metric with every parameter filled in (written, else the preset's, else its
        default); :func:`~metricrank.metrics.evaluate` takes it as ``metric=``.

    Examples
    --------
    >>> get_metric("MAP:top=10", preset="trec_eval").params["norm"]
    'all'
    """
    if isinstance(spec, Metric):
        if preset is None:
            return spec
        defn, explicit = spec.definition, dict(spec.explicit)
    else:
        defn, explicit = parse_spec(spec)
    names = {p.name for p in defn.params}
    params = preset_defaults(preset, defn.name, names)
    params.update(explicit)
    return Metric(defn, fill_defaults(defn, params), explicit)


def judge_reading(spec: str, y, preset: str | None = None) -> str:
    """``spec``, or DCG with its parameters where it is NDCG and ``y`` holds negative labels, which NDCG refuses.

    Where NDCG@10 stands in for a metric an objective does not name (YetiRank's classic mode, RankNet: its
    ``eval_spec_for``), and for the capacity check's judge of the training labels, so that labels the training
    accepts do not fail on a metric nobody named for them. A metric that a model names or that is named for eval
    sets is not passed through it.

    Examples
    --------
    >>> judge_reading("NDCG:top=10", [0, 2, 1]), judge_reading("NDCG:top=10;empty=0", [-1, 2, 1])
    ('NDCG:top=10', 'DCG:top=10')
    """
    metric = get_metric(spec, preset)
    y = np.asarray(y)
    if metric.name != "NDCG" or y.dtype.kind not in "biuf" or not np.any(y < 0):  # not numbers: refused elsewhere
        return spec
    kept = {k: v for k, v in metric.explicit.items() if k != "empty"}  # DCG has no empty query
    return "DCG" + (":" + ";".join(f"{k}={_fmt(v)}" for k, v in kept.items()) if kept else "")

"""Metric specs: one parser and one registry for the API, the CLI and early stopping.

A spec is CatBoost's syntax ``Name[:param=value[;param=value...]]``
(``NDCG:top=10;type=Exp``, ``AUC:type=Ranking``) or a shorthand
``name@k`` (``ndcg@10``, ``map@5``, ``p@3``) optionally followed by
``:param=value`` pairs. Names are case-insensitive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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

_SPEC = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:@(?P<k>[0-9]+))?\s*(?::(?P<params>.*))?$")


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
    """Canonical names of every registered metric (aliases: :data:`ALIASES`)."""
    return sorted(REGISTRY)


def _lookup(name: str) -> MetricDef:
    canonical = _BY_LOWER.get(name.lower())
    if canonical is None:
        raise ValueError(f"unknown metric {name!r}; available metrics: {', '.join(available_metrics())} "
                         f"(aliases: {', '.join(f'{a}={c}' for a, c in sorted(ALIASES.items()))})")
    return REGISTRY[canonical]


def parse_spec(spec: str) -> tuple[MetricDef, dict]:
    """Split a spec into its definition and the explicitly written parameters (parsed)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a metric spec must be a non-empty string, got {spec!r}")
    match = _SPEC.match(spec)
    if match is None:
        raise ValueError(f"cannot parse metric spec {spec!r}; expected Name[:param=value;...] or name@k")
    name, k, text = match.group("name"), match.group("k"), match.group("params")
    explicit_raw: dict[str, str] = {}
    if k is not None:
        target = SHORTHANDS.get(name.lower())
        if target is None:
            raise ValueError(
                f"{name}@k is not a known shorthand in {spec!r}; shorthands: "
                f"{', '.join(sorted(SHORTHANDS))}"
            )
        defn = REGISTRY[target]
        explicit_raw["top"] = k
    else:
        defn = _lookup(name)
    if text is not None and text.strip():
        for item in text.split(";"):
            if not item.strip():
                continue
            if "=" not in item:
                raise ValueError(f"metric spec {spec!r}: parameter {item!r} is not of the form name=value")
            key, value = (part.strip() for part in item.split("=", 1))
            if key in explicit_raw:
                raise ValueError(f"metric spec {spec!r} sets {key!r} twice")
            explicit_raw[key] = value
    explicit = {}
    for key, value in explicit_raw.items():
        try:
            param = defn.param(key)
        except KeyError:
            names = ", ".join(p.name for p in defn.params) or "(none)"
            raise ValueError(f"{defn.name} has no parameter {key!r}; its parameters are {names}") from None
        try:
            explicit[key] = param.parse(value)
        except ValueError as err:
            raise ValueError(f"{defn.name}: bad value for {key}: {err}") from None
    return defn, explicit


def get_metric(spec, preset: str | None = None) -> Metric:
    """Resolve a spec (or an already parsed :class:`Metric`) under a preset.

    Parameters
    ----------
    spec : str or Metric
    preset : {"catboost", "lightgbm", "xgboost", "trec_eval"}, optional
        Convention defaults for parameters the spec does not set.

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

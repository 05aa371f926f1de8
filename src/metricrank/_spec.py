"""The one spec parser: CatBoost's ``Name[:param=value[;param=value...]]`` syntax.

Metrics (:mod:`metricrank.metrics.registry`) and objectives
(:mod:`metricrank.objectives.registry`) both read their specs with
:func:`split_spec` and :func:`parse_param_values`; each keeps its own catalogue
of names and parameters.
"""

from __future__ import annotations

import re

__all__ = ["parse_param_values", "split_spec"]

_SPEC = re.compile(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:@(?P<k>[0-9]+))?\s*(?::(?P<params>.*))?$")


def split_spec(spec, what: str = "metric") -> tuple[str, str | None, dict[str, str]]:
    """``(name, k of a name@k shorthand or None, {param: raw text})`` of a spec.

    Examples
    --------
    >>> split_spec("NDCG:top=10;type=Exp")
    ('NDCG', None, {'top': '10', 'type': 'Exp'})
    >>> split_spec("ndcg@5")
    ('ndcg', '5', {})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a {what} spec must be a non-empty string, got {spec!r}")
    match = _SPEC.match(spec)
    if match is None:
        raise ValueError(f"cannot parse {what} spec {spec!r}; expected Name[:param=value;...]"
                         + (" or name@k" if what == "metric" else ""))
    raw: dict[str, str] = {}
    text = match.group("params")
    if text is not None and text.strip():
        for item in text.split(";"):
            if not item.strip():
                continue
            if "=" not in item:
                raise ValueError(f"{what} spec {spec!r}: parameter {item!r} is not of the form name=value")
            key, value = (part.strip() for part in item.split("=", 1))
            if key in raw:
                raise ValueError(f"{what} spec {spec!r} sets {key!r} twice")
            raw[key] = value
    return match.group("name"), match.group("k"), raw


def parse_param_values(owner: str, params, raw: dict[str, str]) -> dict:
    """Parse raw parameter texts with the ``Param`` definitions of ``owner``.

    Unknown names and unparsable values raise ValueError naming ``owner``, the
    parameter and the valid parameters.
    """
    by_name = {p.name: p for p in params}
    out = {}
    for key, value in raw.items():
        param = by_name.get(key)
        if param is None:
            names = ", ".join(by_name) or "(none)"
            hint = ("; hints is CatBoost's word on whether to compute a metric on the training data during "
                    f"training, not a parameter of {owner}: drop it") if key == "hints" else ""
            raise ValueError(f"{owner} has no parameter {key!r}; its parameters are {names}{hint}")
        try:
            out[key] = param.parse(value)
        except ValueError as err:
            raise ValueError(f"{owner}: bad value for {key}: {err}") from None
    return out

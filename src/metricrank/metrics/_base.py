"""The contract every metric definition follows.

A metric is defined once, as a :class:`MetricDef`: its CatBoost-style name,
its parameters with defaults and allowed values, its direction, and a
``compute`` function returning per-query *parts* ``(num, den)``:

* the overall value is ``finalize(sum(num) / sum(den))`` over the queries with
  ``den > 0`` (the *queries counted*);
* the per-query value is ``finalize(num[q] / den[q])`` (NaN where ``den == 0``).

Mean-over-queries metrics return ``num = g_q * v_q`` and ``den = g_q`` (``g_q``
the group weight); ratio metrics such as PairLogit or QueryRMSE return their
per-query sums, so the overall value is the ratio of totals, exactly as
CatBoost defines them. Global metrics (``AUC``) see the whole data set as one
query. Kernels never validate: :class:`MetricInput` is built once by the public
entry point with contiguous float64/int64 arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

REQUIRED = object()  # sentinel default for an obligatory parameter


@dataclass(frozen=True)
class Param:
    """One metric parameter.

    ``parse`` turns the spec-string text into a value and raises ValueError on
    bad text; ``choices`` (if any) lists the allowed values. ``shown_default``
    is how listings write a default that depends on other parameters (the
    ``default`` is then None, filled in when the spec is resolved).
    """

    name: str
    default: Any
    parse: Callable[[str], Any]
    choices: tuple | None = None
    doc: str = ""
    shown_default: str | None = None


@dataclass(frozen=True)
class MetricInput:
    """Validated arrays one metric evaluation reads.

    Attributes
    ----------
    y, score : float64 (n,)
    group_ptr : int64 (n_queries + 1,)
    weight : float64 (n,) per-row weights (ones when none were given)
    group_weight : float64 (n_queries,) (ones when none were given)
    pairs : int64 (n_pairs, 2) global row indices (winner, loser), or None
    pair_weight : float64 (n_pairs,) or None
    tie_key : float64 (n,) secondary sort key for ``ties=docid``, or None
    has_weight, has_group_weight : whether the caller supplied them
    """

    y: np.ndarray
    score: np.ndarray
    group_ptr: np.ndarray
    weight: np.ndarray
    group_weight: np.ndarray
    pairs: np.ndarray | None = None
    pair_weight: np.ndarray | None = None
    tie_key: np.ndarray | None = None
    has_weight: bool = False
    has_group_weight: bool = False
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_queries(self) -> int:
        return self.group_ptr.shape[0] - 1

    def unweighted(self) -> "MetricInput":
        """The same input with every row, group and pair weight set to 1."""
        pw = None if self.pair_weight is None else np.ones_like(self.pair_weight)
        # Rankings do not depend on weights, so the memo is shared.
        return replace(self, weight=np.ones_like(self.weight), group_weight=np.ones_like(self.group_weight),
                       pair_weight=pw, has_weight=False, has_group_weight=False, cache=self.cache)

    def with_labels(self, y: np.ndarray) -> "MetricInput":
        """The same input with other labels (and a fresh memo)."""
        return replace(self, y=y, cache={})


@dataclass(frozen=True)
class MetricDef:
    """A metric family: name, parameters, direction and per-query parts.

    Parameters
    ----------
    name : str
        Canonical CatBoost-style name, e.g. ``"NDCG"``.
    params : tuple of Param
    higher_is_better : bool
    compute : callable ``(MetricInput, params: dict) -> (num, den)``
    check_labels : callable ``(y, params) -> None`` raising ValueError, optional
        Checks the label domain; the message must name the metric.
    finalize : callable on a float or array, optional (e.g. ``np.sqrt``)
    per_query : bool
        False for metrics defined on the whole data set (AUC), which are
        computed as if all rows formed one query.
    source : str
        The document defining it ("catboost", "welleck", "yue", "burges").
    doc : str
        One-line description.
    object_weights, query_weights : bool
        Whether it reads per-row weights (pairwise metrics, AUC, the query losses) and per-query weights
        (most per-query metrics; not MAP, PrecisionAt, RecallAt, FilteredDCG, the query losses, global AUC);
        :func:`~metricrank.metrics.evaluate` warns when weights it is given go unread.
    reads_order_only : bool
        Whether the value reads only the order of the scores within the set, as every positional and
        pair-counting metric does (False for the query losses, PairLogit and FilteredDCG's sign filter):
        then a query scored alike in its best and worst orders is scored alike in every order.
    """

    name: str
    params: tuple
    higher_is_better: bool
    compute: Callable
    check_labels: Callable | None = None
    finalize: Callable | None = None
    per_query: bool = True
    source: str = "catboost"
    doc: str = ""
    aliases: tuple = field(default_factory=tuple)
    object_weights: bool = False
    query_weights: bool = False
    reads_order_only: bool = True

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def __reduce__(self):
        # Pickled by name: label checks are closures, and a definition is one registry entry anyway.
        return (_definition_by_name, (self.name,))


def _definition_by_name(name: str) -> "MetricDef":
    from .registry import REGISTRY

    return REGISTRY[name]


# --- parsers shared by the definitions -------------------------------------------------

def parse_int(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected an integer, got {text!r}") from None
    if value != int(value):
        raise ValueError(f"expected an integer, got {text!r}")
    return int(value)


def parse_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not np.isfinite(value):
        raise ValueError(f"expected a finite number, got {text!r}")
    return value


def parse_positive(text: str) -> float:
    value = parse_float(text)
    if value <= 0:
        raise ValueError(f"expected a positive number, got {text!r}")
    return value


def parse_unit_interval(text: str) -> float:
    value = parse_float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"expected a number in [0, 1], got {text!r}")
    return value


def parse_nonnegative(text: str) -> float:
    value = parse_float(text)
    if value < 0:
        raise ValueError(f"expected a number >= 0, got {text!r}")
    return value


def parse_bool(text: str) -> bool:
    low = str(text).strip().lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def parse_choice(text: str) -> str:
    return str(text).strip()


def parse_top(text: str) -> int:
    value = parse_int(text)
    if value < 1 and value != -1:
        raise ValueError(f"top must be a positive integer or -1 (all documents), got {text!r}")
    return value


def top_param(default=-1, doc="number of top documents counted; -1 counts all") -> Param:
    return Param("top", default, parse_top, None, doc)


def border_param(default=0.5) -> Param:
    return Param("border", default, parse_float, None, "label > border counts as relevant")


USE_WEIGHTS_TRUE = Param("use_weights", True, parse_bool, (True, False), "use object/group weights")
USE_WEIGHTS_FALSE = Param("use_weights", False, parse_bool, (True, False), "use object/group weights")


def mean_parts(values: np.ndarray, counted: np.ndarray, group_weight: np.ndarray):
    """Parts of a group-weighted mean of per-query ``values``.

    Queries where ``counted`` is False get ``den = 0`` (not counted).
    """
    den = np.where(counted, group_weight, 0.0)
    num = np.where(counted, values * group_weight, 0.0)
    return num, den


def check_finite_labels_in(lo: float, hi: float, metric: str, what: str = "labels"):
    """A label-domain check: every label in ``[lo, hi]``."""

    def check(y: np.ndarray, params: dict) -> None:
        bad = (y < lo) | (y > hi)
        if np.any(bad):
            vals = np.unique(y[bad])[:5]
            raise ValueError(
                f"{metric} needs {what} in [{lo:g}, {hi:g}]; got {vals.tolist()}"
                f"{' and more' if np.count_nonzero(bad) > 5 else ''} "
                f"(first at row {int(np.flatnonzero(bad)[0])})"
            )

    return check


def fill_defaults(defn: MetricDef, params: dict) -> dict:
    """``params`` completed with the definition's defaults (unknown names raise)."""
    known = {p.name for p in defn.params}
    unknown = set(params) - known
    if unknown:
        raise ValueError(
            f"{defn.name} has no parameter {sorted(unknown)[0]!r}; its parameters are "
            f"{', '.join(sorted(known)) or '(none)'}"
        )
    full = {}
    for p in defn.params:
        value = params.get(p.name, p.default)
        if value is REQUIRED:
            raise ValueError(f"{defn.name} needs the parameter {p.name!r} ({p.doc})")
        if p.choices is not None and value not in p.choices:
            raise ValueError(
                f"{defn.name}: {p.name}={value} is not allowed; choose one of "
                f"{', '.join(map(str, p.choices))}"
            )
        full[p.name] = value
    return full


def compute_value(defn: MetricDef, inp: MetricInput, params: dict):
    """Evaluate one definition: ``(value, per_query_values, n_queries_counted)``.

    ``params`` must already hold every parameter (see :func:`fill_defaults`).
    Label checks run here, once.
    """
    if "use_weights" in params and not params["use_weights"]:
        inp = inp.unweighted()
    if defn.check_labels is not None:
        defn.check_labels(inp.y, params)
    if not defn.per_query:
        inp = replace(inp, group_ptr=np.array([0, inp.y.shape[0]], dtype=np.int64),
                      group_weight=np.ones(1), has_group_weight=False, cache={})
    num, den = defn.compute(inp, params)
    counted = den > 0
    total_den = float(den[counted].sum())
    value = float(num[counted].sum()) / total_den if total_den > 0 else float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        per_query = np.where(counted, num / np.where(counted, den, 1.0), np.nan)
    if defn.finalize is not None:
        value = float(defn.finalize(value))
        per_query = defn.finalize(per_query)
    return value, per_query, int(np.count_nonzero(counted))

"""YetiRank with the training queries reweighted at every tree by a Bayesian bootstrap, on ``data_shapes.py``'s splits.

A candidate for the defaults (BENCHMARKS.md, "Stop 119"; not adopted): CatBoost varies its examples' weights from
tree to tree (``bootstrap_type``), and ``LambdaMART``'s default averages four models whose only differences are
random. Here every call of a bound YetiRank objective (one per tree of each model, the capacity check's fits
included) draws a weight ``(-log U)^T`` per training query from the objective's own generator, after its
permutations (``U`` uniform; ``T`` = ``--temperature``, CatBoost's ``bagging_temperature``; 1 is Rubin's Bayesian
bootstrap), and multiplies the query's gradients and hessians by it. Nothing else changes. The systems are
``"LambdaMART(M) qb=T"``, the default ``LambdaMART(M)`` fitted so; compare them with the default's runs by
``data_shapes.py --tables DEFAULT.json+OUT.json --against "LambdaMART({M})"``. With ``--per-model`` each of the
models trained side by side keeps one weight per query for its whole fit instead (bagging of boosted models;
systems ``"LambdaMART(M) qbm=T"``).

Usage: ``query_bootstrap.py [--temperature T] [--per-model] [--scale K]`` followed by ``data_shapes.py``'s fitting
arguments (``--scale`` as ``as_if_larger.py``'s)::

    .venv/bin/python benchmarks/query_bootstrap.py --scale 4.4 --shape mq2008 --seeds 1 6 --judged MAP --out qb.json
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import as_if_larger  # noqa: E402
import data_shapes  # noqa: E402

from metricrank.learners._boosting import ModelGradients  # noqa: E402
from metricrank.objectives.yetirank import BoundYetiRank  # noqa: E402


def query_weights(rng: np.random.Generator, n_queries: int, temperature: float) -> np.ndarray:
    """One weight ``(-log U)^temperature`` per query (U uniform on [0, 1): 0, and so an infinite weight, has
    probability 2^-53 a draw)."""
    return (-np.log(rng.random(n_queries))) ** temperature


@contextlib.contextmanager
def bootstrapped_queries(temperature: float):
    """Within the block each bound YetiRank's call multiplies every query's gradients and hessians by a weight of
    :func:`query_weights`, drawn anew at every call."""
    plain = BoundYetiRank.__call__

    def weighted(self, raw):
        grad, hess = plain(self, raw)
        sizes = np.diff(self.group_ptr)
        w = np.repeat(query_weights(self.rng, sizes.size, temperature), sizes)
        grad *= w  # the objective's own buffers, rewritten by its next call
        hess *= w
        return grad, hess

    BoundYetiRank.__call__ = weighted
    try:
        yield
    finally:
        BoundYetiRank.__call__ = plain


@contextlib.contextmanager
def bootstrapped_models(temperature: float):
    """Within the block each of the models trained side by side (``n_models`` > 1, the default's four a kind) keeps
    one weight of :func:`query_weights` per query for its whole fit, drawn at its first tree from the bound
    objective's generator after that call's permutations: each model trains on its own Bayesian bootstrap of the
    queries (bagging of boosted models), where :func:`bootstrapped_queries` draws anew at every tree."""
    plain = ModelGradients.__call__

    def weighted(self, raw):
        grad, hess = plain(self, raw)  # fresh arrays, one column per model
        if getattr(self, "query_weights", None) is None:
            sizes = np.diff(self.bound.group_ptr)
            drawn = query_weights(self.bound.rng, sizes.size * raw.shape[1], temperature)
            self.query_weights = np.repeat(drawn.reshape(sizes.size, raw.shape[1]), sizes, axis=0)
        grad *= self.query_weights
        hess *= self.query_weights
        return grad, hess

    ModelGradients.__call__ = weighted
    try:
        yield
    finally:
        ModelGradients.__call__ = plain


def systems(judged, temperature: float, per_model: bool = False, **params) -> dict:
    """``{"LambdaMART(M) qb=T": ((M,), fit)}`` (``qbm=T`` with ``per_model``): ``data_shapes.systems``' LambdaMART(M),
    renamed (the reweighting is :func:`bootstrapped_queries`' or :func:`bootstrapped_models`', around the whole run);
    ``params`` are LambdaMART's (``--set``)."""
    if params.pop("cb_params", None):
        raise SystemExit("query_bootstrap.py fits no CatBoost anchor: drop the cb. settings")
    made = data_shapes.systems(judged, **params)
    tag = "qbm" if per_model else "qb"
    return {f"LambdaMART({m}) {tag}={temperature:g}": made[f"LambdaMART({m})"] for m in judged}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--temperature", type=float, default=1.0,
                        help="T of the weights (-log U)^T, > 0 (default: %(default)s, Rubin's Bayesian bootstrap)")
    parser.add_argument("--scale", type=float, default=None, help="as as_if_larger.py's --scale (> 1)")
    parser.add_argument("--per-model", action="store_true",
                        help="one weight per query and model for the model's whole fit (systems 'qbm=T'), not anew at "
                             "every tree")
    args, rest = parser.parse_known_args(argv)
    if not (math.isfinite(args.temperature) and args.temperature > 0):
        parser.error(f"--temperature must be a finite number above 0; got {args.temperature}")
    as_if_larger.apply_scale(parser, args.scale)
    data_shapes.refuse_tabulating(parser, rest)
    reweighting = bootstrapped_models if args.per_model else bootstrapped_queries
    with reweighting(args.temperature):
        data_shapes.main(rest, make_systems=lambda judged, **params: systems(judged, args.temperature, args.per_model,
                                                                             **params))


if __name__ == "__main__":
    main()

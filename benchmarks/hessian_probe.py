"""Trees grown on the gradient alone (CatBoost's ``Gradient`` leaf estimation), on LETOR-shaped data.

CatBoost's CPU YetiRank and QuerySoftMax fit each tree to the gradient by least squares (leaf value: the
mean gradient); metricrank, like LightGBM, grows and values its trees by Newton steps on the diagonal
hessian. This probe replaces the hessian LightGBM sees, for every tree, by:

* ``exact``: the objective's own (the default);
* ``mean``: its mean over all rows (gradient-only trees, at the Newton step's overall scale);
* a number ``c``: ``c`` for every row (``1``: CatBoost's gradient step, leaf = mean gradient).

It patches the engine's ``boost_lanes`` for the run, so nothing in the library changes, and runs
``GBRanker(YetiRank)`` (the trees of default ``LambdaMART`` for NDCG@10, MAP and MAUC) and, with
``--objectives``, others, judged by NDCG@10, MAP and MAUC, with ``benchmarks/data_shapes.py``'s protocol
and shapes (learning rate 0.1, 300 trees, one thread, tree count chosen on validation); every other
option is ``data_shapes.py``'s:

    .venv/bin/python benchmarks/hessian_probe.py --hessian mean --shape mq2007 --noise 5 --seeds 1 11 --out mean.json
    .venv/bin/python benchmarks/data_shapes.py --compare mean.json exact.json
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import numpy as np

import metricrank.learners.gbranker as gbranker_module

_boost_lanes = gbranker_module.boost_lanes


def flattened(mode: str):
    """The engine's ``boost_lanes`` with every lane's hessian replaced as ``mode`` says (the lanes of the
    final fit and of the capacity check's fold models alike)."""
    def replaced(gradient):
        def flat(raw):
            grad, hess = gradient(raw)
            return grad, np.full_like(hess, hess.mean() if mode == "mean" else float(mode))
        return flat

    def boost_lanes(lanes, n_estimators, **kwargs):
        if mode != "exact":
            lanes = [dataclasses.replace(lane, gradient=replaced(lane.gradient)) for lane in lanes]
        return _boost_lanes(lanes, n_estimators, **kwargs)
    return boost_lanes


def _hessian(value: str) -> str:
    if value in ("exact", "mean"):
        return value
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not (np.isfinite(number) and number > 0):
        raise argparse.ArgumentTypeError(f"exact, mean or a finite positive number; got {value!r}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hessian", type=_hessian, default="exact", help="exact, mean or a finite positive number")
    parser.add_argument("--objectives", nargs="+", default=["YetiRank"], help="GBRanker objective specs")
    args, rest = parser.parse_known_args()
    from metricrank.objectives import get_objective

    for spec in args.objectives:  # a bad spec fails here, not after the first data set is drawn
        try:
            get_objective(spec)
        except (KeyError, ValueError) as error:
            parser.error(f"--objectives: {error}")
    gbranker_module.boost_lanes = flattened(args.hessian)
    import data_shapes
    from metricrank.experiments import quality as q

    def probe_systems(judged=data_shapes.JUDGED, cb_params=None, **params):  # data_shapes.systems' signature
        return {f"GBRanker({o})": (judged, q.gbranker(o, **params)) for o in args.objectives}

    data_shapes.systems = probe_systems
    sys.argv = [sys.argv[0], *rest]
    print(f"hessian: {args.hessian}", flush=True)
    data_shapes.main()


if __name__ == "__main__":
    main()

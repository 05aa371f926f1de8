"""The mixed default's two kinds of tree weighed other than half and half, on ``data_shapes.py``'s splits.

From 30,000 training documents ``LambdaMART``'s default grows completed symmetric trees and leaf-wise trees side
by side and scores their mean (``grow_policy="mixed"``, BENCHMARKS.md "Stop 68"). Each kind is fitted as a fit of
that kind alone would be, so a weight ``w`` on the symmetric kind's score and ``1 - w`` on the leaf-wise kind's
needs no new fit: this probe fits the default ``LambdaMART(M)`` once per split and scores one system per weight,
``"LambdaMART(M) w=W"``, each with its own tree count chosen on the validation queries by M (the suite's
protocol). ``w=0.5`` is the default's own score (checked against ``predict`` on every split), ``w=1`` the
completed trees alone and ``w=0`` the leaf-wise ones.

Usage: ``mixed_weights.py [--weights W ...] [--scale K]`` followed by ``data_shapes.py``'s fitting arguments
(``--scale`` as ``as_if_larger.py``'s: MQ2008's folds fitted as if K times their size, where the mixed trees
grow); compare the weights with ``data_shapes.py --tables OUT.json --against "LambdaMART({M}) w=0.5"`` (each
judged metric's table against its half and half; BENCHMARKS.md, "Stop 118")::

    .venv/bin/python benchmarks/mixed_weights.py --scale 4.4 --shape mq2008 --seeds 1 6 --judged MAP --out w.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import as_if_larger  # noqa: E402
import data_shapes  # noqa: E402

from metricrank import LambdaMART  # noqa: E402
from metricrank.experiments import quality as q  # noqa: E402
from metricrank.learners._gbdt import MIXED_KINDS  # noqa: E402
from metricrank.learners._staged import staged_raw_scores  # noqa: E402

#: The weights on the symmetric kind run unless ``--weights`` names others.
WEIGHTS = (0.0, 0.25, 0.4, 0.5, 0.6, 0.75, 1.0)


def kind_scores(model, X) -> np.ndarray:
    """Each kind's score after 1, 2, ... iterations: an array (kinds, iterations, rows), a kind's score the mean
    of its ``n_models_`` models (the booster's score columns, the completed trees' first)."""
    booster = model.booster_
    staged = np.stack(list(staged_raw_scores(booster, X, booster.current_iteration())))  # (iterations, rows, columns)
    kinds = staged.reshape(*staged.shape[:2], len(model.kinds_), model.n_models_).mean(axis=3)
    return kinds.transpose(2, 0, 1)


def weighed(paths: np.ndarray, w: float) -> np.ndarray:
    """``w`` times the symmetric kind's score path plus ``1 - w`` times the leaf-wise kind's."""
    return w * paths[0] + (1 - w) * paths[1]


class _LastFit:
    """The paths of the last default fit, so that the weights of one split share it."""

    def __init__(self):
        self.split, self.key, self.paths = None, None, None

    def paths_for(self, split, metric, lr, trees, threads, seed, params) -> tuple:
        key = (metric, lr, trees, seed)
        if split is not self.split or key != self.key:  # the split itself, held: a freed one's id may come back
            model = LambdaMART(metric, n_estimators=trees, learning_rate=lr, n_jobs=threads, random_state=seed,
                               **params)
            model.fit(split.train)
            if tuple(k.grow_policy for k in getattr(model, "kinds_", [])) != MIXED_KINDS:
                raise SystemExit(f"mixed_weights.py: split {split.fold}: LambdaMART({metric}) grew "
                                 f"{model.grow_policy_!r} trees, not both kinds side by side ({split.train.n_docs} "
                                 f"training documents); the weights need the mixed trees: from 30,000 training "
                                 f"documents, or --scale")
            vali, test = kind_scores(model, split.vali.X), kind_scores(model, split.test.X)
            for k in sorted({1, len(test[0])}):  # w = 0.5 is the model's own score
                if not np.allclose(weighed(test, 0.5)[k - 1], model.predict(split.test.X, num_iteration=k)):
                    raise AssertionError(f"split {split.fold}: the kinds' mean after {k} trees is not predict's")
            self.split, self.key, self.paths = split, key, (vali, test)
            print(f"{split.fold}: LambdaMART({metric}) fitted; kinds {[str(k.capacity_check) for k in model.kinds_]}",
                  flush=True)
        return self.paths


def systems(judged, weights=WEIGHTS, **params) -> dict:
    """``{"LambdaMART(M) w=W": ((M,), fit)}`` for each judged M and weight W, as ``data_shapes.systems`` gives
    systems; ``params`` are LambdaMART's (``--set``)."""
    if params.pop("cb_params", None):
        raise SystemExit("mixed_weights.py fits no CatBoost anchor: drop the cb. settings")
    last = _LastFit()

    def system(metric, w):
        def fit(split, metrics, lr, trees, threads, seed):
            vali, test = (weighed(paths, w) for paths in last.paths_for(split, metric, lr, trees, threads, seed,
                                                                         params))
            return q._curves(split, metrics, vali), lambda k: test[k - 1]
        return fit

    return {f"LambdaMART({m}) w={w:g}": ((m,), system(m, w)) for m in judged for w in weights}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=Path(__file__).name, description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=float, nargs="+", default=list(WEIGHTS), metavar="W",
                        help="weights on the symmetric kind, each in [0, 1] (default: %(default)s)")
    parser.add_argument("--scale", type=float, default=None, help="as as_if_larger.py's --scale (> 1)")
    args, rest = parser.parse_known_args(argv)
    if not all(0 <= w <= 1 for w in args.weights) or len(set(args.weights)) != len(args.weights):
        parser.error(f"--weights must be distinct numbers in [0, 1]; got {args.weights}")
    as_if_larger.apply_scale(parser, args.scale)
    data_shapes.refuse_tabulating(parser, rest)
    data_shapes.main(rest, make_systems=lambda judged, **params: systems(judged, args.weights, **params))


if __name__ == "__main__":
    main()

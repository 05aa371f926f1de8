"""Leaf values re-estimated over several steps after each tree (CatBoost's leaf estimation), on the gov shape.

CatBoost's QuerySoftMax sets each leaf by 100 gradient steps (``leaf_estimation_method`` Gradient);
metricrank, like LightGBM, by one Newton step. This probe keeps each tree LightGBM grew and refits its
leaf values ``v`` (starting from 0) by ``k`` steps at the scores ``s + v[leaf]``:

    Newton:    v_j -= Σ_{i∈j} g_i / (Σ_{i∈j} h_i + lambda_l2)
    Gradient:  v_j -= Σ_{i∈j} g_i / (n_j + lambda_l2)

then stores ``η v``. It plugs in where the ``*Pairwise`` objectives revalue their leaves (the engine's
score tracker), so nothing in the library changes. Prints the test value of each judged metric at the
tree count best on validation, for one gov-shaped split (``benchmarks/data_shapes.py``, noise 2) per seed.

    .venv/bin/python benchmarks/leaf_iterations_probe.py --seeds 1 2 \\
        --steps Newton:1 Newton:10 Gradient:100 --systems "GBRanker(QuerySoftMax)" "LambdaMART(NDCG:top=10;type=Exp)"

``--hessian mean`` grows the trees on the gradient alone first (``benchmarks/hessian_probe.py``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from data_shapes import JUDGED, split

import metricrank.learners.gbranker as gbranker_module
from metricrank import GBRanker, LambdaMART
from metricrank.experiments import quality as q
from metricrank.learners._boosting import ScoreTracker


def iterated_leaf_values(gradient, leaf, n_leaves, scores, method, steps, l2):
    counts = np.bincount(leaf, minlength=n_leaves).astype(np.float64)
    values = np.zeros(n_leaves)
    for _ in range(steps):
        grad, hess = gradient(scores + values[leaf])
        denominator = (np.bincount(leaf, hess, n_leaves) if method == "Newton" else counts) + l2
        values -= np.divide(np.bincount(leaf, grad, n_leaves), denominator, out=np.zeros(n_leaves),
                            where=denominator > 0)
    return values


def tracker_class(method: str, steps: int):
    class IteratedLeaves(ScoreTracker):
        def __init__(self, bound, learning_rate, l2, train_X, train_base, eval_X, eval_base):
            super().__init__(train_X, train_base, eval_X, eval_base)
            self.bound, self.learning_rate, self.l2 = bound, float(learning_rate), float(l2)

        def revalue(self, booster, tree_index, train_scores):
            leaf = booster.predict(self.train_X, start_iteration=tree_index, num_iteration=1,
                                   pred_leaf=True).astype(np.int64).ravel()
            n_leaves = int(leaf.max()) + 1
            values = iterated_leaf_values(self.bound, leaf, n_leaves, train_scores, method, steps, self.l2)
            for j, value in enumerate(values):
                booster.set_leaf_output(tree_index, j, float(self.learning_rate * value))

    return IteratedLeaves


class _Revalued:
    """Marks the training objective so that ``fit`` hands its trees to the patched tracker."""

    def _objective_for_labels(self, objective, y, row_weights=False):
        objective = super()._objective_for_labels(objective, y, row_weights)
        objective.pairwise_leaves = True
        return objective


class RevaluedGBRanker(_Revalued, GBRanker):
    pass


class RevaluedLambdaMART(_Revalued, LambdaMART):
    pass


def fit_and_score(name: str, data, method: str, steps: int) -> dict:
    """The suite's protocol (``quality.run_system``: rate 0.1, 300 trees, one thread, seed 0) for ``name``
    with its leaves refitted by ``steps`` steps of ``method``."""
    gbranker_module.PairwiseLeafTracker = tracker_class(method, steps)
    inner = name[name.index("(") + 1:-1]
    cls, judged = (RevaluedGBRanker, JUDGED) if name.startswith("GBRanker(") else (RevaluedLambdaMART, (inner,))
    fit = q._metricrank(lambda lr, trees, threads, seed: cls(inner, n_estimators=trees, learning_rate=lr,
                                                               n_jobs=threads, random_state=seed))
    result = q.run_system(fit, data, judged, lr=0.1, trees=300, threads=1, seed=0)
    return {m: result[m]["test"] for m in judged}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs=2, default=(1, 2), metavar=("FIRST", "STOP"))
    parser.add_argument("--steps", nargs="+", default=["Newton:1", "Newton:10", "Gradient:100"],
                        metavar="METHOD:K")
    parser.add_argument("--systems", nargs="+", default=["GBRanker(QuerySoftMax)"])
    parser.add_argument("--hessian", default="exact", choices=["exact", "mean"],
                        help="the hessian LightGBM grows the trees on (benchmarks/hessian_probe.py); "
                             "the leaves are refitted on the objective's own")
    args = parser.parse_args()
    if args.hessian != "exact":
        from hessian_probe import flattened

        gbranker_module.boost_lanes = flattened(args.hessian)
    plans = []
    for item in args.steps:
        method, _, k = item.partition(":")
        if method not in ("Newton", "Gradient") or not k.isdigit() or int(k) < 1:
            parser.error(f"--steps wants Newton:K or Gradient:K with K >= 1; got {item!r}")
        plans.append((method, int(k)))
    for name in args.systems:
        if not (name.startswith(("GBRanker(", "LambdaMART(")) and name.endswith(")")):
            parser.error(f"--systems wants GBRanker(OBJECTIVE) or LambdaMART(METRIC); got {name!r}")
    for seed in range(*args.seeds):
        data = split("gov", 2.0, seed)
        for name in args.systems:
            for method, k in plans:
                start = time.perf_counter()
                values = fit_and_score(name, data, method, k)
                shown = ", ".join(f"{m} {v:.4f}" for m, v in values.items())
                print(f"seed {seed} {name} {method}×{k}: {shown} ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()

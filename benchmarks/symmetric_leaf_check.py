"""Whether LightGBM grows the symmetric trees of a fit as forced, with each leaf at its Newton step.

Fits ``GBRanker("YetiRank")`` with symmetric or completed trees on a drawn shape of ``data_shapes.py`` and, for
every tree of the fit, compares each leaf's value with ``-learning_rate * Σg / (Σh + lambda_l2)`` over the
training rows it holds, for the gradients that tree was grown on (recorded as the fit runs). Prints the leaves
off by more than 0.1 %, the trees LightGBM grew smaller than forced (the fit's warning) and the fit's time, or the
error that stopped the fit. Stop 71 found LightGBM's missing histograms with it (BENCHMARKS.md, "Stop 71").

    .venv/bin/python benchmarks/symmetric_leaf_check.py --shape np2004 --noise 2 --seed 3 \\
        --grow-policy symmetric --lambda-l2 0.01 --n-models 1 --trees 60
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import data_shapes as ds
from metricrank import GBRanker
from metricrank.learners._symmetric import SymmetricTrees

LEARNING_RATE = 0.1


def leaf_values(tree: dict) -> dict:
    """{leaf index: value} of one dumped LightGBM tree."""
    values = {}

    def walk(node):
        if "leaf_index" in node:
            values[node["leaf_index"]] = node["leaf_value"]
        else:
            walk(node["left_child"])
            walk(node["right_child"])

    walk(tree["tree_structure"])
    return values


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="np2004")
    parser.add_argument("--noise", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--grow-policy", default="symmetric", choices=["symmetric", "symmetric_then_leafwise"])
    parser.add_argument("--lambda-l2", type=float, default=0.0)
    parser.add_argument("--n-models", type=int, default=1)
    parser.add_argument("--trees", type=int, default=60)
    args = parser.parse_args(argv)
    train = ds.split(args.shape, args.noise, args.seed).train
    gradients = []
    grow = SymmetricTrees.before_tree

    def recording(self, booster, grad, hess):
        gradients.append((np.array(grad, dtype=np.float64).reshape(len(grad), -1),
                          np.array(hess, dtype=np.float64).reshape(len(hess), -1)))
        grow(self, booster, grad, hess)

    SymmetricTrees.before_tree = recording
    model = GBRanker("YetiRank", grow_policy=args.grow_policy, lambda_l2=args.lambda_l2, n_models=args.n_models,
                     n_estimators=args.trees, learning_rate=LEARNING_RATE, random_state=0)
    label = (f"{args.shape} draw {args.seed} (noise {args.noise:g}), {args.grow_policy}, lambda_l2={args.lambda_l2:g}, "
             f"{args.n_models} model(s), {args.trees} trees:")
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(train)
    except Exception as err:  # the finding to report, not a failure of this script
        print(label, f"the fit stopped after {time.perf_counter() - start:.1f} s: {type(err).__name__}: {err}")
        return
    seconds = time.perf_counter() - start
    leaf_of = model.booster_.predict(train.X, pred_leaf=True)
    trees = model.booster_.dump_model()["tree_info"]
    off, leaves = [], 0
    for t, tree in enumerate(trees):
        grad, hess = gradients[t // args.n_models]
        model_column = t % args.n_models
        for leaf, value in leaf_values(tree).items():
            rows = leaf_of[:, t] == leaf
            want = -LEARNING_RATE * grad[rows, model_column].sum() / (hess[rows, model_column].sum() + args.lambda_l2)
            leaves += 1
            if abs(value - want) > 1e-3 * max(abs(want), 1e-12):
                off.append((t, leaf, int(rows.sum()), want, value))
    short = [str(w.message) for w in caught if "smaller than forced" in str(w.message)]
    print(label, f"{len(trees)} trees, {leaves} leaves, {len(off)} off their Newton step, fit {seconds:.1f} s")
    for t, leaf, rows, want, value in off:
        print(f"  tree {t} leaf {leaf} ({rows} rows): {value:.6g} where its rows give {want:.6g}")
    print("  " + (short[0] if short else "no tree grown smaller than forced"))


if __name__ == "__main__":
    main()

"""Can held-out training queries tell which kind of tree judged MRR wants? Leaf-wise against completed trees.

Stop 64 found completed symmetric trees scoring higher MRR than the leaf-wise default on clean MQ2007-shaped draws
and lower on noisy ones. A data-driven choice would ask the capacity check's held-out folds, as the check asks them
about bigger trees. This probe runs that comparison alone, with the check's own machinery: the training queries
split into its folds (``_capacity.held_out_folds``, random state 0), one single model per held-out fold trained on
the other folds for each kind, at the size rule's capacity for that kind (leaf-wise: the rule's leaves and randomised splits, with the
penalty's cap for MRR's four averaged models from 30,000 documents, 1 where they are randomised; completed: the
rule's depth, lambda_l2 0), at the suite's rate and budget
(0.1, 300 trees), judged at the tree count best over the pooled held-out queries. At each look (1, 2, 3 folds)
it prints both kinds' values and the one-sided Wilcoxon p-values either way, judged by exponential-gain NDCG@10
(what judges MRR's capacities) and by MRR itself. A step as the check takes it wins at p < 0.05 / looks and stops
at p >= 0.5.

    .venv/bin/python benchmarks/kind_of_tree_probe.py --shape mq2007 --noise 1 --query-effect 1.2 --seeds 31 39
    .venv/bin/python benchmarks/kind_of_tree_probe.py --shape mq2007 --noise 5 --query-effect 3 --seeds 31 39
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.base import clone

import data_shapes as shapes
from metricrank import LambdaMART
from metricrank.experiments import quality as q
from metricrank.learners import _capacity, _gbdt
from metricrank.model_selection import improvement_pvalue

JUDGES = (_capacity.PROXY_METRIC, "MRR")


def probe(data: q.Split) -> list[str]:
    train = data.train
    folds = _capacity.held_out_folds(train.n_queries, 0)
    held = [train.subset_queries(f) for f in folds]
    base = LambdaMART("MRR", n_estimators=300, learning_rate=0.1, n_jobs=1, random_state=0, n_models=1)
    leaves, extra = _gbdt.auto_num_leaves(train.n_docs), _gbdt.auto_extra_trees(train.n_docs)
    # the rule's capacity as the check starts it for MRR's four averaged YetiRank models (the hessian bound left
    # out: it keeps the cap on every set measured, _gbdt.HESSIAN_ROWS)
    rule = dict(num_leaves=leaves, extra_trees=extra,
                lambda_l2=_gbdt.rule_lambda_l2_cap(4, extra, leaves, train.n_docs))
    kinds = {"leaf-wise": dict(**rule, grow_policy="leafwise"),
             "completed": dict(num_leaves=leaves, extra_trees=False, lambda_l2=0.0,
                               grow_policy="symmetric_then_leafwise")}
    models: dict = {kind: [] for kind in kinds}
    lines = []
    for looks in range(1, len(folds) + 1):
        rest = np.setdiff1d(np.arange(train.n_queries), folds[looks - 1])
        for kind, params in kinds.items():
            models[kind].append(clone(base).set_params(**params).fit(train.subset_queries(rest)))
        pooled = train.subset_queries(np.concatenate(folds[:looks]))
        for judge in JUDGES:
            values = {}
            for kind in kinds:
                trees = _capacity._best_common_tree_count(models[kind], held[:looks], pooled, judge, None, True)
                result = _capacity._held_out_result(models[kind], held[:looks], pooled, trees, judge, None)
                values[kind] = (np.asarray(result.per_query, dtype=np.float64), result.value, trees)
            (a, va, ta), (b, vb, tb) = values["leaf-wise"], values["completed"]
            lines.append(f"{judge} look {looks} ({pooled.n_queries} queries): leaf-wise {va:.4f} ({ta} trees), "
                         f"completed {vb:.4f} ({tb} trees), diff {vb - va:+.4f}, p completed ahead "
                         f"{improvement_pvalue(b, a, True):.3g}, p leaf-wise ahead {improvement_pvalue(a, b, True):.3g}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="mq2007", choices=sorted(shapes.SHAPES) + sorted(shapes.REAL))
    parser.add_argument("--noise", type=float, default=1.0)
    parser.add_argument("--query-effect", type=float, default=0.0)
    parser.add_argument("--seeds", nargs=2, type=int, default=[31, 35], metavar=("FIRST", "STOP"))
    args = parser.parse_args()
    for seed in range(*args.seeds):
        data = shapes.split(args.shape, args.noise, seed, args.query_effect)
        if args.shape not in shapes.REAL:  # LETOR's per-query scaling, as data_shapes.py --query-norm
            data = q.Split(data.dataset, data.fold, *(shapes.query_minmax(d) for d in (data.train, data.vali,
                                                                                          data.test)))
        start = time.perf_counter()
        lines = probe(data)
        print(f"{args.shape} noise {args.noise:g} query effect {args.query_effect:g} draw {seed} "
              f"({time.perf_counter() - start:.0f} s)\n  " + "\n  ".join(lines), flush=True)


if __name__ == "__main__":
    main()

"""Search for LambdaMART/GBRanker defaults that generalise, with the quality suite's protocol.

Every candidate is a set of tree parameters; each is trained as LambdaMART(metric=M) for the judged
metrics M given, on every split of the data sets given, at one learning rate and tree budget, with
the tree count chosen on validation (see metricrank.experiments.quality). Anchors are trained once
per split and cached with the candidates in --cache, so candidates can be added run after run.
Prints, per data set and metric, every candidate's mean test value and its difference to the best
anchor.

    .venv/bin/python benchmarks/defaults_search.py --datasets mq2008 lgb-example --metrics "NDCG:top=10;type=Exp" MAP
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from metricrank._io import atomic_write
from metricrank.experiments import quality

_R1_TO_R3 = {
    "current (31 leaves, min_data 20, l2 0)": {},
    "l2=10": {"lambda_l2": 10.0},
    "15 leaves, l2=10": {"num_leaves": 15, "lambda_l2": 10.0},
    "31 leaves, min_data 50, l2=10": {"min_data_in_leaf": 50, "lambda_l2": 10.0},
    "15 leaves, min_data 50, l2=10, ff 0.8": {"num_leaves": 15, "min_data_in_leaf": 50, "lambda_l2": 10.0,
                                               "feature_fraction": 0.8},
    "7 leaves, l2=10": {"num_leaves": 7, "lambda_l2": 10.0},
    "31 leaves, l2=10, ff 0.8, bagging 0.8": {"lambda_l2": 10.0, "feature_fraction": 0.8,
                                                "bagging_fraction": 0.8, "bagging_freq": 1},
    "31 leaves, min_data 100, l2=30": {"min_data_in_leaf": 100, "lambda_l2": 30.0},
    # round 2, around the best of round 1 (l2=10 for NDCG, bagging for MAP)
    "l2=30": {"lambda_l2": 30.0},
    "l2=100": {"lambda_l2": 100.0},
    "l2=10, ff 0.8": {"lambda_l2": 10.0, "feature_fraction": 0.8},
    "l2=10, bagging 0.8": {"lambda_l2": 10.0, "bagging_fraction": 0.8, "bagging_freq": 1},
    "l2=30, ff 0.8, bagging 0.8": {"lambda_l2": 30.0, "feature_fraction": 0.8, "bagging_fraction": 0.8,
                                   "bagging_freq": 1},
    # round 3: fewer leaves with the stronger penalty
    "7 leaves, l2=30": {"num_leaves": 7, "lambda_l2": 30.0},
    "15 leaves, l2=30": {"num_leaves": 15, "lambda_l2": 30.0},
}
_R4 = {  # the λ options at the then new tree defaults (7 leaves, l2=10, norm='auto')
    "7 leaves, l2=10, norm off": {"num_leaves": 7, "lambda_l2": 10.0, "norm": False},
    "7 leaves, l2=10, sigma 2": {"num_leaves": 7, "lambda_l2": 10.0, "sigma": 2.0},
    "7 leaves, l2=10, sigma 0.5": {"num_leaves": 7, "lambda_l2": 10.0, "sigma": 0.5},
    "7 leaves, l2=10, min_data 5": {"num_leaves": 7, "lambda_l2": 10.0, "min_data_in_leaf": 5},
    "7 leaves, l2=3": {"num_leaves": 7, "lambda_l2": 3.0},
    "7 leaves, l2=10, truncation 20": {"num_leaves": 7, "lambda_l2": 10.0, "truncation": 20},
}
# Each candidate lists its parameters in full against the defaults of its round, so it means the
# same after the defaults change: rounds 1-3 changed the stop-14 defaults (31 leaves, no L2, norm on
# for every target), round 4 the stop-15 ones (7 leaves, l2=10, norm "auto"); none had randomised splits.
_STOP14 = {"num_leaves": 31, "lambda_l2": 0.0, "norm": True, "extra_trees": False}
_STOP15 = {"num_leaves": 7, "lambda_l2": 10.0, "extra_trees": False}
CANDIDATES = {name: {**_STOP14, **params} for name, params in _R1_TO_R3.items()}
CANDIDATES.update({name: {**_STOP15, **params} for name, params in _R4.items()})
# round 5 (stop 16): leaves by data size, randomised splits, path smoothing; on the fixed synthetic
# sets and the noisy MQ2007-sized one
CANDIDATES.update({
    "r5: stop-15 defaults (7 leaves, l2=10)": dict(_STOP15),
    "r5: 15 leaves": {**_STOP15, "num_leaves": 15},
    "r5: 31 leaves": {**_STOP15, "num_leaves": 31},
    "r5: 31 leaves, l2=30": {**_STOP15, "num_leaves": 31, "lambda_l2": 30.0},
    "r5: 7 leaves, extra trees": {**_STOP15, "extra_trees": True},
    "r5: 15 leaves, extra trees": {**_STOP15, "num_leaves": 15, "extra_trees": True},
    "r5: 31 leaves, extra trees": {**_STOP15, "num_leaves": 31, "extra_trees": True},
    "r5: 7 leaves, path_smooth 10": {**_STOP15, "path_smooth": 10.0},
    "r5: 15 leaves, path_smooth 10": {**_STOP15, "num_leaves": 15, "path_smooth": 10.0},
    "r5: 31 leaves, path_smooth 10": {**_STOP15, "num_leaves": 31, "path_smooth": 10.0},
    "r5: 7 leaves, extra trees, path_smooth 10": {**_STOP15, "extra_trees": True, "path_smooth": 10.0},
    "r5: 7 leaves, path_smooth 3": {**_STOP15, "path_smooth": 3.0},
    "r5: 7 leaves, path_smooth 30": {**_STOP15, "path_smooth": 30.0},
    "r5: 7 leaves, path_smooth 100": {**_STOP15, "path_smooth": 100.0},
    "r5: 7 leaves, l2=30": {**_STOP15, "lambda_l2": 30.0},
    "r5: 7 leaves, l2=100": {**_STOP15, "lambda_l2": 100.0},
    "r5: 7 leaves, bagging 0.7": {**_STOP15, "bagging_fraction": 0.7, "bagging_freq": 1},
    "r5: 7 leaves, ff 0.5": {**_STOP15, "feature_fraction": 0.5},
    "r5: 7 leaves, min_data 100": {**_STOP15, "min_data_in_leaf": 100},
    "r5: 15 leaves, l2=30": {**_STOP15, "num_leaves": 15, "lambda_l2": 30.0},
    "r5: 15 leaves, min_data 100": {**_STOP15, "num_leaves": 15, "min_data_in_leaf": 100},
    "r5: 15 leaves, bagging 0.7": {**_STOP15, "num_leaves": 15, "bagging_fraction": 0.7, "bagging_freq": 1},
})
# round 6 (stop 17): the λ target for a judged metric, at the stop-16 defaults (leaves and extra trees
# "auto"). A candidate without "target" trains on the judged metric's own exact λ, as every earlier
# round did (see main); these name theirs.
_STOP16 = {"num_leaves": "auto", "lambda_l2": 10.0, "extra_trees": "auto"}
CANDIDATES.update({
    "r6: stop-16 defaults": dict(_STOP16),
    "r6: target NDCG:type=Exp": {**_STOP16, "target": "NDCG:type=Exp"},
    "r6: target ERR:type=Graded": {**_STOP16, "target": "ERR:type=Graded"},
    "r6: target ERR:type=Graded;max_label=2": {**_STOP16, "target": "ERR:type=Graded;max_label=2"},
    "r6: target ERR:type=Graded;max_label=3": {**_STOP16, "target": "ERR:type=Graded;max_label=3"},
    "r6: target ERR:type=Graded;max_label=6": {**_STOP16, "target": "ERR:type=Graded;max_label=6"},
    "r6: target ERR:type=Graded;max_label=6;top=10": {**_STOP16, "target": "ERR:type=Graded;max_label=6;top=10"},
    "r6: target ERR:type=Graded;max_label=8": {**_STOP16, "target": "ERR:type=Graded;max_label=8"},
    "r6: target ERR:type=Graded;max_label=10": {**_STOP16, "target": "ERR:type=Graded;max_label=10"},
    "r6: l2=0": {**_STOP16, "lambda_l2": 0.0},
    "r6: l2=3": {**_STOP16, "lambda_l2": 3.0},
    "r6: 31 leaves, l2=0, no extra trees": {**_STOP16, "num_leaves": 31, "lambda_l2": 0.0, "extra_trees": False},
    "r6: target MAP": {**_STOP16, "target": "MAP"},
    "r6: target MAUC": {**_STOP16, "target": "MAUC"},
})
# round 7 (stop 18): YetiRank's gradient for judged NDCG, MAP, graded ERR and MAUC (the values are those
# of the suite's LambdaMART(metric=M) rows since stop 18: the same model, stored in the round-6 cache)
CANDIDATES["r7: target YetiRank"] = {**_STOP16, "target": "YetiRank"}


ANCHORS = ["LightGBM lambdarank", "CatBoost YetiRank", "CatBoost QuerySoftMax"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="*", default=["mq2008", "lgb-example"])
    parser.add_argument("--metrics", nargs="*", default=["NDCG:top=10;type=Exp", "MAP"])
    parser.add_argument("--candidates", nargs="*", default=list(CANDIDATES))
    parser.add_argument("--anchors", nargs="*", default=ANCHORS)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--folds", type=int, default=None)
    parser.add_argument("--cache", default="benchmarks/results/defaults_search.json")
    parser.add_argument("--paired-with", metavar="CANDIDATE",
                        help="also print each candidate's per-query difference to this candidate (mean, standard "
                             "error, two-tailed Wilcoxon p over the test queries of all splits)")
    args = parser.parse_args()

    cache_path = Path(args.cache)
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    splits = quality.load_suite(args.datasets, folds=args.folds)

    def save():
        with atomic_write(cache_path) as fh:
            fh.write(json.dumps(cache).encode())

    jobs = [(a, list(args.metrics), quality.ANCHORS[a]) for a in args.anchors]
    for name in args.candidates:
        for metric in args.metrics:
            params = {"target": metric, **CANDIDATES[name]}  # the judged metric's exact λ unless named
            jobs.append((f"{name} | λ {metric}", [metric], quality.lambdamart(metric, **params)))
    for split in splits:
        for system, metrics, fit in jobs:
            key = quality._key(system, split, args.lr, args.trees)
            if key in cache and all(m in cache[key] for m in metrics):
                continue
            cache[key] = quality.run_system(fit, split, metrics, lr=args.lr, trees=args.trees, threads=args.threads)
            print(f"{split.dataset} {split.fold} {system}: {cache[key]['seconds']:.1f}s "
                  + " ".join(f"{m}={cache[key][m]['test']:.4f}@{cache[key][m]['trees']}" for m in metrics),
                  flush=True)
            save()

    print(f"\nlearning rate {args.lr}, {args.trees} trees; mean test value over splits; Δ to the best anchor")
    for dataset in args.datasets:
        for metric in args.metrics:
            def entries(system):
                vals = [cache.get(quality._key(system, s, args.lr, args.trees), {}).get(metric)
                        for s in splits if s.dataset == dataset]
                return vals if vals and all(vals) else None

            def mean(system):
                vals = entries(system)
                return np.mean([v["test"] for v in vals]) if vals else float("nan")

            anchors = {a: mean(a) for a in args.anchors}
            best = max(anchors, key=lambda a: anchors[a])
            print(f"\n{dataset} · {metric} · best anchor {best} {anchors[best]:.4f}")
            print("| system | test | Δ |\n|---|---|---|")
            for a, v in anchors.items():
                print(f"| {a} | {v:.4f} | {v - anchors[best]:+.4f} |")
            for name in args.candidates:
                v = mean(f"{name} | λ {metric}")
                print(f"| LambdaMART {name} | {v:.4f} | {v - anchors[best]:+.4f} |")
            reference = entries(f"{args.paired_with} | λ {metric}") if args.paired_with else None
            for name in args.candidates if reference else ():
                vals = entries(f"{name} | λ {metric}")
                if vals is None or name == args.paired_with:
                    continue
                a, b = (np.concatenate([v["per_query"] for v in e]) for e in (vals, reference))
                scored = np.isfinite(a) & np.isfinite(b)
                diff = a[scored] - b[scored]
                cmp = quality._compare(a, b)
                print(f"  paired, {name} − {args.paired_with}: {diff.mean():+.4f} (standard error "
                      f"{diff.std() / np.sqrt(diff.size):.4f}, {diff.size} queries, Wilcoxon p {cmp.pvalue:.2g})")


if __name__ == "__main__":
    main()

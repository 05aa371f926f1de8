"""λ for huge groups (issue 13, section 2): the O(n log n) AUC kernel on one query of 1,000,000 documents.

1. One λ call of ``LambdaObjective("ROCArea", norm=False)`` on a single group of
   ``--docs`` documents (the automatic fast path), and for scale the exact O(n²)
   kernel (``exact=True``) and the fast one on 20,000 documents.
2. LambdaMART-ROCArea (``norm=False``, the whole training set as one query) against
   LightGBM's binary logloss on the same binary data set: test AUC and training time,
   same trees (leaves, learning rate, min_data_in_leaf, max_bin, threads).

Timings are medians of ``--repeat`` calls (numba compilation is done by a warm-up
first). Run::

    python benchmarks/lambda_huge_group.py --docs 1000000 --trees 100 --threads 2
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def median_time(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), times


def lambda_calls(args):
    from metricrank.objectives import LambdaObjective, as_training_data

    rng = np.random.default_rng(0)
    for n, exact_too in ((20_000, True), (args.docs, False)):
        y = (rng.random(n) < 0.3).astype(float)
        s = rng.normal(size=n) + y
        data = as_training_data(y, np.array([0, n]))
        for exact in ((True, False) if exact_too else (False,)):
            bound = LambdaObjective("ROCArea", norm=False, exact=exact if exact else "auto").bind(data)
            med, times = median_time(lambda: bound(s), 3 if exact else args.repeat)
            kind = "exact O(n^2)" if exact else f"auto (fast queries: {bound.fast_queries})"
            print(f"lambda call, one group of {n:>9,d} docs, {kind:28s}: median {med:8.3f} s "
                  f"(runs: {', '.join(f'{t:.3f}' for t in times)})", flush=True)


def learners(args):
    import lightgbm as lgb
    from sklearn.datasets import make_classification
    from sklearn.metrics import roc_auc_score

    import metricrank

    n_test = args.docs // 5
    X, y = make_classification(n_samples=args.docs + n_test, n_features=20, n_informative=10, n_redundant=4,
                               flip_y=0.1, class_sep=0.8, random_state=0)
    Xtr, ytr, Xte, yte = X[: args.docs], y[: args.docs].astype(float), X[args.docs:], y[args.docs:]
    common = dict(num_leaves=31, learning_rate=0.1, min_data_in_leaf=20, max_bin=255)

    start = time.perf_counter()
    params = dict(objective="binary", num_threads=args.threads, verbose=-1, **common)
    booster = lgb.train(params, lgb.Dataset(Xtr, ytr), num_boost_round=args.trees)
    t_lgb = time.perf_counter() - start
    auc_lgb = roc_auc_score(yte, booster.predict(Xte, raw_score=True))
    print(f"LightGBM binary logloss     : test AUC {auc_lgb:.4f}, fit {t_lgb:7.1f} s ({args.trees} trees)", flush=True)

    # warm-up (numba compilation) on a small set
    metricrank.LambdaMART("ROCArea", norm=False, n_estimators=2, n_jobs=args.threads).fit(
        Xtr[:2000], ytr[:2000], group=[2000])
    start = time.perf_counter()
    model = metricrank.LambdaMART("ROCArea", norm=False, n_estimators=args.trees, max_query_size=2_000_000,
                                  n_jobs=args.threads, **common)
    try:
        model.fit(Xtr, ytr, group=[args.docs])
    except ValueError as err:
        print(f"LambdaMART-ROCArea rejected the query: {err}")
        return
    t_lm = time.perf_counter() - start
    auc_lm = roc_auc_score(yte, model.predict(Xte))
    print(f"LambdaMART-ROCArea (1 group): test AUC {auc_lm:.4f}, fit {t_lm:7.1f} s ({args.trees} trees; "
          f"{t_lm / t_lgb:.1f}x LightGBM's time)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-learners", action="store_true")
    args = parser.parse_args()
    import numba

    numba.set_num_threads(args.threads)
    lambda_calls(args)
    if not args.skip_learners:
        learners(args)


if __name__ == "__main__":
    main()

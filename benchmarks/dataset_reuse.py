"""Reuse of a built LightGBM Dataset across fits on the same data (issue 13 §3), timed in one run.

A learning-rate grid of ``LambdaMART`` fits on one ``make_ltr`` matrix, twice in the same process:
once with the Dataset cache cleared before every fit (each fit builds its Dataset, as before the
cache), once with the cache kept (the first fit builds, the others reuse). The anchor is the first
run; the printed ratio is reuse / rebuild. Runs alternate (rebuild, reuse, rebuild, ...) and
medians are reported.

Run::

    python benchmarks/dataset_reuse.py --docs 240000 --features 136 --trees 50 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from metricrank import LambdaMART
from metricrank.data import make_ltr
from metricrank.learners import clear_dataset_cache
from metricrank.learners._dataset_cache import checkout_datasets


def grid(ds, rates, trees, threads, keep: bool) -> list[float]:
    """Seconds per fit of a learning-rate grid; ``keep=False`` clears the cache before each fit."""
    seconds = []
    clear_dataset_cache()
    for rate in rates:
        if not keep:
            clear_dataset_cache()
        start = time.perf_counter()
        LambdaMART("NDCG:top=10", target="NDCG:top=10", n_estimators=trees, learning_rate=rate, n_jobs=threads,
                   random_state=0).fit(ds.X, ds.y, qid=ds.qid)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=240_000)
    parser.add_argument("--features", type=int, default=136)
    parser.add_argument("--trees", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rates", type=float, nargs="*", default=[0.2, 0.1, 0.05, 0.02])
    args = parser.parse_args()

    n_queries = max(args.docs // 120, 2)
    ds = make_ltr(n_queries, docs_per_query=(60, 180), n_features=args.features, n_informative=20,
                  relevance="nonlinear", random_state=0)
    print(f"{ds.n_docs} documents, {ds.n_queries} queries, {ds.n_features} features; "
          f"{args.trees} trees, {args.threads} threads; learning rates {args.rates}")
    grid(ds, args.rates[:1], 2, args.threads, keep=False)  # numba compilation
    # the cost a reuse saves, alone: building the Dataset against checking out the kept one
    params = LambdaMART("NDCG:top=10", n_jobs=args.threads)._tree_params()
    build, checkout = [], []
    for _ in range(args.repeats):
        clear_dataset_cache()
        for sink in (build, checkout):
            start = time.perf_counter()
            with checkout_datasets(ds.X, ds.y, None, params):
                pass
            sink.append(time.perf_counter() - start)
    print(f"Dataset: build {statistics.median(build):.2f} s, reuse (digest + labels) "
          f"{statistics.median(checkout):.3f} s (medians of {args.repeats})")
    rebuild, reuse = [], []
    for _ in range(args.repeats):
        rebuild.append(grid(ds, args.rates, args.trees, args.threads, keep=False))
        reuse.append(grid(ds, args.rates, args.trees, args.threads, keep=True))
    for name, runs in (("rebuild every fit", rebuild), ("reuse the Dataset", reuse)):
        per_fit = [statistics.median(r[i] for r in runs) for i in range(len(args.rates))]
        total = statistics.median(sum(r) for r in runs)
        print(f"{name:18s} per fit (median s): " + " ".join(f"{s:.2f}" for s in per_fit) + f"  grid {total:.2f} s")
    ratio = statistics.median(sum(b) / sum(a) for a, b in zip(rebuild, reuse))
    later = statistics.median(statistics.median(b[1:]) / statistics.median(a[1:]) for a, b in zip(rebuild, reuse))
    print(f"grid time reuse/rebuild: {ratio:.2f}; a later fit of the grid reuse/rebuild: {later:.2f}")


if __name__ == "__main__":
    main()

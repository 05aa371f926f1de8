"""Wall time of ``metricrank.tune`` on MQ2008 Fold1 train+vali (628 queries, 12,337 documents).

``python benchmarks/tune_mq2008.py [--trials 30] [--cv 3] [--threads 1]``: LambdaMART
(NDCG:top=10, at most 500 trees, early stopping after 30 rounds), the default search
space, median pruning, seed 0. Prints the wall time, the best value and the best
parameters, and the test-fold NDCG@10 of the refitted model next to an untuned
LambdaMART's (defaults: 300 trees) measured in the same run.

``--storage-pairs N``: instead, the cost of keeping the study in a database. N pairs of the same search,
one in memory (the anchor) and one kept in a new SQLite file (``storage=``), alternating which runs first;
prints each time, the medians and their ratio, and whether the last pair's two searches drew the same trials.
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import metricrank
from metricrank.model_selection import tune


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.environ.get("METRICRANK_DATA", "/work/shared/data") + "/MQ2008/Fold1")
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--cv", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--storage-pairs", type=int, default=0, metavar="N",
                        help="time N in-memory / SQLite pairs of the search instead (see above)")
    args = parser.parse_args()

    train = metricrank.load_letor(f"{args.data}/train.txt.gz")
    vali = metricrank.load_letor(f"{args.data}/vali.txt.gz")
    test = metricrank.load_letor(f"{args.data}/test.txt.gz")
    X = np.vstack([train.X, vali.X])
    y = np.concatenate([train.y, vali.y])
    qid = np.concatenate([train.qid, vali.qid])
    print(f"train+vali: {len(np.unique(qid))} queries, {X.shape[0]} documents; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")

    model = metricrank.LambdaMART("NDCG:top=10", n_estimators=500, n_jobs=args.threads)

    def timed_search(storage):
        t0 = time.perf_counter()
        res = tune(model, X, y, qid=qid, n_trials=args.trials, cv=args.cv, random_state=0, show_progress=False,
                   storage=storage)
        return time.perf_counter() - t0, [(t.params, t.value, t.state.name) for t in res.study_.trials]

    if args.storage_pairs:
        times = {"memory": [], "sqlite": []}
        trials = {}
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.storage_pairs):
                order = ["memory", "sqlite"] if i % 2 == 0 else ["sqlite", "memory"]
                for kind in order:
                    storage = f"sqlite:///{tmp}/search{i}.db" if kind == "sqlite" else None
                    seconds, trials[kind] = timed_search(storage)
                    times[kind].append(seconds)
                    print(f"pair {i + 1}, {kind}: {seconds:.1f} s (load average {os.getloadavg()[0]:.1f})", flush=True)
        memory, sqlite = statistics.median(times["memory"]), statistics.median(times["sqlite"])
        print(f"median: in memory {memory:.1f} s, SQLite {sqlite:.1f} s, ratio {sqlite / memory:.3f}; "
              f"same trials: {trials['memory'] == trials['sqlite']}")
        return

    t0 = time.perf_counter()
    result = tune(model, X, y, qid=qid, n_trials=args.trials, cv=args.cv, random_state=0, show_progress=True)
    wall = time.perf_counter() - t0
    print(f"tune: {args.trials} trials, cv={args.cv}: {wall:.1f} s wall; {result.summary()['n_pruned']} pruned; "
          f"best mean held-out NDCG:top=10 = {result.best_score_:.4f}")
    print("best params:", result.best_params_)
    base = metricrank.LambdaMART("NDCG:top=10", n_jobs=args.threads, random_state=0).fit(X, y, qid=qid)
    for name, est in [("untuned LambdaMART (defaults)", base), ("tuned, refitted", result.best_estimator_)]:
        print(f"test NDCG:top=10, {name}: {metricrank.evaluate(test, est.predict(test.X), metric='NDCG:top=10'):.4f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

"""LambdaMART (λ-NDCG) against LightGBM's native lambdarank, timed in the same run.

Both train the same trees (leaves, learning rate, min_data_in_leaf, max_bin,
truncation level, threads) on the same data; metricrank supplies the λ-gradients
through LightGBM's custom-objective interface, LightGBM computes its own in C++.
The metricrank target is ``NDCG:type=Exp;ties=stable`` with ``truncation=T`` and
``norm=True``: gain 2^l - 1, LightGBM's stable order of tied scores, pairs with a
document in the top T, and LightGBM's ``lambdarank_norm``. (LightGBM normalises
ΔNDCG by the ideal DCG at T, we by the ideal DCG of the whole list; with the
per-query normalisation the difference is a per-query constant that mostly cancels.)

Each trainer runs in its own process; a thread samples its resident memory
every 5 ms, so the peak during Dataset construction and training is reported
next to the memory held before it (the data). The time covers Dataset
construction and training (numba compilation is done by a warm-up in the same
process beforehand).

Then the λ kernels of every target are timed on the same data and random scores,
relative to λ-NDCG.

Run::

    python benchmarks/lambdamart_speed.py --data mq2008 --trees 300
    python benchmarks/lambdamart_speed.py --data synthetic --docs 1000000 --trees 100
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
TARGETS = ["NDCG:type=Exp;ties=stable", "NDCG:top=10;type=Exp", "DCG:type=Exp", "MAP", "MRR",
           "ERR:type=Graded", "PrecisionAt:top=10", "ROCArea", "MAUC", "RankNet"]


def load(which: str, docs: int):
    """List of (train, test) splits: the five MQ2008 folds, or one synthetic split."""
    from metricrank import make_ltr
    from metricrank.experiments._datasets import load_mq2008_fold

    if which == "mq2008":
        folds = [load_mq2008_fold(k, SHARED) for k in range(1, 6)]
        return [(fold.train, fold.test) for fold in folds]
    n_queries = int(np.ceil(docs / 120.0))
    data = make_ltr(int(n_queries * 1.25), docs_per_query=(100, 140), n_features=136, n_informative=20,
                    n_labels=5, noise=4.0, random_state=0)  # noise 4: test NDCG@10 about 0.75, not saturated
    cut = n_queries
    return [(data.subset_queries(np.arange(cut)), data.subset_queries(np.arange(cut, data.n_queries)))]


def train_native(args, train, test):
    import lightgbm as lgb

    start = time.perf_counter()
    ds = lgb.Dataset(train.X, label=train.y, group=train.query_sizes, params={"max_bin": 255, "verbosity": -1})
    params = {"objective": "lambdarank", "num_leaves": args.leaves, "learning_rate": args.learning_rate,
              "min_data_in_leaf": 20, "lambdarank_truncation_level": args.truncation, "lambdarank_norm": True,
              "num_threads": args.threads, "seed": 0, "verbosity": -1, "metric": "None", "max_bin": 255}
    booster = lgb.train(params, ds, num_boost_round=args.trees)
    seconds = time.perf_counter() - start
    return seconds, booster.predict(test.X, raw_score=True)


def train_metricrank(args, train, test):
    from metricrank import LambdaMART

    def model(n):
        return LambdaMART("NDCG:type=Exp;ties=stable", n_estimators=n, learning_rate=args.learning_rate,
                          num_leaves=args.leaves, min_data_in_leaf=20, truncation=args.truncation, norm=True,
                          n_jobs=args.threads, random_state=0)

    start = time.perf_counter()
    fitted = model(args.trees).fit(train)
    seconds = time.perf_counter() - start
    return seconds, fitted.predict(test.X)


class _PeakRSS:
    """Peak resident set size (MB) of this process while the block runs, sampled every 5 ms."""

    def __enter__(self):
        import threading

        self.page = os.sysconf("SC_PAGE_SIZE")
        self.before = self.peak = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _rss(self):
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * self.page / 2**20

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss())
            self._stop.wait(0.005)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._rss())
        return False


def _worker(name, args, queue):
    from metricrank import LambdaMART, evaluate

    splits = load(args.data, args.docs)
    if name == "metricrank":  # numba compilation (or cache load) outside the timing
        LambdaMART(target="NDCG:top=10", n_estimators=1, truncation=args.truncation).fit(splits[0][0].subset_queries(np.arange(20)))
    total, ndcgs = 0.0, []
    with _PeakRSS() as memory:
        for train, test in splits:
            seconds, scores = (train_native if name == "native" else train_metricrank)(args, train, test)
            total += seconds
            ndcgs.append(evaluate(test, scores, metric="NDCG:top=10;type=Exp"))
    n_docs = sum(train.n_docs for train, _ in splits)
    n_queries = sum(train.n_queries for train, _ in splits)
    queue.put((name, total, float(np.mean(ndcgs)), memory.peak, memory.before, n_docs, n_queries))


def run_in_process(name, args):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_worker, args=(name, args, queue))
    proc.start()
    result = queue.get()
    proc.join()
    return result


def kernel_costs(args, repeat=7):
    from metricrank.objectives import LambdaObjective, as_training_data

    train = load(args.data, args.docs)[0][0]
    rng = np.random.default_rng(0)
    raw = rng.normal(size=train.n_docs)
    data = as_training_data(train.y, train.group_ptr)
    rows = []
    for spec in TARGETS:
        bound = LambdaObjective(spec, truncation=args.truncation).bind(data)
        bound(raw)  # compile
        best = min(_timed(lambda: bound(raw)) for _ in range(repeat))
        full = LambdaObjective(spec).bind(data)
        full(raw)
        best_full = min(_timed(lambda: full(raw)) for _ in range(repeat))
        rows.append((spec, best, best_full))
    return rows


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("mq2008", "synthetic"), default="mq2008")
    parser.add_argument("--docs", type=int, default=1_000_000, help="training documents (synthetic)")
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--leaves", type=int, default=31)
    parser.add_argument("--truncation", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-kernels", action="store_true")
    args = parser.parse_args()

    results = [run_in_process(name, args) for name in ("native", "metricrank")]
    native = results[0]
    _, _, _, _, _, n_docs, n_queries = native
    what = "5 folds, summed time, mean test NDCG" if args.data == "mq2008" else "one split"
    print(f"\n{args.data} ({what}): {n_docs} training documents, {n_queries} queries; {args.trees} trees, "
          f"{args.leaves} leaves, lr {args.learning_rate}, truncation {args.truncation}, {args.threads} threads")
    print("| trainer | train s | vs native | test NDCG@10 (Exp) | Δ NDCG | peak RSS MB | RSS before training MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, seconds, ndcg, peak, base, *_ in results:
        label = "LightGBM lambdarank (native)" if name == "native" else "metricrank LambdaMART λ-NDCG"
        print(f"| {label} | {seconds:.2f} | {seconds / native[1]:.3f}x | {ndcg:.4f} | {ndcg - native[2]:+.4f} | "
              f"{peak:.0f} | {base:.0f} |")
    if not args.skip_kernels:
        rows = kernel_costs(args)
        ref, ref_full = rows[0][1], rows[0][2]
        print(f"\nλ kernel, one call on the (first) training set (best of {7}), relative to {rows[0][0]}")
        print(f"| target | truncation {args.truncation}: ms | ratio | all pairs: ms | ratio |")
        print("|---|---:|---:|---:|---:|")
        for spec, t, t_full in rows:
            print(f"| {spec} | {t * 1e3:.2f} | {t / ref:.2f} | {t_full * 1e3:.2f} | {t_full / ref_full:.2f} |")


if __name__ == "__main__":
    main()

"""Dask training at 1,000,000 documents: 1 and 2 local workers against single-machine LambdaMART.

Data: ``make_ltr(relevance="nonlinear")``, queries of 5-50 documents, 20
features; the first 80% of the queries (about ``--docs`` documents) train, the
rest test. Every learner grows the same trees (LambdaMART's defaults,
``--trees``, ``--learning-rate``) with ``--threads`` threads per process: the
anchor ``LambdaMART(n_jobs=threads)`` (a GBRanker with the λ objective), and
local clusters of 1 and 2 worker *processes* with ``--threads`` threads each,
so the Dask runs pay for real inter-process communication and 2 workers use
twice the cores. For each: the fit time (cluster start and sending the data
to the workers are timed apart), test NDCG@10, and the time ratio to the
anchor, all in one run. Run::

    nice python benchmarks/dask_scale.py --docs 1000000 --trees 100 --threads 1
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def make_data(n_docs: int, seed: int):
    from metricrank import make_ltr

    n_queries = int(round(n_docs / 27.5 / 0.8))  # 27.5 = mean of 5..50 documents per query
    data = make_ltr(n_queries, docs_per_query=(5, 50), n_features=20, relevance="nonlinear", random_state=seed)
    cut = int(0.8 * data.n_queries)
    return data.subset_queries(np.arange(cut)), data.subset_queries(np.arange(cut, data.n_queries))


def run_dask(n_workers: int, threads: int, params: dict, train, test):
    from distributed import Client, LocalCluster

    from metricrank import evaluate
    from metricrank.dask import DaskLambdaMART, scatter_by_query

    t = time.perf_counter()
    with LocalCluster(n_workers=n_workers, threads_per_worker=threads, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        started = time.perf_counter() - t
        # warm-up: imports and numba's cached kernels load in every worker process
        small = train.subset_queries(np.arange(200))
        X, y, qid = scatter_by_query(small.X, small.y, small.row_qid)
        DaskLambdaMART(**{**params, "n_estimators": 2}).fit(X, y, qid=qid)
        t = time.perf_counter()
        X, y, qid = scatter_by_query(train.X, train.y, train.row_qid)
        sent = time.perf_counter() - t
        t = time.perf_counter()
        model = DaskLambdaMART(**params).fit(X, y, qid=qid)
        fit = time.perf_counter() - t
        ndcg = evaluate(test, model.predict(test.X), metric="NDCG:top=10")
        return {"fit": fit, "start": started, "send": sent, "ndcg": ndcg, "workers": model.n_workers_}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000, help="training documents (about)")
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--threads", type=int, default=1, help="threads of the anchor and of every worker")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from metricrank import LambdaMART, evaluate

    train, test = make_data(args.docs, args.seed)
    print(f"train {train.n_docs} documents / {train.n_queries} queries, test {test.n_docs} / {test.n_queries}; "
          f"{train.n_features} features; {args.trees} trees, learning rate {args.learning_rate}, "
          f"{args.threads} thread(s) per process", flush=True)
    # the λ objective (LambdaMART's default target for NDCG@10 is YetiRank since stop 18)
    params = dict(target="NDCG:top=10", n_estimators=args.trees, learning_rate=args.learning_rate,
                  random_state=args.seed)

    LambdaMART(**{**params, "n_estimators": 2}, n_jobs=args.threads).fit(train.subset_queries(np.arange(200)))
    t = time.perf_counter()
    anchor = LambdaMART(**params, n_jobs=args.threads).fit(train)
    anchor_fit = time.perf_counter() - t
    anchor_ndcg = evaluate(test, anchor.predict(test.X), metric="NDCG:top=10")
    rows = [(f"LambdaMART, one process x {args.threads} thread(s)", anchor_fit, anchor_ndcg, "-", "-")]
    print(f"anchor: fit {anchor_fit:.1f} s, test NDCG@10 {anchor_ndcg:.4f}", flush=True)
    for n in args.workers:
        r = run_dask(n, args.threads, params, train, test)
        print(f"{n} worker(s): fit {r['fit']:.1f} s (cluster start {r['start']:.1f} s, sending data "
              f"{r['send']:.1f} s), test NDCG@10 {r['ndcg']:.4f}, LightGBM machines {r['workers']}", flush=True)
        rows.append((f"DaskLambdaMART, {n} worker process(es) x {args.threads} thread(s)", r["fit"],
                     r["ndcg"], f"{r['start']:.1f}", f"{r['send']:.1f}"))

    print("\n| learner | fit s | time / anchor | test NDCG@10 | Δ NDCG@10 | cluster start s | send data s |")
    print("|---|---|---|---|---|---|---|")
    for name, fit, ndcg, start, send in rows:
        print(f"| {name} | {fit:.1f} | {fit / anchor_fit:.2f}x | {ndcg:.4f} | {ndcg - anchor_ndcg:+.4f} | {start} | "
              f"{send} |")


if __name__ == "__main__":
    main()

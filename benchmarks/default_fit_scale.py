"""What a default fit costs at MSLR scale: ``LambdaMART`` with every default against LightGBM's ``LGBMRanker``.

The data are ``lambdamart_speed.py``'s synthetic set (about 1,000,000 training documents of 136
features in queries of 100-140, labels 0-4). Both train ``--trees`` trees at learning rate 0.1
on ``--threads`` threads with their own defaults otherwise and no validation set, as a first fit
by a new user would:

* metricrank: ``LambdaMART("NDCG:top=10;type=Exp")``. From 30,000 documents that is YetiRank with
  two kinds of tree side by side (``grow_policy="mixed"`` since stop 68: completed symmetric trees and
  leaf-wise trees), four models of each, each kind sized by its own capacity check (fits on four fifths
  of the queries first);
* the anchor, timed in the same run: LightGBM's ``LGBMRanker()`` (lambdarank, 31 leaves).

Each fit runs in its own process (numba compiled beforehand by a small fit in that process). The
script prints the seconds of each, their ratio, the test NDCG@10 (exponential gain) of both and
what the default chose (for each kind of tree: models, leaves, penalty, the capacity check's steps).

Run::

    python benchmarks/default_fit_scale.py --docs 1000000 --trees 100
    python benchmarks/default_fit_scale.py --docs 1000000 --trees 100 --set n_models=1   # one model of each kind
    python benchmarks/default_fit_scale.py --docs 1000000 --trees 100 --set grow_policy=leafwise n_models=1 \
        num_leaves=63 extra_trees=False lambda_l2=1     # stop 36: what its check chose, one model, no check
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import numpy as np
from data_shapes import parse_set
from lambdamart_speed import load

METRIC = "NDCG:top=10;type=Exp"


def fit_metricrank(args, train, test, queue):
    from metricrank import LambdaMART, evaluate, make_ltr

    small = make_ltr(50, n_features=train.n_features, random_state=0)
    LambdaMART(METRIC, n_jobs=args.threads, **{**args.set, "n_estimators": 2}).fit(small)  # compile the kernels
    model = LambdaMART(METRIC, n_estimators=args.trees, learning_rate=0.1, n_jobs=args.threads, **args.set)
    start = time.perf_counter()
    model.fit(train)
    seconds = time.perf_counter() - start
    kinds = "; ".join(  # each kind of tree ("mixed": completed symmetric and leaf-wise) with its own check
        f"{kind.grow_policy}: {kind.n_models} models of {kind.num_leaves} leaves, extra_trees {kind.extra_trees}, "
        f"lambda_l2 {kind.lambda_l2}; check {'not run' if kind.capacity_check is None else kind.capacity_check}"
        for kind in model.kinds_)
    queue.put(dict(seconds=seconds, ndcg=evaluate(test, model.predict(test.X), metric=METRIC),
                   chose=f"grow policy {model.grow_policy_}, target {model.target_}; {kinds}"))


def fit_lightgbm(args, train, test, queue):
    import lightgbm as lgb

    from metricrank import evaluate

    model = lgb.LGBMRanker(n_estimators=args.trees, learning_rate=0.1, n_jobs=args.threads, verbose=-1)
    start = time.perf_counter()
    model.fit(train.X, train.y, group=np.diff(train.group_ptr))
    seconds = time.perf_counter() - start
    queue.put(dict(seconds=seconds, ndcg=evaluate(test, model.predict(test.X), metric=METRIC), chose="lambdarank"))


def in_process(target, args, train, test):
    """``target``'s result, run in a forked process (which shares the data drawn once by the parent)."""
    queue = mp.get_context("fork").Queue()
    process = mp.get_context("fork").Process(target=target, args=(args, train, test, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--set", nargs="+", default=[], metavar="NAME=VALUE",
                        help="LambdaMART parameters instead of the defaults (e.g. n_models=1 num_leaves=63)")
    args = parser.parse_args()
    args.set = parse_set(parser, args.set)
    train, test = load("synthetic", args.docs)[0]
    native = in_process(fit_lightgbm, args, train, test)
    ours = in_process(fit_metricrank, args, train, test)
    print(f"LightGBM LGBMRanker(): {native['seconds']:.1f} s, test NDCG@10 {native['ndcg']:.4f}")
    ratio = ours["seconds"] / native["seconds"]
    print(f"LambdaMART{args.set or ' (defaults)'}: {ours['seconds']:.1f} s ({ratio:.2f}x), "
          f"test NDCG@10 {ours['ndcg']:.4f} ({ours['ndcg'] - native['ndcg']:+.4f})")
    print(f"  chose {ours['chose']}")


if __name__ == "__main__":
    main()

"""Speed of a validation curve: ``predict(X, num_iteration=k)`` for every k and ``staged_predict``, against LightGBM.

A validation curve needs the scores after each iteration. LightGBM's ``predict(num_iteration=k)`` runs k
iterations' trees for each k, so the loop's cost grows with the square of the trees: that loop on the model's own
booster is the anchor. metricrank's ``predict`` keeps the previous call's scores on the same rows (since stop 100),
so the same loop over ``model.predict`` reads each tree once, as ``staged_predict`` does. All three are timed in the
same run on MQ2008 Fold1's validation queries (the median of ``--repeats``), for a model of one tree per iteration
(the small-data default) and for one of eight (``grow_policy="mixed"``, four models of each kind: the default's
layout from 30,000 training documents), 300 iterations at 0.1, one thread; the ratios to the anchor are printed
and the scores are checked equal bit for bit.

    .venv/bin/python benchmarks/staged_predict_speed.py [--repeats 3]     # from the repository, ../shared beside it
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import metricrank
from metricrank import LambdaMART
from metricrank.experiments._datasets import shared_data_dir
from metricrank.learners._boosting import model_mean



def timed(run, repeats: int):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    fold = shared_data_dir() / "MQ2008" / "Fold1"  # $METRICRANK_DATA or ../shared/data
    train = metricrank.load_letor(fold / "train.txt.gz")
    vali = metricrank.load_letor(fold / "vali.txt.gz", n_features=train.n_features)
    layouts = {"one tree an iteration (default below 30,000 documents)": {},
               "eight trees an iteration (mixed, four models each)": {"grow_policy": "mixed", "n_models": 4}}
    print(f"MQ2008 Fold1: {train.n_docs} training documents, {vali.n_docs} validation documents")
    for name, params in layouts.items():
        model = LambdaMART("NDCG:top=10", n_estimators=300, n_jobs=1, random_state=0, **params).fit(train)
        trees, booster = model.n_estimators_, model.booster_
        anchor_s, anchor = timed(lambda: [model_mean(booster.predict(vali.X, num_iteration=k, raw_score=True))
                                          for k in range(1, trees + 1)], args.repeats)
        loop_s, loop = timed(lambda: [model.predict(vali.X, num_iteration=k) for k in range(1, trees + 1)],
                             args.repeats)
        staged_s, staged = timed(lambda: list(model.staged_predict(vali.X)), args.repeats)
        assert len(anchor) == len(loop) == len(staged) == trees
        assert all(np.array_equal(a, b) and np.array_equal(a, c) for a, b, c in zip(anchor, loop, staged))
        print(f"{name}: {trees} iterations, {booster.num_trees()} trees; LightGBM's predict per k {anchor_s:.2f} s; "
              f"metricrank's predict per k {loop_s:.2f} s (ratio {anchor_s / loop_s:.1f}), "
              f"staged_predict {staged_s:.2f} s (ratio {anchor_s / staged_s:.1f})")


if __name__ == "__main__":
    main()

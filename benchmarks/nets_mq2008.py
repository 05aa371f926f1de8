"""RankNet and LambdaRank (PyTorch) against linear least squares on MQ2008: test NDCG@10 per fold.

Every model is trained on a fold's train set with its default parameters (no
validation set, no early stopping, unless ``--early-stopping`` is given: then
the validation set stops training after 5 epochs without NDCG@10 gain and the
best epoch is restored). The anchor is ``sklearn.linear_model.Ridge(alpha=1e-6)``
on the raw features, i.e. linear regression on the labels. Times are wall-clock
seconds of ``fit`` on a shared 2-core machine.

Run: ``python benchmarks/nets_mq2008.py [--data-dir ../shared/data] [--folds 1 2 3 4 5]
[--set key=value ...]`` (``--set`` overrides a parameter of both nets, for measuring defaults).
"""

from __future__ import annotations

import argparse
import ast
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import Ridge

from metricrank import evaluate
from metricrank.experiments._datasets import load_mq2008_fold
from metricrank.learners import LambdaRank, RankNet

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
METRIC = "NDCG:top=10"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(DATA))
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    ap.add_argument("--early-stopping", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    overrides = {k: ast.literal_eval(v) for k, v in (s.split("=", 1) for s in args.set)}

    rows = []
    for k in args.folds:
        fold = load_mq2008_fold(k, args.data_dir)
        row = {"fold": k}
        t = time.perf_counter()
        ridge = Ridge(alpha=1e-6).fit(fold.train.X, fold.train.y)
        row["linreg"] = (evaluate(fold.test, ridge.predict(fold.test.X), metric=METRIC), time.perf_counter() - t)
        for name, cls in (("RankNet", RankNet), ("LambdaRank", LambdaRank)):
            model = cls(random_state=args.seed, **overrides)
            fit_args = {"eval_set": [fold.vali], "early_stopping_rounds": 5} if args.early_stopping else {}
            t = time.perf_counter()
            model.fit(fold.train, **fit_args)
            seconds = time.perf_counter() - t
            row[name] = (evaluate(fold.test, model.predict(fold.test), metric=METRIC), seconds)
        rows.append(row)
        print(f"fold {k}: " + "  ".join(f"{m} {v:.4f} ({s:.1f}s)" for m, (v, s) in list(row.items())[1:]),
              flush=True)

    methods = ("RankNet", "LambdaRank", "linreg")
    print(f"\nparameters: defaults{'' if not overrides else ' + ' + str(overrides)}"
          f"{', early stopping on vali' if args.early_stopping else ''}; seed {args.seed}\n")
    print("| fold | " + " | ".join(f"{m} NDCG@10" for m in methods) + " | RankNet s | LambdaRank s |")
    print("|---|" + "---|" * (len(methods) + 2))
    for row in rows:
        print(f"| {row['fold']} | " + " | ".join(f"{row[m][0]:.4f}" for m in methods)
              + f" | {row['RankNet'][1]:.1f} | {row['LambdaRank'][1]:.1f} |")
    mean = {m: np.mean([r[m][0] for r in rows]) for m in methods}
    secs = {m: np.mean([r[m][1] for r in rows]) for m in methods}
    print("| **mean** | " + " | ".join(f"**{mean[m]:.4f}**" for m in methods)
          + f" | {secs['RankNet']:.1f} | {secs['LambdaRank']:.1f} |")


if __name__ == "__main__":
    main()

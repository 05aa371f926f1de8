"""``lambda_l2="auto"`` against 10 on small training sets.

Written for stop 39's bound, the hessian mass per leaf, which bound on small data (run at commit de0bc56 to
reproduce BENCHMARKS.md's figures). Since stop 40 "auto" is at most 750 times the mean hessian per row, which
does not depend on the data's size: on these subsets it is 10, and both systems fit the same models (since
stop 115, only below 5,000 training documents: from there four averaged models take 1, as on some half-cuts of
MQ2008's folds).

MQ2008's folds and LightGBM's example's splits with a fraction of their training queries (drawn per fold
and draw), validation and test whole; default ``LambdaMART(M)`` against ``LambdaMART(M, lambda_l2=10)`` with
the suite's protocol (learning rate 0.1, 300 trees, the tree count chosen on validation by M), one thread.
Prints each draw's size and bounded penalty, then per judged metric both means over all test values and the
two-sided Wilcoxon p of their differences (the draws of a fold share its test queries, so p is too small).

    .venv/bin/python benchmarks/small_data_penalty.py --shape mq2008 --fraction 0.25 --draws 3
    .venv/bin/python benchmarks/small_data_penalty.py --shape lgb-example --fraction 0.5 --draws 5
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.stats import wilcoxon

import data_shapes
from metricrank import LambdaMART
from metricrank.experiments import quality as q

JUDGED = ("NDCG:top=10;type=Exp", "MAP", "MAUC")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted(data_shapes.REAL), default="mq2008")
    parser.add_argument("--fraction", type=float, default=0.25, help="of each split's training queries, in (0, 1]")
    parser.add_argument("--draws", type=int, default=3, help="subsets per split")
    args = parser.parse_args()
    if not 0 < args.fraction <= 1 or args.draws < 1:
        parser.error("--fraction must be in (0, 1] and --draws at least 1")
    values = {system: {m: [] for m in JUDGED} for system in ("bounded", "10")}
    penalties = []
    for seed in range(1, data_shapes.REAL[args.shape] + 1):
        split = data_shapes.split(args.shape, None, seed)
        for draw in range(args.draws):
            rng = np.random.default_rng(1000 * seed + draw)
            n = split.train.n_queries
            keep = np.sort(rng.choice(n, int(round(args.fraction * n)), replace=False))
            small = q.Split(split.dataset, seed, split.train.subset_queries(keep), split.vali, split.test)
            for metric in JUDGED:
                for system, params in (("bounded", {}), ("10", {"lambda_l2": 10.0})):
                    result = q.run_system(q.lambdamart(metric, **params), small, [metric], lr=0.1, trees=300,
                                          threads=1)
                    values[system][metric].extend(result[metric]["per_query"])
            train = small.train
            penalties.append(LambdaMART("MAP", n_estimators=1, n_jobs=1).fit(train.X, train.y,
                                                                             qid=train.row_qid).lambda_l2_)
            print(f"split {seed} draw {draw}: {train.n_docs} training documents, lambda_l2_ {penalties[-1]:.2f}",
                  flush=True)
    print(f"{args.shape}, {args.fraction} of the training queries, {args.draws} draws per split; "
          f"lambda_l2_ {min(penalties):.2f}-{max(penalties):.2f}")
    for metric in JUDGED:
        a, b = np.array(values["bounded"][metric]), np.array(values["10"][metric])
        ok = np.isfinite(a) & np.isfinite(b)
        d = a[ok] - b[ok]
        p = wilcoxon(d).pvalue if np.any(d) else 1.0
        print(f"{metric}: bounded {a[ok].mean():.4f}, 10 {b[ok].mean():.4f}, difference {d.mean():+.4f}, "
              f"W/L {(d > 0).sum()}/{(d < 0).sum()}, p {p:.3g}")


if __name__ == "__main__":
    main()

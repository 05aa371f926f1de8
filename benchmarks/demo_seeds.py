"""The demo's comparison over many seeds: default ``LambdaMART(metric="NDCG:top=10;type=Exp")`` (target
"auto": YetiRank) against the exact λ-NDCG@10, on the demo's data and protocol (``make_ltr(300,
n_features=30, n_informative=8, relevance="nonlinear")``, 60/20/20 % of the queries, learning rate 0.1, at
most 300 trees, early stopping after 30 on the validation queries). Prints each seed and the paired mean.
``--metric`` judges another metric and ``--reference`` names the target "auto" is paired with (default: the
metric itself, its exact λ).

    .venv/bin/python benchmarks/demo_seeds.py --seeds 12
    .venv/bin/python benchmarks/demo_seeds.py --seeds 12 --metric MRR --reference "NDCG:type=Exp"
"""

import argparse

import numpy as np
from scipy.stats import wilcoxon

from metricrank import LambdaMART, evaluate, make_ltr


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--metric", default="NDCG:top=10;type=Exp",
                        help="the judged metric (default: the demo's NDCG@10e)")
    parser.add_argument("--reference", help="the target paired with 'auto' (default: the metric's own λ)")
    args = parser.parse_args()
    metric = args.metric
    reference = args.reference or metric
    means, diffs = [], []
    for seed in range(args.seeds):
        data = make_ltr(300, n_features=30, n_informative=8, relevance="nonlinear", random_state=seed)
        a, b = int(0.6 * data.n_queries), int(0.8 * data.n_queries)
        train, valid, test = (data.subset_queries(np.arange(a)), data.subset_queries(np.arange(a, b)),
                              data.subset_queries(np.arange(b, data.n_queries)))
        per_query = {}
        for name, target in (("λ", reference), ("auto", "auto")):
            model = LambdaMART(metric, target=target, n_estimators=300, learning_rate=0.1, random_state=seed, n_jobs=1)
            model.fit(train, eval_set=[valid], early_stopping_rounds=30)
            per_query[name] = np.asarray(evaluate(test, model.predict(test.X), metric=metric, per_query=True))
        d = per_query["auto"] - per_query["λ"]
        means.append(np.nanmean(d))
        diffs.append(d[~np.isnan(d)])
        print(f"seed {seed}: λ {np.nanmean(per_query['λ']):.4f}, auto {np.nanmean(per_query['auto']):.4f}, "
              f"{means[-1]:+.4f}", flush=True)
    d = np.concatenate(diffs)
    print(f"auto − λ: {np.mean(means):+.4f} (standard error {d.std() / np.sqrt(d.size):.4f}, {d.size} queries, "
          f"Wilcoxon p {wilcoxon(d).pvalue:.2g})")


if __name__ == "__main__":
    main()

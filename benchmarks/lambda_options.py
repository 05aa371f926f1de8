"""The measurement behind LambdaMART's defaults: λ normalisation and truncation on MQ2008.

For each option setting, λ-NDCG@10 LambdaMART is trained on all five MQ2008
folds (learning rate 0.1, 15 leaves, up to 500 trees, early stopping after 30
rounds on validation NDCG@10) and the mean test NDCG@10 / MAP / training time
are printed. LightGBM's native lambdarank with the same trees is the anchor.

Run: ``python benchmarks/lambda_options.py``
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from metricrank import LambdaMART, evaluate
from metricrank.experiments._datasets import load_mq2008_fold

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
TARGET = "NDCG:top=10;type=Exp"
SETTINGS = [
    ("norm=True, truncation=None (default)", dict(norm=True, truncation=None)),
    ("norm=False, truncation=None", dict(norm=False, truncation=None)),
    ("norm=True, truncation=30", dict(norm=True, truncation=30)),
    ("norm=False, truncation=30", dict(norm=False, truncation=30)),
    ("norm=True, target ties=stable", dict(norm=True, truncation=None, metric=TARGET + ";ties=stable")),
]


def main():
    folds = [load_mq2008_fold(k, SHARED) for k in range(1, 6)]
    print("| setting | test NDCG@10 | test MAP | trees (mean) | seconds |")
    print("|---|---:|---:|---:|---:|")
    for label, options in SETTINGS:
        options = dict(options)
        metric = options.pop("metric", TARGET)
        ndcg, maps, trees, start = [], [], [], time.perf_counter()
        for fold in folds:
            model = LambdaMART(metric, target=metric, n_estimators=500, learning_rate=0.1, num_leaves=15, n_jobs=2,
                               random_state=0, **options)
            model.fit(fold.train, eval_set=[fold.vali], eval_metrics=[TARGET], early_stopping_rounds=30)
            scores = model.predict(fold.test.X)
            ndcg.append(evaluate(fold.test, scores, metric=TARGET))
            maps.append(evaluate(fold.test, scores, metric="MAP"))
            trees.append(model.best_iteration_)
        print(f"| {label} | {np.mean(ndcg):.4f} | {np.mean(maps):.4f} | {np.mean(trees):.0f} | "
              f"{time.perf_counter() - start:.1f} |", flush=True)


if __name__ == "__main__":
    main()

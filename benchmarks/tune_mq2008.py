"""Wall time of ``metricrank.tune`` on MQ2008 Fold1 train+vali (628 queries, 12,337 documents).

``python benchmarks/tune_mq2008.py [--trials 30] [--cv 3] [--threads 1]``: LambdaMART
(NDCG:top=10, at most 500 trees, early stopping after 30 rounds), the default search
space, median pruning, seed 0. Prints the wall time, the best value and the best
parameters, and the test-fold NDCG@10 of the refitted model next to an untuned
LambdaMART's (defaults: 300 trees) measured in the same run.
"""

import argparse
import os
import time

import numpy as np

import metricrank
from metricrank.model_selection import tune

parser = argparse.ArgumentParser()
parser.add_argument("--data", default=os.environ.get("METRICRANK_DATA", "/work/shared/data") + "/MQ2008/Fold1")
parser.add_argument("--trials", type=int, default=30)
parser.add_argument("--cv", type=int, default=3)
parser.add_argument("--threads", type=int, default=1)
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

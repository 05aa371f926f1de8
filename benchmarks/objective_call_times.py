"""Time one gradient call of several objectives on MQ2008 Fold1 train (one numba thread, median of 15).

    .venv/bin/python benchmarks/objective_call_times.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numba
import numpy as np

import metricrank
from metricrank.objectives import as_training_data, get_objective

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008" / "Fold1" / "train.txt.gz"
SPECS = ["YetiRank", "QuerySoftMax", "PairLogit", "lambda:NDCG:top=10;type=Exp", "LambdaMart", "LambdaMart:metric=MAP",
         "LambdaMart:metric=MRR", "YetiRank:noise=Gauss", "YetiRank:mode=NDCG", "YetiRank:mode=MAP",
         "YetiRank:mode=NDCG;num_neighbors=-1"]


def main() -> None:
    train = metricrank.load_letor(DATA)
    numba.set_num_threads(1)
    data = as_training_data(train.y, train.group_ptr)
    raw = np.random.default_rng(0).normal(size=train.n_docs)
    for spec in SPECS:
        bound = get_objective(spec).bind(data, 0)
        bound(raw)  # compile
        times = []
        for _ in range(15):
            start = time.perf_counter()
            bound(raw)
            times.append(time.perf_counter() - start)
        print(f"{spec}: {np.median(times) * 1e3:.2f} ms", flush=True)


if __name__ == "__main__":
    main()

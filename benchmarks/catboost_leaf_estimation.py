"""CatBoost's QuerySoftMax with its default leaf estimation (Gradient, 100 iterations) and with Newton.

A probe for the gap ``benchmarks/data_shapes.py --shape gov`` shows between CatBoost's QuerySoftMax and
``GBRanker("QuerySoftMax")``, which sets each leaf once by one Newton step, as LightGBM does. Fits
CatBoost QuerySoftMax on one gov-shaped split (noise 2) with each method, prints the method and the
iterations CatBoost used, and the test NDCG@10 at the tree count best on validation.

    .venv/bin/python benchmarks/catboost_leaf_estimation.py --seed 1
"""

from __future__ import annotations

import argparse

import numpy as np
from data_shapes import split

from metricrank.metrics import evaluate

NDCG10 = "NDCG:top=10;type=Exp"


def main() -> None:
    import catboost

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    data = split("gov", 2.0, parser.parse_args().seed)
    for method in (None, "Newton", "Gradient"):
        params = {"loss_function": "QuerySoftMax", "iterations": 300, "learning_rate": 0.1, "thread_count": 1,
                  "random_seed": 0, "verbose": False, "allow_writing_files": False}
        model = catboost.CatBoost(params | ({} if method is None else {"leaf_estimation_method": method}))
        model.fit(catboost.Pool(data.train.X, data.train.y, group_id=data.train.row_qid))
        used = model.get_all_params()
        vali = [evaluate(data.vali, s, metric=NDCG10)
                for s in model.staged_predict(catboost.Pool(data.vali.X), prediction_type="RawFormulaVal")]
        k = int(np.argmax(vali)) + 1
        test = evaluate(data.test, model.predict(catboost.Pool(data.test.X), prediction_type="RawFormulaVal",
                                                 ntree_end=k), metric=NDCG10)
        print(f"asked {method or 'default'}: used {used['leaf_estimation_method']}, "
              f"{used['leaf_estimation_iterations']} iterations; {k} trees, test NDCG@10 {test:.4f}", flush=True)


if __name__ == "__main__":
    main()

"""CatBoost with one or more of its defaults changed, on a shape of ``benchmarks/data_shapes.py``.

Which of CatBoost's ingredients (symmetric depth-6 trees, leaves set by 100 gradient steps, random
split strength, MVS subsampling) give its QuerySoftMax the lead on the gov shape? Each variant is
CatBoost's defaults plus the named changes, at the suite's protocol (learning rate 0.1, 300 trees,
one thread, seed 0; the tree count chosen on validation by each judged metric, the test value read
there). Prints each seed's values and the mean over seeds (equal to the mean over test queries: every
seed has the same number).

    .venv/bin/python benchmarks/catboost_variants.py --shape gov --noise 2 --seeds 1 4 --loss QuerySoftMax \\
        --variants '{"default": {}, "depthwise6": {"grow_policy": "Depthwise", "depth": 6},
                     "lossguide31": {"grow_policy": "Lossguide", "max_leaves": 31},
                     "no_random_strength": {"random_strength": 0}, "no_bootstrap": {"bootstrap_type": "No"}}'
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from data_shapes import JUDGED, SHAPES, split

from metricrank.metrics import evaluate


def main() -> None:
    import catboost

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted(SHAPES), required=True)
    parser.add_argument("--noise", type=float, required=True)
    parser.add_argument("--seeds", type=int, nargs=2, default=(1, 4), metavar=("FIRST", "STOP"))
    parser.add_argument("--loss", default="QuerySoftMax", help="CatBoost loss_function")
    parser.add_argument("--variants", required=True, help='JSON {"name": {catboost parameter: value}}')
    args = parser.parse_args()
    try:
        variants = json.loads(args.variants)
    except json.JSONDecodeError as error:
        parser.error(f"--variants is not JSON: {error}")
    if not isinstance(variants, dict) or not all(isinstance(v, dict) for v in variants.values()):
        parser.error('--variants wants {"name": {parameter: value}, ...}')
    results: dict = {}
    for seed in range(*args.seeds):
        data = split(args.shape, args.noise, seed)
        for name, changes in variants.items():
            params = {"loss_function": args.loss, "iterations": 300, "learning_rate": 0.1, "thread_count": 1,
                      "random_seed": 0, "verbose": False, "allow_writing_files": False} | changes
            start = time.perf_counter()
            model = catboost.CatBoost(params)
            model.fit(catboost.Pool(data.train.X, data.train.y, group_id=data.train.row_qid))
            staged = list(model.staged_predict(catboost.Pool(data.vali.X), prediction_type="RawFormulaVal"))
            test_pool = catboost.Pool(data.test.X)
            values = {}
            for metric in JUDGED:
                k = int(np.argmax([evaluate(data.vali, s, metric=metric) for s in staged])) + 1
                scores = model.predict(test_pool, prediction_type="RawFormulaVal", ntree_end=k)
                values[metric] = float(evaluate(data.test, scores, metric=metric))
            results.setdefault(name, []).append(values)
            shown = ", ".join(f"{m} {v:.4f}" for m, v in values.items())
            print(f"seed {seed} {name}: {shown} ({time.perf_counter() - start:.0f} s)", flush=True)
    for name, rows in results.items():
        print(f"mean {name}: " + ", ".join(f"{m} {np.mean([r[m] for r in rows]):.4f}" for m in JUDGED))


if __name__ == "__main__":
    main()

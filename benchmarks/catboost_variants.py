"""CatBoost with one or more of its defaults changed, on a shape of ``benchmarks/data_shapes.py``.

Which of CatBoost's ingredients (symmetric depth-6 trees, leaves set by 100 gradient steps, random
split strength, MVS subsampling) give its QuerySoftMax the lead on the gov shape? Each variant is
CatBoost's defaults plus the named changes, fitted as the suite fits its CatBoost anchors
(``quality.run_system``: learning rate 0.1, 300 trees, one thread, seed 0; the tree count chosen on
validation by each judged metric, the test value read there). Prints each seed's values and the mean over seeds (equal to the mean over test queries: every
seed has the same number).

    .venv/bin/python benchmarks/catboost_variants.py --shape gov --noise 2 --seeds 1 4 --loss QuerySoftMax \\
        --variants '{"default": {}, "depthwise6": {"grow_policy": "Depthwise", "depth": 6},
                     "lossguide31": {"grow_policy": "Lossguide", "max_leaves": 31},
                     "no_random_strength": {"random_strength": 0}, "no_bootstrap": {"bootstrap_type": "No"}}'
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from data_shapes import JUDGED, SHAPES, split

from metricrank.experiments import quality as q


def main() -> None:
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
            result = q.run_system(q._catboost(args.loss, **changes), data, JUDGED, lr=0.1, trees=300, threads=1,
                                  seed=0)
            values = {m: result[m]["test"] for m in JUDGED}
            results.setdefault(name, []).append(values)
            shown = ", ".join(f"{m} {v:.4f}" for m, v in values.items())
            print(f"seed {seed} {name}: {shown} ({result['seconds']:.0f} s)", flush=True)
    for name, rows in results.items():
        print(f"mean {name}: " + ", ".join(f"{m} {np.mean([r[m] for r in rows]):.4f}" for m in JUDGED))


if __name__ == "__main__":
    main()

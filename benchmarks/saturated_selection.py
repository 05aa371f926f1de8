"""How much does the quality suite's tie-break decide a cell whose validation value saturates?

The suite keeps, for each system, the first tree count at which the validation value of the judged metric
is highest (``np.nanargmax``). On the 50k set every system reaches validation MRR 1.0 (a relevant document
first on every validation query) after 6 to 168 trees, so the kept model is the first tree count to do so
(BENCHMARKS.md, "Stop 81: the 50k set's MRR cell is the tie-break's"). This script fits systems
of the suite on its splits (the suite's learning rate 0.1, 300 trees, seed 0, one thread) and, for one
judged metric, prints per split and system: how many tree counts tie at the validation maximum, the first
and last of them, and the test value at the first (the suite's reading), at the last, and averaged over all
tied tree counts; then the mean of each reading over the splits, and the difference of each system to the
best of the anchors by each reading.

    .venv/bin/python benchmarks/saturated_selection.py --dataset synthetic-50k --metric MRR \\
        --systems "LambdaMART(MRR)" "LightGBM lambdarank" "CatBoost YetiRank" "XGBoost rank:ndcg"
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metricrank.experiments import quality
from metricrank.learners._boosting import numba_threads
from metricrank.metrics import evaluate


def tied_readings(curve, test_value) -> dict:
    """Readings of one fit: ``curve`` the validation values by tree count, ``test_value(k)`` the test value of
    the first ``k`` trees."""
    curve = np.asarray(curve, dtype=float)
    tied = np.flatnonzero(curve == np.nanmax(curve)) + 1
    values = [test_value(int(k)) for k in tied]
    return {"tied": len(tied), "first_k": int(tied[0]), "last_k": int(tied[-1]),
            "first": values[0], "last": values[-1], "mean": float(np.mean(values))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True, choices=quality.SUITE)
    parser.add_argument("--metric", required=True, choices=quality.JUDGED)
    parser.add_argument("--folds", nargs="+", type=int, help="splits to fit (default: every split)")
    systems = {**quality.ANCHORS, **{name: fit for name, (_, fit) in quality.default_systems().items()}}
    parser.add_argument("--systems", nargs="+", required=True, choices=list(systems), metavar="NAME")
    args = parser.parse_args()
    splits = [s for s in quality.load_suite([args.dataset]) if args.folds is None or s.fold in args.folds]
    readings: dict[str, list[dict]] = {name: [] for name in args.systems}
    for split in splits:
        for name in args.systems:
            start = time.perf_counter()
            with numba_threads(1):
                curves, predict_test, *_ = systems[name](split, (args.metric,), 0.1, 300, 1, 0)
            r = tied_readings(curves[args.metric],
                              lambda k: float(evaluate(split.test, predict_test(k), metric=args.metric)))
            readings[name].append(r)
            print(f"split {split.fold} {name:28s} tied {r['tied']:3d} trees ({r['first_k']}-{r['last_k']}): "
                  f"test at first {r['first']:.4f}, at last {r['last']:.4f}, mean over tied {r['mean']:.4f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    means = {name: {key: float(np.mean([r[key] for r in rs])) for key in ("first", "last", "mean")}
             for name, rs in readings.items()}
    print(f"\nmean over {len(splits)} splits; in brackets the difference to the best anchor by that reading")
    named_anchors = [name for name in args.systems if name in quality.ANCHORS]
    for name, m in means.items():
        cells = []
        for key in ("first", "last", "mean"):
            best = max((means[a][key] for a in named_anchors), default=np.nan)
            cells.append(f"{key} {m[key]:.4f} ({m[key] - best:+.4f})")
        print(f"{name:28s} " + ", ".join(cells))


if __name__ == "__main__":
    main()

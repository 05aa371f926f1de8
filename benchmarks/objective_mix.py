"""Does averaging a YetiRank model with a QuerySoftMax model beat YetiRank alone? (BENCHMARKS.md, "Stop 43").

On each split, three default ``GBRanker`` fits at the suite's rate and budget: YetiRank (what default
``LambdaMART(M)`` trains for NDCG@10, MAP and MAUC), YetiRank again with another random state, and
QuerySoftMax. Systems, each read at the tree count chosen on validation by the judged metric, both of
a pair at the same count:

* ``yr``: YetiRank alone (the reference);
* ``yr+yr2``: the two YetiRank fits summed (the same objective, twice the models);
* ``yr+qsm raw``: YetiRank's and QuerySoftMax's scores summed;
* ``yr+qsm z``: the same, each model's scores standardised within each query first;
* ``qsm``: QuerySoftMax alone.

Prints, per judged metric, each system's mean over the test queries of all splits, its difference to
``yr``, the W/L and the suite's two-sided per-query Wilcoxon p (queries a metric leaves undefined left out)::

    python benchmarks/objective_mix.py --dataset mq2008 --out mix_mq2008.json
    python benchmarks/objective_mix.py --dataset mq2007 --noise 5 --seeds 1 4 --out mix_mq2007.json
    python benchmarks/objective_mix.py --summary mix_mq2008.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import data_shapes
from metricrank import evaluate
from metricrank._io import atomic_write
from metricrank.experiments import quality as q
from metricrank.learners import GBRanker

JUDGED = ("NDCG:top=10;type=Exp", "MAP", "MAUC")
SYSTEMS = ("yr+yr2", "yr+qsm raw", "yr+qsm z", "qsm")
TREES, RATE = 300, 0.1


def standardised(scores: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """``scores`` with each query's mean subtracted and divided by its standard deviation (kept when 0)."""
    out = scores.astype(np.float64).copy()
    for a, b in zip(ptr[:-1], ptr[1:]):
        sd = out[a:b].std()
        out[a:b] = (out[a:b] - out[a:b].mean()) / (sd if sd > 0 else 1.0)
    return out


def combined(name: str, scores: dict, ptr: np.ndarray) -> np.ndarray:
    """System ``name``'s scores from ``{"yr", "yr2", "qsm"}`` scores of one tree count."""
    if name == "yr+yr2":
        return scores["yr"] + scores["yr2"]
    if name == "yr+qsm raw":
        return scores["yr"] + scores["qsm"]
    if name == "yr+qsm z":
        return standardised(scores["yr"], ptr) + standardised(scores["qsm"], ptr)
    return scores[name]


def run_split(split) -> dict:
    """``{"system|metric": per-query test values}`` for one split."""
    models = {}
    for name, objective, state in (("yr", "YetiRank", 0), ("yr2", "YetiRank", 7), ("qsm", "QuerySoftMax", 0)):
        models[name] = GBRanker(objective, n_estimators=TREES, learning_rate=RATE, n_jobs=1,
                                random_state=state).fit(split.train)
    staged = {n: [m.predict(split.vali.X, num_iteration=k) for k in range(1, TREES + 1)] for n, m in models.items()}
    out, test_at = {}, {}  # test_at: the three models' test scores per tree count, predicted once
    for system in ("yr",) + SYSTEMS:
        vali = [combined(system, {n: s[k] for n, s in staged.items()}, split.vali.group_ptr) for k in range(TREES)]
        for metric in JUDGED:
            k = int(np.nanargmax([evaluate(split.vali, scores, metric=metric) for scores in vali])) + 1
            if k not in test_at:
                test_at[k] = {n: m.predict(split.test.X, num_iteration=k) for n, m in models.items()}
            values = evaluate(split.test, combined(system, test_at[k], split.test.group_ptr), metric=metric,
                              per_query=True)
            out[f"{system}|{metric}"] = [float(v) for v in values]
    return out


def summary(paths) -> list[str]:
    """Lines comparing every system with ``yr`` over the splits of ``paths`` (``--out`` files)."""
    joined: dict = {}
    for path in paths:
        for per_split in json.loads(Path(path).read_text()).values():
            for key, values in per_split.items():
                joined.setdefault(key, []).extend(values)
    lines = ["| judged | system | mean | yr | Δ | W/L (ties), p |", "|---|---|---|---|---|---|"]
    for metric in JUDGED:
        base = np.asarray(joined[f"yr|{metric}"])
        for system in SYSTEMS:
            values = np.asarray(joined[f"{system}|{metric}"])
            scored = np.isfinite(values) & np.isfinite(base)
            lines.append(f"| {metric} | {system} | {values[scored].mean():.4f} | {base[scored].mean():.4f} "
                         f"| {np.mean(values[scored] - base[scored]):+.4f} | {q._compare(values, base)} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", help="a suite data set (mq2008, ...) or a data_shapes.py shape (mq2007, ...)")
    parser.add_argument("--noise", type=float, default=5.0, help="a shape's noise")
    parser.add_argument("--seeds", type=int, nargs=2, default=(1, 4), metavar=("FIRST", "STOP"),
                        help="a shape's draws, FIRST to STOP - 1")
    parser.add_argument("--out", help="JSON of per-query test values, rewritten after each split")
    parser.add_argument("--summary", nargs="+", metavar="OUT.json", help="only print the table of these files")
    args = parser.parse_args()
    if args.summary:
        print("\n".join(summary(args.summary)))
        return
    if not args.dataset or not args.out:
        parser.error("--dataset and --out are required unless --summary is given")
    if args.dataset in q.SUITE:
        splits = q.load_suite([args.dataset])
    else:
        splits = [data_shapes.split(args.dataset, args.noise, seed) for seed in range(*args.seeds)]
    results = {}
    for i, split in enumerate(splits):
        results[str(i)] = run_split(split)
        with atomic_write(args.out) as stream:
            stream.write(json.dumps(results).encode())
        print(f"split {i + 1} of {len(splits)} done", flush=True)
    print("\n".join(summary([args.out])))


if __name__ == "__main__":
    main()

"""Where `tune`'s in-fold pruning should start: the share of the tree budget (BENCHMARKS.md, stop 60).

``--record`` runs the suite's search (``quality.tune_on_split``: 20 trials, learning rate 0.1, 300 trees,
one thread, seed 0) with Optuna's ``NopPruner`` and in-fold reports from the first tree, so that every
trial grows to its end and leaves its whole curve: the value it reports at each step (fold * 300 + tree).
The test queries are not used.

``--simulate`` replays those curves through ``tune``'s pruner, ``MedianPruner(n_startup_trials=5)``,
with the in-fold reports starting at each share of the budget in turn, and prints what each share
prunes, the share of the search's time it saves (a pruned trial's time counted in proportion to the
trees it grew before the cut) and what ``tune`` then keeps: the best completed trial, and the trial
``selection="significant"`` keeps against the first (the defaults). The replay keeps the recorded
order of trials; in a real pruned search the sampler, which sees pruned trials, may propose
other trials after the first cut.

    .venv/bin/python benchmarks/prune_share.py --record --dataset synthetic-noisy-40k --out noisy.json
    .venv/bin/python benchmarks/prune_share.py --simulate noisy.json --shares 0.1 0.2 0.3 0.5 0.7 0.9

Stop 60's recordings are in ``benchmarks/results/prune_share/`` (JSON, gzipped when the name ends in .gz).
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from metricrank.model_selection import _tune as tune_module
from metricrank._io import atomic_write, open_read
from metricrank.experiments import quality
from metricrank.metrics import get_metric
from metricrank.model_selection import improvement_pvalue, selection_level

STARTUP_TRIALS = 5  # tune's default pruner: MedianPruner(n_startup_trials=5)


def record(args) -> None:
    import optuna

    tune_module.PRUNE_FROM_BUDGET_SHARE = 1e-9  # in-fold reports from the first tree
    runs = []
    for split in quality.load_suite([args.dataset], folds=args.folds):
        r = quality.tune_on_split(split, args.metric, 0.1, 300, 1, 0, args.trials, args.cv,
                                  pruner=optuna.pruners.NopPruner())
        trials = [{"number": t.number, "value": t.value, "seconds": t.duration.total_seconds(),
                   "params": t.params, "query_values": t.user_attrs["query_values"],
                   "steps": {str(k): v for k, v in sorted(t.intermediate_values.items())}}
                  for t in r.study_.trials]
        runs.append({"dataset": split.dataset, "fold": split.fold, "metric": args.metric, "stride": 300,
                     "higher_is_better": get_metric(args.metric).higher_is_better,
                     "n_folds": len(r.folds_), "seconds": r.elapsed_, "trials": trials})
        print(f"{split.dataset} fold {split.fold}: {len(trials)} trials in {r.elapsed_:.0f} s", flush=True)
        with atomic_write(args.out) as f:  # whole runs only, after each split; gzipped for a .gz name
            f.write(json.dumps(runs).encode())


def _trees(steps, stride: int, n_folds: int, upto: float) -> int:
    """Trees grown up to step ``upto``: a fold's last in-fold report is its last tree.

    In-fold reports stop one tree short of the budget (its last tree reports as the fold's end).
    """
    last = [0] * n_folds
    for step, _ in steps:
        fold, tree = divmod(step, stride)
        if tree and step <= upto:
            last[fold] = max(last[fold], tree)
    return sum(t + 1 if t == stride - 1 and (k + 1) * stride <= upto else t for k, t in enumerate(last))


def replay(run: dict, share: float) -> dict:
    """The pruner's decisions on the recorded trials with in-fold reports from ``share`` of the budget."""
    stride, n_folds = run["stride"], run["n_folds"]
    sign = 1.0 if run.get("higher_is_better", True) else -1.0  # compare as "higher is better"
    start = max(1, math.ceil(share * stride))
    completed, completed_numbers, pruned, saved, total = [], set(), [], 0.0, 0.0
    for trial in run["trials"]:
        steps = sorted((int(s), v) for s, v in trial["steps"].items())
        grown = _trees(steps, stride, n_folds, math.inf)
        total += trial["seconds"]
        reported, cut = {}, None
        for step, value in steps:
            tree = step % stride
            if tree and tree < start:
                continue  # before the share: not reported
            reported[step] = sign * value
            if step == n_folds * stride:
                break  # the pruner is not asked after the last fold
            if len(completed) < STARTUP_TRIALS:
                continue
            others = [c[step] for c in completed if step in c]
            if others and max(reported.values()) < float(np.median(others)):
                cut = step
                break
        if cut is None:
            completed.append(reported)
            completed_numbers.add(trial["number"])
        else:
            done = _trees(steps, stride, n_folds, cut)
            saved += trial["seconds"] * (1 - done / grown)
            pruned.append(f"{trial['number']}@{cut}")
    kept_trials = [t for t in run["trials"] if t["number"] in completed_numbers]
    best = max(kept_trials, key=lambda t: sign * t["value"])
    kept, p = best, None
    if best["number"] != 0 and 0 in completed_numbers:
        p = improvement_pvalue(best["query_values"], run["trials"][0]["query_values"], sign > 0)
        if not p < selection_level(len(kept_trials) - 1):
            kept = run["trials"][0]
    return {"pruned": pruned, "saved": saved / total, "best": best["number"], "kept": kept["number"], "p": p}


def simulate(args) -> None:
    totals = {share: {"pruned": 0, "saved": [], "best": 0, "top": 0, "kept": 0} for share in args.shares}
    n_runs = 0
    for path in args.simulate:
        with open_read(path) as f:
            runs = json.load(f)
        for run in runs:
            n_runs += 1
            sign = 1.0 if run.get("higher_is_better", True) else -1.0
            ranked = sorted(run["trials"], key=lambda t: -sign * t["value"])
            unpruned = ranked[0]["number"]
            kept_before = replay(run, 1.0)["kept"]  # reports at the folds' ends only (tune before stop 59)
            top = [t["number"] for t in ranked[:3]]
            print(f"{run['dataset']} fold {run['fold']}, {run['metric']}: {len(run['trials'])} trials, "
                  f"{run['seconds']:.0f} s unpruned; best three by value: {top} "
                  f"({', '.join(format(t['value'], '.4f') for t in ranked[:3])}); defaults {run['trials'][0]['value']:.4f}")
            for share in args.shares:
                r = replay(run, share)
                cut = {int(p.split("@")[0]) for p in r["pruned"]}
                lost = [n for n in top if n in cut]
                p = "" if r["p"] is None else f", best p {r['p']:.2g}"
                total = totals[share]
                total["pruned"] += len(r["pruned"])
                total["saved"].append(r["saved"])
                total["best"] += unpruned in cut
                total["top"] += bool(lost)
                total["kept"] += r["kept"] != kept_before
                print(f"  share {share:.2f}: {len(r['pruned']):2d} pruned, {100 * r['saved']:4.1f}% of the time saved; "
                      f"best completed {r['best']}, kept {r['kept']}{p}; top three pruned: {lost or 'none'}; "
                      f"cuts {' '.join(r['pruned']) or '-'}", flush=True)
    print(f"over {n_runs} searches: share, trials pruned, median share of the time saved (min-max), searches that "
          f"pruned their best trial / one of their best three, kept another trial than with fold-end reports only")
    for share, t in totals.items():
        saved = 100 * np.array(t["saved"])
        print(f"  {share:.2f}: {t['pruned']:3d} pruned, {np.median(saved):4.1f}% ({saved.min():.1f}-{saved.max():.1f}), "
              f"best {t['best']}, top three {t['top']}, kept another {t['kept']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--dataset", default="synthetic-noisy-40k", choices=list(quality.SUITE))
    parser.add_argument("--metric", default="NDCG:top=10;type=Exp")
    parser.add_argument("--folds", type=int, default=None, help="the first N folds/seeds (default all)")
    parser.add_argument("--cv", type=int, default=None, help="query folds of train+vali (default: on vali)")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--out", default="prune_share.json")
    parser.add_argument("--simulate", nargs="+", metavar="JSON")
    parser.add_argument("--shares", nargs="+", type=float, default=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    args = parser.parse_args()
    if args.record:
        record(args)
    if args.simulate:
        simulate(args)


if __name__ == "__main__":
    main()

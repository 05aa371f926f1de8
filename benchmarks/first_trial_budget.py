"""Does early stopping inside ``tune`` judge the defaults fairly? (BENCHMARKS.md, "Stop 80").

On one quality-suite split, fits the defaults (``LambdaMART(metric)``, the suite's learning rate 0.1,
300 trees, seed 0, one thread) and a challenger (``--params``, a trial's parameters as a search recorded
them) on the training queries, and scores every validation and test query at every tree count. It then
replays ``tune``'s selection test (one-sided paired Wilcoxon of the challenger against the defaults over
the validation queries, each at its best tree count there) three ways:

* each fit stopped ``--rounds`` trees after its best held-out value (``tune`` before stop 80);
* the defaults over their whole budget, the challenger stopped (since stop 80 ``tune``'s first trial waits
  ``max(rounds, its best tree so far)`` trees, which reached the whole budget on the 50k set's seed 1);
* both cross-fitted: each half of the validation queries (every other query) at the tree count best on
  the other half, so that no query's value chose its own tree count;

and prints the test values at the validation-chosen tree counts. On the 50k set's seed 1, fit and per-tree
scoring took 874 s for the challenger below and 1,699 s for the defaults (capacity check included), on the
shared 2-core machine with a search beside them (stop 80's probe, the same fits and scoring).

    .venv/bin/python benchmarks/first_trial_budget.py --dataset synthetic-50k --fold 1 \\
        --metric "ERR:type=Graded;top=10" --params '{"max_depth": 8, "min_data_in_leaf": 94,
        "min_sum_hessian_in_leaf": 0.07013219779945795, "learning_rate": 0.1422119973969722,
        "grow_policy": "symmetric_then_leafwise"}'
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from metricrank import LambdaMART
from metricrank.experiments import quality
from metricrank.learners._boosting import StoppingRule
from metricrank.metrics import evaluate, get_metric
from metricrank.model_selection import improvement_pvalue


def per_tree_values(model, ds, metric) -> np.ndarray:
    """(trees, queries): every query's metric at every tree count."""
    return np.array([evaluate(ds, model.predict(ds.X, num_iteration=k), metric=metric, per_query=True)
                     for k in range(1, model.n_estimators_ + 1)])


def stopped(curve: np.ndarray, rounds: int | None) -> int:
    """Trees grown when early stopping with ``rounds`` watches the mean ``curve`` (all of them for None)."""
    rule = StoppingRule(rounds, True)
    return next((it for it, v in enumerate(curve, 1) if rule.observe(it, v, "")), len(curve))


def at_best(vali: np.ndarray, grown: int) -> int:
    """0-based first best tree of the first ``grown`` trees by the mean over queries."""
    return int(np.argmax(vali[:grown].mean(axis=1)))


def cross_fitted(vali: np.ndarray, grown: int) -> np.ndarray:
    half = np.arange(vali.shape[1]) % 2
    best = [int(np.argmax(vali[:grown, half == h].mean(axis=1))) for h in (0, 1)]
    return np.where(half == 0, vali[best[1]], vali[best[0]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="synthetic-50k", choices=list(quality.SUITE))
    parser.add_argument("--fold", type=int, default=1)
    parser.add_argument("--metric", default="ERR:type=Graded;top=10")
    parser.add_argument("--params", required=True, help="the challenger's parameters, as JSON")
    parser.add_argument("--rounds", type=int, default=30, help="tune's early_stopping_rounds (default 30)")
    args = parser.parse_args()
    if not get_metric(args.metric).higher_is_better:
        parser.error(f"--metric {args.metric!r}: the replay assumes a metric where higher is better")
    split = next(s for s in quality.load_suite([args.dataset]) if s.fold == args.fold)
    curves = {}
    for name, params in [("challenger", json.loads(args.params)), ("defaults", {})]:
        start = time.perf_counter()
        model = LambdaMART(args.metric, n_estimators=300, learning_rate=0.1, n_jobs=1, random_state=0)
        model.set_params(**params).fit(split.train)
        curves[name] = {part: per_tree_values(model, ds, args.metric) for part, ds in
                        [("vali", split.vali), ("test", split.test)]}
        print(f"{name}: {model.n_estimators_} trees, fitted and scored in {time.perf_counter() - start:.0f} s",
              flush=True)
    grown = {name: {"stopped": stopped(c["vali"].mean(axis=1), args.rounds), "whole budget": len(c["vali"])}
             for name, c in curves.items()}
    ways = [("both stopped", "stopped", "stopped"), ("defaults' whole budget", "whole budget", "stopped")]
    for label, own, other in ways:
        d, c = curves["defaults"], curves["challenger"]
        kd, kc = at_best(d["vali"], grown["defaults"][own]), at_best(c["vali"], grown["challenger"][other])
        p = improvement_pvalue(c["vali"][kc], d["vali"][kd])
        cross = improvement_pvalue(cross_fitted(c["vali"], grown["challenger"][other]),
                                   cross_fitted(d["vali"], grown["defaults"][own]))
        print(f"{label}: defaults {kd + 1} of {grown['defaults'][own]} trees, vali {d['vali'][kd].mean():.4f}, "
              f"test {d['test'][kd].mean():.4f}; challenger {kc + 1} of {grown['challenger'][other]}, "
              f"vali {c['vali'][kc].mean():.4f}, test {c['test'][kc].mean():.4f}; "
              f"p {p:.2g} (cross-fitted {cross:.2g})")


if __name__ == "__main__":
    main()

"""What ``metricrank.tune`` keeps on quality-suite splits (BENCHMARKS.md, "Quality suite", stop 19).

Runs the very search of the suite's tuned LambdaMART (``quality.tune_on_split``: 20 trials, the
default space, on the split's validation queries or by ``--cv`` folds of train+vali) and prints the
kept trial, its one-sided p-value against the first trial (the defaults), the level it had to beat
and its parameters, then the search's time and its pruned trials (each with the last step it
reported: fold * 300 + tree). The test queries are not used.

    .venv/bin/python benchmarks/tuned_choices.py --dataset synthetic-50k --metric "NDCG:top=10;type=Exp"
"""

from __future__ import annotations

import argparse

from metricrank.experiments import quality


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="synthetic-50k", choices=list(quality.SUITE))
    parser.add_argument("--metric", default="NDCG:top=10;type=Exp")
    parser.add_argument("--folds", type=int, default=None, help="the first N folds/seeds (default all)")
    parser.add_argument("--cv", type=int, default=None, help="query folds of train+vali (default: on vali)")
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    for split in quality.load_suite([args.dataset], folds=args.folds):
        # the suite's protocol: learning rate 0.1, 300 trees, one thread, seed 0 (run_system's default)
        r = quality.tune_on_split(split, args.metric, 0.1, 300, 1, 0, args.trials, args.cv)
        kept = "the defaults" if r.selected_trial_ == 0 else f"trial {r.selected_trial_}"
        test = "" if r.selection_pvalue_ is None else \
            f", p {r.selection_pvalue_:.2g} against the defaults, level {r.selection_level_:.2g}"
        params = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.best_params_.items())
        print(f"{split.dataset} fold {split.fold}: kept {kept} of {len(r.study_.trials)}{test}: {params}", flush=True)
        # pruned trials and the tree each stopped at (the last step it reported; steps: fold * 300 + tree)
        pruned = [t for t in r.study_.trials if t.state.name == "PRUNED"]
        stops = ", ".join(f"{t.number}@{max(t.intermediate_values)}" for t in pruned)
        print(f"  {r.elapsed_:.0f} s, {len(pruned)} pruned ({stops or 'none'}), best value {r.best_score_:.4f}",
              flush=True)


if __name__ == "__main__":
    main()

"""How often ``num_leaves="auto"``'s capacity check keeps bigger trees that cannot help: labels permuted.

Each seed draws a clean nonlinear ``make_ltr`` set (300 queries of 20-40 documents), permutes its labels
(so no capacity can rank held-out queries better than another, beyond chance), and fits
``LambdaMART("NDCG:top=10", n_estimators=40)`` with the check lowered to 1,000 documents (as the tests
do: the real threshold is 30,000). Prints the p-values of the first step's looks on each seed (the rule's
7 randomised leaves against 15) and how many seeds kept bigger trees: a valid check keeps them on about
5 % of the seeds or fewer.

    .venv/bin/python benchmarks/capacity_false_positives.py --seeds 0 40
    # stop 20's check, a single fifth held out at p < 0.05:
    git worktree add /tmp/stop20 d9022c0
    PYTHONPATH=/tmp/stop20/src .venv/bin/python benchmarks/capacity_false_positives.py --seeds 0 40
"""

from __future__ import annotations

import argparse

import numpy as np

from metricrank import LambdaMART, make_ltr
from metricrank.learners import _capacity


def first_step(seed: int) -> tuple[list, bool]:
    ds = make_ltr(300, docs_per_query=(20, 40), n_features=10, n_informative=6, relevance="nonlinear", noise=0.1,
                  random_state=seed)
    ds = type(ds)(ds.X, np.random.default_rng(seed).permutation(ds.y), group_ptr=ds.group_ptr)
    model = LambdaMART("NDCG:top=10", n_estimators=40, random_state=seed, n_jobs=1).fit(ds)
    check = model.capacity_check_
    # stop 20's check (commit d9022c0: PYTHONPATH=its src) made one look and recorded its p-values as ``pvalues``
    looks = check.looks[0] if hasattr(check, "looks") else check.pvalues[:1]
    return looks, check.num_leaves != check.trials[0]["num_leaves"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", nargs=2, type=int, default=[0, 40], metavar=("FIRST", "STOP"),
                        help="seeds FIRST .. STOP-1")
    args = parser.parse_args()
    _capacity.CHECK_MIN_DOCS = 1_000
    kept, looks = [], []
    for seed in range(*args.seeds):
        pvalues, bigger = first_step(seed)
        kept.append(bigger)
        looks.append(len(pvalues))
        print(f"seed {seed:3d}  p at each look {', '.join(f'{p:.3f}' for p in pvalues)}"
              f"{'  bigger trees kept' if bigger else ''}", flush=True)
    print(f"bigger trees kept on {sum(kept)} of {len(kept)} seeds ({np.mean(kept):.0%}); "
          f"looks per seed: mean {np.mean(looks):.1f}, most {max(looks)}")


if __name__ == "__main__":
    main()

"""Two λ variants measured with the quality suite's protocol and not adopted (BENCHMARKS.md, "λ targets
for judged MRR and ERR"): prototypes that wrap LambdaMART's bound objective, kept to rerun or extend.

* ``scale``: the λ-gradients and hessians divided by the mean hessian per document before LightGBM sees
  them, so that ``lambda_l2`` counts documents for every target; ``dynamic`` rescales every tree,
  ``static`` once with the first tree's scale. Candidate ``MODE:L2``, e.g. ``dynamic:100``.
* ``plackett-luce``: λ averaged over K rankings drawn from Plackett-Luce(exp(s)), i.e. the λ of
  ``s + scale * Gumbel noise``, as YetiRank draws its permutations. Candidate ``K:SCALE``, e.g. ``8:0.5``.

    .venv/bin/python benchmarks/lambda_probes.py --probe scale --candidates dynamic:100 static:300 \\
        --datasets mq2008 --cache benchmarks/results/probes_r6.json
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from metricrank._io import atomic_write
from metricrank.experiments import quality
from metricrank.learners import LambdaMART


class _Wrapped:
    """An objective whose bound callable is ``make(bound, random_state)``; everything else is the inner one's."""

    def __init__(self, objective, make):
        self._objective, self._make = objective, make

    def __getattr__(self, name):
        return getattr(self._objective, name)

    def bind(self, data, random_state=None):
        return self._make(self._objective.bind(data, random_state), random_state)


def rescaled(mode: str):
    def make(bound, _random_state):
        scale = [None]

        def call(raw):
            g, h = bound(raw)
            if scale[0] is None or mode == "dynamic":
                mean = h.mean()
                scale[0] = 1.0 / mean if mean > 0 else 1.0
            return g * scale[0], h * scale[0]

        return call

    return make


def plackett_luce(k: int, noise: float):
    def make(bound, random_state):
        rng = np.random.default_rng(random_state)

        def call(raw):
            g_sum = h_sum = 0.0
            for _ in range(k):
                g, h = bound(raw + noise * rng.gumbel(size=raw.shape[0]))
                g_sum, h_sum = g_sum + g, h_sum + h  # new arrays: the bound reuses its buffers
            return g_sum / k, h_sum / k

        return call

    return make


class ProbeLambdaMART(LambdaMART):
    """LambdaMART whose λ objective is wrapped by ``make`` (not a scikit-learn estimator: no cloning)."""

    def __init__(self, metric, make, **params):
        super().__init__(metric, **params)
        self._make = make

    def _lambda_options(self):
        # a probe wraps a λ objective: target="auto" chooses among λ targets only (stop 17's rule)
        return ["probe"]

    def _objective_for_labels(self, objective, y, row_weights=False):
        return _Wrapped(super()._objective_for_labels(objective, y, row_weights), self._make)


def system(metric: str, probe: str, candidate: str):
    a, b = candidate.split(":")
    make = rescaled(a) if probe == "scale" else plackett_luce(int(a), float(b))
    params = {"lambda_l2": float(b)} if probe == "scale" else {}
    return quality._metricrank(lambda lr, trees, threads, seed: ProbeLambdaMART(
        metric, make, n_estimators=trees, learning_rate=lr, n_jobs=threads, random_state=seed, **params))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probe", choices=["scale", "plackett-luce"], required=True)
    parser.add_argument("--candidates", nargs="+", required=True)
    parser.add_argument("--datasets", nargs="+", default=["mq2008"])
    parser.add_argument("--metrics", nargs="+", default=list(quality.JUDGED))
    parser.add_argument("--folds", type=int, default=None)
    parser.add_argument("--cache", default="benchmarks/results/probes_r6.json")
    args = parser.parse_args()
    cache = json.loads(open(args.cache).read()) if os.path.exists(args.cache) else {}
    for split in quality.load_suite(args.datasets, folds=args.folds):
        for candidate in args.candidates:
            label = f"scaled {candidate}" if args.probe == "scale" else "PL k={} scale={}".format(*candidate.split(":"))
            for metric in args.metrics:
                key = quality._key(f"{label} | λ {metric}", split, 0.1, 300)
                if key in cache:
                    continue
                cache[key] = quality.run_system(system(metric, args.probe, candidate), split, [metric], lr=0.1,
                                                trees=300, threads=1)
                print(key, f"{cache[key]['seconds']:.1f}s", f"{cache[key][metric]['test']:.4f}", flush=True)
                with atomic_write(args.cache) as fh:
                    fh.write(json.dumps(cache).encode())


if __name__ == "__main__":
    main()

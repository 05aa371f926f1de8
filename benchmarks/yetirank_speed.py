"""Speed of the YetiRank gradient, which default ``LambdaMART`` trains on for NDCG, MAP, ERR and MAUC.

For MQ2008 Fold1 train (9,630 documents) and one ``mq2007``-shaped draw of ``benchmarks/data_shapes.py``
(seed 1: 41,536 training documents), one numba thread and one LightGBM thread:

* the time of one YetiRank gradient call (the median of 7 batches of 50 calls, after one that compiles;
  until stop 37 the median of 15 single calls);
* the fit of default ``LambdaMART("NDCG:top=10;type=Exp")``, 300 trees at learning rate 0.1 (on the
  draw this includes the capacity check's fits), against LightGBM's ``lambdarank`` with its defaults
  and the same trees, the anchor, timed in the same run; the ratio is printed.

Compare two versions of the library by running this script under each (``PYTHONPATH=.../src``),
alternately, and taking medians:

    .venv/bin/python benchmarks/yetirank_speed.py [--permutations 30]
    .venv/bin/python benchmarks/yetirank_speed.py --data synthetic-50k --calls-only

``--data`` names the training sets (default: ``mq2008 mq2007``; ``synthetic-50k`` is the quality suite's first
50k split, 52,202 documents in queries of 20-180, whose default fit takes minutes; ``gov`` the first draw of the
``gov`` shape, queries of 500-1,000). ``--calls-only`` times the gradient calls and skips the fits. ``--parts``
also times a call's three parts alike: the uniforms drawn, the pair generator and the PairLogit pass.

``--permutations K`` times ``YetiRank:permutations=K`` and trains ``LambdaMART(target=...)`` on it instead of
CatBoost's default 10. ``--models K`` fits ``n_models=K`` instead of the default ``"auto"`` (on the draw two
models in stops 27-30, four since stop 31; on MQ2008 one until stop 113, four since; the stop-26 figures are
``--models 1``). ``--profile``
runs only the fit on the draw, under cProfile, and prints where its time goes (the parts of
:data:`PROFILE_PARTS`, and the functions with the most time of their own).
"""

from __future__ import annotations

import argparse
import os
import time

import lightgbm as lgb
import numba
import numpy as np
from data_shapes import split

from metricrank import LambdaMART
from metricrank.objectives import as_training_data, get_objective


def _suite_50k():
    from metricrank.experiments.quality import load_suite

    return load_suite(["synthetic-50k"], folds=1)[0].train


#: ``--data`` name: () -> (label, training set).
DATA = {
    "mq2008": lambda: ("MQ2008 Fold1", split("mq2008", None, 1).train),
    "mq2007": lambda: ("mq2007 draw 1", split("mq2007", 5.0, 1).train),
    "synthetic-50k": lambda: ("suite synthetic-50k split 1", _suite_50k()),
    "gov": lambda: ("gov draw 1", split("gov", 1.0, 1).train),
}


#: ``--profile``'s parts of a fit: name -> (the file's name, the function) whose cumulative time it is.
PROFILE_PARTS = {
    "pair generator": ("yetirank.py", "_generate"),
    "PairLogit pass": ("yetirank.py", "_pairlogit"),
    "LightGBM's trees": ("basic.py", "__boost"),
    "symmetric levels": ("_symmetric.py", "levels"),
    "capacity curves": ("_capacity.py", "_best_common_tree_count"),
}


def seconds(f) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def per_call(f) -> float:
    """Seconds per call of ``f``: the median of 7 batches of 50 calls (one call lasts a few ms, which a shared
    machine's jitter would drown)."""
    return float(np.median([seconds(lambda: [f() for _ in range(50)]) for _ in range(7)])) / 50


def call_parts(bound, raw) -> str:
    """The time of each part of a call of the bound classic YetiRank on ``raw``, as ``part ms, ...``."""
    from metricrank.objectives import yetirank as kernels

    b = bound
    parts = {
        "uniforms": lambda: b.rng.random(out=b._uniforms),
        "pair generator": lambda: kernels._generate(raw, b.y, b.group_ptr, b._uniforms, b.decay,
                                                    kernels.YETIRANK_PAIR_SCALE, b.slot_ptr, b._keys, b._weights,
                                                    b._counts, numba.get_num_threads()),
        "PairLogit pass": lambda: kernels._pairlogit(raw, b.group_ptr, b.slot_ptr, b._keys, b._weights, b._counts,
                                                     b.group_factor, b._grad, b._hess),
    }
    return ", ".join(f"{name} {per_call(f) * 1e3:.2f} ms" for name, f in parts.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--permutations", type=int, default=10, help="YetiRank's permutations (default: 10)")
    parser.add_argument("--models", type=int, default=None, help="n_models of the fit (default: 'auto')")
    parser.add_argument("--profile", action="store_true", help="profile the fit on the mq2007 draw only")
    parser.add_argument("--data", nargs="+", choices=sorted(DATA), default=["mq2008", "mq2007"],
                        help="training sets (default: mq2008 mq2007)")
    parser.add_argument("--calls-only", action="store_true", help="time the gradient calls only, not the fits")
    parser.add_argument("--parts", action="store_true", help="also time each part of a gradient call")
    args = parser.parse_args()
    if args.permutations < 1:
        parser.error(f"--permutations must be >= 1; got {args.permutations}")
    if args.models is not None and args.models < 1:
        parser.error(f"--models must be >= 1; got {args.models}")
    models = {} if args.models is None else {"n_models": args.models}
    spec = "YetiRank" if args.permutations == 10 else f"YetiRank:permutations={args.permutations}"
    target = {} if args.permutations == 10 else {"target": spec}
    numba.set_num_threads(1)

    def model():
        return LambdaMART("NDCG:top=10;type=Exp", n_estimators=300, learning_rate=0.1, n_jobs=1, random_state=0,
                          **target, **models)

    if args.profile:
        import cProfile
        import pstats

        data = split("mq2007", 5.0, 1).train
        profiled = model()
        get_objective(spec).bind(as_training_data(data.y, data.group_ptr), 0)(np.zeros(data.n_docs))  # compile
        profile = cProfile.Profile()
        fit = seconds(lambda: profile.runcall(profiled.fit, data))
        print(f"mq2007 draw 1 ({data.n_docs} documents): LambdaMART fit {fit:.1f} s under cProfile; "
              f"{profiled.capacity_check_}", flush=True)
        stats = pstats.Stats(profile)
        parts = {name: 0.0 for name in PROFILE_PARTS}
        for (path, _, function), (_, _, _, cumulative, _) in stats.stats.items():
            for name, (file, part) in PROFILE_PARTS.items():
                parts[name] += cumulative if (function, os.path.basename(path)) == (part, file) else 0.0
        print("parts (cumulative s): " + ", ".join(f"{name} {t:.1f}" for name, t in parts.items()))
        stats.sort_stats("tottime").print_stats(6)
        return
    for name in args.data:
        label, data = DATA[name]()
        bound = get_objective(spec).bind(as_training_data(data.y, data.group_ptr), 0)
        raw = np.random.default_rng(0).normal(size=data.n_docs)
        bound(raw)  # compile
        call = per_call(lambda: bound(raw))
        parts = f" ({call_parts(bound, raw)})" if args.parts else ""
        if args.calls_only:
            print(f"{label} ({data.n_docs} documents): {spec} call {call * 1e3:.2f} ms{parts}", flush=True)
            continue
        fitted_model = model()
        ours = seconds(lambda: fitted_model.fit(data))
        anchor = seconds(lambda: lgb.LGBMRanker(n_estimators=300, learning_rate=0.1, n_jobs=1, verbose=-1)
                         .fit(data.X, data.y, group=np.diff(data.group_ptr)))
        fitted = f"LambdaMART(target={spec})" if target else "default LambdaMART"
        fitted += f", {fitted_model.n_models_} model(s)"
        print(f"{label} ({data.n_docs} documents): {spec} call {call * 1e3:.2f} ms{parts}; {fitted} fit "
              f"{ours:.1f} s, LightGBM lambdarank {anchor:.1f} s, ratio {ours / anchor:.2f}", flush=True)


if __name__ == "__main__":
    main()

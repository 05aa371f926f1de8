"""Trees grown on the gradient alone (CatBoost's ``Gradient`` leaf estimation), on LETOR-shaped data.

CatBoost's CPU YetiRank and QuerySoftMax fit each tree to the gradient by least squares (leaf value: the
mean gradient); metricrank, like LightGBM, grows and values its trees by Newton steps on the diagonal
hessian. This probe replaces the hessian LightGBM sees, for every tree, by:

* ``exact``: the objective's own (the default);
* ``mean``: its mean over all rows (gradient-only trees, at the Newton step's overall scale);
* ``nzmean``: that mean over the rows with a non-zero hessian, 0 elsewhere (rows in no pair stay out);
* a number ``c``: ``c`` for every row (``1``: CatBoost's gradient step, leaf = mean gradient).

It patches the engine's ``boost`` for the run, so nothing in the library changes, and runs
``GBRanker(YetiRank)`` (the trees of default ``LambdaMART`` for NDCG@10, MAP and MAUC) and, with
``--objectives``, others, judged by NDCG@10, MAP and MAUC, with ``benchmarks/data_shapes.py``'s protocol
and shapes (learning rate 0.1, 300 trees, one thread, tree count chosen on validation):

    .venv/bin/python benchmarks/hessian_probe.py --hessian mean --shape mq2007 --noise 5 --seeds 1 11 --out mean.json
    .venv/bin/python benchmarks/data_shapes.py --compare mean.json exact.json
"""

from __future__ import annotations

import sys

import numpy as np

import metricrank.learners.gbranker as gbranker_module

_boost = gbranker_module.boost


def flattened(mode: str):
    """The engine's ``boost`` with the gradient callable's hessian replaced as ``mode`` says."""
    def boost(params, train, gradient, n_estimators, **kwargs):
        def replaced(raw):
            grad, hess = gradient(raw)
            if mode == "mean":
                return grad, np.full_like(hess, hess.mean())
            if mode == "nzmean":
                some = hess > 0
                return grad, np.where(some, hess[some].mean() if some.any() else 1.0, 0.0)
            return grad, np.full_like(hess, float(mode))
        return _boost(params, train, gradient if mode == "exact" else replaced, n_estimators, **kwargs)
    return boost


def main() -> None:
    args = sys.argv[1:]
    mode, objectives = "exact", ["YetiRank"]
    for option in ("--hessian", "--objectives"):
        if option in args:
            at = args.index(option)
            end = next((k for k in range(at + 1, len(args)) if args[k].startswith("--")), len(args))
            values, args = args[at + 1:end], args[:at] + args[end:]
            if option == "--hessian":
                if len(values) != 1:
                    sys.exit("--hessian wants one of exact, mean, nzmean or a finite positive number")
                mode = values[0]
            else:
                objectives = values
    if mode not in ("exact", "mean", "nzmean"):
        try:
            if not (np.isfinite(float(mode)) and float(mode) > 0):
                raise ValueError
        except ValueError:
            sys.exit(f"--hessian wants one of exact, mean, nzmean or a finite positive number; got {mode!r}")
    from metricrank.objectives import get_objective

    for spec in objectives:  # a bad spec fails here, not after the first data set is drawn
        try:
            get_objective(spec)
        except (KeyError, ValueError) as error:
            sys.exit(f"--objectives: {error}")
    gbranker_module.boost = flattened(mode)
    import data_shapes
    from metricrank.experiments import quality as q

    data_shapes.systems = lambda **params: {f"GBRanker({o})": (data_shapes.JUDGED, q.gbranker(o, **params))
                                            for o in objectives}
    sys.argv = [sys.argv[0], *args]
    print(f"hessian: {mode}", flush=True)
    data_shapes.main()


if __name__ == "__main__":
    main()

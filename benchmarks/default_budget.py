"""Out of the box, without a validation set: default ``LambdaMART`` after k trees, and the anchors with all defaults.

A user's first fit passes no ``eval_set``, so nothing chooses the tree count: the model keeps every
tree it grew. This measures default ``LambdaMART(M)`` (learning rate 0.1, ``random_state`` the
seed, one thread) at ``n_estimators`` k = 100 (the default, LightGBM's and XGBoost's), 200, 300
and 500: one fit of 500 trees on the training queries, read at ``predict(X,
num_iteration=k)``. Below 30,000 training documents that is the model ``n_estimators=k`` trains;
from there the capacity check reads its trials at their best tree count up to 500, where with
``n_estimators=k`` it would read them up to k, so it may keep other trees (the log prints what
each fit kept). Beside it, every anchor
with its library's defaults and no validation set: LightGBM's ``LGBMRanker()`` (lambdarank, 100
trees), XGBoost's ``XGBRanker()`` (rank:ndcg, 100 trees) when installed, and CatBoost's
``CatBoostRanker()`` (YetiRank, 1000 iterations, its automatic learning rate).

Splits are ``data_shapes.py``'s (the ``mq2008`` folds or fresh draws of the other shapes); per-query
test values of every split go to ``--out``; ``--tables`` joins files and prints, per judged metric,
the mean test value of each k and anchor, and the paired per-query test against k = 100 and
against the best anchor.

Run::

    python benchmarks/default_budget.py --shape mq2007 --noise 5 --seeds 1 5 --out budget_a.json
    python benchmarks/default_budget.py --tables budget_a.json budget_b.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json

import numpy as np
from data_shapes import SHAPES, joined, split

from metricrank import LambdaMART, evaluate
from metricrank._io import atomic_write
from metricrank.experiments import quality as q

JUDGED = ("NDCG:top=10;type=Exp", "MAP")
BUDGETS = (100, 200, 300, 500)


def anchors(seed: int) -> dict:
    """``{name: unfitted ranker}``: each library's ranker with its defaults (threads 1, seeded)."""
    import catboost
    import lightgbm

    out = {"LGBMRanker()": lightgbm.LGBMRanker(n_jobs=1, random_state=seed, verbose=-1),
           "CatBoostRanker()": catboost.CatBoostRanker(thread_count=1, random_seed=seed, verbose=False)}
    if importlib.util.find_spec("xgboost"):
        import xgboost

        out["XGBRanker()"] = xgboost.XGBRanker(n_jobs=1, random_state=seed)
    return out


def fit_anchor(name: str, model, train):
    sizes = np.diff(train.group_ptr)
    if name.startswith("CatBoost"):
        return model.fit(train.X, train.y, group_id=np.repeat(np.arange(sizes.size), sizes))
    if name.startswith("XGB"):
        return model.fit(train.X, train.y, qid=np.repeat(np.arange(sizes.size), sizes))
    return model.fit(train.X, train.y, group=sizes)


def run(args) -> dict:
    per_query: dict = {}
    for seed in range(*args.seeds):
        data = split(args.shape, args.noise, seed)
        for m in JUDGED:
            model = LambdaMART(m, n_estimators=max(BUDGETS), learning_rate=0.1, n_jobs=1, random_state=seed)
            model.fit(data.train)
            for k in BUDGETS:
                values = evaluate(data.test, model.predict(data.test.X, num_iteration=k), metric=m, per_query=True)
                per_query.setdefault(f"LambdaMART, {k} trees", {}).setdefault(m, []).extend(values.tolist())
            print(f"seed {seed} {m}: LambdaMART done ({model.num_leaves_} leaves, {model.n_models_} models)",
                  flush=True)
        for name, model in anchors(seed).items():
            scores = fit_anchor(name, model, data.train).predict(data.test.X)
            for m in JUDGED:
                values = evaluate(data.test, scores, metric=m, per_query=True)
                per_query.setdefault(name, {}).setdefault(m, []).extend(values.tolist())
            print(f"seed {seed}: {name} done", flush=True)
    return per_query


def tables(per_query: dict) -> list[str]:
    lines = []
    for m in JUDGED:
        values = {name: np.asarray(v[m]) for name, v in per_query.items() if m in v}
        anchor_names = [n for n in values if not n.startswith("LambdaMART")]
        best = max(anchor_names, key=lambda n: np.nanmean(values[n]))
        base = values[f"LambdaMART, {BUDGETS[0]} trees"]
        lines += [f"{m} ({base.size} test queries; best anchor {best})",
                  f"| system | test | Δ {BUDGETS[0]} trees, W/L, p | Δ best anchor, W/L, p |", "|---|---|---|---|"]
        for name, v in values.items():
            against_base = f"{np.nanmean(v) - np.nanmean(base):+.4f}, {q._compare(v, base)}" if name.startswith(
                "LambdaMART") and v is not base else ""
            against_best = "" if name == best else \
                f"{np.nanmean(v) - np.nanmean(values[best]):+.4f}, {q._compare(v, values[best])}"
            lines.append(f"| {name} | {np.nanmean(v):.4f} | {against_base} | {against_best} |")
        lines.append("")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(["mq2008", *SHAPES]))
    parser.add_argument("--noise", type=float)
    parser.add_argument("--seeds", type=int, nargs=2, metavar=("FIRST", "STOP"), default=(1, 2))
    parser.add_argument("--out", help="per-query test values (JSON)")
    parser.add_argument("--tables", nargs="+", metavar="JSON", help="print the tables of these --out files")
    args = parser.parse_args()
    if args.tables:
        print("\n".join(tables(joined(args.tables))))
        return
    if args.shape is None or args.out is None or (args.noise is None) != (args.shape == "mq2008"):
        parser.error("--shape and --out are required, and --noise with every shape but mq2008")
    per_query = run(args)
    with atomic_write(args.out) as f:
        f.write(json.dumps(per_query).encode())
    print("\n".join(tables(per_query)))


if __name__ == "__main__":
    main()

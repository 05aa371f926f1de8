"""Completed trees, leaf-wise trees, and the mean of the two models' scores (judged MRR by default).

Stop 65 made judged MRR grow completed symmetric trees where the capacity check runs: on clean draws
of the held-out collection's shape they gained 0.0063 over leaf-wise trees (p 0.007), on the suite's
noisy 40k and 50k sets they lost 0.0039 and 0.0027 (p 0.51, 0.41). This probe asks whether the two
kinds side by side keep the first and lose less of the second: it fits default ``LambdaMART("MRR")``
(completed trees there) and the same with ``grow_policy="leafwise"`` on each split, and scores a third
ranker, the mean of their two scores after k trees each. Each of the three gets its own tree count,
chosen on the validation queries by MRR (the suite's protocol), and its test MRR per query there. On
the drawn shapes CatBoost's YetiRank (the best anchor of those draws) runs beside them; on the suite's
sets every anchor's stored test values are read from the suite's cache. ``--metric`` judges by another
metric (``"NDCG:top=10;type=Exp"``): the models are then ``LambdaMART`` of that metric. Drawn shapes are
always scaled per query, as LETOR 4.0's files are (``data_shapes.py --query-norm``).

    .venv/bin/python benchmarks/mixed_kinds_probe.py --shape mq2007 --noise 1 --query-effect 1.2 \\
        --seeds 31 39 --out clean.json
    .venv/bin/python benchmarks/mixed_kinds_probe.py --shape synthetic-noisy-40k --seeds 1 4 --out n40.json
    .venv/bin/python benchmarks/mixed_kinds_probe.py --tables clean.json n40.json

Mean scores, as a probe: each kind is a fit of its own (four averaged models each on these sizes), so the mean
averages eight (BENCHMARKS.md, "Stop 67", for the control of eight models of one kind). Since stop 68 the library
grows the two kinds side by side as ``grow_policy="mixed"``, LambdaMART's default where the capacity check runs:
the completed trees are then set by hand here (``grow_policy="symmetric_then_leafwise"``, the default of stops
56-67 there; the name "completed (default)" is kept for the result files), and on a suite set whose stored
``LambdaMART(M)`` entry is a mixed fit the probe checks its mean against that entry instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import data_shapes as ds  # noqa: E402  (the shapes and splits of the other probes)

from metricrank import LambdaMART, evaluate  # noqa: E402
from metricrank._io import atomic_write  # noqa: E402
from metricrank.experiments import quality as q  # noqa: E402
from metricrank.learners._boosting import numba_threads  # noqa: E402
from metricrank.metrics import get_metric  # noqa: E402

METRIC = "MRR"  #: the judged metric unless --metric names another
KINDS = {"completed (default)": {"grow_policy": "symmetric_then_leafwise"}, "leaf-wise": {"grow_policy": "leafwise"}}
MIX = "mean of the two"


def cumulative_scores(model, X) -> np.ndarray:
    """Scores after 1, 2, ... trees: an array (trees, rows), each row the model's mean over its ``n_models``."""
    booster = model.booster_
    steps = [booster.predict(X, start_iteration=i, num_iteration=1, raw_score=True)
             for i in range(booster.current_iteration())]
    steps = [s.mean(axis=1) if s.ndim == 2 else s for s in steps]
    return np.cumsum(steps, axis=0)


def chosen(data: q.Split, vali_scores, test_scores, metric: str) -> dict:
    """The suite's protocol on precomputed score paths: k by the validation value, the test value per query there."""
    curve = q._curves(data, [metric], vali_scores)[metric]
    k = int(np.nanargmax(curve)) + 1
    per_query = evaluate(data.test, test_scores[k - 1], metric=metric, per_query=True)
    return {"trees": k, "vali": float(curve[k - 1]), "curve": curve, "per_query": [float(v) for v in per_query]}


def run_split(data: q.Split, lr: float, trees: int, metric: str = METRIC) -> dict:
    out, paths = {}, {}
    for name, params in KINDS.items():
        model = LambdaMART(metric, n_estimators=trees, learning_rate=lr, n_jobs=1, random_state=0, **params)
        model.fit(data.train, eval_set=[data.vali], eval_names=["vali"], eval_metrics=[metric])
        paths[name] = cumulative_scores(model, data.vali.X), cumulative_scores(model, data.test.X)
        out[name] = chosen(data, *paths[name], metric)
        # the cumulative path must give the fit's own validation curve, tree by tree (same trees, same metric)
        own = np.asarray(model.evals_result_["vali"][metric])
        if not np.allclose(own, out[name]["curve"], atol=1e-9, equal_nan=True):
            raise RuntimeError(f"{name}: validation {metric} from the score path differs from the fit's own curve")
    (v1, t1), (v2, t2) = paths.values()
    n = min(len(v1), len(v2))
    out[MIX] = chosen(data, (v1[:n] + v2[:n]) / 2, (t1[:n] + t2[:n]) / 2, metric)
    return out


def anchors_from_cache(data: q.Split, cache: dict, lr: float, trees: int, metric: str) -> dict:
    out = {}
    for name in q.ANCHORS:
        entry = cache.get(q._key(name, data, lr, trees))
        if entry and metric in entry:
            out[name] = {"trees": entry[metric]["trees"], "per_query": entry[metric]["per_query"]}
    return out


def joined(group: str) -> tuple[str, str, dict]:
    """One run from ``a.json,b.json`` (this probe's files of consecutive seeds): its judged metric, label and
    per-query values."""
    runs = [json.loads(Path(p).read_text()) for p in group.split(",")]
    names = list(runs[0]["systems"])
    if any(list(r["systems"]) != names or r.get("metric", METRIC) != runs[0].get("metric", METRIC) for r in runs):
        raise ValueError(f"{group}: the files hold different systems or metrics")
    metric = runs[0].get("metric", METRIC)
    return metric, " + ".join(r["label"] for r in runs), {n: np.concatenate([r["systems"][n] for r in runs])
                                                          for n in names}


def extra_values(spec: str, metric: str) -> tuple[str, np.ndarray]:
    """``NAME=a.json,b.json``: ``data_shapes.py --judged M`` runs of ``LambdaMART(M)`` (``--set`` changed)
    on the same seeds, in order, as one more system called NAME."""
    name, _, files = spec.partition("=")
    if not (name and files):
        raise ValueError(f"--extra takes NAME=FILE[,FILE...]; got {spec!r}")
    runs = [json.loads(Path(p).read_text()) for p in files.split(",")]
    return name, np.concatenate([r[f"LambdaMART({metric})"][metric] for r in runs])


def tables(groups, extras=()) -> list[str]:
    """Each system's mean test value, and its per-query difference (W/L, two-sided Wilcoxon p) to the two kinds, their
    mean, and the best anchor. ``extras`` (NAME=FILES) join every group: give one group with them."""
    lines = []
    for group in groups:
        metric, label, values = joined(group)
        for spec in extras:
            name, v = extra_values(spec, metric)
            if v.shape != values[MIX].shape:
                raise ValueError(f"--extra {name}: {v.size} test queries, the probe's files {values[MIX].size}")
            values[name] = v
        anchors = [s for s in values if s in q.ANCHORS]
        best = max(anchors, key=lambda s: np.nanmean(values[s])) if anchors else None
        lines.append(f"\n{group}: {metric}, {label} ({values[MIX].size} test queries; best anchor {best})")
        for s in values:
            row = f"  {s:28s} {np.nanmean(values[s]):.4f}"
            for ref in [r for r in ("completed (default)", "leaf-wise", MIX, best) if r and r != s]:
                d = values[s] - values[ref]
                row += f" | − {ref}: {np.nanmean(d):+.4f} ({q._compare(values[s], values[ref])})"
            lines.append(row)
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted([*ds.SHAPES, *ds.REAL]))
    parser.add_argument("--noise", type=float)
    parser.add_argument("--query-effect", type=float, default=0.0)
    parser.add_argument("--seeds", type=int, nargs=2, metavar=("FIRST", "STOP"))
    parser.add_argument("--metric", default=METRIC, help="the judged metric (default MRR)")
    parser.add_argument("--cache", default="benchmarks/results/quality/results.json",
                        help="the suite's cache (the anchors' stored runs on the suite's sets)")
    parser.add_argument("--out")
    parser.add_argument("--tables", nargs="+", metavar="OUT.json[,OUT.json]",
                        help="print the tables of these runs (files of one run's seeds joined by commas)")
    parser.add_argument("--extra", nargs="+", default=[], metavar="NAME=FILE[,FILE]",
                        help="with --tables: data_shapes.py runs of LambdaMART(M) on the same seeds, as system NAME")
    args = parser.parse_args(argv)
    if args.tables:
        try:
            print("\n".join(tables(args.tables, args.extra)))
        except ValueError as error:
            parser.error(str(error))
        return
    if not (args.shape and args.seeds and args.out) or (args.noise is None) != (args.shape in ds.REAL):
        parser.error("--shape, --seeds and --out are required, and --noise for a drawn shape")
    try:
        get_metric(args.metric)
    except ValueError as error:
        parser.error(f"--metric: {error}")
    lr, trees = 0.1, 300
    suite = args.shape in ds.REAL
    cache = json.loads(Path(args.cache).read_text()) if suite else {}
    label = (f"{args.shape} splits {args.seeds[0]}-{args.seeds[1] - 1}" if suite else
             f"{args.shape} draws {args.seeds[0]}-{args.seeds[1] - 1}, noise {args.noise:g}, "
             f"query effect {args.query_effect:g}, scaled per query")
    systems: dict = {}
    for seed in range(*args.seeds):
        data = ds.split(args.shape, args.noise, seed, args.query_effect)
        if not suite:  # LETOR's per-query scaling, as the held-out collection's files have it
            data = q.Split(data.dataset, data.fold, *(ds.query_minmax(d) for d in (data.train, data.vali, data.test)))
        with numba_threads(1):  # as the suite runs every system
            result = run_split(data, lr, trees, args.metric)
        if suite:
            stored = cache.get(q._key(f"LambdaMART({args.metric})", data, lr, trees))
            if stored is not None:  # the default fit reproduces the suite's stored one (mixed: two checks' texts)
                mixed = " | " in stored.get("capacity_check", "")
                mine = MIX if mixed else "completed (default)"
                same = np.allclose(stored[args.metric]["per_query"], result[mine]["per_query"], equal_nan=True)
                print(f"{seed}: {mine} {'equals' if same else 'DIFFERS FROM'} the suite's stored "
                      f"LambdaMART({args.metric})")
            result.update(anchors_from_cache(data, cache, lr, trees, args.metric))
        else:
            anchor = q.run_system(q.ANCHORS["CatBoost YetiRank"], data, (args.metric,), lr=lr, trees=trees, threads=1)
            result["CatBoost YetiRank"] = anchor[args.metric]
        for name, r in result.items():
            systems.setdefault(name, []).extend(r["per_query"])
        print(seed, {name: (round(float(np.nanmean(r["per_query"])), 4), r["trees"]) for name, r in result.items()},
              flush=True)
    with atomic_write(args.out) as f:
        f.write(json.dumps({"metric": args.metric, "label": label, "systems": systems}).encode())
    print("\n".join(tables([args.out])))


if __name__ == "__main__":
    main()

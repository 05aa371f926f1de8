"""Metric throughput: metricrank against ranx and pytrec_eval, timed in the same run.

The five MQ2008 test folds (every query once) are replicated, each copy with
fresh query ids, to at least ``--min-docs`` documents. Scores are a fixed
random projection of the features (no ties, so every library's tie rule gives
the same ranking). For each library the script times the metric computation on
its own prepared input (ranx: ``Qrels``/``Run`` built beforehand; pytrec_eval:
``RelevanceEvaluator`` built beforehand), checks that the three libraries agree
and prints docs/s and the ratio to ranx.

Run: ``python benchmarks/metric_throughput.py [--min-docs 1000000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from metricrank import evaluate_many, load_letor

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "MQ2008"
# metricrank spec under the trec_eval preset, ranx name, pytrec_eval measure and key
METRICS = [("NDCG:top=10", "ndcg@10", "ndcg_cut.10", "ndcg_cut_10"),
           ("MAP", "map", "map", "map"),
           ("MRR", "mrr", "recip_rank", "recip_rank")]


def load_replicated(min_docs: int):
    parts = [load_letor(DATA / f"Fold{k}" / "test.txt.gz", n_features=46) for k in range(1, 6)]
    X = np.vstack([p.X if isinstance(p.X, np.ndarray) else p.X.toarray() for p in parts])
    y = np.concatenate([p.y for p in parts])
    sizes = np.concatenate([p.query_sizes for p in parts])
    copies = -(-min_docs // y.size)
    w = np.random.default_rng(0).normal(size=X.shape[1])
    score = X @ w
    y_all = np.tile(y, copies)
    # small per-copy jitter keeps copies distinct without creating ties
    s_all = np.concatenate([score + 1e-9 * c for c in range(copies)])
    sizes_all = np.tile(sizes, copies)
    return y_all, s_all, sizes_all


def time_best(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-docs", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    y, s, sizes = load_replicated(args.min_docs)
    ptr = np.concatenate(([0], np.cumsum(sizes)))
    print(f"data: {y.size:,} documents, {sizes.size:,} queries (MQ2008 test folds replicated)")
    specs = [m[0] for m in METRICS]

    def ours():
        return {r.spec: r.value for r in evaluate_many(y, s, specs, group_ptr=ptr, preset="trec_eval")}

    ours()  # numba compile / cache load outside the timing
    t_ours, v_ours = time_best(ours, args.repeat)

    rows = [("metricrank", t_ours, v_ours)]
    qids = np.repeat(np.arange(sizes.size).astype(str), sizes).tolist()
    docs = np.concatenate([np.arange(n) for n in sizes]).astype(str).tolist()
    qrels_d, run_d = {}, {}
    for q, d, lab, sc in zip(qids, docs, y.astype(int).tolist(), s.tolist()):
        qrels_d.setdefault(q, {})[d] = lab
        run_d.setdefault(q, {})[d] = sc
    try:
        from ranx import Qrels, Run, evaluate as ranx_evaluate

        qrels, run = Qrels.from_dict(qrels_d), Run.from_dict(run_d)
        names = [m[1] for m in METRICS]
        ranx_evaluate(qrels, run, names)  # compile
        t, out = time_best(lambda: ranx_evaluate(qrels, run, names), args.repeat)
        rows.append(("ranx", t, {m[0]: out[m[1]] for m in METRICS}))
    except ImportError as err:
        print(f"ranx not installed ({err}); pip install -e '.[bench]'")
    try:
        import pytrec_eval

        evaluator = pytrec_eval.RelevanceEvaluator(qrels_d, {m[2] for m in METRICS})

        def trec():
            res = evaluator.evaluate(run_d)
            return {m[0]: float(np.mean([r[m[3]] for r in res.values()])) for m in METRICS}

        t, out = time_best(trec, args.repeat)
        rows.append(("pytrec_eval", t, out))
    except ImportError as err:
        print(f"pytrec_eval not installed ({err})")

    ranx_time = next((t for name, t, _ in rows if name == "ranx"), None)
    print(f"{'library':<12} {'seconds':>8} {'Mdocs/s':>8} {'vs ranx':>8}  " + "  ".join(specs))
    for name, t, vals in rows:
        ratio = f"{ranx_time / t:7.2f}x" if ranx_time else "     n/a"
        print(f"{name:<12} {t:8.3f} {y.size / t / 1e6:8.2f} {ratio}  "
              + "  ".join(f"{vals[m]:.6f}" for m in specs))
    for name, _, vals in rows[1:]:
        diff = max(abs(vals[m] - v_ours[m]) for m in specs)
        print(f"max |metricrank - {name}| = {diff:.2e}")


if __name__ == "__main__":
    main()

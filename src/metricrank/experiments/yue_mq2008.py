"""Yue et al. (seed ``004``) on MQ2008: SVM-MAP against SVM-ROCArea and the SVM-acc baselines.

Protocol (Welleck, seed ``000`` section 5, for the choice of ``C``):

* the five official MQ2008 folds; binary relevance = label > 0;
* per fold and method, ``C`` is chosen from ``C_grid`` by MAP on the
  validation set (ties go to the smaller ``C``), then the chosen model is
  scored on the test set;
* features: the 46 LETOR features as given (already normalised per query by
  LETOR) for SVM-MAP, SVM-ROCArea, SVM-acc and acc2; acc3/acc4 use their
  per-query percentile / min-max transform binned at 50 thresholds, as
  defined in section 5.2.1;
* Yue's table: mean test MAP, ROCArea and NDCG@10 over all test queries of
  the five folds (each MQ2008 query is a test query exactly once), the number
  of queries where SVM-MAP is better / worse than each baseline ("W/L") and a
  two-tailed Wilcoxon signed-rank test (``**``: p < 0.05). Queries a metric
  cannot score (ROCArea without both classes) are left out of that metric;
  MAP counts a query without relevant documents as 0 and NDCG@10 as 1
  (CatBoost conventions), so such queries are ties;
* also reported: Welleck's multi-class baseline (one SVM-ROCArea per
  relevance class, score ``sum_c c f_c``), and per fold the training time and
  cutting-plane iterations.

Run with ``python benchmarks/svm_mq2008.py`` or :func:`run`.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._io import atomic_write
from ..analysis import compare_per_query
from ..metrics import evaluate_many
from ..learners.svm_acc import SVMAcc
from ..learners.svm_map import SVMMAP
from ..learners.svm_roc import SVMROCArea, SVMROCAreaMultiClass
from ._datasets import load_mq2008_fold

__all__ = ["METHODS", "run"]

METRICS = ("MAP", "ROCArea", "NDCG:top=10")
METRIC_NAMES = ("MAP", "ROCArea", "NDCG@10")

#: SMO iteration cap of the kernel SVMs behind acc3/acc4 (their high-C fits converge slowly).
ACC_KERNEL_MAX_ITER = 250_000


def _make(name, C):
    if name == "SVM-MAP":
        return SVMMAP(C=C)
    if name == "SVM-ROCArea":
        return SVMROCArea(C=C)
    if name == "SVM-ROCArea multi-class":
        return SVMROCAreaMultiClass(C=C)
    variant = {"SVM-acc": "acc", "SVM-acc2": "acc2", "SVM-acc3": "acc3", "SVM-acc4": "acc4"}[name]
    cap = ACC_KERNEL_MAX_ITER if variant in ("acc3", "acc4") else None
    return SVMAcc(C=C, variant=variant, max_iter=cap)


METHODS = ("SVM-MAP", "SVM-ROCArea", "SVM-acc", "SVM-acc2", "SVM-acc3", "SVM-acc4",
           "SVM-ROCArea multi-class")


def _predict(model, ds):
    if isinstance(model, SVMAcc):
        return model.predict(ds.X, group=ds.query_sizes)
    return model.predict(ds.X)


def _fit_one(name, C, fold):
    model = _make(name, C)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(fold.train.X, fold.train.y, group=fold.train.query_sizes)
    seconds = time.perf_counter() - t0
    unconverged = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    vali = evaluate_many(fold.vali.y, _predict(model, fold.vali), ["MAP"], group_ptr=fold.vali.group_ptr)[0]
    info = dict(C=C, seconds=seconds, vali_map=vali.value, unconverged=unconverged)
    report = getattr(model, "fit_report_", None)
    if report is not None:
        info.update(n_iter=report.n_iter, n_constraints=report.n_constraints, gap=report.duality_gap,
                    mean_slack=report.mean_slack, skipped=report.n_queries_skipped,
                    used=report.n_queries_used, converged=report.converged)
    elif isinstance(model, SVMROCAreaMultiClass):
        info.update(n_iter=sum(e.n_iter_ for e in model.estimators_))
    else:
        info.update(n_iter=model.n_iter_)
    return model, info


def _fmt_p(p):
    return f"{p:.2g}" if p >= 1e-3 else f"{p:.1e}"


def run(data_dir=None, out_dir="reports/yue_mq2008", folds=(1, 2, 3, 4, 5), C_grid=(0.1, 1, 10, 100),
        progress=True, methods=METHODS) -> str:
    """Train every method on every fold, write ``<out_dir>/report.md`` and return the Markdown.

    Parameters
    ----------
    data_dir : path, optional
        Shared data directory (with ``MQ2008/Fold1..5``); see
        :func:`metricrank.experiments._datasets.shared_data_dir`.
    out_dir : path, default="reports/yue_mq2008"
    folds : iterable of int, default=(1, 2, 3, 4, 5)
    C_grid : iterable of float, default=(0.1, 1, 10, 100)
    progress : bool, default=True
        One line per fit on stderr.
    methods : iterable of str, default=METHODS
        Must include ``"SVM-MAP"`` (the reference of the W/L columns).

    Returns
    -------
    str
        The Markdown report.

    Examples
    --------
    Reads MQ2008 and takes about ten minutes; ``metricrank experiment yue`` runs it from the command line.

    >>> report = run(folds=(1,), C_grid=(1,), methods=("SVM-MAP", "SVM-ROCArea"))  # doctest: +SKIP
    """
    methods = tuple(methods)
    if "SVM-MAP" not in methods:
        raise ValueError("methods must include 'SVM-MAP', the reference of the comparison")
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"unknown methods {sorted(unknown)}; choose from {', '.join(METHODS)}")
    C_grid = tuple(float(c) for c in C_grid)
    per_query = {m: {k: [] for k in METRICS} for m in methods}
    fold_rows, grid_rows = [], []
    t_start = time.perf_counter()
    for k in folds:
        fold = load_mq2008_fold(k, data_dir)
        for name in methods:
            best = None
            total = 0.0
            for C in C_grid:
                model, info = _fit_one(name, C, fold)
                total += info["seconds"]
                grid_rows.append(dict(fold=k, method=name, **info))
                if progress:
                    print(f"fold {k} {name:24s} C={C:<6g} vali MAP {info['vali_map']:.4f} "
                          f"{info['seconds']:6.1f}s iters {info['n_iter']}", file=sys.stderr, flush=True)
                if best is None or info["vali_map"] > best[1]["vali_map"]:
                    best = (model, info)
            model, info = best
            results = evaluate_many(fold.test.y, _predict(model, fold.test), METRICS,
                                    group_ptr=fold.test.group_ptr)
            for spec, res in zip(METRICS, results):
                per_query[name][spec].append(res.per_query)
            fold_rows.append(dict(fold=k, method=name, grid_seconds=total,
                                  test_map=results[0].value, **info))
    elapsed = time.perf_counter() - t_start
    md = _report(methods, folds, C_grid, per_query, fold_rows, grid_rows, elapsed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_write(out / "report.md") as fh:
        fh.write(md.encode("utf-8"))
    return md


def _report(methods, folds, C_grid, per_query, fold_rows, grid_rows, elapsed):
    pooled = {m: {k: np.concatenate(v) for k, v in d.items()} for m, d in per_query.items()}
    lines = [
        "# SVM-MAP vs SVM-ROCArea and SVM-acc on MQ2008 (Yue et al. 2007, Tables 9-11 format)",
        "",
        f"Folds {', '.join(map(str, folds))}; C chosen per fold and method by validation MAP from "
        f"{{{', '.join(f'{c:g}' for c in C_grid)}}}; binary relevance = label > 0. Means are over all "
        "test queries of these folds a metric can score; W/L = queries where SVM-MAP is better/worse "
        "(ties not counted); p = two-tailed Wilcoxon signed-rank test of SVM-MAP against the row; "
        "** = p < 0.05.",
        "",
    ]
    header = "| Model |"
    sep = "|---|"
    for nm in METRIC_NAMES:
        header += f" {nm} | W/L | p |"
        sep += "---:|:---:|---:|"
    lines += [header, sep]
    ref = pooled["SVM-MAP"]
    for m in methods:
        row = f"| {m} |"
        for spec in METRICS:
            a, b = ref[spec], pooled[m][spec]
            keep = ~np.isnan(a) & ~np.isnan(b)
            row += f" {np.mean(b[keep]):.4f} |"
            if m == "SVM-MAP":
                row += " – | – |"
            else:
                cmp = compare_per_query(a[keep], b[keep])
                star = " **" if cmp.significant(0.05) else ""
                row += f" {cmp.wins}/{cmp.losses}{star} | {_fmt_p(cmp.pvalue)} |"
        lines.append(row)
    n_q = {spec: int(np.sum(~np.isnan(ref[spec]))) for spec in METRICS}
    lines += ["", "Queries scored: " + ", ".join(f"{nm} {n_q[s]}" for nm, s in zip(METRIC_NAMES, METRICS)) + ".",
              "", "## Per fold: chosen C, validation/test MAP, training time and iterations", "",
              "| Fold | Model | C | vali MAP | test MAP | train s (chosen C) | train s (grid) | iterations |",
              "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in fold_rows:
        flag = " (not converged)" if r.get("unconverged") else ""
        lines.append(f"| {r['fold']} | {r['method']} | {r['C']:g} | {r['vali_map']:.4f} | {r['test_map']:.4f} | "
                     f"{r['seconds']:.1f} | {r['grid_seconds']:.1f} | {r['n_iter']}{flag} |")
    lines += ["", "## Structural SVMs: every fit of the grid", "",
              "| Fold | Model | C | train s | cutting-plane iterations | working set | duality gap | "
              "mean slack | queries used / skipped | converged |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|:---:|"]
    for r in grid_rows:
        if "gap" not in r:
            continue
        lines.append(f"| {r['fold']} | {r['method']} | {r['C']:g} | {r['seconds']:.1f} | {r['n_iter']} | "
                     f"{r['n_constraints']} | {r['gap']:.2e} | {r['mean_slack']:.4f} | "
                     f"{r['used']} / {r['skipped']} | {'yes' if r['converged'] else 'no'} |")
    struct = [r for r in grid_rows if r["method"] == "SVM-MAP"]
    if struct:
        worst = max(r["seconds"] for r in struct)
        lines += ["", f"Slowest SVM-MAP fit: {worst:.1f} s (goal: < 60 s per fold)."]
    others = [r for r in grid_rows if r.get("unconverged") and "gap" not in r]
    if others:
        lines += ["", "Baseline fits that hit their solver's iteration cap (ConvergenceWarning): " + ", ".join(
            f"fold {r['fold']} {r['method']} C={r['C']:g}" for r in others) + "."]
    lines += ["", f"Total wall time: {elapsed:.0f} s.", ""]
    return "\n".join(lines)

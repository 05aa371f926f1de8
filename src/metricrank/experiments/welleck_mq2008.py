"""Welleck's quality experiment on MQ2008: LambdaMART trained on MAUC, AUC, MAP and NDCG.

For each of the five official folds and each λ target, the learning rate is
chosen from {0.1, 0.25, 0.5, 0.9} (the paper's grid) by the target's own
metric on the validation fold, with early stopping on that same metric; the
chosen model is then evaluated on the test fold. Reported: mean test MAUC,
AUC (binary relevance), MAP, NDCG@10 and Precision_micro/macro@1..10 over the
folds, the paper's MQ2008 figures (Tables 1 and 2), and per target a
query-level comparison (wins/losses, two-tailed Wilcoxon) against every other
target on the target's own metric.

Run: ``metricrank experiment welleck`` (or :func:`run`).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from .._io import atomic_write, save_figure
from ..analysis import compare_per_query
from ..learners import LambdaMART
from ..metrics import evaluate, evaluate_many
from ._datasets import load_mq2008_fold

__all__ = ["TARGETS", "run"]

#: (name, λ target, metric used for model selection and "its own" metric)
TARGETS = (
    ("LambdaMART-MAUC", "MAUC", "MAUC"),
    ("LambdaMART-AUC", "ROCArea", "ROCArea"),
    ("LambdaMART-MAP", "MAP", "MAP"),
    ("LambdaMART-NDCG", "NDCG:top=10;type=Exp", "NDCG:top=10;type=Exp"),
)
TEST_METRICS = ("MAUC", "ROCArea", "MAP", "NDCG:top=10;type=Exp")
PRECISION_KS = tuple(range(1, 11))
#: Welleck Tables 1 and 2, MQ2008 column.
PAPER = {"LambdaMART-MAUC": {"MAUC": 0.734, "MAP": 0.474}, "SVM-Perf": {"MAUC": 0.737, "MAP": 0.458}}
LEARNING_RATES = (0.1, 0.25, 0.5, 0.9)


def _fit_selected(target, select_metric, fold, learning_rates, n_estimators, early_stopping_rounds, n_jobs):
    best = None
    for lr in learning_rates:
        model = LambdaMART(target, target=target, n_estimators=n_estimators, learning_rate=lr, num_leaves=15,
                           min_data_in_leaf=20, n_jobs=n_jobs, random_state=0)
        model.fit(fold.train, eval_set=[fold.vali], eval_names=["vali"], eval_metrics=[select_metric],
                  early_stopping_rounds=early_stopping_rounds)
        score = model.best_score_["vali"][select_metric]
        if best is None or score > best[0]:
            best = (score, lr, model)
    return best


def run(data_dir=None, out_dir: str | os.PathLike = "reports/welleck_mq2008", folds=(1, 2, 3, 4, 5),
        learning_rates=LEARNING_RATES, n_estimators: int = 300, early_stopping_rounds: int = 30,
        n_jobs: int | None = None, progress: bool = True) -> str:
    """Run the experiment, write ``report.md`` (and ``precision.png``) to ``out_dir``; return the Markdown.

    Parameters
    ----------
    data_dir : path, optional
        The shared data directory (with ``MQ2008/Fold1..5``).
    out_dir : path, default="reports/welleck_mq2008"
    folds : sequence of int, default=(1, 2, 3, 4, 5)
    learning_rates : sequence of float, default=LEARNING_RATES
        Each target's model is chosen among these by its own metric on the validation fold.
    n_estimators : int, default=300
    early_stopping_rounds : int, default=30
    n_jobs : int, optional
    progress : bool, default=True

    Returns
    -------
    str
        The Markdown report.

    Examples
    --------
    Reads MQ2008 and takes minutes; ``metricrank experiment welleck`` runs it from the command line.

    >>> report = run(folds=(1,), learning_rates=(0.1,), progress=False)  # doctest: +SKIP
    """
    per_query: dict = {name: {m: [] for m in TEST_METRICS} for name, *_ in TARGETS}
    values: dict = {name: {m: [] for m in TEST_METRICS} for name, *_ in TARGETS}
    micro = {name: np.zeros((len(folds), len(PRECISION_KS))) for name, *_ in TARGETS}
    macro = {name: np.zeros((len(folds), len(PRECISION_KS))) for name, *_ in TARGETS}
    chosen: dict = {name: [] for name, *_ in TARGETS}
    seconds: dict = {name: 0.0 for name, *_ in TARGETS}
    for f_i, k in enumerate(folds):
        fold = load_mq2008_fold(k, data_dir)
        for name, target, select_metric in TARGETS:
            start = time.perf_counter()
            score, lr, model = _fit_selected(target, select_metric, fold, learning_rates, n_estimators,
                                             early_stopping_rounds, n_jobs)
            seconds[name] += time.perf_counter() - start
            chosen[name].append((lr, model.best_iteration_))
            scores = model.predict(fold.test.X)
            for metric in TEST_METRICS:
                values[name][metric].append(evaluate(fold.test, scores, metric=metric))
                per_query[name][metric].append(evaluate(fold.test, scores, metric=metric, per_query=True))
            specs = [f"PrecisionMicro:top={j}" for j in PRECISION_KS] + [f"PrecisionMacro:top={j}" for j in PRECISION_KS]
            res = evaluate_many(fold.test, scores, specs)
            micro[name][f_i] = [r.value for r in res[: len(PRECISION_KS)]]
            macro[name][f_i] = [r.value for r in res[len(PRECISION_KS):]]
            if progress:
                print(f"fold {k} {name}: lr {lr} ({model.best_iteration_} trees), vali {select_metric} "
                      f"{score:.4f}, test " + ", ".join(f"{m} {values[name][m][-1]:.4f}" for m in TEST_METRICS),
                      flush=True)
    report = _report(folds, values, per_query, micro, macro, chosen, seconds, learning_rates, n_estimators,
                     early_stopping_rounds)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plot_note = _plot(out / "precision.png", micro, macro)
    report += plot_note
    with atomic_write(out / "report.md") as fh:
        fh.write(report.encode("utf-8"))
    return report


def _report(folds, values, per_query, micro, macro, chosen, seconds, learning_rates, n_estimators, esr) -> str:
    names = [name for name, *_ in TARGETS]
    lines = [
        "# Welleck et al. on MQ2008: LambdaMART trained on each target metric",
        "",
        f"Folds {', '.join(map(str, folds))}; learning rate chosen from {list(learning_rates)} on the validation "
        f"fold by the target's own metric; up to {n_estimators} trees, early stopping after {esr} rounds on that "
        "metric; 15 leaves, min_data_in_leaf 20. Test values are means over the folds. AUC = per-query AUC "
        "of binary relevance (label > 0); MAP: label >= 1 relevant; NDCG@10 with gain 2^l - 1.",
        "",
        "| model | MAUC | AUC | MAP | NDCG@10 | P_micro@1 | P_micro@10 | train s (all lr) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    best = {m: max(np.mean(values[n][m]) for n in names) for m in TEST_METRICS}
    for name in names:
        cells = []
        for m in TEST_METRICS:
            v = float(np.mean(values[name][m]))
            cells.append(f"**{v:.4f}**" if v == best[m] else f"{v:.4f}")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {micro[name][:, 0].mean():.4f} | "
                     f"{micro[name][:, -1].mean():.4f} | {seconds[name]:.1f} |")
    for name, figures in PAPER.items():
        lines.append(f"| paper: {name} | {figures['MAUC']:.3f} | | {figures['MAP']:.3f} | | | | |")
    lines += ["", "Chosen learning rate (trees) per fold: " + "; ".join(
        f"{name}: " + ", ".join(f"{lr} ({it})" for lr, it in chosen[name]) for name in names), ""]
    lines += ["## Does each target win on its own metric?", "",
              "Query-level comparison on the target's own test metric, all folds pooled (queries the metric "
              "cannot score, such as MAUC of a query with a single label, left out): wins/losses of the "
              "target's model against each other model and the two-tailed Wilcoxon signed-rank p-value.", "",
              "| target (own metric) | " + " | ".join(f"vs {n}" for n in names) + " |",
              "|---|" + "---|" * len(names)]
    for name, _target, own in TARGETS:
        mine = np.concatenate(per_query[name][own])
        cells = []
        for other in names:
            if other == name:
                cells.append("—")
                continue
            theirs = np.concatenate(per_query[other][own])
            scored = np.isfinite(mine) & np.isfinite(theirs)  # e.g. MAUC of a query with one label
            cmp = compare_per_query(mine[scored], theirs[scored])
            cells.append(f"{cmp.wins}/{cmp.losses}, p={cmp.pvalue:.3f}")
        lines.append(f"| {name} ({own}) | " + " | ".join(cells) + " |")
    lines += ["", "## Precision_micro@k and Precision_macro@k (Welleck eq. 2 and 4), mean over folds", "",
              "| model | " + " | ".join(f"@{k}" for k in PRECISION_KS) + " |", "|---|" + "---:|" * len(PRECISION_KS)]
    for name in names:
        lines.append(f"| {name} micro | " + " | ".join(f"{v:.4f}" for v in micro[name].mean(axis=0)) + " |")
    for name in names:
        lines.append(f"| {name} macro | " + " | ".join(f"{v:.4f}" for v in macro[name].mean(axis=0)) + " |")
    lines.append("")
    lines.append("Micro and macro precision coincide: with eq. 2 and eq. 4 as printed they are the same "
                 "quantity (see `metricrank.metrics._multiclass`).")
    lines.append("")
    return "\n".join(lines)


def _plot(path: Path, micro, macro) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "\n(precision plot skipped: matplotlib is not installed; `pip install metricrank[experiments]`)\n"
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, table, title in ((axes[0], micro, "Precision_micro@k"), (axes[1], macro, "Precision_macro@k")):
        for name, values in table.items():
            ax.plot(PRECISION_KS, values.mean(axis=0), marker="o", label=name)
        ax.set_title(title)
        ax.set_xlabel("k")
    axes[0].legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    return f"\n![precision at k]({path.name})\n"

"""Burges' overview on MQ2008: RankNet, LambdaRank, LambdaMART and their optimal combination.

For each official fold (issue 12 §4):

* RankNet and LambdaRank (``NDCG:top=10``) with their defaults (15 epochs, one
  hidden layer of 32 units, Adam 1e-3, 8 queries per step), ``n_jobs=1``, seed 0,
  no early stopping;
* LambdaMART (``NDCG:top=10``): up to 300 trees, learning rate 0.1, 15 leaves,
  min_data_in_leaf 20, tree count chosen on the validation fold by NDCG@10
  (early stopping after 30 rounds without improvement);
* the optimal combination ``α·z_LM + (1 - α)·z_LR`` of LambdaMART and LambdaRank
  (Burges sec. 7.1): each ranker's scores are standardised by the mean and standard
  deviation of its scores on the *validation* fold (so α weighs comparable scales),
  α is chosen exactly on the validation fold by NDCG@10
  (:func:`~metricrank.analysis.optimal_combination`) and applied to the test fold.

Test metrics: NDCG@10, MAP and ERR (``ERR:type=Graded;max_label=2``: Burges'
graded ERR ``R = (2^l - 1) / 2^l_max`` with MQ2008's label scale 0..2 fixed, not
taken from the data). Query-level two-tailed Wilcoxon over all test queries of the
folds. Burges' local-optimality test (random directions, δ = p0 = 0.01, 459
directions by default) on NDCG@10 on the *training* set for each trained model.

Run: ``metricrank experiment burges`` (or :func:`run`).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from .._io import atomic_write
from ..analysis import compare_per_query, local_optimality, optimal_combination
from ..learners import LambdaMART, LambdaRank, RankNet
from ..metrics import evaluate
from ._datasets import Fold, load_mq2008_fold

__all__ = ["MODELS", "TEST_METRICS", "run"]

TARGET = "NDCG:top=10"
#: (column title, metric spec)
TEST_METRICS = (("NDCG@10", "NDCG:top=10"), ("MAP", "MAP"), ("ERR", "ERR:type=Graded;max_label=2"))
COMBINATION = "Combination LM+LR"
MODELS = ("RankNet", "LambdaRank", "LambdaMART", COMBINATION)
TRAINED = ("RankNet", "LambdaRank", "LambdaMART")
#: the local-optimality test is repeated on the first fold at this fraction of the default step
SMALL_STEP_FACTOR = 0.1
#: (model, baseline) pairs of the query-level comparison
COMPARISONS = (("RankNet", "LambdaMART"), ("LambdaRank", "LambdaMART"), (COMBINATION, "LambdaMART"),
               (COMBINATION, "LambdaRank"), ("LambdaRank", "RankNet"))


def _fit_models(fold, n_estimators, early_stopping_rounds, net_epochs, n_jobs, random_state):
    net_kw = {"n_jobs": n_jobs, "random_state": random_state}
    if net_epochs is not None:
        net_kw["max_epochs"] = net_epochs
    models = {
        "RankNet": RankNet(**net_kw),
        "LambdaRank": LambdaRank(TARGET, **net_kw),
        "LambdaMART": LambdaMART(TARGET, target=TARGET, n_estimators=n_estimators, learning_rate=0.1, num_leaves=15,
                                 min_data_in_leaf=20, n_jobs=n_jobs, random_state=random_state),
    }
    seconds = {}
    for name, model in models.items():
        start = time.perf_counter()
        if name == "LambdaMART":
            model.fit(fold.train, eval_set=[fold.vali], eval_names=["vali"], eval_metrics=[TARGET],
                      early_stopping_rounds=early_stopping_rounds)
        else:
            model.fit(fold.train)
        seconds[name] = time.perf_counter() - start
    return models, seconds


def _standardiser(scores):
    mean, std = float(np.mean(scores)), float(np.std(scores))
    return mean, (std if std > 0 else 1.0)


def _optimality(name, model, ds, n_directions, random_state, n_jobs, step=None):
    """Local-optimality test of ``model`` on ``ds``; nets are tested through their torch module
    on the standardised features they see (the parameters θ are the network's weights)."""
    if name == "LambdaMART":
        return local_optimality(model, ds, metric=TARGET, random_state=random_state, n_directions=n_directions,
                                n_jobs=n_jobs, step=step)
    import torch

    module = model.model_
    module.eval()
    X = model._standardise(np.asarray(ds.X, dtype=np.float64))
    before = torch.get_num_threads()
    torch.set_num_threads(n_jobs or before)
    try:
        return local_optimality(module, X, ds.y, group_ptr=ds.group_ptr, metric=TARGET, random_state=random_state,
                                n_directions=n_directions, n_jobs=n_jobs, step=step)
    finally:
        torch.set_num_threads(before)


def run(data_dir=None, out_dir: str | os.PathLike = "reports/burges_mq2008", folds=(1, 2, 3, 4, 5),
        optimality_folds=None, n_directions: int | None = None, n_estimators: int = 300,
        early_stopping_rounds: int = 30, net_epochs: int | None = None, n_jobs: int = 1, random_state: int = 0,
        progress: bool = True) -> str:
    """Run the experiment, write ``report.md`` and the PNGs to ``out_dir``; return the Markdown.

    Parameters
    ----------
    data_dir : path, optional
        The shared data directory (with ``MQ2008/Fold1..5``).
    out_dir : path, default="reports/burges_mq2008"
    folds : sequence of int, default=(1, 2, 3, 4, 5)
    optimality_folds : sequence of int, optional
        The folds whose trained models get the local-optimality test (default: all ``folds``).
    n_directions : int, optional
        Directions of the test (default: the 459 of δ = p0 = 0.01).
    n_estimators : int, default=300
        LambdaMART's tree budget, early stopping on the validation fold.
    early_stopping_rounds : int, default=30
    net_epochs : int, optional
        The nets' ``max_epochs`` (default: theirs); fewer for quick runs.
    n_jobs : int, default=1
    random_state : int, default=0
    progress : bool, default=True

    Returns
    -------
    str
        The Markdown report.

    Examples
    --------
    Reads MQ2008 and takes minutes; ``metricrank experiment burges`` runs it from the command line.

    >>> report = run(folds=(1,), n_directions=20, net_epochs=5, progress=False)  # doctest: +SKIP
    """
    optimality_folds = tuple(folds if optimality_folds is None else optimality_folds)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    values = {name: {spec: [] for _t, spec in TEST_METRICS} for name in MODELS}
    per_query = {name: {spec: [] for _t, spec in TEST_METRICS} for name in MODELS}
    seconds = {name: [] for name in TRAINED}
    combos, trees, optimality, small_step = [], [], {name: [] for name in TRAINED}, {}
    notes = []
    for k in folds:
        fold = load_mq2008_fold(k, data_dir)
        if k == folds[0]:  # untimed warm-up: the first fit compiles the numba kernels and loads torch
            _fit_models(Fold(k, fold.vali, fold.test, fold.test), 2, 1, 1, n_jobs, random_state)
        models, secs = _fit_models(fold, n_estimators, early_stopping_rounds, net_epochs, n_jobs, random_state)
        for name in TRAINED:
            seconds[name].append(secs[name])
        trees.append(models["LambdaMART"].best_iteration_)
        test_scores = {name: models[name].predict(fold.test.X) for name in TRAINED}
        vali_lm, vali_lr = (models[n].predict(fold.vali.X) for n in ("LambdaMART", "LambdaRank"))
        (m_lm, s_lm), (m_lr, s_lr) = _standardiser(vali_lm), _standardiser(vali_lr)
        start = time.perf_counter()
        combo = optimal_combination((vali_lm - m_lm) / s_lm, (vali_lr - m_lr) / s_lr, fold.vali.y,
                                    group_ptr=fold.vali.group_ptr, metric=TARGET, n_jobs=n_jobs)
        combos.append((k, combo, time.perf_counter() - start))
        test_scores[COMBINATION] = (combo.alpha * (test_scores["LambdaMART"] - m_lm) / s_lm
                                    + (1.0 - combo.alpha) * (test_scores["LambdaRank"] - m_lr) / s_lr)
        for name in MODELS:
            for _title, spec in TEST_METRICS:
                values[name][spec].append(evaluate(fold.test, test_scores[name], metric=spec))
                per_query[name][spec].append(evaluate(fold.test, test_scores[name], metric=spec, per_query=True))
        if k == folds[0]:
            notes.append(_save_plot(combo.plot, out / "combination.png", "combination curve"))
        if progress:
            print(f"fold {k}: " + "; ".join(f"{n} NDCG@10 {values[n][TARGET][-1]:.4f}" for n in MODELS)
                  + f"; α {combo.alpha:.4f}, LambdaMART {trees[-1]} trees; train s "
                  + ", ".join(f"{n} {secs[n]:.1f}" for n in TRAINED), flush=True)
        if k in optimality_folds:
            for name in TRAINED:
                start = time.perf_counter()
                res = _optimality(name, models[name], fold.train, n_directions, random_state, n_jobs)
                optimality[name].append((k, res, time.perf_counter() - start))
                if k == optimality_folds[0]:  # the same test at a step ten times smaller
                    small = _optimality(name, models[name], fold.train, n_directions, random_state, n_jobs,
                                        step=SMALL_STEP_FACTOR * res.step)
                    small_step[name] = (k, small)
                    notes.append(_save_plot(res.plot, out / f"optimality_{name}.png",
                                            f"{name}: NDCG@10 along the best direction"))
                if progress:
                    print(f"fold {k} {name} local optimality: {res.n_ascent}/{res.n_directions} ascent, "
                          f"max gain {res.max_gain:.3g} ({optimality[name][-1][2]:.1f} s)", flush=True)
    report = _report(folds, optimality_folds, values, per_query, seconds, combos, trees, optimality, small_step,
                     n_estimators, early_stopping_rounds, net_epochs)
    report += "\n" + "\n".join(notes) + "\n"
    with atomic_write(out / "report.md") as fh:
        fh.write(report.encode("utf-8"))
    return report


def _save_plot(draw, path: Path, title: str) -> str:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return f"({title}: plot skipped, matplotlib is not installed; `pip install metricrank[experiments]`)\n"
    tmp = path.with_name(path.stem + ".tmp.png")
    draw(tmp)
    os.replace(tmp, path)
    return f"![{title}]({path.name})\n"


def _report(folds, optimality_folds, values, per_query, seconds, combos, trees, optimality, small_step,
            n_estimators, esr, net_epochs) -> str:
    epochs = "15 epochs (default)" if net_epochs is None else f"{net_epochs} epochs"
    lines = [
        "# Burges on MQ2008: RankNet, LambdaRank, LambdaMART and their optimal combination",
        "",
        f"Fold(s) {', '.join(map(str, folds))}. RankNet and LambdaRank (NDCG@10 λ): the nets' defaults (one hidden "
        f"layer of 32 ReLU units, Adam 1e-3, 8 queries per step, {epochs}, no early stopping), seed 0, 1 thread. "
        f"LambdaMART (NDCG@10 λ): up to {n_estimators} trees, learning rate 0.1, 15 leaves, min_data_in_leaf 20, "
        f"tree count chosen on the validation fold by NDCG@10 (early stopping after {esr} rounds), 1 thread. "
        "Combination: α·z_LM + (1 − α)·z_LR where each ranker's scores are standardised by the mean and "
        "standard deviation of its own scores on the validation fold; α maximises validation NDCG@10 exactly "
        "(`optimal_combination`, Burges sec. 7.1) and is then applied unchanged to the test fold. "
        "Test values are means over the folds. NDCG@10 with gain 2^l − 1; MAP with label ≥ 1 relevant; "
        "ERR = `ERR:type=Graded;max_label=2` (Burges' R = (2^l − 1)/2^l_max with MQ2008's label scale "
        "0..2 given explicitly rather than left to the metric's default). Training seconds "
        "exclude an untimed warm-up fit (numba compilation, torch start-up); other jobs shared the 2 cores.",
        "",
        "| model | " + " | ".join(t for t, _s in TEST_METRICS) + " | train s per fold |",
        "|---|" + "---:|" * (len(TEST_METRICS) + 1),
    ]
    best = {s: max(np.mean(values[n][s]) for n in MODELS) for _t, s in TEST_METRICS}
    for name in MODELS:
        cells = []
        for _t, spec in TEST_METRICS:
            v = float(np.mean(values[name][spec]))
            cells.append(f"**{v:.4f}**" if v == best[spec] else f"{v:.4f}")
        if name in seconds:
            secs = f"{np.mean(seconds[name]):.1f}"
        else:
            secs = f"{np.mean([t for *_x, t in combos]):.1f} (α search; plus both parents)"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {secs} |")
    lines += ["", "Per fold: α (weight of LambdaMART), validation NDCG@10 of the combination at α, of "
              "LambdaRank alone (α = 0) and LambdaMART alone (α = 1), LambdaMART's tree count, test NDCG@10 "
              "of the combination.", "",
              "| fold | α | vali NDCG@10 at α | α = 0 (LR) | α = 1 (LM) | breakpoints | LM trees | test NDCG@10 |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for i, (k, combo, _secs) in enumerate(combos):
        lines.append(f"| {k} | {combo.alpha:.4f} | {combo.value:.4f} | {combo.value_at_0:.4f} | "
                     f"{combo.value_at_1:.4f} | {combo.breakpoints.shape[0]} | {trees[i]} | "
                     f"{values[COMBINATION][TARGET][i]:.4f} |")
    lines += ["", "## Query-level comparison", "",
              "All test queries of the folds pooled (queries a metric cannot score left out): wins/losses of "
              "the first model against the second and the two-tailed Wilcoxon signed-rank p-value.", "",
              "| comparison | " + " | ".join(t for t, _s in TEST_METRICS) + " |",
              "|---|" + "---|" * len(TEST_METRICS)]
    for a, b in COMPARISONS:
        cells = []
        for _t, spec in TEST_METRICS:
            va, vb = np.concatenate(per_query[a][spec]), np.concatenate(per_query[b][spec])
            scored = np.isfinite(va) & np.isfinite(vb)
            cmp = compare_per_query(va[scored], vb[scored])
            cells.append(f"{cmp.wins}/{cmp.losses}, p={cmp.pvalue:.3g}")
        lines.append(f"| {a} vs {b} | " + " | ".join(cells) + " |")
    lines += ["", "## Local optimality on the training set", ""]
    if optimality_folds:
        first = next(iter(optimality.values()))
        n_dir = first[0][1].n_directions if first else 0
        lines += [
            f"Burges' Monte-Carlo test (sec. 4.2) on fold(s) {', '.join(map(str, optimality_folds))}: the trained "
            f"parameters θ* (LambdaMART: the leaf values of its trees; nets: all weights and biases, on the "
            f"standardised features) are moved by step = 0.01·‖θ*‖ along {n_dir} random unit directions and "
            "training NDCG@10 is recomputed; a direction ascends when it improves NDCG@10. With no ascent "
            "in n directions the fraction of ascent directions is at most p0 with confidence 1 − δ "
            "(n = ⌈log δ / log(1 − p0)⌉ = 459 for δ = p0 = 0.01). Burges' claim: LambdaRank reaches a local "
            "optimum of its metric on the training set. \"unchanged\": directions where NDCG@10 did not move "
            "at all (the step reorders no pair); max gain: the largest improvement of training NDCG@10.", "",
            "| model | fold | train NDCG@10 | ascent | unchanged | max gain | step | s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name in TRAINED:
            for k, res, secs in optimality[name]:
                lines.append(f"| {name} | {k} | {res.base_value:.4f} | {res.n_ascent}/{res.n_directions} | "
                             f"{res.n_unchanged} | {res.max_gain:.3g} | {res.step:.3g} | {secs:.1f} |")
        lines.append("")
        for name in TRAINED:
            for k, res, _secs in optimality[name]:
                lines.append(f"- {name}, fold {k}: {res.bound}.")
        lines += ["", f"The same test with step = {SMALL_STEP_FACTOR:g} × the default (0.001·‖θ*‖), fold "
                  f"{optimality_folds[0]}, same directions:", "",
                  "| model | ascent | unchanged | max gain | step |", "|---|---:|---:|---:|---:|"]
        for name in TRAINED:
            k, res = small_step[name]
            lines.append(f"| {name} | {res.n_ascent}/{res.n_directions} | {res.n_unchanged} | {res.max_gain:.3g} | "
                         f"{res.step:.3g} |")
    else:
        lines.append("(not run)")
    lines.append("")
    return "\n".join(lines)

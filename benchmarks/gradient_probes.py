"""Which gradient for which judged metric (BENCHMARKS.md, stop 18): LambdaMART variants on the noisy
MQ2007-sized suite set with six seeds (the suite uses seeds 1-3), every other parameter at its default.

Candidates (``--candidates``; values in ``benchmarks/results/gradient_probes_r7.json``):

* ``base``: ``LambdaMART(metric=M, target=M)``, the metric's exact λ (stop 17's default for these metrics).
* ``yeti``: ``GBRanker("YetiRank")`` judged by M (the same trees as ``LambdaMART(metric=M)`` since stop 18).
* ``sigma0.5``, ``sigma2``, ``wholelist`` (λ of ``NDCG:type=Exp`` over the whole list), ``bag0.7``,
  ``ff0.7``, ``l2_30``, ``mdl50``: one λ or tree option changed.
* ``pllK:S``: the exact λ averaged over K rankings of the scores plus S x standard logistic noise
  (YetiRank's noise; Bruch et al. 2020's stochastic treatment); ``plrK:C``: Gumbel noise scaled to
  C x each query's score standard deviation.
* ``yeti-l2_3``, ``yeti-l2_30``, ``yeti-l2_0``, ``yeti-mdl50``, ``yeti-noextra``: YetiRank with one tree
  default changed (``lambda_l2`` 3 / 30 / 0, ``min_data_in_leaf`` 50, ``extra_trees=False``), the tree
  defaults checked again for the new default gradient (also on MQ2008: ``--datasets noisy mq2008``).
* ``yeti-31``, ``yeti-31-noextra``, ``yeti-63-d6``, ``yeti-63-d6-noextra``, ``yeti-31-mdl50``: YetiRank with
  more capacity than the 15 leaves that ``num_leaves="auto"`` gives both the noisy set and the clean
  52,000-document set (63 leaves at depth at most 6: CatBoost's capacity), with and without randomised
  splits (stop 19; ``--datasets noisy synthetic-50k``); ``yeti-63``: 63 leaves, one level more than
  ``num_leaves="auto"`` gives from 62,000 documents (``--datasets synthetic-250k``, and ``noisy-190k``:
  the noisy set's kind at 4,800 queries, ``--reference yeti-31``). ``yeti-31-noextra-l2_1``,
  ``yeti-31-noextra-l2_0``: 31 leaves without randomised splits (what the capacity check keeps on the
  clean 50k set) with ``lambda_l2`` 1, 0 and 3 (``-l2_3``) instead of 10, and ``yeti-63-l2_1``,
  ``yeti-63-l2_0``: 63 leaves with ``lambda_l2`` 1 and 0 (``--datasets synthetic-250k`` and
  ``noisy-190k``, against ``yeti-63``) (stop 21).
* ``yeti-7``, ``yeti-15``: YetiRank with 7 or 15 leaves set explicitly, against ``yeti-check-folds`` below
  30,000 training documents (``--datasets mq2008 lgb-example noisy-10k noisy-20k``), where the size rule gives
  7: ``yeti-7`` must equal it on every query, ``yeti-15`` is one level more (stop 34).
* ``yeti-check``: YetiRank with ``num_leaves="auto"``'s capacity check (stop 20): from 30,000 training
  documents a fifth of the training queries decides whether one or two levels more than the size rule's
  trees win significantly (``metricrank.learners._capacity``). ``yeti`` is the size rule alone (its
  values were measured before the check existed; ``--reference yeti``). ``yeti-check-folds``: the same
  system since stop 21, whose check holds out query folds one at a time until 500 queries are judged
  (``yeti-check``'s values are stop 20's single fifth). Since stop 27 it is pinned to one model
  (``n_models=1``), what it measured before ``n_models="auto"`` averaged two from 30,000 documents.
* ``yeti-p30``: YetiRank with 30 permutations per query and tree instead of CatBoost's 10 (stop 26; a
  less noisy gradient, each call 2.5 times as long), against ``yeti-check-folds``.
* ``yeti-m2``: YetiRank averaged over 2 models trained side by side (``n_models``; each with its own
  permutations and randomised splits, twice the trees), against ``yeti-check-folds`` (stop 27).
  Stop 28 measured it where ``n_models="auto"``'s range ends: ``--datasets noisy-20k`` (the noisy set's
  kind at 750 queries, about 20,000 training documents, below the range; ``noisy-10k``: 375 queries,
  MQ2008's size), ``noisy-190k`` (about 128,000, its top) and ``synthetic-250k`` (above it).
  ``yeti-m1-rD`` and ``yeti-m2-rD`` (D = 1-4): one and two models with the random seed offset by
  1000 D, other draws of the same systems, to tell a data set's answer from one draw's luck (MQ2008).
  ``yeti-m4``: four models, against ``yeti-m2`` (stop 31: does averaging more models gain more?).
* ``yeti-goss``: the default YetiRank (``n_models="auto"``) on 80 % of the rows per tree, chosen by gradient
  (LightGBM's GOSS: the 20 % largest gradients, and 60 % of all rows drawn from the others, reweighted; from tree
  ``1 / learning_rate``), as CatBoost's ranking defaults sample 80 % by gradient (MVS), against ``yeti-m2`` on
  the noisy set and ``yeti-check-folds`` on MQ2008 (the defaults there; stop 29).
* ``yeti-bins63``, ``yeti-bins1023``: the default YetiRank with ``max_bin`` 63 or 1023 instead of LightGBM's
  255 (coarser or finer split thresholds); ``yeti-hess0.1``, ``yeti-hess1``: with ``min_sum_hessian_in_leaf``
  0.1 or 1 instead of LightGBM's 0.001 (YetiRank gives no hessian to a document outside every sampled pair,
  e.g. in a query without relevant documents, so this floor counts pairs where ``min_data_in_leaf`` counts
  documents). Against the defaults: ``yeti-m2`` on the noisy, 50k and 250k sets, ``yeti-check-folds`` on MQ2008
  and ``--datasets lgb-example`` (stop 30).
* ``wholelist-m2``: ``wholelist`` averaged over 2 models (``n_models=2``), against ``wholelist``: judged MRR's
  target, which ``n_models="auto"`` keeps at one model (stop 29; ``--metrics MRR --datasets noisy synthetic-50k``).
* ``nbr-yeti``: a re-implementation of YetiRank's pairs (adjacent documents of 10 logistic-noise
  permutations, weight 0.15 |label difference|, no position decay) as a check of the kernel below;
  ``nbr-metric``: the same pairs weighted by the judged metric's swap delta at their two positions
  instead, rescaled per permutation to YetiRank's total weight; ``nbr-metric-raw``: not rescaled.

    .venv/bin/python benchmarks/gradient_probes.py --metrics "NDCG:top=10;type=Exp" MAP MAUC \\
        --candidates base yeti pll10:1 nbr-metric
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
from numba import njit, prange
from scipy.stats import wilcoxon

from metricrank._io import atomic_write
from metricrank.experiments import quality
from metricrank.experiments.quality import Split

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lambda_probes import ProbeLambdaMART  # noqa: E402

NDCG10 = "NDCG:top=10;type=Exp"
_MODES = {"ndcg": 0, "map": 1, "mauc": 2, "yeti": 3}


@njit(cache=True, parallel=True)
def _neighbour_lambdas(raw, y, ptr, uniforms, mode, top, rescale, grad, hess):
    """λ over adjacent pairs of logistic-noise permutations; pair weight by ``mode`` (see the module doc)."""
    for q in prange(ptr.shape[0] - 1):
        s, n = ptr[q], ptr[q + 1] - ptr[q]
        grad[s:s + n] = 0.0
        hess[s:s + n] = 0.0
        if n < 2:
            continue
        yq = y[s:s + n]
        idcg = 0.0
        ideal = -np.sort(-yq)
        for r in range(min(top, n)):
            idcg += (2.0 ** ideal[r] - 1.0) / np.log2(r + 2.0)
        n_rel = 0
        for i in range(n):
            n_rel += yq[i] > 0
        counts = np.zeros(int(yq.max()) + 1)
        for i in range(n):
            counts[int(yq[i])] += 1
        if mode == 0 and idcg == 0.0:
            continue
        noisy, w, u = np.empty(n), np.empty(n - 1), np.empty(n - 1)
        for p in range(uniforms.shape[0]):
            for i in range(n):
                v = uniforms[p, s + i]
                noisy[i] = raw[s + i] + np.log(v / (1.0 - v))
            order = np.argsort(-noisy)
            seen = 0  # relevant documents above and at rank r (MAP)
            for r in range(n - 1):
                la, lb = yq[order[r]], yq[order[r + 1]]
                seen += la > 0
                u[r] = 0.15 * abs(la - lb)
                w[r] = 0.0
                if la == lb:
                    continue
                if mode == 0:
                    d1 = 1.0 / np.log2(r + 2.0) if r < top else 0.0
                    d2 = 1.0 / np.log2(r + 3.0) if r + 1 < top else 0.0
                    w[r] = abs(2.0 ** la - 2.0 ** lb) * (d1 - d2) / idcg
                elif mode == 1:
                    if (la > 0) != (lb > 0) and n_rel > 0:
                        rank_of_relevant = seen + 1 if la <= 0 else seen
                        w[r] = rank_of_relevant * (1.0 / (r + 1.0) - 1.0 / (r + 2.0)) / n_rel
                elif mode == 2:
                    w[r] = 1.0 / (counts[int(la)] * counts[int(lb)])
                else:
                    w[r] = u[r]
            factor = 1.0
            if rescale:
                total = w.sum()
                factor = u.sum() / total if total > 0 else 0.0
            for r in range(n - 1):
                if w[r] == 0.0:
                    continue
                a, b = s + order[r], s + order[r + 1]
                if y[a] < y[b]:
                    a, b = b, a
                weight = w[r] * factor / uniforms.shape[0]
                rho = 1.0 / (1.0 + np.exp(raw[a] - raw[b]))
                grad[a] -= weight * rho
                grad[b] += weight * rho
                hess[a] += weight * rho * (1.0 - rho)
                hess[b] += weight * rho * (1.0 - rho)


def neighbours(mode: str, k: int = 10, rescale: bool = True, top: int = 10):
    def make(bound, random_state):
        rng = np.random.default_rng(random_state)
        data = bound.data
        y = np.ascontiguousarray(data.y, dtype=np.float64)
        ptr = np.ascontiguousarray(data.group_ptr, dtype=np.int64)
        grad, hess = np.empty(data.n_rows), np.empty(data.n_rows)

        def call(raw):
            uniforms = rng.uniform(1e-12, 1 - 1e-12, size=(k, data.n_rows))
            _neighbour_lambdas(np.ascontiguousarray(raw, dtype=np.float64), y, ptr, uniforms, _MODES[mode], top,
                               rescale, grad, hess)
            return grad, hess

        return call

    return make


def noisy_rankings(k: int, scale: float, relative: bool):
    """The bound λ averaged over k rankings of perturbed scores (logistic noise, or Gumbel x query std)."""
    def make(bound, random_state):
        rng = np.random.default_rng(random_state)
        ptr = bound.data.group_ptr
        sizes = np.diff(ptr)
        query = np.repeat(np.arange(sizes.size), sizes)

        def call(raw):
            if relative:
                mean = np.bincount(query, raw, sizes.size) / np.maximum(sizes, 1)
                sd = np.sqrt(np.bincount(query, (raw - mean[query]) ** 2, sizes.size) / np.maximum(sizes, 1))[query]
            g_sum = h_sum = 0.0
            for _ in range(k):
                noise = scale * sd * rng.gumbel(size=raw.size) if relative else scale * rng.logistic(size=raw.size)
                g, h = bound(raw + noise)
                g_sum, h_sum = g_sum + g, h_sum + h  # new arrays: the bound reuses its buffers
            return g_sum / k, h_sum / k

        return call

    return make


def _probe(make):
    return lambda m: quality._metricrank(lambda lr, trees, threads, seed: ProbeLambdaMART(
        m, make, target=m, n_estimators=trees, learning_rate=lr, n_jobs=threads, random_state=seed))


def _own(metric):
    return {"MAP": "map", "MAUC": "mauc"}.get(metric, "ndcg")


#: LightGBM's gradient-based sampling keeping 80 % of the rows per tree (the rows of the 20 % largest gradients,
#: and 60 % of all rows drawn from the others, reweighted), as CatBoost's ranking defaults sample 80 % by gradient
GOSS_80 = {"data_sample_strategy": "goss", "top_rate": 0.2, "other_rate": 0.6}

CANDIDATES = {
    "base": lambda m: quality.lambdamart(m, target=m),
    "yeti": lambda m: quality.gbranker("YetiRank"),
    "sigma0.5": lambda m: quality.lambdamart(m, target=m, sigma=0.5),
    "sigma2": lambda m: quality.lambdamart(m, target=m, sigma=2.0),
    "wholelist": lambda m: quality.lambdamart(m, target="NDCG:type=Exp"),
    "wholelist-m2": lambda m: quality.lambdamart(m, target="NDCG:type=Exp", n_models=2),
    "bag0.7": lambda m: quality.lambdamart(m, target=m, bagging_fraction=0.7, bagging_freq=1),
    "ff0.7": lambda m: quality.lambdamart(m, target=m, feature_fraction=0.7),
    "l2_30": lambda m: quality.lambdamart(m, target=m, lambda_l2=30.0),
    "mdl50": lambda m: quality.lambdamart(m, target=m, min_data_in_leaf=50),
    "pll1:1": _probe(noisy_rankings(1, 1.0, False)),
    "pll3:1": _probe(noisy_rankings(3, 1.0, False)),
    "pll10:1": _probe(noisy_rankings(10, 1.0, False)),
    "plr8:0.5": _probe(noisy_rankings(8, 0.5, True)),
    "plr8:1": _probe(noisy_rankings(8, 1.0, True)),
    "yeti-l2_3": lambda m: quality.gbranker("YetiRank", lambda_l2=3.0),
    "yeti-l2_30": lambda m: quality.gbranker("YetiRank", lambda_l2=30.0),
    "yeti-l2_0": lambda m: quality.gbranker("YetiRank", lambda_l2=0.0),
    "yeti-mdl50": lambda m: quality.gbranker("YetiRank", min_data_in_leaf=50),
    "yeti-noextra": lambda m: quality.gbranker("YetiRank", extra_trees=False),
    "yeti-31": lambda m: quality.gbranker("YetiRank", num_leaves=31),
    "yeti-31-noextra": lambda m: quality.gbranker("YetiRank", num_leaves=31, extra_trees=False),
    "yeti-63-d6": lambda m: quality.gbranker("YetiRank", num_leaves=63, max_depth=6),
    "yeti-63-d6-noextra": lambda m: quality.gbranker("YetiRank", num_leaves=63, max_depth=6, extra_trees=False),
    "yeti-31-mdl50": lambda m: quality.gbranker("YetiRank", num_leaves=31, min_data_in_leaf=50),
    "yeti-63": lambda m: quality.gbranker("YetiRank", num_leaves=63),
    "yeti-7": lambda m: quality.gbranker("YetiRank", num_leaves=7, n_models=1),  # as yeti-check-folds
    "yeti-15": lambda m: quality.gbranker("YetiRank", num_leaves=15, n_models=1),
    "yeti-31-noextra-l2_1": lambda m: quality.gbranker("YetiRank", num_leaves=31, extra_trees=False, lambda_l2=1.0),
    "yeti-31-noextra-l2_0": lambda m: quality.gbranker("YetiRank", num_leaves=31, extra_trees=False, lambda_l2=0.0),
    "yeti-63-l2_1": lambda m: quality.gbranker("YetiRank", num_leaves=63, lambda_l2=1.0),
    "yeti-31-noextra-l2_3": lambda m: quality.gbranker("YetiRank", num_leaves=31, extra_trees=False, lambda_l2=3.0),
    "yeti-63-l2_0": lambda m: quality.gbranker("YetiRank", num_leaves=63, lambda_l2=0.0),
    "yeti-check": lambda m: quality.gbranker("YetiRank"),
    "yeti-check-folds": lambda m: quality.gbranker("YetiRank", n_models=1),
    "yeti-p30": lambda m: quality.gbranker("YetiRank:permutations=30"),
    "yeti-m2": lambda m: quality.gbranker("YetiRank", n_models=2),
    "yeti-m4": lambda m: quality.gbranker("YetiRank", n_models=4),
    "yeti-goss": lambda m: quality.gbranker("YetiRank", lgb_params=GOSS_80),
    "yeti-bins63": lambda m: quality.gbranker("YetiRank", max_bin=63),
    "yeti-bins1023": lambda m: quality.gbranker("YetiRank", max_bin=1023),
    "yeti-hess0.1": lambda m: quality.gbranker("YetiRank", min_sum_hessian_in_leaf=0.1),
    "yeti-hess1": lambda m: quality.gbranker("YetiRank", min_sum_hessian_in_leaf=1.0),
    "nbr-yeti": lambda m: _probe(neighbours("yeti"))(m),
    "nbr-metric": lambda m: _probe(neighbours(_own(m)))(m),
    "nbr-metric-raw": lambda m: _probe(neighbours(_own(m), rescale=False))(m),
}


def _yeti_seeded(n_models: int, draw: int):
    """YetiRank with ``n_models`` and the random seed offset by ``1000 * draw``: another draw of the
    permutations and randomised splits on the same split (the other candidates' ``random_state`` is 0)."""
    fit = quality.gbranker("YetiRank", n_models=n_models)
    return lambda split, metrics, lr, trees, threads, seed: fit(split, metrics, lr, trees, threads, seed + 1000 * draw)


for _draw in range(1, 5):
    for _k in (1, 2):
        CANDIDATES[f"yeti-m{_k}-r{_draw}"] = lambda m, k=_k, d=_draw: _yeti_seeded(k, d)


def noisy_splits(seeds):
    out = []
    for seed in seeds:
        train, vali, test = quality._synthetic_noisy(seed)
        out.append(Split("synthetic-noisy-40k", seed, train, vali, test))
    return out


def noisy_large_splits(seeds):
    """The noisy set's kind of data at 4,800 queries (about 190,000 documents; 3,200 training queries, about
    128,000 documents: 63 leaves under ``num_leaves="auto"``), split 3,200/800/800 queries."""
    return [Split("synthetic-noisy-190k", seed, *quality._synthetic_noisy(seed, n_queries=4800, seed_offset=200))
            for seed in seeds]


def noisy_small_splits(seeds, n_queries=750):
    """The noisy set's kind of data at 750 queries (about 30,000 documents; 500 training queries, about
    20,000 documents, below the capacity check), split 500/125/125; ``n_queries=375``: about 10,000
    training documents (250 training queries), MQ2008's size."""
    name = f"synthetic-noisy-{round(n_queries * 40 * 2 / 3 / 1000)}k"
    return [Split(name, seed, *quality._synthetic_noisy(seed, n_queries=n_queries, seed_offset=300))
            for seed in seeds]


def report(cache, metrics, candidates, datasets, reference="base"):
    for dataset in datasets:
        for metric in metrics:
            _report_one(cache, metric, candidates, dataset, reference)


def _report_one(cache, metric, candidates, dataset, reference):
    print(f"\n{dataset} · {metric} (paired against {reference} over the test queries of all splits)")
    base = {k.split("|")[3]: v for k, v in cache.items() if k.startswith(f"{reference}|{metric}|{dataset}|")}
    for cand in candidates:
        runs = {k.split("|")[3]: v for k, v in cache.items() if k.startswith(f"{cand}|{metric}|{dataset}|")}
        if not runs:
            continue
        line = f"  {cand:15s} splits {len(runs)}  mean {np.mean([r['test'] for r in runs.values()]):.4f}"
        common = sorted(set(runs) & set(base))
        if cand != reference and common:
            d = np.concatenate([np.subtract(runs[f]["per_query"], base[f]["per_query"]) for f in common])
            d = d[~np.isnan(d)]
            mean = np.mean([runs[f]['test'] - base[f]['test'] for f in common])
            line += (f"  vs {reference} identical on every query" if not np.any(d) else
                     f"  vs {reference} {mean:+.4f} (SE {d.std() / np.sqrt(d.size):.4f}, "
                     f"Wilcoxon p {wilcoxon(d).pvalue:.2g})")
        print(line)


def pooled(cache, metrics, datasets, pairs) -> None:
    """Print, per data set and metric, the difference CAND − REF averaged over the ``CAND:REF`` pairs
    (other draws of the same comparison): per test query the mean of the pairs' differences, then the
    mean over queries, its standard error and the Wilcoxon p over queries, and each pair's own mean."""
    for dataset in datasets:
        for metric in metrics:
            per_pair = []
            for pair in pairs:
                cand, ref = pair.split(":")
                runs = [{k.split("|")[3]: v for k, v in cache.items() if k.startswith(f"{c}|{metric}|{dataset}|")}
                        for c in (cand, ref)]
                folds = sorted(set(runs[0]) & set(runs[1]))
                if folds:
                    per_pair.append((folds, np.concatenate(
                        [np.subtract(runs[0][f]["per_query"], runs[1][f]["per_query"]) for f in folds])))
            if not per_pair or len({tuple(f) for f, _ in per_pair}) != 1:
                print(f"\n{dataset} · {metric}: the pairs do not cover the same splits; nothing pooled")
                continue
            d = np.mean([diff for _, diff in per_pair], axis=0)
            d = d[~np.isnan(d)]
            print(f"\n{dataset} · {metric}: {len(per_pair)} pairs over {len(per_pair[0][0])} splits, "
                  f"mean difference {d.mean():+.4f} (SE {d.std() / np.sqrt(d.size):.4f}, Wilcoxon p "
                  f"{wilcoxon(d).pvalue:.2g}); per pair " + " ".join(f"{np.nanmean(x):+.4f}" for _, x in per_pair))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", nargs="+", default=list(CANDIDATES), choices=list(CANDIDATES))
    parser.add_argument("--metrics", nargs="+", default=[NDCG10, "MAP", "MAUC"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3, 4, 5, 6])
    parser.add_argument("--datasets", nargs="+", default=["noisy"],
                        choices=["noisy", "mq2008", "lgb-example", "synthetic-50k", "synthetic-250k", "noisy-190k",
                                 "noisy-20k", "noisy-10k"],
                        help="noisy: the noisy MQ2007-sized set with --seeds; mq2008: its 5 folds; "
                             "lgb-example: LightGBM's example, 3 validation seeds; "
                             "synthetic-50k / -250k: the suite's clean sets, seeds 1-3 / 1-2; "
                             "noisy-190k / -20k / -10k: the noisy set's kind at 4,800 / 750 / 375 queries, "
                             "--seeds")
    parser.add_argument("--reference", default="base", help="the candidate the others are paired against")
    parser.add_argument("--cache", default="benchmarks/results/gradient_probes_r7.json")
    parser.add_argument("--pairs", nargs="+", metavar="CAND:REF",
                        help="also print CAND - REF averaged over these pairs per query "
                             "(other draws of one comparison)")
    args = parser.parse_args()
    cache = json.loads(open(args.cache).read()) if os.path.exists(args.cache) else {}
    splits = (noisy_splits(args.seeds) if "noisy" in args.datasets else []) + quality.load_suite(
        [d for d in ("mq2008", "lgb-example", "synthetic-50k") if d in args.datasets]) + (
        quality.load_suite(["synthetic-250k"], folds=2) if "synthetic-250k" in args.datasets else []) + (
        noisy_large_splits(args.seeds) if "noisy-190k" in args.datasets else []) + (
        noisy_small_splits(args.seeds) if "noisy-20k" in args.datasets else []) + (
        noisy_small_splits(args.seeds, n_queries=375) if "noisy-10k" in args.datasets else [])
    for split in splits:
        for cand in args.candidates:
            # one YetiRank fit serves every judged metric (its capacity check judges by the first)
            groups = [args.metrics] if cand.startswith("yeti") else [[m] for m in args.metrics]
            for metrics in groups:
                keys = {m: f"{cand}|{m}|{split.dataset}|{split.fold}" for m in metrics}
                if all(k in cache for k in keys.values()):
                    continue
                r = quality.run_system(CANDIDATES[cand](metrics[0]), split, metrics, lr=0.1, trees=300, threads=1)
                for m, key in keys.items():
                    if key in cache:  # never replace a stored value: its check may have judged by another metric
                        continue
                    cache[key] = {"test": r[m]["test"], "trees": r[m]["trees"],
                                  "per_query": r[m]["per_query"], "seconds": r["seconds"]}
                    if "capacity_check" in r:
                        cache[key]["capacity_check"] = r["capacity_check"]
                    print(key, f"{r[m]['test']:.4f}", flush=True)
                with atomic_write(args.cache) as fh:
                    fh.write(json.dumps(cache).encode())
    datasets = list(dict.fromkeys(s.dataset for s in splits))
    report(cache, args.metrics, args.candidates, datasets, args.reference)
    if args.pairs:
        pooled(cache, args.metrics, datasets, args.pairs)


if __name__ == "__main__":
    main()

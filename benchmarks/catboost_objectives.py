"""metricrank's GBRanker against CatBoost itself, objective by objective, on MQ2008 (5 folds).

For each of the seed's objectives both libraries train the same number of trees at the same
learning rate, each with its own defaults otherwise, and each fit is timed alone (no evaluation
inside it); the tree count is then chosen on the validation fold by the judged metric (NDCG@10; FilteredDCG for StochasticFilter, whose ranking is the input
order), and the test set is scored at that count. Reported: training seconds (median over folds
and mean), test NDCG@10, MAP and PFound (mean over folds), and a two-tailed Wilcoxon signed-rank
test over the test queries of all folds on the judged metric, with the time ratio
CatBoost / metricrank measured in the same run.

    .venv/bin/python benchmarks/catboost_objectives.py --trees 300 --learning-rate 0.1 --threads 2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import metricrank
from metricrank import GBRanker, compare_per_query, evaluate

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008"

OBJECTIVES = ["PairLogit", "PairLogitPairwise", "YetiRank", "YetiRankPairwise", "StochasticFilter",
              "StochasticRank:metric=NDCG;top=10", "QueryRMSE", "QuerySoftMax", "QueryCrossEntropy"]
REPORTED = ["NDCG:top=10", "MAP", "PFound"]


def judged(objective: str) -> str:
    """NDCG@10; FilteredDCG for StochasticFilter; for LambdaMart or StochasticRank with metric=M, or YetiRank with
    mode=M (M = MAP, MRR or ERR), M (ERR at 10)."""
    if objective.startswith("StochasticFilter"):
        return "FilteredDCG"
    for metric in ("MAP", "MRR", "ERR"):
        if _targets(objective, metric):
            return "ERR:top=10" if metric == "ERR" else metric
    return "NDCG:top=10"


def _targets(objective: str, metric: str) -> bool:
    """Whether the objective follows ``metric`` (LambdaMart's and StochasticRank's ``metric``, YetiRank's ``mode``)."""
    return ((objective.startswith(("LambdaMart", "StochasticRank")) and f"metric={metric}" in objective)
            or (objective.startswith("YetiRank") and f"mode={metric}" in objective))


def labels_for(objective: str, y: np.ndarray) -> np.ndarray:
    """QueryCrossEntropy and the ERR objectives need targets in [0, 1]: MQ2008's 0, 1, 2 become 0, 0.5, 1 for
    both libraries."""
    to_unit = objective.startswith("QueryCrossEntropy") or _targets(objective, "ERR")
    return y / 2.0 if to_unit else y


def best_count(values: list[float]) -> int:
    return int(np.nanargmax(values)) + 1


def run_metricrank(objective, train, vali, test, args):
    spec = judged(objective)
    model = GBRanker(objective, n_estimators=args.trees, learning_rate=args.learning_rate, n_jobs=args.threads,
                     random_state=args.seed)
    yt, yv = labels_for(objective, train.y), labels_for(objective, vali.y)
    start = time.perf_counter()
    model.fit(train.X, yt, qid=train.qid)  # timed alone, as CatBoost's fit is
    seconds = time.perf_counter() - start
    # the validation curve outside the timing, from per-tree contributions (as CatBoost's staged_predict)
    values, acc = [], np.zeros(vali.n_docs)
    for k in range(model.n_estimators_):
        acc = acc + model.booster_.predict(vali.X, start_iteration=k, num_iteration=1, raw_score=True)
        values.append(evaluate(vali.y if spec == "NDCG:top=10" else yv, acc, qid=vali.qid, metric=spec))
    k = best_count(values)
    return model.predict(test.X, num_iteration=k), seconds, k


#: Objectives CatBoost's CPU build refuses ("not supported for CPU learning"): compared on quality alone is
#: impossible, so the table reports metricrank only and says so.
CATBOOST_GPU_ONLY = ("QueryCrossEntropy",)


def run_catboost(objective, train, vali, test, args):
    import catboost

    if objective.startswith(CATBOOST_GPU_ONLY):
        return None

    spec = judged(objective)
    yt, yv = labels_for(objective, train.y), labels_for(objective, vali.y)
    params = {"loss_function": objective, "iterations": args.trees, "learning_rate": args.learning_rate,
              "thread_count": args.threads, "random_seed": args.seed, "verbose": False, "allow_writing_files": False}
    pool = catboost.Pool(train.X, yt, group_id=train.qid)
    start = time.perf_counter()
    model = catboost.CatBoost(params).fit(pool)
    seconds = time.perf_counter() - start
    vpool, tpool = catboost.Pool(vali.X, yv, group_id=vali.qid), catboost.Pool(test.X, group_id=test.qid)
    values = [evaluate(vali.y if spec == "NDCG:top=10" else yv, p, qid=vali.qid, metric=spec)
              for p in model.staged_predict(vpool, prediction_type="RawFormulaVal")]
    k = best_count(values)
    return model.predict(tpool, prediction_type="RawFormulaVal", ntree_end=k), seconds, k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, nargs="*", default=[1, 2, 3, 4, 5])
    parser.add_argument("--objectives", nargs="*", default=OBJECTIVES)
    args = parser.parse_args()

    folds = []
    for f in args.folds:
        tr = metricrank.load_letor(DATA / f"Fold{f}" / "train.txt.gz")
        folds.append((tr, metricrank.load_letor(DATA / f"Fold{f}" / "vali.txt.gz", n_features=tr.n_features),
                      metricrank.load_letor(DATA / f"Fold{f}" / "test.txt.gz", n_features=tr.n_features)))

    rows = []
    for objective in args.objectives:
        spec = judged(objective)
        res = {lib: {"seconds": [], "trees": [], "per_query": [], **{m: [] for m in REPORTED + [spec]}}
               for lib in ("metricrank", "catboost")}
        for train, vali, test in folds:
            for lib, run in (("metricrank", run_metricrank), ("catboost", run_catboost)):
                out = run(objective, train, vali, test, args)
                if out is None:
                    continue
                scores, seconds, k = out
                r = res[lib]
                r["seconds"].append(seconds)
                r["trees"].append(k)
                for m in dict.fromkeys(REPORTED + [spec]):
                    # PFound reads labels as probabilities: MQ2008's grades 0, 1, 2 as 0, 0.5, 1
                    # (and the judged metric reads the labels the objective trained on)
                    y = test.y / 2.0 if m == "PFound" else labels_for(objective, test.y) if m == spec else test.y
                    r[m].append(evaluate(y, scores, qid=test.qid, metric=m))
                r["per_query"].append(evaluate(labels_for(objective, test.y), scores, qid=test.qid, metric=spec,
                                               per_query=True))
        mr, cb = res["metricrank"], res["catboost"]
        if not cb["seconds"]:
            print(f"{objective}: metricrank {np.median(mr['seconds']):.2f}s; NDCG@10/MAP/PFound "
                  + "/".join(f"{np.mean(mr[m]):.4f}" for m in REPORTED)
                  + "; CatBoost: not supported on CPU", flush=True)
            continue
        cmp = compare_per_query(np.concatenate(mr["per_query"]), np.concatenate(cb["per_query"]))
        row = (objective, spec, np.median(mr["seconds"]), np.median(cb["seconds"]),
               np.median(cb["seconds"]) / np.median(mr["seconds"]),
               *(np.mean(mr[m]) for m in REPORTED), *(np.mean(cb[m]) for m in REPORTED),
               np.mean(mr[spec]) - np.mean(cb[spec]), cmp, mr["trees"], cb["trees"])
        rows.append(row)
        print(f"{objective}: metricrank {row[2]:.2f}s catboost {row[3]:.2f}s ({row[4]:.1f}x); "
              f"{spec} diff {row[11]:+.4f}; {cmp}; metricrank NDCG@10/MAP/PFound {row[5]:.4f}/{row[6]:.4f}/"
              f"{row[7]:.4f}, CatBoost {row[8]:.4f}/{row[9]:.4f}/{row[10]:.4f}; trees {row[13]} vs {row[14]}",
              flush=True)

    print()
    print(f"MQ2008, folds {args.folds}, {args.trees} trees, learning rate {args.learning_rate}, "
          f"{args.threads} threads; each library's defaults otherwise; tree count chosen on validation.")
    print("| objective | judged | s metricrank | s CatBoost | speed-up | NDCG@10 mr | MAP mr | PFound mr "
          "| NDCG@10 cb | MAP cb | PFound cb | judged diff | W/L, p |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cmp = r[12]
        print(f"| {r[0]} | {r[1]} | {r[2]:.2f} | {r[3]:.2f} | {r[4]:.1f}x | {r[5]:.4f} | {r[6]:.4f} | {r[7]:.4f} "
              f"| {r[8]:.4f} | {r[9]:.4f} | {r[10]:.4f} | {r[11]:+.4f} | {cmp.wins}/{cmp.losses}, "
              f"p={cmp.pvalue:.3g} |")


if __name__ == "__main__":
    main()

"""What ``lambda_l2="auto"`` resolves to on every split the defaults were measured on, and on the long-list shapes.

For each default target of ``LambdaMART`` (NDCG@10, MRR, ERR@10 and MAUC; MAP trains as NDCG@10 does, on
YetiRank) and ``GBRanker``'s QuerySoftMax and PairLogit: the training objective's mean hessian per row at
scores 0 (in thousandths), its hessian mass per leaf of the size rule (the sum over the rows divided by
``num_leaves="auto"``: stop 39's bound), and the penalty :func:`metricrank.learners._gbdt.auto_lambda_l2`
gives to the rule's trees and to the capacity check's added levels (``-`` where the check does not run: below
30,000 training documents or 100 queries; QuerySoftMax keeps 10 and 1 whatever its mean, since stop 41).
``<-`` marks a split where either differs from 10 and 1 (the hessian bound, or since stop 113 the rule's
cap of 1 for four averaged models of 15 randomised leaves, which the script read as 10 before, and since stop 115
for four averaged randomised models from 5,000 training documents, MQ2008's folds among them). Each line also
gives the share of rows whose YetiRank hessian is above 0 at the first tree: the documents its pairs reach.

    .venv/bin/python benchmarks/hessian_mass.py                       # the suite and every data_shapes.py shape
    .venv/bin/python benchmarks/hessian_mass.py --shapes gov td2004 --seeds 3
"""

from __future__ import annotations

import argparse

import numpy as np

import data_shapes
from metricrank import GBRanker, LambdaMART
from metricrank.experiments import quality as q
from metricrank.learners._capacity import CHECK_MIN_DOCS, CHECK_MIN_QUERIES
from metricrank.learners._gbdt import (ADDED_LEVEL_LAMBDA_L2, AUTO_LAMBDA_L2, auto_num_leaves,
                                       first_hessian_mass)
from metricrank.objectives._base import as_training_data

SUITE = ("mq2008", "lgb-example", "synthetic-noisy-40k", "synthetic-50k", "synthetic-250k")
NOISE = {"mq2007": 5, "ohsumed": 3, "gov": 2, "td2004": 2, "np2003": 2, "np2004": 2, "td2003": 2}


def objectives() -> dict:
    return {"NDCG": LambdaMART(metric="NDCG:top=10;type=Exp"), "MRR": LambdaMART(metric="MRR"),
            "ERR": LambdaMART(metric="ERR:type=Graded;top=10"), "MAUC": LambdaMART(metric="MAUC"),
            "QuerySoftMax": GBRanker("QuerySoftMax"), "PairLogit": GBRanker("PairLogit")}


def line(split) -> str:
    train = split.train
    y = np.asarray(train.y, dtype=np.float64)
    leaves = auto_num_leaves(train.n_docs)
    checked = train.n_docs >= CHECK_MIN_DOCS and train.n_queries >= CHECK_MIN_QUERIES  # where the check can run
    cells = []
    for name, model in objectives().items():
        objective = model._objective_for_training(model._make_objective(), y, np.ones(y.size))
        data = as_training_data(y, train.group_ptr)
        mass = first_hessian_mass(objective, data, None, 0)
        if name == "NDCG":  # YetiRank's: how many rows its pairs reach
            reached = np.mean(objective.bind(data, 0)(np.zeros(y.size))[1] > 0)
        mean = mass / y.size
        read = mean if model._penalty_reads_hessian(objective) else None  # as the fit: QuerySoftMax reads none
        # the rule's cap reads the models, leaves and randomised splits the fit would resolve
        model._resolve_n_models(objective), model._resolve_num_leaves(train.n_docs)
        model._resolve_extra_trees(train.n_docs)
        rule, added = (model._lambda_l2_for(added_level, train.n_docs, read) for added_level in (False, True))
        mark = "" if (rule, added) == (AUTO_LAMBDA_L2, ADDED_LEVEL_LAMBDA_L2) else " <-"
        cells.append(f"{name} {1000 * mean:.2f}e-3 {mass / leaves:.1f}/leaf "
                     f"({rule:.2f}/{f'{added:.2f}' if checked else '-'}){mark}")
    return (f"{split.dataset}/{split.fold} docs {train.n_docs} queries {train.n_queries} leaves {leaves}, "
            f"YetiRank's hessian above 0 on {reached:.0%} of rows: " + " | ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", nargs="*", default=list(SUITE), help="quality suite data sets (all their splits)")
    parser.add_argument("--shapes", nargs="*", default=list(NOISE), choices=sorted(NOISE),
                        help="data_shapes.py shapes, drawn at the noise each was measured at")
    parser.add_argument("--seeds", type=int, default=10, help="draws per shape (1..N)")
    args = parser.parse_args()
    for split in q.load_suite(args.suite):
        print(line(split), flush=True)
    for shape in args.shapes:
        for seed in range(1, args.seeds + 1):
            print(line(data_shapes.split(shape, NOISE[shape], seed)), flush=True)


if __name__ == "__main__":
    main()

"""LambdaMART that optimises the metric you name (Burges section 7; Welleck section 4)."""

from __future__ import annotations

import numpy as np

from ..objectives import get_objective
from ..objectives._base import Objective
from ..objectives.lambda_objective import LambdaObjective
from ..objectives.target_choice import choose_target, is_pair_target
from .gbranker import MAX_QUERY_SIZE, GBRanker

__all__ = ["LambdaMART", "MAX_QUERY_SIZE"]


class LambdaMART(GBRanker):
    """Gradient-boosted trees trained for the metric you are judged by.

    :class:`~metricrank.GBRanker` judged by ``metric`` and trained on the
    gradient ``target`` names: the λ objective of a target
    (:class:`~metricrank.objectives.LambdaObjective`; each tree is fitted by
    LightGBM to the λ-gradients, its leaves take the Newton step
    ``η Σλ / Σw``), or a pair loss: YetiRank, the stochastic pairwise
    gradient that ``target="auto"`` picks for NDCG, MAP, graded ERR and MAUC,
    and for MRR from 30,000 training documents, or PairLogit, which it picks
    for MRR below, because they scored higher by them (see ``target``).
    ``fit``, ``predict``, ``save`` and ``load`` are GBRanker's. Any metric
    with an exact swap delta can be a λ target: NDCG, DCG, MAP, MRR, ERR,
    PrecisionAt, QueryAUC (Welleck's per-query binary AUC), ROCArea, MAUC,
    or ``"RankNet"``.

    Parameters
    ----------
    metric : str, default "NDCG:top=10"
        The metric the model is judged by, a spec such as
        ``"NDCG:top=10;type=Exp"``, ``"MAP"`` or ``"MAUC"``: the default
        early-stopping and :meth:`score` metric, and the basis of
        ``target="auto"``.
    target : str, default "auto"
        The gradient that trains the trees: a λ target (a metric spec with
        an exact swap delta, or ``"RankNet"``: its exact λ-gradient), or a
        pair loss, ``"YetiRank[:params]"`` (:class:`~metricrank.objectives.YetiRank`)
        or ``"PairLogit[:params]"`` (:class:`~metricrank.objectives.PairLogit`).
        ``"auto"`` (:func:`metricrank.objectives.target_choice.choose_target`),
        measured on the five quality-suite sets (BENCHMARKS.md, "Which
        gradient for which judged metric"):

        * NDCG, MAP, ``ERR:type=Graded`` and MAUC: ``"YetiRank"``. Against
          stop 17's defaults (the metric's own λ; for ERR the whole-list NDCG
          λ) on the same trees and splits it scored higher in 17 of the 20
          (data set, metric) cells and tied in one (ERR@10 on MQ2008), e.g.
          on the noisy MQ2007-sized set (6 seeds) NDCG@10 +0.0087 (per-query
          Wilcoxon p 0.007), MAP +0.0040 (p 0.013), MAUC +0.0049 (p 0.002);
          it scored lower on NDCG@10 on LightGBM's example (−0.0137, p 0.53,
          50 test queries) and MAP on MQ2008 (−0.0025, p 0.67).
        * MRR, when the labels keep MRR's relevance: ``"YetiRank"`` from
          30,000 training documents (where the capacity check and the mixed
          trees start), and ``"PairLogit:max_pairs=250000"`` below (every
          pair of a query's documents with different labels, up to 250,000 a
          query). Until stop 63 MRR trained on the λ of exponential-gain NDCG
          over the whole list (MRR's own λ vanishes below a query's first
          relevant document; judged by MRR it beat λ-MRR by 0.014-0.090 on
          three sets). From 30,000 YetiRank scored higher by MRR than that λ
          on every drawn shape tried: three kinds of MQ2007-shaped draws
          (+0.0035 to +0.0112 over three budgets), the NP2004 and gov shapes
          (+0.0084, +0.051); on the suite's sets it gained on the two clean
          ones and lost 0.017 on the noisy one (p 0.07), whose twelve fresh
          draws gave it +0.0112 (p 0.003) (BENCHMARKS.md, "Stop 51: judged
          MRR trains on YetiRank from 30,000 documents"). Below, PairLogit
          scored higher than the λ on all five sets tried: the drawn MQ2008
          twin at two noise levels (+0.0134, p 0.003; +0.0163, p 0.004), a
          drawn OHSUMED shape (+0.0335, p 0.07) and both real sets over five
          random states (MQ2008 +0.0019, LightGBM's example +0.0011; not
          significantly), where YetiRank trailed the λ (BENCHMARKS.md, "Stop
          63: judged MRR trains on PairLogit below 30,000 documents").
        * Every other metric: its own λ.

        With λ options set (``sigma``, ``truncation``, ``norm``, ``exact``
        away from their defaults) or row weights other than 1 (``fit(sample_weight=...)``,
        which YetiRank does not read and PairLogit reads only as query weights,
        from a query's first row) ``"auto"`` chooses only λ targets: the
        metric's own, and for MRR and graded ERR the whole-list NDCG λ. The
        fitted value is ``target_``. Name a metric (``target="NDCG:top=10"``)
        for its exact λ.
    n_estimators : int, default 300
        Number of trees (boosting rounds), the cap under ``early_stopping_rounds``.
        300, not LightGBM's and XGBoost's 100: the regularised trees below learn
        slowly, and without a validation set (every tree kept) default fits at
        learning rate 0.1 scored higher with 300 trees than with 100 on
        MQ2007-shaped draws (six, NDCG@10 +0.0053, MAP +0.0026, p ≤ 0.0003),
        OHSUMED-shaped draws (ten, +0.0255, +0.0129, p < 1e-4) and gov-shaped
        draws (three, +0.0371, +0.0298, p < 1e-4), and were level on MQ2008
        (five folds, −0.0005, −0.0008, p ≥ 0.4); 500 gained more on the
        OHSUMED draws and lost 0.003 on MQ2008 (BENCHMARKS.md, "Stop 36: the
        tree budget without a validation set"). CatBoost's rankers default to
        1000 trees at rate 0.03.
    learning_rate : float, default 0.1
        Shrinkage η of every leaf value.
    num_leaves : int or "auto", default "auto"
        Leaves per tree. ``"auto"`` grows with the training data: 7 leaves
        below 30,000 documents, 15 below 62,000, 31 from there
        (:func:`metricrank.learners._gbdt.auto_num_leaves`: about 2,000
        documents per leaf, as a full binary tree); the fitted value is
        ``num_leaves_``. Measured (BENCHMARKS.md, "Defaults, second round: leaves by data size and
        randomised splits"): 7
        leaves with an L2 penalty of 10 win on the LETOR sets (2,400-9,600
        documents), where 31 leaves without a penalty lose 0.006-0.009 NDCG@10
        to CatBoost; on 52,000 nonlinear synthetic documents 15 or 31 leaves
        score 0.01-0.02 higher than 7 on NDCG@10, MAP and MAUC.
        With ``num_leaves`` and ``extra_trees`` both "auto", from 30,000
        training documents a capacity check asks the data whether bigger trees
        pay (:mod:`metricrank.learners._capacity`): the rule's trees and one
        level more (twice the leaves plus one, splits not randomised) are
        trained on all but one fold of the training queries and read at their
        best tree count on the held-out fold by ``metric`` (by the first of
        ``fit``'s ``eval_metrics`` where they are named; stopped as the fit
        is: ``early_stopping_rounds``, or all ``n_estimators``); MRR and ERR,
        whose value on a query its first relevant documents decide, judge by
        exponential-gain NDCG@10 instead (by MRR both capacities put a relevant
        document first on every held-out query of the clean 52,000-document
        set; by NDCG@10 the check kept 63 leaves on the clean 254,000-document
        set where by ERR@10 it kept 31, and ERR@10 rose 0.0045 on test). The bigger
        trees are kept when they win query by query (one-sided Wilcoxon) at
        p < 0.05 / L, with L (at most five) the folds it takes to hold out
        500 queries (all of them on smaller data); when they are not ahead
        (p >= 0.5) the rule stays; in between the next fold is held out and
        the test repeated on all the held-out queries. Still in between after
        the last fold, the bigger trees win only where the kept ones still
        learned when the trees ran out: best in the last tenth of
        ``n_estimators``, and better on the held-out queries at their last tree
        than at half of it (one-sided Wilcoxon p < 0.01). A win tries the next
        level (at most two above the rule). Where the first step is lost but
        the rule's randomised trees still learned so, the final model keeps
        randomised splits one level deeper (at learning rate 0.05 with 300
        trees on clean MQ2007-shaped draws: NDCG@10, MAP and MAUC +0.0019,
        +0.0020, +0.0013; BENCHMARKS.md, "Stop 50").
        Size alone cannot tell noisy data, where bigger trees lose, from clean
        data, where the rule's trees underfit (BENCHMARKS.md, "The capacity
        check of num_leaves="auto""). Before the final fit the check costs one
        fit on 80 % of the data per capacity and look (two or three when the
        first looks decide); ``capacity_check_`` says what it saw. Set
        either parameter to skip it (a raw ``init_score`` keeps the rule too).
    min_data_in_leaf : int, default 20
        LightGBM's. Larger minimums did not score higher: 50 with the YetiRank
        target cost 0.0038 NDCG@10 on the noisy MQ2007-sized set and was within
        noise on MQ2008 (BENCHMARKS.md, "Which gradient for which judged
        metric"); 100 scored below randomised splits there ("Defaults, second
        round").
    min_sum_hessian_in_leaf : float, default 1e-3
        LightGBM's. YetiRank's hessian is small (about 0.02-0.03 per document
        at the first tree) and zero for a document outside every sampled pair,
        so this floor counts pairs where ``min_data_in_leaf`` counts documents.
        At 0.1 it never binds beside 20 documents (the same models on MQ2008
        and the noisy set); at 1 every judged metric there was 0.0006-0.0031
        lower, within noise (BENCHMARKS.md, "Stop 30: bins and the hessian
        floor").
    lambda_l2 : float or "auto", default "auto"
        L2 penalty added to the Newton denominator Σw. ``"auto"``: 10 for the
        size rule's trees and any capacity set by hand (chosen with 7 leaves on
        the LETOR sets; BENCHMARKS.md, "Defaults for LambdaMART and GBRanker"), 1
        at the levels the capacity check adds above the rule. Those levels are
        added only where held-out queries show the data support bigger trees,
        and there the smaller penalty scored higher: YetiRank's bigger trees
        with 1 against the same trees with 10 gained 0.0072 NDCG@10 on the
        clean 52,000-document suite set and 0.0030 on the 254,000-document one,
        and lost by no significant margin on the noisy sets (BENCHMARKS.md,
        "Stop 22: the penalty of added levels"). The rule's trees take 1 too
        where they are randomised and averaged over several models
        (``n_models_`` > 1) from 5,000 training documents or with 15 leaves
        or more (by default at 5,000-61,999 training documents; the size
        rule's seven averaged leaves below 5,000 keep 10, "Stop 115"):
        averaging four models steadies the fit as 10 steadies one. On
        MQ2007-shaped draws with LETOR's per-query scaling, 1 against 10 there
        gained NDCG@10, MAP and MAUC at every noise level tried (+0.0085,
        +0.0069, +0.0039 on the cleanest; BENCHMARKS.md, "Stop 46: the penalty
        of averaged randomised trees"), and held or gained at learning rates
        0.3 and 0.05, except with 100 trees at 0.1 on the cleanest draws (MAP
        and MAUC −0.002; "Stop 47"; stop 48's budget rule above brought that
        cell within the goal). The check compares the rule's trees
        with their penalty against the bigger ones with 1. Each value is at most
        750 times the mean hessian per row: the training objective's hessian
        at the first tree's scores, averaged over the training rows (in a
        leaf's step ``Σg / (Σh + lambda_l2)`` the penalty then weighs at most
        as much as 750 average rows). The bound binds where the gradient
        reaches few documents, as YetiRank's on lists of 500-1,200 documents
        with 2-3 % relevant (0.0008 and 0.0003 per row, so about 0.6 and
        0.2, against 0.014 or more for every default objective on every set
        the defaults were chosen on, where 10 stays); there 10 kept the trees
        from learning within the budget (BENCHMARKS.md, "Stop 39: the penalty
        bounded by the hessian mass" and "Stop 40: the penalty scaled by the
        mean hessian"). It is at least 0.1: with about two relevant
        documents in 1,000 the mean gave 0.02, and 0.1 did better. It does
        not depend on the data's size. ``GBRanker("QuerySoftMax")`` keeps 10
        (its softmax spreads the hessian over every document of a list; where
        the bound binds it cost 0.012-0.014: BENCHMARKS.md, "Stop 41").
        Symmetric trees (``grow_policy`` below) take 0, except where the bound
        binds: there they take the bound too (from stop 73; against 0 on the
        mixed trees' symmetric kind, NDCG@10 +0.0155 and MAP +0.0053 on drawn
        TD2004 shapes, p < 0.04, MAUC +0.0168 and MRR +0.0038 on twelve NP2004
        draws, p < 0.05, and every other cell up on those and gov shapes:
        BENCHMARKS.md, "Stop 72" and "Stop 73"). The fitted value is
        ``lambda_l2_`` (for ``"mixed"`` trees each kind's is in ``kinds_``).
    path_smooth : float, default 0.0
        LightGBM's ``path_smooth``: a leaf's value is pulled towards its
        parent's, with weight ``path_smooth / (n + path_smooth)`` for a leaf of
        n documents (LightGBM estimates n from the hessians). Off by default:
        at 10 it lifted every judged metric on MQ2008 (by 0.001-0.006) but
        was mixed on LightGBM's example and cost 0.006 NDCG@10 on the noisy
        MQ2007-sized set (BENCHMARKS.md, "Defaults, second round: leaves by data size and randomised
        splits").
    extra_trees : bool or "auto", default "auto"
        LightGBM's ``extra_trees``: each feature is tried at one random
        threshold per split search instead of at every bin, like CatBoost's
        random split strength a regulariser that keeps trees from fitting the
        noise of a few queries. ``"auto"``: on below 62,000 training documents
        (where ``num_leaves="auto"`` gives 7 or 15 leaves), off from there; the
        fitted value is ``extra_trees_``. Measured (BENCHMARKS.md, "Randomised
        splits"): on MQ2008 and LightGBM's example it adds 0.002-0.017 to
        NDCG@10, MAP and MRR (MAUC: +0.0001 and -0.008), on a noisy
        40,000-document synthetic set 0.006-0.0094 to NDCG@10 and MAP; on
        52,000 and 254,000 clean synthetic documents it costs 0.002-0.008 on
        four of the five judged metrics. The draws follow ``random_state``.
    max_depth : int, default -1 (no limit)
        With ``grow_policy`` "symmetric" or "symmetric_then_leafwise": the
        levels of every tree (1-8). Set, ``grow_policy="auto"`` grows
        leaf-wise trees.
    grow_policy : {"auto", "leafwise", "symmetric", "symmetric_then_leafwise", "mixed"}, default "auto"
        How a tree grows. ``"auto"``: ``"mixed"`` (completed symmetric trees
        beside leaf-wise ones, their scores averaged) from 30,000 training
        documents, with ``num_leaves``, ``extra_trees`` and ``max_depth`` at
        their defaults, no ``init_score``, and no setting that refuses
        symmetric trees (categorical features, ``feature_fraction`` or bagging
        below 1, ``path_smooth``): the capacity check sizes each kind where it
        runs (from 100 queries), the size rule with fewer queries (there for
        the YetiRank gradient, the target of every judged metric at that
        size); ``"leafwise"`` otherwise, so MQ2008 and LightGBM's example train
        leaf-wise trees. The fitted choice is ``grow_policy_``. With fewer than
        100 queries ``"auto"`` grew leaf-wise trees until stop 69; on drawn gov
        shapes the mixed trees score NDCG@10 / MAP / MAUC +0.019 / +0.011 /
        +0.004 above them (p ≤ 0.023), and below 30,000 documents they were
        level on the real sets for a fit three times as long (BENCHMARKS.md,
        "Stop 69"); on drawn TD2004 shapes they are level with them, and on
        drawn NP2004 ones they lose 0.028 MAUC (p 0.011), still above the
        best anchor (BENCHMARKS.md, "Stop 70"). From stop 56 to stop 67 ``"auto"`` grew
        the completed trees alone where the check runs (for MRR from stop 65; BENCHMARKS.md,
        "Stop 55", "Stop 56" and "Stop 65": see ``"symmetric_then_leafwise"``
        below). Measured (BENCHMARKS.md, "Stop 67" and "Stop 68"), the mixed
        trees against the completed ones alone, on eight clean draws of the
        held-out collection's shape (2,712 test queries): NDCG@10 +0.0030,
        MAP +0.0010, MAUC +0.0013 (p < 1e-4), MRR +0.0002; there they score
        +0.0014, +0.0032 and +0.0027 above CatBoost's YetiRank (p < 0.03). See
        ``"mixed"`` below for the suite's noisy set. Fits cost about twice a
        fit of one kind.
        ``"leafwise"``: LightGBM's way, the leaf of largest
        gain splits next (``num_leaves``, ``extra_trees`` and the capacity
        check above apply). ``"symmetric"``: oblivious trees, CatBoost's
        default ``SymmetricTree``: one (feature, threshold) per level, shared
        by every node of the level, chosen before each tree from its gradients
        (the largest ``Σ G_L²/n_L + G_R²/n_R - G²/n`` over the level's nodes
        among splits leaving ``min_data_in_leaf`` rows and
        ``min_sum_hessian_in_leaf`` hessian in each; LightGBM grows the tree
        through forced splits and sets the leaves, so the model is an ordinary
        LightGBM model: :mod:`metricrank.learners._symmetric`). ``max_depth``
        levels, or with ``max_depth=-1`` ``floor(log2(num_leaves_ + 1))``:
        with ``num_leaves="auto"`` 3 below 30,000 training documents, 4 below
        62,000, 5 from there; ``num_leaves_`` is then ``2**depth``. No capacity
        check, randomised splits, feature or row sampling, ``path_smooth`` or
        categorical features; ``lambda_l2="auto"`` is 0 (CatBoost's YetiRank:
        1e-20) unless the mean hessian bounds it (see ``lambda_l2``); missing
        values count as 0. A level takes no split where none
        leaves ``min_data_in_leaf`` rows in every node, and the tree stops
        there. With ``n_models_`` > 1 the models' trees of an iteration share
        their splits, chosen on the models' mean gradient. Not the default (BENCHMARKS.md, "Stop 54: symmetric trees as an
        option"): on MQ2007-shaped draws at learning rate 0.05 with 300 trees,
        against the defaults, NDCG@10, MAP and MAUC −0.0026, −0.0025, +0.0009
        at depth 5 on clean draws and +0.0026, +0.0012, +0.0019 at depth 4 on
        noisy ones (p ≥ 0.1); at rate 0.1 with depth 3 +0.0027, +0.0012,
        −0.0009 on MQ2008 and −0.0005, −0.0096, −0.0126 on LightGBM's example
        (MAUC 0.011 below CatBoost's best there). Stop 53's probe gained
        more on the clean draws because LightGBM completed its trees leaf-wise
        where a level found no split for every node.
        ``"symmetric_then_leafwise"``: that completion. The same symmetric
        levels (and the same refusals and ``lambda_l2="auto"``), then,
        where they stop early or leave a node unsplit, LightGBM's own
        leaf-wise splits (each leaf ``min_data_in_leaf`` rows, as LightGBM
        counts them) up to ``2**depth`` leaves within the depth. With
        ``num_leaves``, ``extra_trees`` and ``max_depth`` at their defaults the
        size rule's depth is the start of the capacity check, which from
        30,000 training documents adds up to two levels where held-out queries
        show they win (``capacity_check_`` reports depths). The depth decides:
        at 0.05 with 300 trees depth 4 lost 0.0043-0.0054 to depth 5 on the clean
        draws and gained 0.001-0.002 on the noisy ones. With the checked depth,
        against leaf-wise trees (the defaults before ``"auto"``): +0.0015, +0.0013, +0.0041 on the clean draws,
        +0.0033, +0.0030, +0.0026 on the noisy ones (worst −0.0014 against
        the best anchor); at 0.1 level on the quality suite's 50k and noisy
        40k sets, but MRR 0.003-0.004 below the best anchor there (BENCHMARKS.md,
        "Stop 55"). Below 30,000 documents, at depth 3: +0.0015, −0.0011,
        −0.0012 on MQ2008 and −0.0092, −0.0096, +0.0006 on LightGBM's example
        ("Stop 54"). The default's choice where the check runs from stop 56
        to stop 67, and one of its two kinds since (``"auto"``).
        ``"mixed"``: ``"symmetric_then_leafwise"`` and ``"leafwise"`` trees
        side by side, each kind its own ``n_models_`` models, sized as a fit
        of that kind alone would size them (each runs its own capacity check),
        trained on the same gradient with the same seed; :meth:`predict`
        returns the mean of the two kinds' scores, and ``evals_result_`` and
        early stopping read that mean. The kinds' models are the score columns
        of one LightGBM model (completed trees first), so ``num_iteration``,
        SHAP values, ``save`` and ``to_lightgbm`` work as for one kind;
        ``kinds_`` gives each kind's settings. Costs the two fits. Refuses
        what symmetric trees refuse. Measured (BENCHMARKS.md, "Stop 67" and
        "Stop 68"): against completed trees alone, +0.0030 NDCG@10, +0.0010
        MAP and +0.0013 MAUC on eight clean MQ2007-shaped draws (p < 1e-4);
        on the quality suite's noisy 40k set +0.0001, +0.0019, +0.0133 (p
        0.038), +0.0018 and +0.0018 on NDCG@10, MAP, MRR, ERR@10 and MAUC;
        eight models of one kind gained nothing over four.
    max_bin : int, default 255
        LightGBM's bins per feature (CatBoost's 254, XGBoost's 256). 63 bins
        cost 0.0025 MAP and 0.0014 MAUC on the clean 52,000-document set (p <
        1e-5). 1023 bins gained 0.0040 NDCG@10 there (p 0.021) and 0.0011
        ERR@10 on the clean 254,000-document set (p 0.037), but nothing
        significant on MQ2008, the noisy set or nine MQ2007-shaped draws
        (NDCG@10 -0.0009, MAP +0.0011, MAUC +0.0004), and gave the same models
        on LightGBM's example (BENCHMARKS.md, "Stop 30: bins and the hessian
        floor").
    feature_fraction, bagging_fraction : float, default 1.0
        No sampling: trained on an exact λ, 70 % of the rows per tree cost the
        noisy MQ2007-sized set 0.003-0.008 on NDCG@10, MAP and MAUC, 70 % of
        the features moved them by 0.0014 or less (BENCHMARKS.md, "Which
        gradient for which judged metric"); on YetiRank, 80 % of the rows per
        tree was mixed on MQ2007-shaped draws ("Stop 25: a slower learning
        rate"), and 80 % of the rows sampled by gradient, as CatBoost does
        (LightGBM's GOSS in ``lgb_params``), gained nothing on the noisy set
        and MQ2008 ("Stop 29: sampling rows by gradient").
    bagging_freq : int, default 0
    n_models : int or "auto", default "auto"
        Boosted models trained side by side and averaged, each on its own
        scores with its own random draws (YetiRank's permutations, randomised
        splits, bagging); every iteration grows one tree per model, and
        :meth:`predict` (``num_iteration`` included) returns the mean of the
        models' scores: ``n_models`` times the trees of the final fit. See
        :class:`~metricrank.GBRanker`. ``"auto"``: 4 when the target is
        YetiRank (the capacity check still judges single models), 1
        otherwise; the fitted value is ``n_models_``. Measured at learning rate 0.1
        (BENCHMARKS.md, "Two models side by side" and "Stop 31: four
        models"): two models against one on nine MQ2007-shaped draws (41,500
        training documents) NDCG@10 +0.0021, MAP +0.0016 (p 0.019), MAUC
        +0.0017 (p 0.002); four against two there +0.0012, +0.0025
        (p 0.001), +0.0017 (p 0.005), on the gov shape NDCG@10 +0.0095
        (p 0.03), on the noisy 128,000- and clean 254,000-document sets
        higher on every judged metric (ERR@10 +0.0016 and +0.0023, p < 0.02);
        mixed on the noisy 40,000-document suite set (NDCG@10 −0.0033,
        p 0.23; MAP +0.0017, p 0.022) and the clean 52,000-document one
        (NDCG@10 +0.0025, p 0.004; MAP, MAUC, ERR@10 within ±0.0008); for
        about a third more time than two on an MQ2007-shaped draw. Below
        30,000 documents (one model until stop 113), four against one, with
        the single model's penalty (10, which four models keep below 5,000
        documents since stop 115): level on MQ2008 over five random states
        (NDCG@10, MAP, MAUC, ERR@10 −0.0011 to +0.0017, p >= 0.08) and on
        LightGBM's example (−0.0013 to +0.0046, p >= 0.06), higher on drawn
        OHSUMED-shaped sets (+0.0204, +0.0048, +0.0028 on NDCG@10, MAP,
        MAUC, p <= 0.02; ERR@10 -0.0054, p 0.13; "Stop 113: four averaged
        models at every size").
    sigma : float, default 1.0
        σ of ``ρ_ij = 1 / (1 + exp(σ (s_i - s_j)))``. ``sigma``,
        ``truncation``, ``norm`` and ``exact`` are λ options: a pair-loss
        target (YetiRank, PairLogit) rejects them, and ``target="auto"`` then
        picks λ targets only.
    truncation : int or None, default None
        Only pairs whose higher-ranked document is in the first ``truncation``
        positions (LightGBM's ``lambdarank_truncation_level``). ``None`` = all
        pairs; top-k targets ignore pairs entirely below ``k`` anyway.
    norm : bool or "auto", default "auto"
        LightGBM's ``lambdarank_norm`` (per-query ``log2(1+S)/S`` and
        score-difference normalisation). ``"auto"``: off for MAP, ROCArea,
        QueryAUC and MAUC, on for the other targets, as measured
        (``BENCHMARKS.md``, "Defaults").
    exact : {"auto", True, False}, default "auto"
        For ROCArea, QueryAUC and MAUC with ``norm=False``: queries of at least
        64 documents take the O(n log n) λ kernel (equal to the O(n²) one to
        about 1e-14; see :mod:`metricrank.objectives._auc_fast`), and
        ``max_query_size`` does not apply. True forces the O(n²) kernel; False
        takes the fast kernel for every query (an error for other targets or
        ``norm=True``, whose λ does not factorise).
    preset : str, optional
        Metric convention preset (``catboost``, ``lightgbm``, ``xgboost``,
        ``trec_eval``) for the target and evaluation metrics.
    max_query_size : int, default 10000
        Queries larger than this raise a ValueError (the λ kernel is O(n²) per query).
    n_jobs : int or None, default None
        Threads for LightGBM and the λ kernel: None all cores; a negative value
        counts back from the cores as LightGBM and joblib do (-1 all, -2 all but
        one); 0 raises a ValueError.
    random_state : int, numpy RandomState or Generator, or None, default None
        As :class:`~metricrank.GBRanker`: seeds LightGBM and YetiRank's draws;
        None uses fixed seeds, so two fits on the same data give the same model;
        a RandomState or Generator is drawn from once per fit (``seed_``).
    importance_type : {"split", "gain"}, default "split"
        What :attr:`feature_importances_` counts.
    lgb_params : dict, optional
        Extra LightGBM parameters for the tree learner (``min_gain_to_split``,
        ``linear_tree``...), checked as :class:`~metricrank.GBRanker`'s: the
        names that raise a ValueError (the objective, the estimator's own
        parameters, ``metric``, names LightGBM does not know or training here
        leaves unread) are listed there.
    verbose : int, default 0
        Print the evaluation every ``verbose`` trees (0: silent).

    Attributes
    ----------
    booster_ : lightgbm.Booster
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        A training DataFrame's columns (scikit-learn's; absent for arrays).
    feature_name_ : list of str
        The booster's feature names (LightGBM's): the DataFrame's columns, fit's
        ``feature_name``, or ``Column_0``, ``Column_1``...
    evals_result_ : dict
        ``{eval set name: {metric spec: [value after each tree]}}``.
    best_iteration_ : int or None
        With ``early_stopping_rounds``: the tree count with the best early-stopping
        metric, the booster's last (the trees after it are dropped, as LightGBM
        drops them). None otherwise.
    best_score_ : dict
        ``{eval set name: {metric spec: value}}`` of the model :meth:`predict`
        uses: at ``best_iteration_`` with early stopping, otherwise after the
        last tree (LightGBM's reading).
    n_estimators_ : int
        Iterations in the booster (with early stopping, up to the best one).
    num_leaves_ : int
        The leaves per tree used (``num_leaves`` with ``"auto"`` resolved).
    extra_trees_ : bool
        Whether splits were randomised (``extra_trees`` with ``"auto"`` resolved).
    lambda_l2_ : float
        The L2 penalty used (``lambda_l2`` with ``"auto"`` resolved).
    n_models_ : int
        The models averaged (``n_models`` with ``"auto"`` resolved), of each kind of tree.
    capacity_check_ : CapacityCheck or None
        The capacity check's trials, p-values and choice; None when it did not run.
        With ``grow_policy_`` "mixed", ``num_leaves_``, ``extra_trees_``,
        ``lambda_l2_`` and ``capacity_check_`` are the completed trees'.
    kinds_ : list of TreeKind
        Each kind of tree grown (one, or two with ``grow_policy_`` "mixed"): its
        ``grow_policy``, ``n_models``, ``num_leaves``, ``extra_trees``,
        ``lambda_l2`` and ``capacity_check``.
    stop_reason_ : str
    seed_ : int or None
        The seed the fit used: ``random_state``, or the integer drawn from it.
    target_ : str
        The target trained on (``target`` with ``"auto"`` resolved).
    objective_ : LambdaObjective, YetiRank or PairLogit
    init_model_ : GBRanker, LambdaMART or None
        The base model whose scores the trees start from (warm start).

    Examples
    --------
    >>> from metricrank import LambdaMART, make_ltr, evaluate
    >>> ds = make_ltr(60, n_features=8, random_state=0)
    >>> model = LambdaMART(metric="NDCG:top=10", n_estimators=20, num_leaves=7, min_data_in_leaf=5,
    ...                    random_state=0).fit(ds.X, ds.y, qid=ds.qid)
    >>> bool(evaluate(ds, model.predict(ds.X), metric="NDCG:top=10") > 0.8)
    True
    """

    def __init__(self, metric="NDCG:top=10", *, target="auto", n_estimators=300, learning_rate=0.1, num_leaves="auto",
                 min_data_in_leaf=20, min_sum_hessian_in_leaf=1e-3, lambda_l2="auto", path_smooth=0.0, extra_trees="auto",
                 max_depth=-1, grow_policy="auto", max_bin=255, feature_fraction=1.0, bagging_fraction=1.0,
                 bagging_freq=0, n_models="auto",
                 sigma=1.0, truncation=None, norm="auto", exact="auto", preset=None, max_query_size=MAX_QUERY_SIZE,
                 n_jobs=None, random_state=None, importance_type="split", lgb_params=None, verbose=0):
        self.metric = metric
        self.target = target
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_data_in_leaf = min_data_in_leaf
        self.min_sum_hessian_in_leaf = min_sum_hessian_in_leaf
        self.lambda_l2 = lambda_l2
        self.path_smooth = path_smooth
        self.extra_trees = extra_trees
        self.max_depth = max_depth
        self.grow_policy = grow_policy
        self.max_bin = max_bin
        self.feature_fraction = feature_fraction
        self.bagging_fraction = bagging_fraction
        self.bagging_freq = bagging_freq
        self.n_models = n_models
        self.sigma = sigma
        self.truncation = truncation
        self.norm = norm
        self.exact = exact
        self.preset = preset
        self.max_query_size = max_query_size
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.importance_type = importance_type
        self.lgb_params = lgb_params
        self.verbose = verbose

    def _check_params(self) -> None:
        super()._check_params()
        if not (isinstance(self.norm, (bool, np.bool_)) or self.norm == "auto"):
            raise ValueError(f"norm must be True, False or 'auto'; got {self.norm!r}")
        if not isinstance(self.target, str):
            raise ValueError(f"target must be 'auto', a λ target spec (e.g. 'MRR', 'ERR:type=Graded'), "
                             f"'YetiRank[:params]' or 'PairLogit[:params]'; got {self.target!r}")

    def _lambda_options(self) -> list[str]:
        """The λ options set away from their defaults (only λ targets read them)."""
        changed = {"sigma": self.sigma != 1.0, "truncation": self.truncation is not None,
                   "norm": not (isinstance(self.norm, str) and self.norm == "auto"),
                   "exact": not (isinstance(self.exact, str) and self.exact == "auto")}
        return [name for name, is_changed in changed.items() if is_changed]

    def _resolved_target(self, y=None, row_weights: bool = False) -> str:
        if self.target != "auto":
            return self.target
        lambda_only = bool(self._lambda_options()) or row_weights
        return choose_target(self.metric, y, self.preset, lambda_only=lambda_only)

    def _make_objective(self) -> Objective:
        """The objective before labels are seen (MRR's ``target="auto"`` reads them: see _objective_for_labels)."""
        return self._objective(self._resolved_target())

    def _objective(self, target: str, row_weights: bool = False) -> Objective:
        ranknet = isinstance(self.metric, str) and self.metric.strip().lower() == "ranknet"
        if is_pair_target(target):
            if ranknet:
                raise ValueError(f"metric='RankNet' is a λ target, not a metric a model trained on target={target!r} "
                                 f"can be judged by; name a metric (metric='NDCG:top=10', target={target!r})")
            options = self._lambda_options()
            if options:
                raise ValueError(f"{', '.join(options)} appl{'ies' if len(options) == 1 else 'y'} to λ targets, "
                                 f"not to target={target!r}: leave {'it' if len(options) == 1 else 'them'} at the "
                                 f"default, or name a λ target (target={self.metric!r})")
            if row_weights:
                raise ValueError(f"target={target!r} does not read sample_weight (row weights) row by row: YetiRank "
                                 f"ignores them and PairLogit weighs a query's pairs by its first row's, as "
                                 f"CatBoost's do; pass group_weight for query weights, or name a λ target "
                                 f"(target={self.metric!r}), whose λ a row's weight multiplies")
            return get_objective(target).judged_by(self.metric, preset=self.preset)
        norm = self.norm if isinstance(self.norm, str) else bool(self.norm)
        # judged by ``metric`` when it differs from the target (RankNet is no metric: the target's own then)
        judged = None if target == self.metric or ranknet else self.metric
        return LambdaObjective(target, sigma=self.sigma, truncation=self.truncation, norm=norm, preset=self.preset,
                               exact=self.exact, eval_metric=judged)

    def _objective_for_labels(self, objective: Objective, y, row_weights: bool = False) -> Objective:
        self.target_ = self._resolved_target(y, row_weights)
        return self._objective(self.target_, row_weights)

    def _resolved_objective_params(self) -> dict:
        # MRR's "auto" reads how many labels there are: 80 % of them could resolve another gradient
        return {"target": self.target_}

    def _state(self) -> dict:
        return {**super()._state(), "target": self.target_}

    @classmethod
    def _from_state(cls, state: dict) -> "LambdaMART":
        model = super()._from_state(state)
        # files written before ``target`` existed trained on the metric itself
        model.target_ = state.get("target", model.metric)
        model.objective_ = model._objective(model.target_)
        return model

"""num_leaves="auto"'s capacity check: bigger trees only where held-out training queries prove they win.

The oracle is the check done by hand: the same query folds held out one at a time, the same
estimators fitted on the other folds, the metric over every held-out query evaluated from scratch at
every tree count, and scipy's one-sided Wilcoxon. A capacity is ``(num_leaves, extra_trees, lambda_l2)``:
with ``lambda_l2="auto"`` the size rule's trees take an L2 penalty of 10 (under the ``low_threshold`` fixture, which
keeps the averaged models' penalty away) and the levels the check adds 1.
"""

import contextlib
import re

import numpy as np
import pytest
from scipy.stats import wilcoxon

from metricrank import GBRanker, LambdaMART, RankingDataset, evaluate, make_ltr
from metricrank.learners import _capacity, _gbdt
from metricrank.learners._gbdt import auto_extra_trees, auto_num_leaves

NDCG = "NDCG:top=10"


def clean_data(seed=0, n_queries=300):
    """Nonlinear relevance with little label noise: 7 randomised leaves underfit it."""
    return make_ltr(n_queries, docs_per_query=(20, 40), n_features=10, n_informative=6, relevance="nonlinear",
                    noise=0.1, random_state=seed)


def folds_by_hand(n_queries, seed, n_folds=5, enough=500):
    """Five random folds of the queries; the first ones that together hold ``enough`` queries (or all five)."""
    order = np.random.default_rng(seed).permutation(n_queries)
    bounds = [n_queries * i // n_folds for i in range(n_folds + 1)]  # sizes differ by at most one
    sizes = sorted((bounds[i + 1] - bounds[i] for i in range(n_folds)), reverse=True)  # array_split's order
    folds, start = [], 0
    for size in sizes:
        folds.append(np.sort(order[start:start + size]))
        start += size
        if start >= enough:
            break
    return folds


@contextlib.contextmanager
def recorded_fits(attribute):
    """The value of ``attribute`` after every ranker fit inside the block, the capacity check's fold models' first."""
    values, fit = [], GBRanker.fit

    def recording_fit(self, *args, **kwargs):
        out = fit(self, *args, **kwargs)
        values.append(getattr(self, attribute))
        return out

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(GBRanker, "fit", recording_fit)
        yield values


def patience_cut(curve, rounds):
    """How many trees early stopping lets grow: up to the first tree ``rounds`` trees after the best."""
    if rounds is None:
        return len(curve)
    best = 0
    for k in range(1, len(curve)):
        if curve[k] > curve[best]:
            best = k
        elif k - best >= rounds:
            return k + 1
    return len(curve)


class ByHand:
    """The check done by hand for one fitted ``estimator`` on ``ds``: fold models trained on the other queries,
    the metric over the held-out queries evaluated from scratch at every tree count."""

    def __init__(self, ds, estimator, metric=NDCG, init_model=None, early_stopping_rounds=None, enough=500,
                 bound_share=0.9, rising_alpha=0.01, added_l2=1.0, cache=None):
        self.ds, self.estimator, self.metric, self.bound_share = ds, estimator, metric, bound_share
        self.added_l2 = added_l2  # lambda_l2="auto" at the added levels
        self.rising_alpha = rising_alpha
        self.init_model, self.rounds = init_model, early_stopping_rounds
        self.folds = folds_by_hand(ds.n_queries, estimator.random_state, enough=enough)
        # ("fold", capacity, fold) -> (model, trees it grew); ("judged", capacity, looks) -> judged(). It may be
        # shared with another ByHand of the same data, estimator parameters, metric, warm start and patience: what
        # it holds does not depend on the decision's constants (bound_share, rising_alpha)
        self.cache = {} if cache is None else cache

    def fold_model(self, capacity, i):
        if ("fold", capacity, i) not in self.cache:
            fold = self.folds[i]
            params = {**self.estimator.get_params(), "num_leaves": capacity[0], "extra_trees": capacity[1],
                      "lambda_l2": capacity[2], "n_models": 1}  # the check judges capacities on one model each
            model = self.estimator.__class__(**params)
            model.fit(self.ds.subset_queries(np.setdiff1d(np.arange(self.ds.n_queries), fold)),
                      init_model=self.init_model)
            hold = self.ds.subset_queries(fold)
            own = [evaluate(hold, model.predict(hold.X, num_iteration=k), metric=self.metric)
                   for k in range(1, model.n_estimators_ + 1)]
            self.cache["fold", capacity, i] = model, patience_cut(own, self.rounds)
        return self.cache["fold", capacity, i]

    def judged(self, capacity, looks):
        """Per-query values, held-out queries and tree count of ``capacity`` at look ``looks``, and the one-sided p
        that the held-out queries score better at the last tree than at half of it."""
        if ("judged", capacity, looks) not in self.cache:
            self.cache["judged", capacity, looks] = self._judged(capacity, looks)
        return self.cache["judged", capacity, looks]

    def _judged(self, capacity, looks):
        fitted = [self.fold_model(capacity, i) for i in range(looks)]
        held = [self.ds.subset_queries(f) for f in self.folds[:looks]]
        pooled = self.ds.subset_queries(np.concatenate(self.folds[:looks]))

        def scores(k):
            return np.concatenate([m.predict(h.X, num_iteration=min(k, n)) for (m, n), h in zip(fitted, held)])

        curve = [evaluate(pooled, scores(k), metric=self.metric) for k in range(1, max(n for _, n in fitted) + 1)]
        k = int(np.nanargmax(curve)) + 1
        last = len(curve)
        rising = one_sided_p(*(np.asarray(evaluate(pooled, scores(n), metric=self.metric, per_query=True))
                               for n in (last, last // 2)))
        return (np.asarray(evaluate(pooled, scores(k), metric=self.metric, per_query=True)), pooled.n_queries, k,
                rising)

    def check(self, start):
        """The sequential steps: ``(looks' p-values per step, [(capacity, values, queries, trees, rising p)],
        chosen, budget wins per step, widened)``. The kept capacity still learns where it was best at
        ``bound_share`` of ``n_estimators`` or later (it ran out of trees) and its later half of the trees gained
        at p < ``rising_alpha``. A step undecided after every fold is won where the kept capacity still learns
        and the bigger trees are ahead (p < 0.5). A first step lost while the rule's randomised trees still learn
        gives one level more, randomised, with the added levels' penalty."""
        level, kept, steps, trials, by_budget, widened = 0.05 / len(self.folds), start, [], [], [], False
        given_l2 = self.estimator.lambda_l2
        added_l2 = self.added_l2 if given_l2 == "auto" else given_l2
        for _ in range(2):
            candidate, steps = (2 * kept[0] + 1, False, added_l2), steps + [[]]
            for looks in range(1, len(self.folds) + 1):
                a, b = self.judged(kept, looks), self.judged(candidate, looks)
                steps[-1].append(one_sided_p(b[0], a[0]))
                if steps[-1][-1] < level or steps[-1][-1] >= 0.5:
                    break
            trials += ([(kept, *a)] if not trials else []) + [(candidate, *b)]
            p = steps[-1][-1]
            learning = a[2] >= self.bound_share * self.estimator.n_estimators and a[3] < self.rising_alpha
            by_budget.append(level <= p < 0.5 and learning)
            if not (p < level or by_budget[-1]):
                if len(steps) == 1 and kept[1] and learning:
                    kept, widened = (2 * kept[0] + 1, True, added_l2), True
                break
            kept = candidate
        return steps, trials, kept, by_budget, widened


def one_sided_p(a, b):
    """SciPy's one-sided Wilcoxon, zero differences dropped from the ranks (``zero_method="wilcox"``; with
    zeros present SciPy takes the normal approximation); queries where either value is undefined left out."""
    d = a - b
    d = d[np.isfinite(d)]
    return wilcoxon(d, alternative="greater", zero_method="wilcox").pvalue if np.any(d != 0) else 1.0


def assert_as_by_hand(check, hand, start):
    """Every look's p-value, every trial's value, queries and tree count, and the choice, as done by hand."""
    steps, trials, chosen, by_budget, widened = hand.check(start)
    assert check.budget_wins == by_budget and check.widened == widened
    assert check.level == pytest.approx(0.05 / len(hand.folds), rel=1e-12)
    assert len(check.looks) == len(steps) and all(len(a) == len(b) for a, b in zip(check.looks, steps))
    for got, expected in zip(check.looks, steps):
        assert got == pytest.approx(expected, rel=1e-9)
    assert len(check.trials) == len(trials)
    for trial, (capacity, values, queries, trees, rising) in zip(check.trials, trials):
        assert (trial["num_leaves"], trial["extra_trees"], trial["lambda_l2"]) == capacity
        assert (trial["queries"], trial["trees"]) == (queries, trees)
        assert trial["rising_p"] == pytest.approx(rising, rel=1e-9)
        assert trial["value"] == pytest.approx(np.nanmean(values), abs=1e-12)
    assert (check.num_leaves, check.extra_trees, check.lambda_l2) == chosen
    return steps, trials, chosen


def test_bigger_trees_are_kept_when_the_held_out_queries_prefer_them(low_threshold):
    ds = clean_data()
    model = GBRanker("YetiRank", n_estimators=60, random_state=3).fit(ds)
    check = model.capacity_check_
    start = (auto_num_leaves(ds.n_docs), auto_extra_trees(ds.n_docs), 10.0)
    assert start == (7, True, 10.0)
    steps, _, chosen = assert_as_by_hand(check, ByHand(ds, model), start)
    assert check.max_looks == 5 and check.fold_queries == 60
    assert steps[0][-1] < 0.01 and chosen != start  # clean data: the bigger trees win
    assert (model.num_leaves_, model.extra_trees_, model.lambda_l2_) == chosen
    # the final model is the chosen capacity trained on every training query
    explicit = GBRanker("YetiRank", n_estimators=60, random_state=3, num_leaves=chosen[0],
                        extra_trees=chosen[1], lambda_l2=chosen[2]).fit(ds)
    np.testing.assert_array_equal(model.predict(ds.X), explicit.predict(ds.X))
    assert explicit.capacity_check_ is None


def test_completed_symmetric_trees_take_the_depth_the_held_out_queries_prefer(low_threshold):
    # grow_policy="symmetric_then_leafwise": the same check over depths (a capacity's leaves give the depth,
    # floor(log2(leaves + 1))), with no randomised splits and lambda_l2="auto" 0 at every depth
    from metricrank.learners._symmetric import symmetric_depth

    ds = clean_data()
    model = GBRanker("YetiRank", grow_policy="symmetric_then_leafwise", n_estimators=60, random_state=3).fit(ds)
    check = model.capacity_check_
    steps, _, chosen = assert_as_by_hand(check, ByHand(ds, model, added_l2=0.0), (7, False, 0.0))
    assert steps[0][-1] < 0.01 and chosen != (7, False, 0.0)  # clean data: deeper trees win
    depth = symmetric_depth(chosen[0], -1)
    assert model.booster_.params["max_depth"] == depth and model.num_leaves_ == 2 ** depth
    assert "depth 3 L2 0: " in str(check) and str(check).endswith(f"-> depth {depth}, lambda_l2 0")
    explicit = GBRanker("YetiRank", grow_policy="symmetric_then_leafwise", max_depth=depth, n_estimators=60,
                        random_state=3).fit(ds)
    np.testing.assert_array_equal(model.predict(ds.X), explicit.predict(ds.X))
    assert explicit.capacity_check_ is None  # a depth set by hand is kept
    assert GBRanker("YetiRank", grow_policy="symmetric", n_estimators=5).fit(ds).capacity_check_ is None


def test_the_rule_is_kept_when_bigger_trees_do_not_win(low_threshold):
    # labels unrelated to the features: no capacity can win on held-out queries (BENCHMARKS.md, "The
    # capacity check of num_leaves="auto"", counts how often chance makes one win). Here the bigger
    # trees are not ahead by the second look, so the step ends there, before all five folds.
    ds = clean_data(seed=1)
    ds = type(ds)(ds.X, np.random.default_rng(1).permutation(ds.y), group_ptr=ds.group_ptr)
    model = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=40, random_state=1).fit(ds)
    check = model.capacity_check_
    steps, _, _ = assert_as_by_hand(check, ByHand(ds, model), (7, True, 10.0))
    assert len(check.trials) == 2 and len(steps) == 1 and len(steps[0]) == 2
    assert check.level <= steps[0][0] < 0.5 <= steps[0][1]
    # each trial is read at its best tree count on the held-out queries, not after its last tree
    assert min(t["trees"] for t in check.trials) < 40
    assert (model.num_leaves_, model.extra_trees_, model.lambda_l2_) == (check.num_leaves, check.extra_trees,
                                                                          check.lambda_l2) == (7, True, 10.0)


def test_the_checks_start_reads_the_averaged_penalty_from_all_the_training_documents(low_threshold, monkeypatch):
    # the rule's 7 averaged randomised leaves start (and here keep) 1 from AVERAGED_PENALTY_MIN_DOCS training
    # documents, read from all of them: set at exactly this set's size, which the check's folds (80 %) are below
    ds = clean_data(seed=1)
    ds = type(ds)(ds.X, np.random.default_rng(1).permutation(ds.y), group_ptr=ds.group_ptr)
    monkeypatch.setattr(_gbdt, "AVERAGED_PENALTY_MIN_DOCS", ds.n_docs)
    model = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=40, random_state=1).fit(ds)
    assert_as_by_hand(model.capacity_check_, ByHand(ds, model), (7, True, _gbdt.AVERAGED_LAMBDA_L2))
    assert (model.num_leaves_, model.lambda_l2_) == (7, _gbdt.AVERAGED_LAMBDA_L2)


def test_a_close_step_looks_at_more_folds(low_threshold, monkeypatch):
    # noisier labels: the first fold does not decide the first step, a later look does; the second step
    # looks at every fold without reaching the level, the bigger trees ahead (p < 0.5) at every look
    ds = make_ltr(300, docs_per_query=(20, 40), n_features=10, n_informative=6, relevance="nonlinear", noise=2.0,
                  random_state=1)
    model = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=30, random_state=1).fit(ds)
    hand = ByHand(ds, model)
    steps, _, chosen = assert_as_by_hand(model.capacity_check_, hand, (7, True, 10.0))
    assert len(steps[0]) > 1 and 0.01 <= steps[0][0] < 0.5 and steps[0][-1] < 0.01
    assert len(steps[1]) == 5 and 0.01 <= min(steps[1]) and max(steps[1]) < 0.5
    # 30 trees bind the kept 15 leaves (best at 27 trees or later on the held-out queries, and still gaining over
    # their later half), so ahead is enough
    assert model.capacity_check_.budget_wins == [False, True] and chosen == (31, False, 1.0)
    assert "ahead where the smaller trees still learned at the budget's end" in str(model.capacity_check_)
    # where no budget binds, or the later half's gain is not significant at RISING_ALPHA, the same undecided step
    # is a loss
    for name, value, constants in [("BUDGET_BOUND_SHARE", 1.01, {"bound_share": 1.01}),
                                   ("RISING_ALPHA", 0.0, {"rising_alpha": 0.0})]:
        with monkeypatch.context() as patched:
            patched.setattr(_capacity, name, value)
            model = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=30, random_state=1).fit(ds)
            unbound = ByHand(ds, model, **constants, cache=hand.cache)
            steps_unbound, _, chosen = assert_as_by_hand(model.capacity_check_, unbound, (7, True, 10.0))
        assert steps_unbound == steps and model.capacity_check_.budget_wins == [False, False]
        assert chosen == (15, False, 1.0) and "budget's end" not in str(model.capacity_check_)


def test_a_lost_first_step_deepens_the_rules_randomised_trees_where_they_still_learn(low_threshold, monkeypatch):
    # noisy labels and 20 trees: 15 unrandomised leaves are not ahead of the rule's 7 randomised ones by the
    # second look, yet the rule's trees were best at their last tree and gained over their later half
    ds = make_ltr(300, docs_per_query=(20, 40), n_features=10, n_informative=6, relevance="nonlinear", noise=4.0,
                  random_state=2)
    model = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=20, random_state=2).fit(ds)
    check = model.capacity_check_
    steps, trials, chosen = assert_as_by_hand(check, ByHand(ds, model), (7, True, 10.0))
    assert len(steps) == 1 and steps[0][-1] >= 0.5
    rule_trees, rule_rising = trials[0][3], trials[0][4]
    assert rule_trees == 20 and rule_rising < 0.01
    assert check.widened and chosen == (15, True, 1.0) == (model.num_leaves_, model.extra_trees_, model.lambda_l2_)
    assert "one level deeper, randomised" in str(check)
    explicit = LambdaMART(NDCG, n_estimators=20, random_state=2, num_leaves=15, extra_trees=True,
                          lambda_l2=1.0).fit(ds)
    np.testing.assert_array_equal(model.predict(ds.X), explicit.predict(ds.X))
    # a later half that gained less than RISING_ALPHA asks keeps the rule
    monkeypatch.setattr(_capacity, "RISING_ALPHA", rule_rising / 2)
    model = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=20, random_state=2).fit(ds)
    _, _, chosen = assert_as_by_hand(model.capacity_check_, ByHand(ds, model, rising_alpha=rule_rising / 2),
                                     (7, True, 10.0))
    assert not model.capacity_check_.widened and chosen == (7, True, 10.0)
    assert "deeper" not in str(model.capacity_check_)


def test_the_check_reads_the_judged_metric_and_the_warm_start(low_threshold):
    ds = clean_data(seed=2)
    # a strong base (it has seen every query): whether its scores are counted moves the best tree count
    base = GBRanker("YetiRank", n_estimators=60, num_leaves=15, random_state=0).fit(ds)
    model = LambdaMART("MAP", grow_policy="leafwise", n_estimators=40, random_state=4).fit(ds, init_model=base)
    assert model.capacity_check_.metric == "MAP"
    assert_as_by_hand(model.capacity_check_, ByHand(ds, model, metric="MAP", init_model=base), (7, True, 10.0))


@pytest.mark.parametrize("metric", ["MRR", "ERR:type=Graded;top=10"])
def test_coarse_metrics_judge_capacities_by_ndcg(low_threshold, metric):
    # MRR and ERR give a query a value its first relevant documents decide: the check judges by exponential-gain
    # NDCG@10 instead (fold models, best tree count and Wilcoxon all by it); the final model's target is unchanged
    ds = clean_data(seed=7)
    model = LambdaMART(metric, grow_policy="leafwise", n_estimators=30, random_state=2).fit(ds)
    assert model.capacity_check_.metric == "NDCG:top=10;type=Exp"
    assert_as_by_hand(model.capacity_check_, ByHand(ds, model, metric="NDCG:top=10;type=Exp"), (7, True, 10.0))
    assert model.target_ == LambdaMART(metric).fit(ds.subset_queries(np.arange(20))).target_


def test_negative_labels_are_judged_by_dcg_where_ndcg_would_judge_them(low_threshold):
    # NDCG refuses negative labels; MRR and YetiRank train on them, so their check reads them by DCG@10
    ds = clean_data(seed=7)
    shifted = RankingDataset(ds.X, ds.y - 1, group_ptr=ds.group_ptr)  # grades -1..: MRR's relevant stay label > 0
    model = LambdaMART("MRR", grow_policy="leafwise", n_estimators=30, random_state=2).fit(shifted)
    assert model.capacity_check_.metric == "DCG:top=10;type=Exp"
    assert_as_by_hand(model.capacity_check_, ByHand(shifted, model, metric="DCG:top=10;type=Exp"), (7, True, 10.0))
    yeti = GBRanker("YetiRank", n_estimators=20, random_state=0).fit(shifted)
    assert yeti.capacity_check_.metric == "DCG:top=10"
    with pytest.raises(ValueError, match="eval set training: NDCG needs labels >= 0"):  # a metric named is kept
        GBRanker("YetiRank", n_estimators=2).fit(shifted, eval_set=[shifted], eval_metrics=["NDCG:top=10"])


@pytest.mark.parametrize("metric, judged", [("MAP", "MAP"), ("NDCG:top=5", "NDCG:top=5"), ("MRR:top=10", None),
                                            ("ERR:type=Graded;top=10", None), ("ERR", None)])
def test_judging_metric(metric, judged):
    assert _capacity.judging_metric(metric) == (judged or _capacity.PROXY_METRIC)
    assert _capacity.judging_metric(metric, preset="catboost") == (judged or _capacity.PROXY_METRIC)
    assert _capacity.judging_metric(metric, y=[0.0, 2.0]) == (judged or _capacity.PROXY_METRIC)
    negative = _capacity.judging_metric(metric, y=[-1.0, 2.0])
    assert negative == (judged or _capacity.PROXY_METRIC).replace("NDCG", "DCG")


def test_trials_stop_with_the_fits_patience(low_threshold):
    ds = clean_data(seed=5)
    model = GBRanker("YetiRank", n_estimators=60, random_state=1)
    vali = clean_data(seed=6, n_queries=40)
    model.fit(ds, eval_set=[vali], early_stopping_rounds=3)
    assert_as_by_hand(model.capacity_check_, ByHand(ds, model, early_stopping_rounds=3), (7, True, 10.0))


def test_a_penalty_set_by_hand_holds_at_every_capacity(low_threshold):
    # lambda_l2 given: the check still chooses the capacity, and every trial and the final trees keep the penalty
    ds = clean_data()
    model = GBRanker("YetiRank", n_estimators=60, random_state=3, lambda_l2=3.0).fit(ds)
    _, trials, chosen = assert_as_by_hand(model.capacity_check_, ByHand(ds, model), (7, True, 3.0))
    assert {t[0][2] for t in trials} == {3.0} and chosen[0] > 7 and model.lambda_l2_ == 3.0
    assert model.booster_.params["lambda_l2"] == 3.0


def test_raw_init_scores_keep_the_rule(low_threshold):
    ds = clean_data(n_queries=260)
    model = GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds, init_score=np.zeros(ds.n_docs))
    assert model.capacity_check_ is None and (model.num_leaves_, model.extra_trees_) == (7, True)


@pytest.mark.parametrize("params", [{"num_leaves": 7}, {"extra_trees": True}, {"num_leaves": 7, "extra_trees": True}])
def test_explicit_capacity_skips_the_check(low_threshold, params):
    ds = clean_data(n_queries=260)  # enough documents and queries for the check: only the parameters skip it
    assert GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds).capacity_check_ is not None
    model = GBRanker("YetiRank", n_estimators=5, random_state=0, **params).fit(ds)
    assert model.capacity_check_ is None


def test_small_data_and_few_queries_skip_the_check(monkeypatch):
    ds = clean_data(n_queries=300)  # about 9,000 documents (below CHECK_MIN_DOCS), 60 queries to hold out
    assert ds.n_docs < _capacity.CHECK_MIN_DOCS
    model = GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds)
    assert model.capacity_check_ is None and model.num_leaves_ == 7
    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", ds.n_docs)  # from exactly this size: the check runs
    assert GBRanker("YetiRank", n_estimators=5, random_state=0).fit(ds).capacity_check_ is not None
    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 1_000)
    few = clean_data(n_queries=99)  # fewer training queries than CHECK_MIN_QUERIES
    assert _capacity.CHECK_MIN_QUERIES == 100
    assert GBRanker("YetiRank", n_estimators=5, random_state=0).fit(few).capacity_check_ is None
    enough = clean_data(n_queries=100)
    assert GBRanker("YetiRank", n_estimators=5, random_state=0).fit(enough).capacity_check_.fold_queries == 20


def test_verbose_reports_the_check(low_threshold, capsys):
    ds = clean_data(n_queries=260)
    GBRanker("YetiRank", n_estimators=10, random_state=0, verbose=100).fit(ds)
    out = capsys.readouterr().out
    assert ("capacity check by NDCG:top=10 on held-out training queries (up to 5 looks of 52 more queries, "
            "level 0.01 per look)") in out
    assert "7 leaves randomised" in out
    # each trial says how significantly its held-out queries gained over the later half of its trees
    check = re.search(r"7 leaves randomised L2 10: [0-9.]+ \(\d+ trees, later half p ([0-9.e-]+), \d+ queries", out)
    assert check is not None and 0 <= float(check.group(1)) <= 1


def test_cli_train_says_it_checks_and_what_it_chose(low_threshold, tmp_path, capsys):
    from metricrank import save_letor
    from metricrank.cli import main

    path = tmp_path / "train.txt"
    save_letor(clean_data(n_queries=260), path)
    out = tmp_path / "m.json"
    assert main(["train", "--train", str(path), "--trees", "5", "--seed", "0", "--quiet", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--leaves auto: checking first whether bigger trees win" in err
    assert "capacity check by NDCG:top=10 on held-out training queries" in err
    assert main(["train", "--train", str(path), "--trees", "5", "--leaves", "7", "--quiet", "--out", str(out)]) == 0
    assert "capacity check" not in capsys.readouterr().err


@pytest.mark.parametrize("n_queries", [99, 260, 1000, 2503, 5000])
@pytest.mark.parametrize("seed", [None, 7])
def test_folds_are_held_out_until_enough_queries_are_judged(n_queries, seed):
    expected = folds_by_hand(n_queries, 0 if seed is None else seed)
    got = _capacity.held_out_folds(n_queries, seed)
    assert len(got) == len(expected) and all(np.array_equal(a, b) for a, b in zip(got, expected))
    sizes = [f.size for f in got]
    # all the queries below five folds of 100; otherwise the fewest folds that reach 500
    assert sum(sizes) == n_queries if n_queries <= 500 else (sum(sizes) >= 500 > sum(sizes[:-1]))
    assert len(np.unique(np.concatenate(got))) == sum(sizes)


def test_fewer_folds_when_they_hold_enough_queries(low_threshold, monkeypatch):
    monkeypatch.setattr(_capacity, "CHECK_QUERIES", 100)
    ds = clean_data(seed=7)  # 300 queries: folds of 60, two reach 100
    model = LambdaMART("MAP", grow_policy="leafwise", n_estimators=30, random_state=5).fit(ds)
    check = model.capacity_check_
    assert (check.max_looks, check.fold_queries) == (2, 60) and check.level == 0.025
    assert_as_by_hand(check, ByHand(ds, model, metric="MAP", enough=100), (7, True, 10.0))


def test_the_check_survives_save_and_load(low_threshold, tmp_path):
    ds = clean_data(n_queries=120)
    model = LambdaMART("MAP", grow_policy="leafwise", n_estimators=8, random_state=2).fit(ds)
    model.save(tmp_path / "m.json")
    loaded = LambdaMART.load(tmp_path / "m.json")
    assert loaded.capacity_check_ == model.capacity_check_ and loaded.capacity_check_.trials
    assert str(loaded.capacity_check_) == str(model.capacity_check_)
    assert (loaded.num_leaves_, loaded.extra_trees_, loaded.lambda_l2_) == (model.num_leaves_, model.extra_trees_,
                                                                            model.lambda_l2_)


def test_a_metric_of_all_rows_together_keeps_the_rule(low_threshold):
    # CatBoost's AUC is one value over every row: there are no per-query values to pair
    ds = clean_data(n_queries=150)
    binary = type(ds)(ds.X, (ds.y > 1).astype(float), group_ptr=ds.group_ptr)
    model = GBRanker("YetiRank", n_estimators=5, random_state=0).fit(binary, eval_set=[binary], eval_metrics=["AUC"])
    assert model.capacity_check_ is None and (model.num_leaves_, model.extra_trees_) == (7, True)
    by_query = GBRanker("YetiRank", n_estimators=5, random_state=0).fit(binary, eval_set=[binary],
                                                                        eval_metrics=["QueryAUC"])
    assert by_query.capacity_check_ is not None


def test_fold_models_are_single_models_where_the_final_one_averages_four(low_threshold, monkeypatch):
    # n_models="auto" gives 4 for all the training documents and for the fold models' 80 % alike; the check
    # still judges capacities on one model each
    ds = clean_data(seed=7, n_queries=200)
    monkeypatch.setattr(_gbdt, "AUTO_DOCS_PER_LEAF", ds.n_docs // 16)  # the size rule's 15 leaves, which take
    # the averaged models' penalty (7 keep the single model's)
    with recorded_fits("n_models_") as resolved:
        model = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=25, random_state=2).fit(ds)
    assert len(resolved) >= 3 and resolved[:-1] == [1] * (len(resolved) - 1) and resolved[-1] == 4
    assert model.n_models_ == 4 == model.booster_.num_model_per_iteration()
    single = LambdaMART(NDCG, grow_policy="leafwise", n_estimators=25, random_state=2, n_models=1)
    # the rule's trees take the averaged models' penalty (rule_lambda_l2_cap), single fold models or not
    assert_as_by_hand(model.capacity_check_, ByHand(ds, single), (15, True, _gbdt.AVERAGED_LAMBDA_L2))


def test_fold_models_train_on_the_target_resolved_from_all_the_training_labels(low_threshold, monkeypatch):
    # judged MRR's target="auto" reads how many labels there are: with YetiRank from exactly the training set's size,
    # the fold models' 80 % alone would resolve PairLogit; they train on the final model's YetiRank instead
    from metricrank.objectives import target_choice

    ds = make_ltr(150, docs_per_query=(10, 20), n_features=8, n_informative=5, relevance="nonlinear", noise=0.5,
                  n_labels=2, random_state=3)
    monkeypatch.setattr(target_choice, "STOCHASTIC_MRR_MIN_DOCS", ds.n_docs)
    with recorded_fits("target_") as targets:
        auto = LambdaMART("MRR", grow_policy="leafwise", n_estimators=15, random_state=4).fit(ds)
    assert auto.target_ == "YetiRank" and len(targets) >= 3 and set(targets) == {"YetiRank"}
    # the oracle: the same check with the target named
    named = LambdaMART("MRR", target="YetiRank", grow_policy="leafwise", n_estimators=15, random_state=4).fit(ds)
    assert auto.capacity_check_.trials == named.capacity_check_.trials
    np.testing.assert_array_equal(auto.predict(ds.X), named.predict(ds.X))

"""A training set whose queries each hold one label has no order to learn, and a judged metric that scores every
query alike in any order judges nothing: fit says so, at the user's line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr
from metricrank.metrics.registry import REGISTRY

MESSAGE = "the ranking objective has no order to learn"


@pytest.fixture(scope="module")
def data():
    return make_ltr(20, docs_per_query=(5, 10), n_features=5, random_state=0)


def per_query_labels(ds):
    """A label per query, the same for its documents (0, 1, 2, 0, ...)."""
    return np.repeat(np.arange(ds.n_queries) % 3, ds.query_sizes).astype(float)


@pytest.mark.parametrize("make", [lambda: LambdaMART("MAUC", n_estimators=3),
                                  lambda: GBRanker("QueryRMSE", n_estimators=3),
                                  lambda: GBRanker("YetiRank", n_estimators=3)])
@pytest.mark.parametrize("labels, what", [("zeros", "every training document has label 0"),
                                          ("per_query", "no training query holds two different labels")])
def test_one_label_per_query_warns_and_the_model_scores_a_query_alike(data, make, labels, what):
    y = np.zeros(data.n_docs) if labels == "zeros" else per_query_labels(data)
    with pytest.warns(UserWarning, match=fr"{what}: {MESSAGE}, so the model learns none \(trees grown from zero"
                      ) as record:
        model = make().fit(data.X, y, qid=data.qid)
    assert [w.filename for w in record if MESSAGE in str(w.message)] == [__file__]  # the user's fit line
    scores = model.predict(data.X)
    assert all(np.ptp(scores[rows]) == 0 for _, rows in data.iter_queries())  # what the warning says


def test_no_warning_where_there_is_an_order(data):
    y = per_query_labels(data)
    y[0] = 1 - y[0]  # one query holds two labels
    pairs = np.array([[1, 0]])  # explicit pairs order documents whatever their labels
    base = np.arange(data.n_docs, dtype=float)  # a base model's order stays
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GBRanker("YetiRank", n_estimators=2).fit(data.X, y, qid=data.qid)
        GBRanker("PairLogit", n_estimators=2).fit(data.X, np.zeros(data.n_docs), qid=data.qid, pairs=pairs)
        GBRanker("QueryRMSE", n_estimators=2).fit(data.X, np.zeros(data.n_docs), qid=data.qid, init_score=base)


def test_the_nets_warn_too(data):
    pytest.importorskip("torch")
    from metricrank import RankNet

    with pytest.warns(UserWarning, match=fr"{MESSAGE}, so the model learns none \(the net keeps its random start, "
                      r"which weight decay only draws toward 0\)") as record:
        model = RankNet(max_epochs=1, random_state=0).fit(data.X, np.zeros(data.n_docs), qid=data.qid)
    assert [w.filename for w in record if MESSAGE in str(w.message)] == [__file__]
    scores = model.predict(data.X)
    assert any(np.ptp(scores[rows]) > 0 for _, rows in data.iter_queries())  # what the warning says


# --- a judged metric that no order moves --------------------------------------------------------------------------

UNMOVED = "scores every query the same"


def metric_values_at_random_orders(ds, y, spec, n=20):
    """The metric's per-query values at ``n`` random scorings of ``ds`` with labels ``y`` (the oracle: a metric no
    order moves gives one set of values)."""
    rng = np.random.default_rng(0)
    return [evaluate(y, rng.permutation(ds.n_docs).astype(float), qid=ds.qid, metric=spec, per_query=True)
            for _ in range(n)]


@pytest.mark.parametrize("spec, relabel, value, hint", [
    ("MAP", lambda y: y + 1, 1, "MAP counts a label above border=0.5 as relevant"),  # grades 1-5: all relevant
    ("MRR", lambda y: 0.5 * (y > 0), 0, "MRR counts a label above border=0.5 as relevant"),  # none relevant
    ("PrecisionAt:top=10", lambda y: y, None, "its top=10 holds every document of every query (at most 10)"),
])
def test_a_judged_metric_no_order_moves_warns_for_each_set(data, spec, relabel, value, hint):
    y = relabel(data.y)
    train, valid = data.subset_queries(np.arange(12)), data.subset_queries(np.arange(12, 20))
    y_train, y_valid = y[: train.n_docs], y[train.n_docs:]
    for ds, labels in ((train, y_train), (valid, y_valid)):  # what the warning says, by brute force
        values = metric_values_at_random_orders(ds, labels, spec)
        assert all(np.array_equal(v, values[0]) for v in values)
        if value is not None:
            assert np.all(values[0] == value)
    with pytest.warns(UserWarning, match=UNMOVED) as record:
        LambdaMART(spec, n_estimators=2).fit(train.X, y_train, qid=train.qid,
                                             eval_set=[(valid.X, y_valid, valid.qid)], eval_names=["vali"])
    said = [str(w.message) for w in record if UNMOVED in str(w.message)]
    assert [m.split(":")[0] for m in said] == ["training data", "vali"]
    assert all(hint in m for m in said)
    assert [w.filename for w in record if UNMOVED in str(w.message)] == [__file__, __file__]  # the user's fit line


def test_no_unmoved_warning_where_an_order_moves_the_metric(data):
    y = data.y + 1
    y[0] = 0  # query 0 holds a document MAP counts irrelevant beside relevant ones
    values = metric_values_at_random_orders(data, y, "MAP")
    assert not all(np.array_equal(v, values[0]) for v in values)
    per_query = np.repeat(np.arange(data.n_queries) % 3, data.query_sizes).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LambdaMART("MAP", n_estimators=2).fit(data.X, y, qid=data.qid, eval_set=[(data.X, y, data.qid)])
        # a query loss reads the scores, not their order: one label per query still moves it
        GBRanker("YetiRank", n_estimators=2).fit(
            data.X, data.y, qid=data.qid, eval_set=[(data.X, per_query, data.qid)], eval_metrics=["QueryRMSE"])


REQUIRED_PARAMS = {"AverageGain": ":top=5", "ClassAUC": ":cls=1"}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_reads_order_only_says_whether_a_monotone_rescoring_moves_the_metric(name):
    # the flag the warning trusts: a metric that reads only the order reads the same at exp(3 s) as at s
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(30), 8)
    grades, scores = rng.integers(0, 3, qid.size).astype(float), rng.normal(size=qid.size)
    spec = name + REQUIRED_PARAMS.get(name, "")
    for y in (grades, grades / 2):  # graded labels, or labels in [0, 1] where the metric reads probabilities
        try:
            before = evaluate(y, scores, qid=qid, metric=spec, per_query=True)
            break
        except ValueError:
            continue
    after = evaluate(y, np.exp(3 * scores), qid=qid, metric=spec, per_query=True)
    assert np.allclose(before, after, rtol=1e-12, atol=0, equal_nan=True) == REGISTRY[name].reads_order_only


def test_the_nets_warn_of_an_unmoved_eval_metric(data):
    pytest.importorskip("torch")
    from metricrank import RankNet

    with pytest.warns(UserWarning, match=f"valid_0: MAP {UNMOVED} \\(1\\)") as record:
        RankNet(max_epochs=1, random_state=0).fit(data.X, data.y, qid=data.qid,
                                                   eval_set=[(data.X, data.y + 1, data.qid)], eval_metrics=["MAP"])
    assert [w.filename for w in record if UNMOVED in str(w.message)] == [__file__]


def test_tune_says_it_once_at_the_users_line_and_its_fits_keep_quiet(data):
    pytest.importorskip("optuna")
    from metricrank import tune

    y = data.y + 1  # grades 1-5: MAP counts every document relevant
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        tune(LambdaMART("MAP", n_estimators=4), data.X, y, qid=data.qid, n_trials=2, cv=2, random_state=0,
             show_progress=False)
        LambdaMART("MAP", n_estimators=2).fit(data.X, y, qid=data.qid)  # the quiet ended with the search
    said = [w for w in record if UNMOVED in str(w.message)]
    assert [(w.filename, str(w.message).split(":")[0]) for w in said] == [(__file__, "the data"),
                                                                          (__file__, "training data")]


def test_the_capacity_checks_fold_fits_keep_quiet(monkeypatch):
    # the check's fits on four fifths of the queries would each say it again, from the library's line
    from metricrank.learners import _capacity

    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", _capacity.CHECK_MIN_DOCS / 20)  # as if 20 times the data
    ds = make_ltr(150, docs_per_query=(5, 20), n_features=6, random_state=0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model = LambdaMART("MAP", n_estimators=4).fit(ds.X, ds.y + 1, qid=ds.qid)
    assert model.capacity_check_ is not None  # it ran
    assert [(w.filename, str(w.message).split(":")[0]) for w in record if UNMOVED in str(w.message)] == [
        (__file__, "training data")]

"""A training set whose queries each hold one label has no order to learn: fit says so, at the user's line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr

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
    with pytest.warns(UserWarning, match=f"{what}: {MESSAGE}") as record:
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

    with pytest.warns(UserWarning, match=MESSAGE) as record:
        RankNet(max_epochs=1, random_state=0).fit(data.X, np.zeros(data.n_docs), qid=data.qid)
    assert [w.filename for w in record if MESSAGE in str(w.message)] == [__file__]

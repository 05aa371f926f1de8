"""fit(feature_name=...): LightGBM's names for the columns of input without names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr
from metricrank.learners import load_ranker

NAMES = ["clicks", "bm25 title", "pagerank", "age", "length"]


@pytest.fixture(scope="module")
def ds():
    return make_ltr(60, n_features=5, n_informative=3, docs_per_query=(5, 15), random_state=0)


def fit(ds, X=None, **fit_kw):
    params = dict(n_estimators=6, min_data_in_leaf=5, random_state=0, n_jobs=1)
    return GBRanker("YetiRank", **params).fit(ds.X if X is None else X, ds.y, qid=ds.qid, **fit_kw)


def test_names_reach_the_booster_and_leave_the_model_unchanged(ds):
    named, plain = fit(ds, feature_name=NAMES), fit(ds)
    # LightGBM's own record of the names, with its forbidden space read "_" as for DataFrame columns
    expected = [n.replace(" ", "_") for n in NAMES]
    assert named.booster_.dump_model()["feature_names"] == expected
    assert named.feature_name_ == expected
    assert plain.feature_name_ == [f"Column_{j}" for j in range(5)]  # LightGBM's default names
    np.testing.assert_array_equal(named.predict(ds.X), plain.predict(ds.X))
    np.testing.assert_array_equal(named.feature_importances_, plain.feature_importances_)
    # scikit-learn's (and LightGBM's) feature_names_in_ is a DataFrame's only
    assert not hasattr(named, "feature_names_in_")


def test_a_dataframe_at_predict_must_have_the_given_names(ds):
    model = fit(ds, feature_name=NAMES)
    expected = model.predict(ds.X)
    np.testing.assert_array_equal(model.predict(pd.DataFrame(ds.X, columns=NAMES)), expected)
    np.testing.assert_array_equal(model.predict(pd.DataFrame(ds.X)), expected)  # positional columns 0..4
    with pytest.raises(ValueError, match=r"differ from fit's feature_name: missing \['pagerank'\], "
                                         r"unexpected \['pr'\]"):
        model.predict(pd.DataFrame(ds.X, columns=["clicks", "bm25 title", "pr", "age", "length"]))
    with pytest.raises(ValueError, match="in another order"):
        model.predict(pd.DataFrame(ds.X[:, ::-1], columns=NAMES[::-1]))


def test_categorical_feature_may_name_a_given_column(ds):
    X = ds.X.copy()
    X[:, 3] = np.floor(np.abs(X[:, 3]) * 3)  # non-negative integer codes
    by_name = fit(ds, X, feature_name=NAMES, categorical_feature=["age"])
    by_index = fit(ds, X, feature_name=NAMES, categorical_feature=[3])
    np.testing.assert_array_equal(by_name.predict(X), by_index.predict(X))
    assert by_name.booster_.dump_model()["feature_infos"]["age"]["values"]  # LightGBM's categorical record
    with pytest.raises(ValueError, match="'ages' is not a column"):
        fit(ds, X, feature_name=NAMES, categorical_feature=["ages"])


def test_a_saved_model_keeps_the_names_and_their_check(ds, tmp_path):
    model = fit(ds, feature_name=NAMES)
    path = tmp_path / "model.json"
    model.save(path)
    loaded = load_ranker(path)
    assert loaded.feature_name_ == model.feature_name_
    np.testing.assert_array_equal(loaded.predict(pd.DataFrame(ds.X, columns=NAMES)), model.predict(ds.X))
    with pytest.raises(ValueError, match="fit's feature_name"):
        loaded.predict(pd.DataFrame(ds.X, columns=[n.upper() for n in NAMES]))


def test_a_ranking_dataset_and_both_kinds_of_tree_take_names(ds):
    model = LambdaMART("MAP", grow_policy="mixed", n_estimators=3, min_data_in_leaf=5, random_state=0,
                       n_jobs=1).fit(ds, feature_name=NAMES)
    assert [k.grow_policy for k in model.kinds_] == ["symmetric_then_leafwise", "leafwise"]
    assert model.feature_name_ == [n.replace(" ", "_") for n in NAMES]
    plain = LambdaMART("MAP", grow_policy="mixed", n_estimators=3, min_data_in_leaf=5, random_state=0,
                       n_jobs=1).fit(ds)
    np.testing.assert_array_equal(model.predict(ds.X), plain.predict(ds.X))


def test_a_dataframe_names_itself(ds):
    frame = pd.DataFrame(ds.X, columns=NAMES)
    assert fit(ds, frame, feature_name=NAMES).feature_name_ == fit(ds, frame).feature_name_
    assert list(fit(ds, frame).feature_names_in_) == NAMES
    with pytest.raises(ValueError, match="feature_name differs from X's columns"):
        fit(ds, frame, feature_name=[n.upper() for n in NAMES])


@pytest.mark.parametrize("feature_name, message", [
    (NAMES[:4], "feature_name has 4 names; X has 5 columns"),
    (["a", "b", "a", "c", "d"], "feature_name 'a' appears twice"),
    (["a", "b", 3, "c", "d"], "entries must be non-empty strings; got 3"),
    (["a", "b", "", "c", "d"], "entries must be non-empty strings; got ''"),
    ("names", "feature_name must be 'auto' or a list of 5 column names"),
    (5, "feature_name must be 'auto' or a list of 5 column names"),
])
def test_bad_names_are_refused(ds, feature_name, message):
    with pytest.raises(ValueError, match=message):
        fit(ds, feature_name=feature_name)

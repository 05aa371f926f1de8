"""polars DataFrames and Series in fit, predict, score and tune: the models pandas input gives.

The library reads a polars frame through ``to_pandas()`` (``learners/_frames.py``), so every check compares with
the same data as pandas or arrays."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, evaluate, make_ltr

pl = pytest.importorskip("polars", reason="polars is in the test extra: pip install -e '.[test]'")
pd = pytest.importorskip("pandas")

SMALL = dict(n_estimators=15, num_leaves=7, min_data_in_leaf=5, random_state=0)
COLOURS = ["blue", "green", "grey", "red"]


@pytest.fixture(scope="module")
def data():
    ds = make_ltr(40, n_features=6, random_state=0)
    colour = np.array(COLOURS)[np.random.default_rng(0).integers(0, 4, ds.n_docs)]
    y = ds.y + (colour == "blue")  # a category that matters
    names = [f"f {i}" for i in range(6)]
    pandas_frame = pd.DataFrame(ds.X, columns=names).assign(colour=pd.Categorical(colour))
    columns = {name: ds.X[:, i] for i, name in enumerate(names)}
    enum_frame = pl.DataFrame({**columns, "colour": pl.Series(colour, dtype=pl.Enum(COLOURS))})
    categorical_frame = pl.DataFrame({**columns, "colour": pl.Series(colour, dtype=pl.Categorical)})
    return ds, y, pandas_frame, enum_frame, categorical_frame


def test_a_polars_frame_fits_the_model_its_pandas_twin_fits(data):
    ds, y, pandas_frame, enum_frame, _ = data
    by_pandas = GBRanker("YetiRank", **SMALL).fit(pandas_frame, y, qid=ds.qid)
    by_polars = GBRanker("YetiRank", **SMALL).fit(enum_frame, y, qid=ds.qid)
    assert list(by_polars.feature_names_in_) == list(pandas_frame.columns)
    assert by_polars.feature_categories_ == {"colour": COLOURS}  # an Enum keeps its order, as pandas sorts
    assert (by_polars.booster_.trees_to_dataframe()["decision_type"] == "==").any()  # a categorical split
    np.testing.assert_array_equal(by_polars.predict(enum_frame), by_pandas.predict(pandas_frame))
    np.testing.assert_array_equal(by_polars.predict(pandas_frame), by_pandas.predict(enum_frame))
    with pytest.raises(ValueError, match="another order"):
        by_polars.predict(enum_frame.select(list(reversed(enum_frame.columns))))


def test_polars_categorical_columns_are_encoded_by_value(data):
    """A column's categories are matched by value: a frame that lists them in another order (an Enum here)
    scores as the training frame, a ``pl.Categorical`` column."""
    ds, y, _, _, categorical_frame = data
    model = GBRanker("YetiRank", **SMALL).fit(categorical_frame, y, qid=ds.qid)
    trained = model.feature_categories_["colour"]
    assert sorted(trained) == COLOURS
    other = trained[1:] + trained[:1]
    relisted = categorical_frame.with_columns(pl.col("colour").cast(pl.String).cast(pl.Enum(other)))
    assert list(relisted.to_pandas()["colour"].cat.categories) == other
    np.testing.assert_array_equal(model.predict(relisted), model.predict(categorical_frame))


def test_polars_series_and_named_columns_give_labels_and_query_ids(data):
    ds, y, _, enum_frame, _ = data
    reference = LambdaMART("NDCG:top=5", **SMALL).fit(enum_frame, y, qid=ds.qid)
    by_series = LambdaMART("NDCG:top=5", **SMALL).fit(enum_frame, pl.Series(y), qid=pl.Series(ds.qid))
    train = enum_frame.with_columns(label=pl.Series(y), qid=pl.Series(ds.qid))
    by_names = LambdaMART("NDCG:top=5", **SMALL).fit(train, "label", qid="qid")
    assert list(by_names.feature_names_in_) == list(enum_frame.columns)
    for model in (by_series, by_names):
        np.testing.assert_array_equal(model.predict(enum_frame), reference.predict(enum_frame))
    expected = evaluate(y, reference.predict(enum_frame), qid=ds.qid, metric="NDCG:top=5")
    assert reference.score(enum_frame, y, qid=ds.qid) == pytest.approx(expected, rel=1e-12)
    assert by_names.score(train, "label", qid="qid") == pytest.approx(expected, rel=1e-12)


def test_tune_on_a_polars_frame_runs_the_search_of_its_pandas_twin(data):
    pytest.importorskip("optuna")
    from metricrank import tune

    ds, y, pandas_frame, enum_frame, _ = data

    def search(X):
        result = tune(LambdaMART("NDCG:top=5", n_estimators=10, n_jobs=1, random_state=0), X, y, qid=ds.qid,
                      n_trials=3, cv=2, random_state=0, show_progress=False)
        return [(t.params, t.value) for t in result.study_.trials], result.best_estimator_.predict(X)

    by_polars, by_pandas = search(enum_frame), search(pandas_frame)
    assert by_polars[0] == by_pandas[0]
    np.testing.assert_array_equal(by_polars[1], by_pandas[1])

"""DataFrame input: column names kept and checked, category columns as LightGBM categoricals, SHAP values."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr

pd = pytest.importorskip("pandas")

SMALL = dict(n_estimators=15, num_leaves=7, min_data_in_leaf=5, random_state=0)


@pytest.fixture(scope="module")
def data():
    ds = make_ltr(40, n_features=6, random_state=0)
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 4, ds.n_docs)
    y = ds.y + (colour == 2)  # a category that matters
    frame = pd.DataFrame(ds.X, columns=[f"f {i}" for i in range(6)])
    frame["colour"] = pd.Categorical(np.array(["red", "green", "blue", "grey"])[colour])
    return ds, frame, colour, y


def test_feature_names_are_kept_and_checked(data, tmp_path):
    ds, frame, _, y = data
    model = LambdaMART("NDCG", **SMALL).fit(frame, y, qid=ds.qid)
    assert list(model.feature_names_in_) == list(frame.columns)
    np.testing.assert_array_equal(model.predict(frame), model.predict(frame.copy()))
    with pytest.raises(ValueError, match="another order"):
        model.predict(frame[list(reversed(frame.columns))])
    with pytest.raises(ValueError, match=r"missing \['colour'\], unexpected \['color'\]"):
        model.predict(frame.rename(columns={"colour": "color"}))
    model.save(tmp_path / "m.json")
    loaded = LambdaMART.load(tmp_path / "m.json")
    assert list(loaded.feature_names_in_) == list(frame.columns)
    np.testing.assert_array_equal(loaded.predict(frame), model.predict(frame))
    with pytest.raises(ValueError, match="another order"):
        loaded.predict(frame[list(reversed(frame.columns))])
    # LightGBM sees the names (its forbidden characters replaced)
    assert model.booster_.feature_name()[:2] == ["f_0", "f_1"]


def test_category_columns_are_lightgbm_categoricals(data):
    ds, frame, colour, y = data
    by_frame = GBRanker("YetiRank", **SMALL).fit(frame, y, qid=ds.qid)
    # the same model from codes in the training category order (blue, green, grey, red) and categorical_feature
    codes = pd.Categorical(frame["colour"]).codes.astype(float)
    X = np.column_stack([ds.X, codes])
    by_codes = GBRanker("YetiRank", **SMALL).fit(X, y, qid=ds.qid, categorical_feature=[6])
    np.testing.assert_allclose(by_frame.predict(frame), by_codes.predict(X), rtol=1e-12)
    splits = by_frame.booster_.trees_to_dataframe()
    assert (splits["decision_type"] == "==").any()  # a categorical split was used
    assert by_frame.feature_categories_ == {"colour": ["blue", "green", "grey", "red"]}
    plain = GBRanker("YetiRank", **SMALL).fit(X, y, qid=ds.qid)  # codes as numbers: another model
    assert not np.allclose(plain.predict(X), by_codes.predict(X))
    # a category unseen in training is missing (NaN), whatever its position
    unseen = frame.copy()
    unseen["colour"] = pd.Categorical(["purple"] * len(frame))
    nan_col = X.copy()
    nan_col[:, 6] = np.nan
    np.testing.assert_allclose(by_frame.predict(unseen), by_codes.predict(nan_col), rtol=1e-12)


def test_bad_columns_are_named(data):
    ds, frame, _, y = data
    bad = frame.copy()
    bad["text"] = "x"
    with pytest.raises(ValueError, match="column 'text' has dtype .*, not numbers"):
        GBRanker("YetiRank", **SMALL).fit(bad, y, qid=ds.qid)
    with pytest.raises(ValueError, match=r"categorical feature column 'f 0' must hold non-negative integers \(or NaN\); "
                                         r"got -?\d+\.\d+$"):
        GBRanker("YetiRank", **SMALL).fit(frame, y, qid=ds.qid, categorical_feature=["f 0"])
    with pytest.raises(ValueError, match="categorical_feature 'nope' is not a column"):
        GBRanker("YetiRank", **SMALL).fit(frame, y, qid=ds.qid, categorical_feature=["nope"])


def test_text_and_dates_are_not_read_as_numbers_while_nullable_numbers_are(data):
    # as LightGBM: a column of numbers kept as text (read_csv with dtype=str) or of dates is refused, at fit and at
    # predict; pandas' nullable numbers and object columns of numbers with None are the numbers they hold
    ds, frame, _, y = data
    model = GBRanker("YetiRank", **SMALL).fit(frame, y, qid=ds.qid)
    dates = pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(ds.n_docs), "D")
    for bad, values in [(frame.assign(**{"f 0": frame["f 0"].astype(str)}), "string"),
                        (frame.assign(**{"f 0": frame["f 0"].astype("string")}), "string"),
                        (frame.assign(**{"f 0": dates}), "datetime64")]:
        with pytest.raises(ValueError, match=rf"column 'f 0' has dtype .* \({values} values\), not numbers"):
            model.predict(bad)
        with pytest.raises(ValueError, match=rf"column 'f 0' has dtype .* \({values} values\), not numbers"):
            GBRanker("YetiRank", **SMALL).fit(bad, y, qid=ds.qid)
    holes = frame["f 0"].mask(np.arange(ds.n_docs) % 7 == 0)
    as_floats = frame.assign(**{"f 0": holes})
    for same in (frame.assign(**{"f 0": holes.astype("Float64")}),
                 frame.assign(**{"f 0": pd.Series([None if np.isnan(v) else v for v in holes], dtype=object)})):
        np.testing.assert_array_equal(model.predict(same), model.predict(as_floats))


def test_eval_set_dataframes_are_encoded_like_training(data):
    ds, frame, _, y = data
    model = GBRanker("YetiRank", **SMALL).fit(frame, y, qid=ds.qid, eval_set=[(frame.copy(), y, ds.qid)],
                                              eval_metrics=["NDCG:top=5"])
    from metricrank import evaluate

    assert model.evals_result_["valid_0"]["NDCG:top=5"][-1] == pytest.approx(
        evaluate(y, model.predict(frame), qid=ds.qid, metric="NDCG:top=5"), rel=1e-12)


def test_pred_contrib_rows_sum_to_the_score_with_a_base_model(data):
    ds, frame, _, y = data
    base = LambdaMART("NDCG", **SMALL).fit(frame, y, qid=ds.qid)
    model = GBRanker("YetiRank", **SMALL).fit(frame, y, qid=ds.qid, init_model=base)
    contrib = model.predict(frame, pred_contrib=True)
    assert contrib.shape == (ds.n_docs, frame.shape[1] + 1)
    np.testing.assert_allclose(contrib.sum(axis=1), model.predict(frame), rtol=1e-9, atol=1e-9)
    own = model.booster_.predict(np.asarray(model._feature_schema and frame.assign(
        colour=pd.Categorical(frame["colour"]).codes).to_numpy(float)), pred_contrib=True)
    own = own.reshape(ds.n_docs, model.n_models_, -1).mean(axis=1)  # LightGBM's a block a model: their mean
    assert model.n_models_ == 4 and not np.allclose(contrib, own)  # the base model's share is included


def test_to_lightgbm_predicts_identically_with_best_iteration_and_base_model(data, tmp_path):
    import lightgbm

    ds, frame, _, y = data
    valid = make_ltr(15, n_features=6, random_state=9)
    base = LambdaMART("NDCG", **SMALL).fit(ds)
    model = GBRanker("YetiRank", n_estimators=40, num_leaves=7, min_data_in_leaf=5, learning_rate=0.5,
                     random_state=0).fit(ds, init_model=base, eval_set=[valid], early_stopping_rounds=3)
    grown = len(next(iter(model.evals_result_["valid_0"].values())))
    assert 0 < model.best_iteration_ == model.n_estimators_ < grown  # the trees after the best are dropped
    path = tmp_path / "plain.txt"
    model.to_lightgbm(path)
    plain = lightgbm.Booster(model_file=str(path))
    assert base.n_models_ == model.n_models_ == 4  # LightGBM counts a tree a model and iteration
    assert plain.num_trees() == (base.n_estimators_ + model.best_iteration_) * model.n_models_
    np.testing.assert_allclose(plain.predict(valid.X), model.predict(valid.X), rtol=1e-12, atol=1e-12)
    assert "objective=lambdarank" in path.read_text()
    # categorical splits survive the export
    cat = GBRanker("YetiRank", **SMALL).fit(frame, y, qid=ds.qid)
    cat.to_lightgbm(tmp_path / "cat.txt")
    codes = frame.assign(colour=pd.Categorical(frame["colour"]).codes).to_numpy(float)
    np.testing.assert_allclose(lightgbm.Booster(model_file=str(tmp_path / "cat.txt")).predict(codes),
                               cat.predict(frame), rtol=1e-12)


def test_to_lightgbm_refuses_a_base_it_cannot_fold(tmp_path):
    ds = make_ltr(20, n_features=6, random_state=0)

    class Constant:
        def predict(self, X):
            return np.ones(len(X))

    model = GBRanker("YetiRank", **SMALL).fit(ds, init_model=Constant())
    with pytest.raises(ValueError, match="cannot fold a Constant base model"):
        model.to_lightgbm(tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()


def test_exported_model_serves_through_onnx(tmp_path):
    """The README's serving path: to_lightgbm -> onnxmltools -> onnxruntime (float32 inference)."""
    onnxmltools = pytest.importorskip("onnxmltools")
    ort = pytest.importorskip("onnxruntime")
    import lightgbm
    from onnxmltools.convert.common.data_types import FloatTensorType

    ds = make_ltr(30, n_features=6, random_state=0)
    model = GBRanker("YetiRank", **SMALL).fit(ds)
    model.to_lightgbm(tmp_path / "m.txt")
    onx = onnxmltools.convert_lightgbm(lightgbm.Booster(model_file=str(tmp_path / "m.txt")),
                                       initial_types=[("X", FloatTensorType([None, 6]))], target_opset=15)
    scores = ort.InferenceSession(onx.SerializeToString()).run(None, {"X": ds.X.astype(np.float32)})[0].ravel()
    np.testing.assert_allclose(scores, model.predict(ds.X.astype(np.float32)), rtol=1e-5, atol=1e-5)


def test_label_and_query_columns_named_in_fit_eval_set_and_score(data):
    """fit(df, "label", qid="qid"), as the Dask rankers take it: the same model as the arrays give,
    the named columns no features; eval_set and score take the names too."""
    from metricrank import evaluate

    ds, df, _, y = data
    train = df.assign(label=y, qid=ds.qid)
    valid = train.iloc[: len(train) // 3]
    features = list(df.columns)

    def model():
        return LambdaMART("NDCG:top=5", n_estimators=8, n_jobs=1, random_state=0)

    named = model().fit(train, "label", qid="qid", eval_set=[(valid, "label", "qid")], eval_metrics=["MAP"])
    plain = model().fit(df, y, qid=ds.qid, eval_set=[(valid[features], valid.label, valid.qid)],
                        eval_metrics=["MAP"])
    assert list(named.feature_names_in_) == features
    np.testing.assert_array_equal(named.predict(df), plain.predict(df))
    assert named.evals_result_ == plain.evals_result_
    expected = evaluate(valid.label.to_numpy(), plain.predict(valid[features]), qid=valid.qid.to_numpy(),
                        metric="NDCG:top=5")
    assert named.score(valid[["label", "qid", *features]], "label", qid="qid") == pytest.approx(expected, rel=1e-12)
    # the whole frame at predict: its label and query columns are named, and how to drop them
    with pytest.raises(ValueError, match=r"missing none, unexpected \['label', 'qid'\]; drop them "
                                         r"\(X\[model.feature_names_in_\] keeps the training columns\)"):
        named.predict(train)
    with pytest.raises(ValueError, match=r"qid='query' is not a column of X; its columns are .*label, qid"):
        model().fit(train, "label", qid="query")
    with pytest.raises(ValueError, match="y='label' names a column, but X is a ndarray, not a DataFrame"):
        model().fit(ds.X, "label", qid=ds.qid)


@pytest.mark.parametrize("argument", ["sample_weight", "group_weight"])
def test_a_weight_named_as_a_column_is_refused_in_words(data, argument):
    # only y and qid name columns (as in LightGBM's Dask rankers); it said "sample_weight must be numeric, got <U1"
    ds, df, _, y = data
    train = df.assign(label=y, qid=ds.qid, w=1.0)
    with pytest.raises(ValueError, match=f"^{argument}='w': only y and qid may name a column of X; pass the "
                                         r"values themselves \(X\['w'\]\)"):
        LambdaMART(n_estimators=2).fit(train, "label", qid="qid", **{argument: "w"})
    torch = pytest.importorskip("torch")  # noqa: F841
    from metricrank import RankNet

    with pytest.raises(ValueError, match=f"^{argument}='w': only y and qid may name a column"):
        RankNet(max_epochs=1).fit(train, "label", qid="qid", **{argument: "w"})



def test_every_per_row_argument_named_as_a_column_is_refused_in_words(data):
    # "could not convert string to float: 'w'", "sample_weight must be numeric, got dtype <U1", "weights must be
    # one-dimensional, got shape ()": what init_score, eval_sample_weight and score's sample_weight said
    ds, df, _, y = data
    train = df.assign(label=y, qid=ds.qid, w=1.0)
    model = LambdaMART(n_estimators=2, min_data_in_leaf=5)
    for kwargs, where in [({"init_score": "w"}, "init_score"),
                          ({"eval_set": [(train, "label", "qid")], "eval_sample_weight": ["w"]},
                           r"eval_sample_weight\[0\]"),
                          ({"eval_set": [(train, "label", "qid")], "eval_init_score": [None, "w"]},
                           r"eval_init_score\[1\]")]:
        with pytest.raises(ValueError, match=f"^{where}='w': only y and qid may name a column of X"):
            model.fit(train, "label", qid="qid", **kwargs)
    fitted = model.fit(train.drop(columns="w"), "label", qid="qid")
    with pytest.raises(ValueError, match="^sample_weight='w': only y and qid may name a column of X"):
        fitted.score(train, "label", qid="qid", sample_weight="w")

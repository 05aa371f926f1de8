"""``predict(X, start_iteration=s, num_iteration=n)``: the scores of iterations s to s + n - 1 (LightGBM's reading);
and LightGBM's ``raw_score``, which changes nothing for a ranker.

The oracle is ``staged_predict``, which splits the model text into iterations on its own path: the scores of
iterations s to s + n - 1 are the staged scores after s + n iterations minus those after s (a base model's scores,
in both, cancel).
"""

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART, make_ltr


@pytest.fixture(scope="module")
def train():
    return make_ltr(60, docs_per_query=(8, 25), n_features=6, n_informative=4, relevance="nonlinear",
                    random_state=0)


@pytest.fixture(scope="module")
def vali():
    return make_ltr(25, docs_per_query=(8, 25), n_features=6, n_informative=4, relevance="nonlinear",
                    random_state=1)


def segment(staged, start, count):
    """Iterations ``start`` to ``start + count - 1`` from the staged scores (``count`` None: to the last)."""
    end = len(staged) if count is None else min(start + count, len(staged))
    return staged[end - 1] - (staged[start - 1] if start else 0.0)


MODELS = {
    "one model": dict(),
    "two averaged models": dict(n_models=2),
    "mixed trees": dict(n_models=2, grow_policy="mixed"),
}


@pytest.mark.parametrize("settings", list(MODELS.values()), ids=list(MODELS))
def test_scores_of_a_range_of_iterations_are_the_staged_differences(train, vali, settings):
    model = LambdaMART("NDCG:top=5", n_estimators=12, random_state=0, **settings).fit(train)
    staged = list(model.staged_predict(vali.X))
    assert len(staged) == 12
    for start, count in ((0, 4), (1, 1), (3, 4), (5, None), (11, 1), (4, 100), (4, 0), (4, -1)):
        expected = segment(staged, start, None if count is not None and count <= 0 else count)
        got = model.predict(vali.X, start_iteration=start, num_iteration=count)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10, err_msg=f"start {start}, count {count}")
    np.testing.assert_array_equal(model.predict(vali.X, start_iteration=-3), model.predict(vali.X))  # as LightGBM


def test_pred_leaf_and_pred_contrib_read_the_same_iterations(train, vali):
    model = LambdaMART("MAP", n_estimators=10, n_models=2, random_state=1).fit(train)
    per_iteration = model.booster_.num_model_per_iteration()
    leaves = model.predict(vali.X, pred_leaf=True)
    np.testing.assert_array_equal(model.predict(vali.X, pred_leaf=True, start_iteration=3, num_iteration=4),
                                  leaves[:, 3 * per_iteration:7 * per_iteration])
    contrib = model.predict(vali.X, pred_contrib=True, start_iteration=6)
    np.testing.assert_allclose(contrib.sum(axis=1), model.predict(vali.X, start_iteration=6), rtol=1e-9, atol=1e-9)


def test_a_base_models_scores_come_before_the_first_iteration(train, vali):
    base = LambdaMART("NDCG", n_estimators=6, random_state=2).fit(train)
    model = GBRanker("YetiRank", n_estimators=8, random_state=3).fit(train, init_model=base)
    staged = list(model.staged_predict(vali.X))
    np.testing.assert_allclose(model.predict(vali.X, start_iteration=0, num_iteration=3),
                               staged[2], rtol=1e-10, atol=1e-10)  # staged scores hold the base's
    for start in (1, 5):
        np.testing.assert_allclose(model.predict(vali.X, start_iteration=start), segment(staged, start, None),
                                   rtol=1e-10, atol=1e-10)
    head = model.predict(vali.X, num_iteration=5)
    np.testing.assert_allclose(head + model.predict(vali.X, start_iteration=5), model.predict(vali.X),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(model.predict(vali.X, start_iteration=-2), model.predict(vali.X))  # base kept
    contrib = model.predict(vali.X, pred_contrib=True, start_iteration=2)
    np.testing.assert_allclose(contrib.sum(axis=1), segment(staged, 2, None), rtol=1e-9, atol=1e-9)


def test_the_default_count_is_the_best_iteration_from_zero_and_all_the_rest_later(train, vali):
    model = LambdaMART("NDCG:top=5", n_estimators=60, learning_rate=0.4, random_state=2).fit(
        train, eval_set=[vali], early_stopping_rounds=3)
    assert model.best_iteration_ is not None and model.best_iteration_ == model.n_estimators_  # later trees dropped
    assert model.best_iteration_ < len(model.evals_result_["valid_0"]["NDCG:top=5"])
    staged = list(model.staged_predict(vali.X))
    np.testing.assert_allclose(model.predict(vali.X, start_iteration=0), staged[model.best_iteration_ - 1],
                               rtol=1e-10, atol=1e-10)
    start = model.best_iteration_ // 2  # 3 with the best at 6
    assert start >= 1
    np.testing.assert_allclose(model.predict(vali.X, start_iteration=start), segment(staged, start, None),
                               rtol=1e-10, atol=1e-10)
    # a model saved before early stopping dropped the later trees holds more iterations than its best: predict()
    # stops at the best, and a later start reads all the rest, as LightGBM's predict does
    older = LambdaMART("NDCG:top=5", n_estimators=8, learning_rate=0.4, random_state=0).fit(train)
    older.best_iteration_ = 3
    staged = list(older.staged_predict(vali.X))
    assert len(staged) == 8
    np.testing.assert_allclose(older.predict(vali.X), staged[2], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(older.predict(vali.X, start_iteration=2), segment(staged, 2, None),
                               rtol=1e-10, atol=1e-10)


def test_bad_start_iterations_are_named(train, vali):
    model = LambdaMART(n_estimators=5, random_state=0).fit(train)
    for bad in (1.5, True, "2"):
        with pytest.raises(TypeError, match="start_iteration must be an integer"):
            model.predict(vali.X, start_iteration=bad)
    with pytest.raises(ValueError, match=r"start_iteration=5: the model holds 5 iterations, so it must be below 5"):
        model.predict(vali.X, start_iteration=5)
    model.predict(vali.X, start_iteration=np.int64(4))


def test_raw_score_is_lightgbms_argument_and_changes_nothing(train, vali):
    # a ranker has no link function: LGBMRanker.predict(X, raw_score=True) calls run unchanged, base model included
    base = LambdaMART("NDCG", n_estimators=4, random_state=2).fit(train)
    model = GBRanker("YetiRank", n_estimators=5, random_state=3).fit(train, init_model=base)
    staged = list(model.staged_predict(vali.X))
    for raw_score in (True, False, np.bool_(True)):
        np.testing.assert_array_equal(model.predict(vali.X, raw_score=raw_score), staged[-1])
        np.testing.assert_array_equal(model.predict(vali.X, raw_score=raw_score, num_iteration=2), staged[1])
    for bad in ("True", 1, None):
        with pytest.raises(ValueError, match="raw_score must be True or False"):
            model.predict(vali.X, raw_score=bad)


def test_validate_features_is_lightgbms_argument_and_columns_are_checked_either_way(train, vali):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(train.X, columns=[f"f{i}" for i in range(train.n_features)])
    model = LambdaMART("NDCG", n_estimators=4, random_state=0).fit(frame, train.y, qid=train.qid)
    valid = pd.DataFrame(vali.X, columns=frame.columns)
    for flag in (True, False):
        np.testing.assert_array_equal(model.predict(valid, validate_features=flag), model.predict(valid))
        with pytest.raises(ValueError, match="another order"):
            model.predict(valid[list(reversed(valid.columns))], validate_features=flag)
    with pytest.raises(ValueError, match="validate_features must be True or False"):
        model.predict(valid, validate_features="yes")


def test_lightgbms_eval_x_and_eval_y_are_an_eval_set(train, vali):
    # LightGBM 4.7's spelling (it deprecates eval_set): one set, or a tuple of each with one entry per set
    other = make_ltr(20, docs_per_query=(8, 25), n_features=6, random_state=5)

    def fit(**kwargs):
        return LambdaMART("NDCG:top=5", n_estimators=6, random_state=0).fit(train, **kwargs).evals_result_

    one = fit(eval_set=[(vali.X, vali.y)], eval_group=[np.diff(vali.group_ptr)])
    assert fit(eval_X=vali.X, eval_y=vali.y, eval_group=[np.diff(vali.group_ptr)]) == one
    two = fit(eval_set=[(vali.X, vali.y), (other.X, other.y)], eval_qid=[vali.qid, other.qid])
    assert fit(eval_X=(vali.X, other.X), eval_y=(vali.y, other.y), eval_qid=[vali.qid, other.qid]) == two
    assert set(two) == {"valid_0", "valid_1"}
    for kwargs, message in [
        (dict(eval_set=[vali], eval_X=vali.X, eval_y=vali.y), "pass eval_set, or eval_X and eval_y"),
        (dict(eval_X=vali.X), "eval_X and eval_y go together"),
        (dict(eval_X=(vali.X, other.X), eval_y=vali.y), "must both be one set, or both tuples"),
        (dict(eval_X=(vali.X, other.X), eval_y=(vali.y,)), "must both be one set, or both tuples"),
    ]:
        with pytest.raises(ValueError, match=message):
            fit(**kwargs)

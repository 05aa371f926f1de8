"""Reuse of built LightGBM Datasets across fits (issue 13 §3): same models, fewer builds, no stale data."""

import numpy as np
import pytest

from metricrank import GBRanker, LambdaMART
from metricrank.data import make_ltr
from metricrank.learners import _dataset_cache as cache

PARAMS = dict(n_estimators=8, learning_rate=0.2, num_leaves=5, min_data_in_leaf=5, random_state=0, n_jobs=1)


@pytest.fixture
def builds(monkeypatch):
    """Count Dataset builds; start and end with an empty cache."""
    cache.clear_dataset_cache()
    calls = []
    real = cache._build

    def counting(X, *args, **kwargs):
        calls.append(X.shape)
        return real(X, *args, **kwargs)

    monkeypatch.setattr(cache, "_build", counting)
    yield calls
    cache.clear_dataset_cache()


@pytest.fixture(scope="module")
def data():
    return make_ltr(40, docs_per_query=(5, 20), n_features=6, random_state=3), \
        make_ltr(15, docs_per_query=(5, 20), n_features=6, random_state=4)


def fresh(model, *args, **kwargs):
    """The model fitted with nothing cached (the reference every reuse must equal)."""
    cache.clear_dataset_cache()
    return model.fit(*args, **kwargs)


def test_second_fit_reuses_the_dataset_and_gives_the_same_model(builds, data):
    train, test = data
    a = LambdaMART("NDCG", **PARAMS).fit(train.X, train.y, qid=train.qid, eval_set=[test])
    assert len(builds) == 2  # training set and its eval set
    b = LambdaMART("NDCG", **PARAMS).fit(train.X, train.y, qid=train.qid, eval_set=[test])
    assert len(builds) == 2
    np.testing.assert_array_equal(a.predict(test.X), b.predict(test.X))
    assert a.evals_result_ == b.evals_result_
    # a learning-rate grid keeps the bins: the rate is not a Dataset parameter
    LambdaMART("NDCG", **{**PARAMS, "learning_rate": 0.05}).fit(train.X, train.y, qid=train.qid)
    assert len(builds) == 2


def test_binning_parameters_and_content_are_part_of_the_key(builds, data):
    train, _ = data
    LambdaMART("NDCG", **PARAMS).fit(train.X, train.y, qid=train.qid)
    LambdaMART("NDCG", **{**PARAMS, "max_bin": 15}).fit(train.X, train.y, qid=train.qid)
    assert len(builds) == 2
    X = train.X.copy()
    LambdaMART("NDCG", **PARAMS).fit(X, train.y, qid=train.qid)
    assert len(builds) == 2  # a copy has the same content
    X[:, 0] *= -1.0  # changed in place: same object, new content
    changed = LambdaMART("NDCG", **PARAMS).fit(X, train.y, qid=train.qid)
    assert len(builds) == 3
    np.testing.assert_array_equal(changed.predict(X), fresh(LambdaMART("NDCG", **PARAMS), X, train.y,
                                                            qid=train.qid).predict(X))


def test_labels_and_initial_scores_of_an_earlier_fit_do_not_leak(builds, data):
    train, test = data
    base = GBRanker("QueryRMSE", **PARAMS).fit(train.X, train.y, qid=train.qid)
    warm = LambdaMART("NDCG", **PARAMS).fit(train.X, train.y, qid=train.qid, init_model=base, eval_set=[test])
    cold = LambdaMART("NDCG", **PARAMS).fit(train.X, train.y, qid=train.qid, eval_set=[test])
    # the base's one model and NDCG's four (YetiRank's default) are two Datasets of the matrix (the models averaged
    # are LightGBM's num_class, a Dataset parameter); warm and cold share the second, and the eval set
    assert (base.n_models_, warm.n_models_, len(builds)) == (1, 4, 3)
    reference = fresh(LambdaMART("NDCG", **PARAMS), train.X, train.y, qid=train.qid, eval_set=[test])
    np.testing.assert_array_equal(cold.predict(test.X), reference.predict(test.X))
    assert cold.evals_result_ == reference.evals_result_
    assert not np.array_equal(warm.predict(test.X), cold.predict(test.X))
    # other labels on the same matrix
    flipped = train.y.max() - train.y
    a = GBRanker("QueryRMSE", **PARAMS).fit(train.X, flipped, qid=train.qid)
    b = fresh(GBRanker("QueryRMSE", **PARAMS), train.X, flipped, qid=train.qid)
    np.testing.assert_array_equal(a.predict(test.X), b.predict(test.X))


def test_the_same_matrix_twice_in_one_fit_gets_two_datasets(builds, data):
    train, test = data
    other = test.y.max() - test.y
    model = LambdaMART("NDCG", **PARAMS).fit(train.X, train.y, qid=train.qid,
                                             eval_set=[(test.X, test.y, test.qid), (test.X, other, test.qid)],
                                             eval_names=["a", "b"])
    assert model.evals_result_["a"] != model.evals_result_["b"]


def test_a_dataset_in_use_is_not_shared(builds, data):
    train, _ = data
    model = LambdaMART("NDCG", **PARAMS)
    model.seed_ = model.random_state  # what fit takes from an integer seed
    params = model._tree_params(train.n_docs)
    with cache.checkout_datasets(train.X, train.y, None, params) as (first, _):
        with cache.checkout_datasets(train.X, train.y, None, params) as (second, _):
            assert second is not first
    with cache.checkout_datasets(train.X, train.y, None, params) as (third, _):
        assert third is first
    assert len(builds) == 2


def test_the_cache_is_bounded(builds):
    sets = [make_ltr(10, docs_per_query=(5, 10), n_features=6, random_state=s) for s in range(cache.MAX_ENTRIES + 1)]
    for ds in sets:
        LambdaMART("NDCG", **PARAMS).fit(ds.X, ds.y, qid=ds.qid)
    assert len(cache._entries) == cache.MAX_ENTRIES
    LambdaMART("NDCG", **PARAMS).fit(sets[0].X, sets[0].y, qid=sets[0].qid)  # the oldest was dropped
    assert len(builds) == cache.MAX_ENTRIES + 2


def test_a_reused_dataset_bins_new_eval_sets_without_lightgbms_override_warning(builds, data, recwarn):
    # symmetric trees force their bins from a file in a folder of each fit; the key names the file by its content,
    # so the second fit reuses the training set and bins its new eval set from it: LightGBM must see the same
    # Dataset parameters there, or it warns "Overriding the parameters from Reference Dataset"
    train, test = data
    params = {**PARAMS, "grow_policy": "symmetric"}
    LambdaMART("NDCG", **params).fit(train.X, train.y, qid=train.qid, eval_set=[train])
    LambdaMART("NDCG", **params).fit(train.X, train.y, qid=train.qid, eval_set=[test])
    assert len(builds) == 3  # one training set, two eval sets
    assert not [w for w in recwarn if "Overriding the parameters" in str(w.message)]

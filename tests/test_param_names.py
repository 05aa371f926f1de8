"""A keyword the boosted rankers do not take raises Python's TypeError, saying what to pass instead: LightGBM's
scikit-learn names (``subsample``, ``colsample_bytree``...) name the estimator's parameter that LightGBM reads as the
same thing, other LightGBM parameters go through ``lgb_params``, and near misses are suggested."""

from __future__ import annotations

import pickle
import re

import lightgbm as lgb
import numpy as np
import pytest
from sklearn.base import clone

from metricrank import GBRanker, LambdaMART, make_ltr
from metricrank.learners import MARTClassifier


@pytest.fixture(scope="module")
def data():
    return make_ltr(20, docs_per_query=(5, 10), n_features=5, random_state=0)


def written(model):
    """The parameters LightGBM writes into the model text, under its primary names."""
    section = model.booster_.model_to_string().split("\nparameters:\n")[1].split("\nend of parameters")[0]
    return dict(re.findall(r"^\[(\w+): (.*)\]$", section, flags=re.M))


# LGBMRanker's scikit-learn names, with values that differ from both libraries' defaults
LGBM_NAMES = [("subsample", 0.7), ("subsample_freq", 2), ("colsample_bytree", 0.6), ("reg_lambda", 2.5),
              ("min_child_samples", 4), ("min_child_weight", 0.25)]


@pytest.mark.parametrize("name, value", LGBM_NAMES)
def test_a_lightgbm_name_points_to_the_parameter_lightgbm_reads_as_it(data, name, value):
    with pytest.raises(TypeError, match=rf"LambdaMART.__init__\(\) got an unexpected keyword argument '{name}': "
                                        r"LightGBM's name for \w+; pass \w+=") as err:
        LambdaMART("MAP", n_estimators=2, **{name: value})
    own, given = re.search(r"pass (\w+)=(\S+)$", str(err.value)).groups()
    assert given == repr(value)
    # the oracle: the parameters LightGBM writes differently for LGBMRanker given that name are written the same
    # for the estimator given the parameter named
    base = written(lgb.LGBMRanker(n_estimators=2, verbose=-1).fit(data.X, data.y, group=data.query_sizes))
    reference = written(lgb.LGBMRanker(n_estimators=2, verbose=-1, **{name: value}).fit(data.X, data.y,
                                                                                        group=data.query_sizes))
    here = written(LambdaMART("MAP", n_estimators=2, **{own: value}).fit(data))
    changed = {k: v for k, v in reference.items() if v != base[k]}
    assert changed and {k: here[k] for k in changed} == changed


@pytest.mark.parametrize("cls, kwargs, message", [
    (GBRanker, {"reg_alpha": 0.5}, "LightGBM's name for lambda_l1; pass it to LightGBM as lgb_params={'lambda_l1': 0.5}"),
    (GBRanker, {"boosting_type": "dart"}, "pass it to LightGBM as lgb_params={'boosting': 'dart'}"),
    (GBRanker, {"seed": 3}, "LightGBM's parameter; pass random_state=3"),
    (GBRanker, {"random_seed": 3}, "LightGBM's name for seed; pass random_state=3"),
    (GBRanker, {"nthread": 2}, "LightGBM's name for num_threads; pass n_jobs=2"),
    (GBRanker, {"n_iter": 9}, "LightGBM's name for num_iterations; pass n_estimators=9"),
    (GBRanker, {"l2_leaf_reg": 3}, "CatBoost's name for lambda_l2; pass lambda_l2=3 (LightGBM's L2 penalty"),
    (GBRanker, {"loss_function": "YetiRank"}, "CatBoost's name for objective; pass objective='YetiRank'"),
    (LambdaMART, {"loss_function": "YetiRank"}, "metricrank's objective gives the gradients; choose it with metric="),
    (GBRanker, {"thread_count": 2}, "CatBoost's name for n_jobs; pass n_jobs=2"),
    (GBRanker, {"border_count": 254}, "CatBoost's name for max_bin; pass max_bin=255 (bins, not borders"),
    (GBRanker, {"border_count": np.int64(32)}, "CatBoost's name for max_bin; pass max_bin=33 (bins, not borders"),
    (LambdaMART, {"objective": "lambdarank"}, "metricrank's objective gives the gradients; choose it with metric="),
    (GBRanker, {"loss": "PairLogit"}, "LightGBM's name for objective; pass objective='PairLogit'"),
    (GBRanker, {"metric": "ndcg"}, "metricrank evaluates the eval sets itself; pass eval_metric or eval_metrics to fit"),
    (GBRanker, {"metric_freq": 2}, "LightGBM's parameter, which training here does not read: metricrank evaluates"),
    (LambdaMART, {"eval_metric": "MAP"}, "it is fit's; pass eval_metric='MAP' to fit"),
    (GBRanker, {"early_stopping_rounds": 5}, "it is fit's; pass early_stopping_rounds=5 to fit"),
    (GBRanker, {"n_estimator": 5}, r"unexpected keyword argument 'n_estimator' \(did you mean 'n_estimators'\?\)$"),
    (LambdaMART, {"zzz": 1}, r"LambdaMART.__init__\(\) got an unexpected keyword argument 'zzz'$"),
    # MARTClassifier's fit has no eval sets: no hint that sends the user to them
    (MARTClassifier, {"metric_freq": 2}, "LightGBM's parameter, which training here does not read$"),
    (MARTClassifier, {"eval_metric": "auc"}, r"unexpected keyword argument 'eval_metric'$"),
])
def test_other_keywords_say_where_they_go(cls, kwargs, message):
    with pytest.raises(TypeError, match=re.escape(message) if "\\" not in message and "$" not in message
                       else message):
        cls(**kwargs)


def test_catboosts_iterations_and_depth_point_to_the_parameters_that_grow_as_many_trees_as_deep(data):
    catboost = pytest.importorskip("catboost")
    passed = {}
    for name, value in (("iterations", 7), ("depth", 3)):
        with pytest.raises(TypeError, match=rf"'{name}': CatBoost's name for \w+; pass \w+={value}") as err:
            GBRanker("YetiRank", **{name: value})
        own, given = re.search(r"pass (\w+)=(\d+)", str(err.value)).groups()
        passed[own] = int(given)
    reference = catboost.CatBoostRanker(loss_function="YetiRank", iterations=7, depth=3, verbose=False,
                                        thread_count=1).fit(data.X, data.y, group_id=data.qid)
    here = GBRanker("YetiRank", grow_policy="symmetric", min_data_in_leaf=1, **passed).fit(data)
    leaves = [tree["num_leaves"] for tree in here.booster_.dump_model()["tree_info"]]
    assert here.n_estimators_ == reference.tree_count_ == 7
    assert set(leaves) == set(reference.get_tree_leaf_counts()) == {2 ** 3}  # symmetric trees of depth 3


def test_the_dask_rankers_say_why_a_single_machine_parameter_is_absent():
    pytest.importorskip("distributed")
    from metricrank.dask import DaskLambdaMART

    with pytest.raises(TypeError, match=r"'grow_policy': the trees grow leaf-wise"):
        DaskLambdaMART(grow_policy="mixed")
    with pytest.raises(TypeError, match=r"'n_jobs': LightGBM's Dask interface sets each worker's threads"):
        DaskLambdaMART(n_jobs=2)
    with pytest.raises(TypeError, match=r"'thread_count': CatBoost's name for n_jobs; DaskLambdaMART has no n_jobs: "
                                        r"LightGBM's Dask interface"):
        DaskLambdaMART(thread_count=2)
    with pytest.raises(TypeError, match=r"'depth': CatBoost's name for max_depth; pass max_depth=4$"):
        DaskLambdaMART(depth=4)  # no grow_policy to point to
    with pytest.raises(TypeError, match="LightGBM's name for bagging_fraction; pass bagging_fraction=0.5"):
        DaskLambdaMART(subsample=0.5)


def test_the_estimators_own_parameters_construct_copy_and_pickle_as_before(data):
    model = LambdaMART("MAP", n_estimators=3, bagging_fraction=0.8, bagging_freq=1, random_state=1)
    assert clone(model).get_params() == model.get_params()
    fitted = model.fit(data)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(data.X), fitted.predict(data.X))
    assert model.set_params(n_estimators=4).n_estimators == 4


def test_a_subclass_that_takes_any_keyword_checks_its_own():
    class Tagged(LambdaMART):
        def __init__(self, tag="x", **params):
            super().__init__(**params)
            self.tag = tag

    model = Tagged(tag="y", n_estimators=3, metric="MAP")
    assert (model.tag, model.n_estimators, model.metric) == ("y", 3, "MAP")

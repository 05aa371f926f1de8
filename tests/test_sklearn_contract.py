"""scikit-learn's estimator checks for the boosting rankers, with the justified exceptions declared in code."""

from __future__ import annotations

import warnings

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from metricrank import GBRanker, LambdaMART
from metricrank.learners import MARTClassifier

#: Checks a ranker fails on purpose, with the reason (sklearn prints it in the report).
EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data":
        "in ranking a row weight scales that document's terms of its query; it is not a repeated row, "
        "because a repeated document would also add pairs with itself and change its query's metric",
    "check_sample_weight_equivalence_on_sparse_data":
        "in ranking a row weight is not a repeated row (see the dense case)",
}


def _expected(estimator):
    return EXPECTED_FAILED_CHECKS


def _estimators():
    out = [GBRanker(n_estimators=5, num_leaves=4, min_data_in_leaf=1, n_jobs=1, random_state=0),
           GBRanker("QueryRMSE", n_estimators=5, num_leaves=4, min_data_in_leaf=1, n_jobs=1),
           LambdaMART(n_estimators=5, num_leaves=4, min_data_in_leaf=1, n_jobs=1),
           LambdaMART(n_estimators=5, grow_policy="symmetric", max_depth=2, min_data_in_leaf=1, n_jobs=1),
           MARTClassifier(n_estimators=5, num_leaves=4, min_data_in_leaf=1, n_jobs=1)]
    try:  # the nets need the optional torch extra
        import torch  # noqa: F401

        from metricrank.learners import LambdaRank, RankNet

        out += [RankNet(max_epochs=2, random_state=0), LambdaRank(max_epochs=2, random_state=0)]
    except ImportError:
        pass
    return out


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_unfitted_predict_raises_sklearns_not_fitted_error():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted yet"):
        GBRanker().predict([[1.0]])

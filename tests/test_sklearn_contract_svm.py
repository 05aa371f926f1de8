"""scikit-learn contract of the SVM and LP rankers (issue 11): check_estimator, RankingDataset
input, NotFittedError, versioned save/load."""

import json
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import check_estimator

from metricrank.data import make_ltr
from metricrank.learners._sklearn_compat import expected_failed_checks
from metricrank.learners.lp_ranker import LPRanker
from metricrank.learners.svm_acc import SVMAcc
from metricrank.learners.svm_map import SVMMAP
from metricrank.learners.svm_roc import SVMROCArea, SVMROCAreaMultiClass

# SVMAcc's liblinear solver needs about 25,000 iterations on this data at C=10 (its default cap is 20,000)
ESTIMATORS = [
    SVMMAP(C=10.0), SVMROCArea(C=10.0), SVMAcc(C=10.0, max_iter=100_000),
    SVMAcc(C=10.0, variant="acc4", n_thresholds=5),
    SVMROCAreaMultiClass(C=10.0), LPRanker(border=0.5),
]
IDS = ["SVMMAP", "SVMROCArea", "SVMAcc", "SVMAcc-acc4", "SVMROCAreaMultiClass", "LPRanker"]


@pytest.mark.parametrize("estimator", [SVMMAP(), SVMROCArea(), SVMAcc(), SVMROCAreaMultiClass(),
                                       LPRanker(border=0.5)],
                         ids=["SVMMAP", "SVMROCArea", "SVMAcc", "SVMROCAreaMultiClass", "LPRanker"])
def test_check_estimator(estimator):
    # LPRanker is checked with border=0.5 (labels > 0.5 positive): by default it takes
    # binary labels only, and sklearn's checks use multi-class integer targets.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(estimator, expected_failed_checks=expected_failed_checks(estimator))


@pytest.fixture(scope="module")
def data():
    ds = make_ltr(12, docs_per_query=(4, 8), n_features=5, n_informative=3, n_labels=3, random_state=0)
    return ds


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_not_fitted_error(estimator, data):
    with pytest.raises(NotFittedError):
        clone(estimator).predict(data.X)
    with pytest.raises(NotFittedError):
        clone(estimator).save("never-written.json")


def _fit(estimator, ds):
    est = clone(estimator)
    if isinstance(est, SVMROCAreaMultiClass):
        return est.fit(ds)
    if isinstance(est, LPRanker):
        return est.fit(ds)
    return est.fit(ds)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_ranking_dataset_equals_arrays(estimator, data):
    by_ds = clone(estimator).fit(data)
    by_arrays = clone(estimator).fit(data.X, data.y, qid=data.qid)
    kw = {"qid": data.qid} if isinstance(estimator, SVMAcc) else {}
    np.testing.assert_allclose(by_ds.predict(data), by_arrays.predict(data.X, **kw), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="either a RankingDataset or arrays"):
        clone(estimator).fit(data, data.y)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_fit_takes_label_and_query_columns_by_name_as_score_does(estimator, data):
    pd = pytest.importorskip("pandas")
    columns = [f"f{j}" for j in range(data.n_features)]
    frame = pd.DataFrame(data.X, columns=columns)
    by_name = clone(estimator).fit(frame.assign(label=data.y, qid=data.qid), "label", qid="qid")
    by_arrays = clone(estimator).fit(frame, data.y, qid=data.qid)
    assert list(by_name.feature_names_in_) == columns
    kw = {"qid": data.qid} if isinstance(estimator, SVMAcc) else {}
    np.testing.assert_array_equal(by_name.predict(frame, **kw), by_arrays.predict(frame, **kw))
    with pytest.raises(ValueError, match="'grade' is not a column of X"):
        clone(estimator).fit(frame.assign(label=data.y), "grade", qid=data.qid)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_save_load_roundtrip(estimator, data, tmp_path, suffix):
    model = clone(estimator).fit(data)
    path = tmp_path / f"model{suffix}"
    model.save(path)
    back = type(model).load(path)
    assert back.get_params() == model.get_params()
    np.testing.assert_array_equal(back.predict(data), model.predict(data))
    with pytest.raises(ValueError, match="holds a"):
        (SVMMAP if not isinstance(model, SVMMAP) else SVMROCArea).load(path)


def test_corrupted_model_file_is_rejected(data, tmp_path):
    model = SVMMAP(C=10.0).fit(data)
    path = tmp_path / "m.json"
    model.save(path)
    doc = json.loads(path.read_text())
    assert doc["format_version"] == 2 and doc["model"] == "SVMMAP"
    doc["state"]["fitted"]["coef_"]["__ndarray__"][0] += 1.0
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="corrupted"):
        SVMMAP.load(path)


def test_load_refuses_foreign_classes(data, tmp_path):
    from metricrank.learners._persistence import write_model_file

    path = tmp_path / "evil.json"
    write_model_file(path, "SVMMAP", {"params": {"__dict__": []},
                                      "fitted": {"coef_": {"__object__": "os:system", "attrs": {}}}})
    with pytest.raises(ValueError, match="not a metricrank or scikit-learn class"):
        SVMMAP.load(path)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_tags(estimator):
    tags = estimator.__sklearn_tags__()
    assert tags.requires_fit and tags.target_tags.required and not tags.input_tags.allow_nan
    assert tags.input_tags.sparse == (not isinstance(estimator, LPRanker))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_decision_function_is_predict_for_every_svm_and_the_lp_ranker(estimator, data):
    model = _fit(estimator, data)
    kw = {"qid": data.qid} if isinstance(estimator, SVMAcc) else {}  # acc3/acc4 normalise per query
    np.testing.assert_array_equal(model.decision_function(data.X, **kw), model.predict(data.X, **kw))

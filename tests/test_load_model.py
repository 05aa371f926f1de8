"""``metricrank.load_model`` loads any model file a ``save`` writes, as the class the file names: the loaded model
predicts as the saved one did."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import metricrank
from metricrank import (GBRanker, LambdaMART, LPRanker, SVMAcc, SVMMAP, SVMROCArea, SVMROCAreaMultiClass,
                        load_model, make_ltr)
from metricrank import learners
from metricrank.learners._persistence import write_model_file


@pytest.fixture(scope="module")
def data():
    return make_ltr(12, docs_per_query=(4, 8), n_features=5, n_informative=3, n_labels=3, random_state=0)


def nets():
    torch = pytest.importorskip("torch")
    del torch
    from metricrank.learners import LambdaRank, RankNet

    return [RankNet(max_epochs=2, random_state=0), LambdaRank(max_epochs=2, random_state=0)]


MODELS = {
    "LambdaMART": lambda: LambdaMART("MAP", n_estimators=3),
    "GBRanker": lambda: GBRanker("PairLogit", n_estimators=3),
    "SVMMAP": lambda: SVMMAP(C=10.0),
    "SVMROCArea": lambda: SVMROCArea(C=10.0),
    "SVMROCAreaMultiClass": lambda: SVMROCAreaMultiClass(C=10.0),
    "SVMAcc": lambda: SVMAcc(C=10.0, variant="acc4", n_thresholds=5),
    "LPRanker": lambda: LPRanker(border=0.5),
    "RankNet": lambda: nets()[0],
    "LambdaRank": lambda: nets()[1],
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_saved_model_loads_as_its_class(name, data, tmp_path):
    model = MODELS[name]().fit(data)
    path = tmp_path / "model.json.gz"
    model.save(path)
    loaded = load_model(path)
    assert type(loaded) is type(model) and type(loaded).__name__ == name
    np.testing.assert_array_equal(loaded.predict(data), model.predict(data))  # a data set: SVMAcc reads its qid


def test_every_class_that_saves_is_loaded():
    # the oracle for the list: each public class with save and load, so a new one cannot be left out
    saving = {name for name in learners.__all__ if inspect.isclass(getattr(learners, name))
              and hasattr(getattr(learners, name), "save") and hasattr(getattr(learners, name), "load")}
    assert saving == set(MODELS) == set(learners._SAVED)


def test_a_file_of_another_class_or_no_model_is_refused(tmp_path):
    path = tmp_path / "other.json"
    write_model_file(path, "MARTClassifier", {})
    with pytest.raises(ValueError, match=r"other.json: holds a MARTClassifier model, which this metricrank does not "
                                         r"load; it loads GBRanker, LPRanker, LambdaMART, LambdaRank, RankNet"):
        load_model(path)
    path.write_text("qid:1 1:0.5\n")
    with pytest.raises(ValueError, match="not a metricrank model file"):
        load_model(path)


def test_it_is_exported_at_the_top():
    assert metricrank.load_model is learners.load_model and "load_model" in metricrank.__all__

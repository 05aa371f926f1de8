"""The public functions check their options before any work: a wrong type or range raises a ValueError naming the
option, and a flag is a bool (the string "False" is true to ``if``, so a flag read by its truth value could silently
mean the opposite)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from metricrank import compare_per_query, evaluate, evaluate_many, load_letor, make_ltr, save_letor
from metricrank.analysis import combine_rankers
from metricrank.data import load_pairs, load_query_file


@pytest.fixture(scope="module")
def ranked():
    rng = np.random.default_rng(0)
    return rng.integers(0, 3, 40), rng.normal(size=40), np.repeat(np.arange(8), 5)


@pytest.fixture()
def letor_file(tmp_path):
    path = tmp_path / "train.txt"
    save_letor(make_ltr(4, docs_per_query=3, n_features=3, n_informative=2, random_state=0), path)
    return path


@pytest.mark.parametrize("call, name", [
    (lambda y, s, q: evaluate(y, s, qid=q, per_query="False"), "per_query"),
    (lambda y, s, q: compare_per_query(s, s[::-1], higher_is_better="False"), "higher_is_better"),
    (lambda y, s, q: make_ltr(3, sparse="yes"), "sparse"),
])
def test_a_flag_must_be_a_bool(ranked, call, name):
    with pytest.raises(ValueError, match=f"{name} must be True or False; got"):
        call(*ranked)


@pytest.mark.parametrize("options, message", [
    ({"epochs": "x"}, "epochs must be a non-negative integer; got 'x'"),
    ({"epochs": None}, "epochs must be a non-negative integer; got None"),
    ({"epochs": True}, "epochs must be a non-negative integer; got True"),
    ({"epochs": 2.0}, "epochs must be a non-negative integer; got 2.0"),
    ({"learning_rate": "x"}, "learning_rate must be a positive number; got 'x'"),
    ({"learning_rate": True}, "learning_rate must be a positive number; got True"),
    ({"learning_rate": None}, "learning_rate must be a positive number; got None"),
])
def test_combine_rankers_options_name_themselves(ranked, options, message):
    y, s, qid = ranked
    with pytest.raises(ValueError, match=message):
        combine_rankers([s, s[::-1]], y, qid=qid, **options)


def test_an_unhashable_preset_is_an_unknown_preset(ranked):
    y, s, qid = ranked
    with pytest.raises(ValueError, match=r"unknown preset \[1\]; choose one of catboost"):
        evaluate(y, s, qid=qid, preset=[1])


@pytest.mark.parametrize("options, message", [
    ({"query_effect": "x", "relevance": "nonlinear"}, "query_effect must be finite and >= 0, got 'x'"),
    ({"query_effect": None}, "query_effect must be finite and >= 0, got None"),
    ({"noise": "x"}, "noise must be finite and >= 0, got 'x'"),
    ({"label_probs": "x"}, "label_probs must be 5 non-negative numbers with a positive sum"),
    ({"label_probs": ["a", "b", "c", "d", "e"]}, "label_probs must be 5 non-negative numbers"),
    ({"random_state": -1}, "random_state must be None, an integer >= 0 or a numpy Generator; got -1"),
    ({"random_state": "x"}, "random_state must be None, an integer >= 0 or a numpy Generator; got 'x'"),
])
def test_make_ltr_options_name_themselves(options, message):
    with pytest.raises(ValueError, match=message):
        make_ltr(3, **options)


@pytest.mark.parametrize("options, message", [
    ({"chunk_rows": -1}, "chunk_rows must be an integer >= 1, got -1"),  # wrote an empty file
    ({"chunk_rows": 0}, "chunk_rows must be an integer >= 1, got 0"),
    ({"chunk_rows": 2.5}, "chunk_rows must be an integer >= 1, got 2.5"),
    ({"zero_based": "no"}, "zero_based must be True or False; got 'no'"),
    ({"write_qid": 1}, "write_qid must be True or False; got 1"),
    ({"write_doc_ids": None}, "write_doc_ids must be True or False; got None"),
    ({"comment": 1.5}, "comment must be a string or None, got 1.5"),
])
def test_save_letor_checks_its_options_before_writing(tmp_path, options, message):
    path = tmp_path / "out.txt"
    with pytest.raises(ValueError, match=message):
        save_letor(make_ltr(3, random_state=0), path, **options)
    assert os.listdir(tmp_path) == []


def test_save_letor_writes_every_row_whatever_the_chunk(tmp_path):
    ds = make_ltr(5, docs_per_query=3, n_features=4, n_informative=2, random_state=1)
    for chunk_rows in (1, 4, 100):
        save_letor(ds, tmp_path / "out.txt", chunk_rows=chunk_rows)
        back = load_letor(tmp_path / "out.txt", n_features=4)
        np.testing.assert_array_equal(back.X, ds.X)
        np.testing.assert_array_equal(back.y, ds.y)


@pytest.mark.parametrize("options, message", [
    ({"n_features": "x"}, "n_features must be None or a non-negative integer, got 'x'"),
    ({"n_features": 2.5}, "n_features must be None or a non-negative integer, got 2.5"),
    ({"n_features": True}, "n_features must be None or a non-negative integer, got True"),
    ({"dtype": np.int64}, "dtype must be a floating-point dtype"),  # truncated every feature to an integer
    ({"dtype": "x"}, "dtype must be a floating-point dtype"),
    ({"dense": "True"}, "dense must be True or False; got 'True'"),
    ({"stable_sort": 1}, "stable_sort must be True or False; got 1"),
])
def test_load_letor_options_name_themselves(letor_file, options, message):
    with pytest.raises(ValueError, match=message):
        load_letor(letor_file, **options)


@pytest.mark.parametrize("dtype", [np.float32, "float64", None])
def test_load_letor_takes_a_floating_dtype(letor_file, dtype):
    X = load_letor(letor_file, dtype=dtype, dense=True).X
    assert X.dtype == np.dtype(dtype)


def test_evaluate_many_reads_one_spec_as_one_metric(ranked):
    # (a string was read letter by letter: "unknown metric 'M'")
    y, s, qid = ranked
    (result,) = evaluate_many(y, s, "MAP", qid=qid)
    assert result.spec == "MAP"
    assert result.value == evaluate(y, s, qid=qid, metric="MAP")


@pytest.mark.parametrize("n_rows", ["x", 2.5, -1, True])
def test_sidecar_readers_check_n_rows(tmp_path, n_rows):
    # (load_pairs raised "'>=' not supported" and load_query_file compared the sizes' sum with "x")
    (tmp_path / "q").write_text("3\n4\n")
    (tmp_path / "pairs").write_text("0\t1\n")
    for load, path in ((load_query_file, tmp_path / "q"), (load_pairs, tmp_path / "pairs")):
        with pytest.raises(ValueError, match=f"n_rows must be None or an integer >= 0; got {n_rows!r}"):
            load(path, n_rows=n_rows)


@pytest.mark.parametrize("entry", ["evaluate", "LambdaMART.fit", "eval_set", "SVMMAP.fit", "scorer"])
def test_every_entry_point_refuses_a_missing_query_id(ranked, entry):
    """A NaN query id (a pandas column with a gap) once formed a query of its own in every entry point."""
    from metricrank import SVMMAP, LambdaMART, make_scorer
    y, s, q = ranked
    X = np.column_stack([s, s ** 2])
    gap = q.astype(np.float64)
    gap[7] = np.nan
    calls = {
        "evaluate": lambda: evaluate(y, s, metric="MAP", qid=gap),
        "LambdaMART.fit": lambda: LambdaMART(n_estimators=2).fit(X, y, qid=gap),
        "eval_set": lambda: LambdaMART(n_estimators=2, min_data_in_leaf=2).fit(
            X, y, qid=q, eval_set=[(X, y, gap)]),
        "SVMMAP.fit": lambda: SVMMAP().fit(X, y, qid=gap),
        "scorer": lambda: make_scorer("MAP")(LambdaMART(n_estimators=2, min_data_in_leaf=2).fit(X, y, qid=q),
                                             X, y, qid=gap),
    }
    with pytest.raises(ValueError, match=r"must not be missing; row 7 is nan"):
        calls[entry]()

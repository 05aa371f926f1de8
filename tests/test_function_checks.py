"""The public functions check their options before any work: a wrong type or range raises a ValueError naming the
option, and a flag is a bool (the string "False" is true to ``if``, so a flag read by its truth value could silently
mean the opposite). Every entry point checks its data alike: a missing query id, labels or weights given as text
or complex numbers raise a ValueError naming the row or the array."""

from __future__ import annotations

import os

import numpy as np
import pytest

from metricrank import compare_per_query, evaluate, evaluate_many, load_letor, make_ltr, save_letor
from metricrank.analysis import combine_rankers
from metricrank.data import load_pairs, load_query_file
from metricrank.model_selection import default_param_space, improvement_pvalue, selection_level


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
    ({"random_state": -1}, "random_state must be None, an integer >= 0, a numpy RandomState or a numpy Generator; got -1"),
    ({"random_state": "x"}, "random_state must be None, an integer >= 0, a numpy RandomState or a numpy Generator; got 'x'"),
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


def _label_entry_points(X, q):
    from metricrank import SVMMAP, LambdaMART, RankingDataset
    from metricrank.objectives import as_training_data
    ptr = np.flatnonzero(np.r_[True, q[1:] != q[:-1], True])
    return {
        "evaluate": lambda y: evaluate(y, X[:, 0], metric="MAP", qid=q),
        "LambdaMART.fit": lambda y: LambdaMART(n_estimators=2, min_data_in_leaf=2).fit(X, y, qid=q),
        "SVMMAP.fit": lambda y: SVMMAP().fit(X, y, qid=q),
        "RankingDataset": lambda y: RankingDataset(X, y, qid=q),
        "as_training_data": lambda y: as_training_data(y, ptr),
    }


@pytest.mark.parametrize("entry", ["evaluate", "LambdaMART.fit", "SVMMAP.fit", "RankingDataset", "as_training_data"])
@pytest.mark.parametrize("labels, message", [
    (lambda y: y.astype(str), r"must be numeric, got dtype <U"),   # numerals as text: taken as numbers before
    (lambda y: np.where(y > 0, "rel", "non"), r"must be numeric, got dtype <U3"),
    (lambda y: np.array([*y[:-1], "2"], dtype=object), r"must be numeric; got dtype object holding '2' \(row 39\)"),
    (lambda y: y + 0j, r"Complex data not supported in y"),   # the imaginary part was dropped before
])
def test_labels_must_be_numbers_at_every_entry_point(ranked, entry, labels, message):
    y, s, q = ranked
    call = _label_entry_points(np.column_stack([s, s ** 2]), q)[entry]
    with pytest.raises(ValueError, match=message):
        call(labels(y))


@pytest.mark.parametrize("entry", ["evaluate", "LambdaMART.fit", "RankingDataset", "as_training_data"])
def test_labels_held_as_objects_are_the_same_numbers(ranked, entry):
    """A pandas object column of numbers: evaluate refused it while the learners took it."""
    y, s, q = ranked
    call = _label_entry_points(np.column_stack([s, s ** 2]), q)[entry]
    as_numbers, as_objects = call(y), call(y.astype(object))
    if entry == "LambdaMART.fit":
        as_numbers, as_objects = as_numbers.predict(np.column_stack([s, s ** 2])), as_objects.predict(
            np.column_stack([s, s ** 2]))
    elif entry in ("RankingDataset", "as_training_data"):
        as_numbers, as_objects = as_numbers.y, as_objects.y
    np.testing.assert_array_equal(as_objects, as_numbers)


@pytest.mark.parametrize("call, message", [
    (lambda: default_param_space(0), r"n_train_docs must be None or an integer >= 1; got 0"),
    (lambda: default_param_space(1e4), r"n_train_docs must be None or an integer >= 1; got 10000.0"),
    (lambda: default_param_space(10_000, "symetric"), r"grow_policy must be one of 'auto', .*; got 'symetric'"),
    (lambda: selection_level(-1), r"n_candidates must be an integer >= 0; got -1"),
    (lambda: selection_level(3, alpha=5), r"alpha must be a number strictly between 0 and 1; got 5"),
    (lambda: improvement_pvalue([0.9, 0.8, 0.7], [0.5]), r"same queries .*got shapes \(3,\) and \(1,\)"),
    (lambda: improvement_pvalue([0.9, 0.8], [0.5, 0.4], higher_is_better="no"), r"higher_is_better must be True"),
])
def test_model_selection_helpers_check_their_arguments(call, message):
    # before: a misspelt policy gave the leaf-wise space, and a reference of one value was broadcast against
    # every query of the candidate (a p-value for a comparison nobody asked for)
    pytest.importorskip("optuna", reason="default_param_space builds Optuna distributions")
    with pytest.raises(ValueError, match=message):
        call()


def test_improvement_pvalue_is_wilcoxons_on_the_paired_differences():
    from scipy.stats import wilcoxon
    a, b = np.array([0.9, 0.8, 0.7, 0.95, np.nan, 0.85]), np.array([0.5, 0.6, 0.75, 0.7, 0.1, 0.6])
    keep = ~np.isnan(a)
    assert improvement_pvalue(a, b) == wilcoxon(a[keep] - b[keep], alternative="greater").pvalue
    assert improvement_pvalue(b, a, higher_is_better=False) == improvement_pvalue(a, b)


def _adapter(**methods):
    return type("Adapter", (), {name: staticmethod(lambda *a: None) for name in methods})


@pytest.mark.parametrize("name, adapter, message", [
    ("", _adapter(matches=1, get=1, scorer=1, perturbed=1), r"name must be a non-empty string"),
    ("x", lambda model: None, r"adapter must be a class"),
    ("x", _adapter(matches=1, get=1), r"adapter Adapter lacks scorer, perturbed"),
])
def test_register_adapter_refuses_what_could_not_work_later(name, adapter, message):
    from metricrank.analysis import ADAPTERS, register_adapter
    before = dict(ADAPTERS)
    with pytest.raises(ValueError, match=message):
        register_adapter(name, adapter)
    assert ADAPTERS == before


@pytest.mark.parametrize("keyword", ["sample_weight", "group_weight"])
def test_weights_must_be_numbers_as_in_evaluate(ranked, keyword):
    """Weights given as text were read as numbers by the learners and refused by evaluate."""
    from metricrank import LambdaMART
    y, s, q = ranked
    n = len(y) if keyword == "sample_weight" else len(np.unique(q))
    with pytest.raises(ValueError, match=rf"{keyword} must be numeric, got dtype <U"):
        LambdaMART(n_estimators=2, min_data_in_leaf=2).fit(np.column_stack([s, s ** 2]), y, qid=q,
                                                           **{keyword: np.ones(n).astype(str)})


@pytest.mark.parametrize("labels, message", [
    (["2", "0", "1"], r"ranked_labels must be numeric, got dtype <U1"),   # read as numbers before
    (np.array([2, 0, 1]) + 0j, r"Complex data not supported in ranked_labels"),
])
def test_swap_delta_matrix_takes_labels_as_numbers_only(labels, message):
    from metricrank.objectives import swap_delta_matrix
    with pytest.raises(ValueError, match=message):
        swap_delta_matrix("NDCG:top=10", labels)


@pytest.mark.parametrize("sparse", [False, True])
def test_complex_features_are_refused_by_a_ranking_dataset_as_complex_labels_are(sparse):
    # the cast to float dropped the imaginary parts with a mere ComplexWarning
    import scipy.sparse as sp

    from metricrank import RankingDataset

    X = np.array([[1 + 2j], [3 + 0j]])
    with pytest.raises(ValueError, match=r"Complex data not supported in X \(dtype complex128\); it must be real"):
        RankingDataset(sp.csr_matrix(X) if sparse else X, [1, 0])

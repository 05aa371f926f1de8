"""RankingDataset: construction, validation, properties and query subsets."""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from metricrank._groups import NonContiguousQueryError
from metricrank import LambdaMART
from metricrank.data import RankingDataset


def small(**kw):
    X = np.arange(12, dtype=np.float64).reshape(6, 2)
    y = [2, 0, 1, 0, 1, 3]
    kw.setdefault("qid", [5, 5, 5, 8, 9, 9])
    return RankingDataset(X, y, **kw)


# ---------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------


def test_groups_from_qid_group_or_ptr():
    ds = small()
    assert ds.group_ptr.tolist() == [0, 3, 4, 6]
    assert ds.group_ptr.dtype == np.int64
    assert (ds.n_queries, ds.n_docs, len(ds), ds.n_features) == (3, 6, 6, 2)
    assert ds.query_sizes.tolist() == [3, 1, 2]
    assert ds.query_ids.tolist() == [5, 8, 9]
    by_sizes = RankingDataset(ds.X, ds.y, group=[3, 1, 2])
    by_ptr = RankingDataset(ds.X, ds.y, group_ptr=[0, 3, 4, 6], qid=ds.qid)
    assert by_sizes.group_ptr.tolist() == by_ptr.group_ptr.tolist() == [0, 3, 4, 6]
    assert by_sizes.qid is None and by_sizes.query_ids.tolist() == [0, 1, 2]
    single = RankingDataset(ds.X, ds.y)
    assert single.group_ptr.tolist() == [0, 6] and single.n_queries == 1


def test_dtypes_are_normalised():
    ds = RankingDataset(np.ones((2, 3), dtype=np.int32), np.array([1, 0], dtype=np.int8))
    assert ds.X.dtype == np.float64 and ds.y.dtype == np.float64
    ds32 = RankingDataset(np.ones((2, 3), dtype=np.float32), [1, 0])
    assert ds32.X.dtype == np.float32
    csc = sp.random(4, 3, density=0.5, format="csc", random_state=0)
    ds_sp = RankingDataset(csc, [0, 1, 0, 1])
    assert ds_sp.X.format == "csr" and ds_sp.is_sparse
    fortran = np.asfortranarray(np.ones((3, 2)))
    assert RankingDataset(fortran, [0, 1, 2]).X.flags.c_contiguous


def test_empty_dataset():
    ds = RankingDataset(np.zeros((0, 4)), [])
    assert (ds.n_queries, ds.n_docs, ds.n_features) == (0, 0, 4)
    assert list(ds.iter_queries()) == []


def test_repr_mentions_shape():
    r = repr(small(doc_ids=list("abcdef"), source="f.txt"))
    assert "n_queries=3" in r and "n_docs=6" in r and "doc_ids" in r and "f.txt" in r


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_label_names_row_and_source(bad):
    y = np.array([1.0, 0.0, bad, 1.0])
    with pytest.raises(ValueError, match=rf"label of row 2 is {float(bad)}; labels must be finite in train\.txt"):
        RankingDataset(np.zeros((4, 1)), y, source="train.txt")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"y": [1, 2, 3]}, r"y must have shape \(6,\)"),
        ({"y": np.zeros((6, 2))}, r"y must have shape \(6,\) to match X, got \(6, 2\)"),
        ({"y": np.zeros((1, 6))}, r"got \(1, 6\)"),  # a row is not a column: refused
        ({"X": np.zeros(6)}, "X must be two-dimensional"),
        ({"qid": [1, 1, 2]}, r"qid must have shape \(6,\)"),
        ({"weight": [1, 1, 1, 1, 1, -1]}, r"weight must be finite and >= 0; entry 5 is -1\.0"),
        ({"weight": [1, 1, np.nan, 1, 1, 1]}, "entry 2 is nan"),  # the value as Python prints it, not NumPy's repr
        ({"weight": [1, 1]}, r"weight must have shape \(6,\)"),
        ({"group_weight": [1, 1]}, r"group_weight must have shape \(3,\)"),
        ({"group_weight": [1, np.inf, 1]}, "group_weight must be finite"),
        ({"doc_ids": ["a"]}, r"doc_ids must have shape \(6,\)"),
        ({"pairs": [[0, 1], [0, 6]]}, re.escape("pair 1 = [0, 6] has a row index outside 0..5")),
        ({"pairs": [[0, 1], [-1, 0]]}, "pair 1 = .* outside"),
        ({"pairs": [[0, 1], [2, 3]]}, re.escape("pair 1 = [2, 3] joins rows of different queries (query ids 5 and 8)")),
        ({"pairs": [[4, 4]]}, "pair 0 = .* with itself"),
        ({"pairs": [0, 1]}, r"pairs must have shape \(n_pairs, 2\)"),
        ({"pairs": [[0.5, 1]]}, "must be integers"),
        ({"pairs": [[0, 1]], "pair_weight": [-2.0]}, "pair_weight must be finite"),
        ({"pairs": [[0, 1]], "pair_weight": [1.0, 2.0]}, r"pair_weight must have shape \(1,\)"),
        ({"pair_weight": [1.0]}, "pair_weight given without pairs"),
        ({"group_ptr": [0, 3, 3, 6], "qid": None}, "query 1 is empty"),
        ({"group_ptr": [0, 3, 7], "qid": None}, "end at the number of rows"),
        ({"group_ptr": [0, 3, 6]}, "qid and group_ptr disagree at row 4"),
        ({"group_ptr": [0, 2, 6], "qid": [5, 5, 6, 6, 5, 5]}, "disagree at row"),
        ({"group_ptr": [0, 2, 4, 6], "qid": [5, 5, 6, 6, 5, 5]}, "same query id"),
        ({"group": [3, 3], "group_ptr": [0, 3, 6]}, "at most one"),
        ({"group": [3, 2], "qid": None}, "add up to 5 rows"),
    ],
)
def test_validation_errors(kwargs, match):
    args = {"X": np.zeros((6, 2)), "y": np.zeros(6), "qid": [5, 5, 5, 8, 9, 9]}
    args.update(kwargs)
    X, y = args.pop("X"), args.pop("y")
    with pytest.raises(ValueError, match=match):
        RankingDataset(X, y, source="data.txt", **args)


def test_a_column_of_labels_is_raveled_with_scikit_learns_warning():
    """A one-column frame or (n, 1) array as y: scikit-learn's and LightGBM's estimators warn and ravel it."""
    from sklearn.exceptions import DataConversionWarning

    y = np.array([2.0, 0.0, 1.0, 1.0])
    for column in (y[:, None], pd.DataFrame({"label": y})):
        with pytest.warns(DataConversionWarning, match=r"y has shape \(4, 1\), one column"):
            ds = RankingDataset(np.zeros((4, 1)), column, qid=[1, 1, 2, 2])
        np.testing.assert_array_equal(ds.y, y)
    ranker = LambdaMART(n_estimators=3, min_data_in_leaf=1)
    X = np.arange(8.0)[:, None]
    labels = np.array([0.0, 1, 2, 3, 3, 2, 1, 0])
    with pytest.warns(DataConversionWarning) as record:
        column_fit = ranker.fit(X, labels[:, None], group=[4, 4]).predict(X)
    assert record[0].filename == __file__  # the user's line, not the library's
    np.testing.assert_array_equal(column_fit, ranker.fit(X, labels, group=[4, 4]).predict(X))


def test_non_contiguous_qid_is_rejected():
    with pytest.raises(NonContiguousQueryError, match=r"query id 1 reappears.*in mem\.txt"):
        RankingDataset(np.zeros((3, 1)), [0, 1, 0], qid=[1, 2, 1], source="mem.txt")


@pytest.mark.parametrize("qid, row, shown", [
    (np.array([5.0, 5.0, np.nan, 8.0]), 2, "nan"),        # a pandas column with a gap
    (np.array([5.0, np.inf, 8.0, 8.0]), 1, "inf"),
    (np.array([5, None, 8, 8], dtype=object), 1, "None"),
    (np.array([5, pd.NA, pd.NA, 8], dtype=object), 1, "<NA>"),  # NumPy's comparison raised pandas' TypeError
    (np.array([5, np.float32("inf"), 8, 8], dtype=object), 1, "inf"),
    (np.array([5, 5, Decimal("NaN"), 8], dtype=object), 2, "NaN"),
    (pd.array([5, 5, 8, None], dtype="Int64"), 3, "nan"),  # read as float
])
def test_a_missing_query_id_is_named_not_taken_as_a_query(qid, row, shown):
    # before: a lone NaN formed a query of its own, and two NaNs were reported as a reappearing query
    with pytest.raises(ValueError, match=rf"qid in mem\.txt must not be missing; row {row} is {shown} "):
        RankingDataset(np.zeros((4, 1)), [0, 1, 0, 1], qid=qid, source="mem.txt")


def test_query_ids_of_any_finite_kind_are_accepted():
    for qid in ([5.0, 5.0, 8.5, 8.5], ["a", "a", "b", "b"], np.array([5, 5, 8.5, 8.5], dtype=object)):
        assert RankingDataset(np.zeros((4, 1)), [0, 1, 0, 1], qid=qid).group_ptr.tolist() == [0, 2, 4]


def test_query_ids_mixing_strings_and_numbers_are_refused():
    # before: NumPy's "'<' not supported between instances of 'str' and 'int'" from deep inside np.unique
    with pytest.raises(ValueError, match=r"qid mixes strings and numbers \(row 2 is 'b', row 0 is 5\)"):
        RankingDataset(np.zeros((4, 1)), [0, 1, 0, 1], qid=np.array([5, 5, "b", "b"], dtype=object))


def test_valid_optional_fields_are_stored():
    ds = small(
        weight=[1, 2, 3, 4, 5, 6],
        group_weight=[1, 0, 2],
        pairs=[[0, 1], [5, 4]],
        pair_weight=[1, 0.5],
        doc_ids=list("abcdef"),
    )
    assert ds.weight.dtype == np.float64 and ds.group_weight.tolist() == [1, 0, 2]
    assert ds.pairs.dtype == np.int64 and ds.pairs.shape == (2, 2)
    assert ds.doc_ids.dtype == object
    assert RankingDataset(np.zeros((2, 1)), [0, 1], pairs=np.zeros((0, 2))).pairs.shape == (0, 2)


def test_replace_keeps_every_field_not_named_and_checks_the_new_ones():
    ds = small(qid=[7, 7, 7, 8, 9, 9], weight=[1, 2, 3, 4, 5, 6], group_weight=[1, 0, 2], doc_ids=list("abcdef"),
               source="data.txt")
    new = ds.replace(pairs=[[0, 1], [5, 4]], pair_weight=[1, 0.5])
    assert new.pairs.tolist() == [[0, 1], [5, 4]] and new.pair_weight.tolist() == [1, 0.5]
    for name in ("X", "y", "group_ptr", "qid", "weight", "group_weight", "doc_ids"):
        assert np.array_equal(getattr(new, name), getattr(ds, name)), name
    assert new.source == "data.txt" and ds.pairs is None  # the original is left as it was
    with pytest.raises(ValueError, match=r"pair 0 = \[0, 3\] joins rows of different queries \(query ids 7 and 8\)"):
        ds.replace(pairs=[[0, 3]])  # rows of two queries, named by their ids
    with pytest.raises(ValueError, match="group_weight"):
        ds.replace(group_weight=[1.0, 2.0])  # three queries
    with pytest.raises(TypeError, match="got 'group', which is not a field"):
        ds.replace(group=[3, 3])


def test_pairs_given_to_fit_beside_a_dataset_keep_its_query_and_doc_ids():
    from metricrank.learners._inputs import as_dataset

    ds = small(qid=[7, 7, 7, 8, 9, 9], doc_ids=list("abcdef"), source="data.txt")
    got = as_dataset(ds, pairs=[[0, 1]])
    assert got.pairs.tolist() == [[0, 1]]
    assert got.qid.tolist() == ds.qid.tolist() and got.doc_ids.tolist() == list("abcdef")
    with pytest.raises(ValueError, match=r"joins rows of different queries \(query ids 7 and 8\)$"):
        as_dataset(ds, pairs=[[0, 3]])  # the pairs are fit's, not the file's: no file is named


# ---------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------


def test_iter_queries():
    ds = small()
    got = [(q, ds.y[rows].tolist()) for q, rows in ds.iter_queries()]
    assert got == [(0, [2, 0, 1]), (1, [0]), (2, [1, 3])]


@pytest.mark.parametrize("sparse", [False, True])
def test_subset_queries_reindexes_everything(sparse):
    X = np.arange(12, dtype=np.float64).reshape(6, 2)
    ds = RankingDataset(
        sp.csr_matrix(X) if sparse else X,
        [2, 0, 1, 0, 1, 3],
        qid=[5, 5, 5, 8, 9, 9],
        weight=[1, 2, 3, 4, 5, 6],
        group_weight=[10, 20, 30],
        pairs=[[0, 1], [2, 1], [5, 4]],
        pair_weight=[1.0, 0.5, 2.0],
        doc_ids=list("abcdef"),
        source="s.txt",
    )
    sub = ds.subset_queries([2, 0])  # order as given
    Xs = sub.X.toarray() if sparse else sub.X
    assert sp.issparse(sub.X) == sparse
    np.testing.assert_array_equal(Xs, X[[4, 5, 0, 1, 2]])
    assert sub.y.tolist() == [1, 3, 2, 0, 1]
    assert sub.qid.tolist() == [9, 9, 5, 5, 5]
    assert sub.group_ptr.tolist() == [0, 2, 5]
    assert sub.weight.tolist() == [5, 6, 1, 2, 3]
    assert sub.group_weight.tolist() == [30, 10]
    assert sub.doc_ids.tolist() == list("efabc")
    assert sub.pairs.tolist() == [[2, 3], [4, 3], [1, 0]]
    assert sub.pair_weight.tolist() == [1.0, 0.5, 2.0]
    assert sub.source == "s.txt"
    # Pairs of dropped queries are dropped with their weights.
    only_middle = ds.subset_queries(np.array([False, True, False]))
    assert only_middle.pairs.shape == (0, 2) and only_middle.pair_weight.shape == (0,)
    assert ds.subset_queries([-1]).qid.tolist() == [9, 9]
    assert ds.subset_queries([]).n_docs == 0


def test_subset_queries_errors():
    ds = small()
    with pytest.raises(ValueError, match="must not repeat"):
        ds.subset_queries([0, 0])
    with pytest.raises(IndexError):
        ds.subset_queries([3])
    with pytest.raises(ValueError, match="boolean mask"):
        ds.subset_queries([True, False])
    # (1.5 was truncated to query 1, "a" raised int()'s message)
    for indices, dtype in (([1.5], "float64"), (["a"], "<U1")):
        with pytest.raises(ValueError, match=f"query indices must be integers or a boolean mask; got dtype {dtype}"):
            ds.subset_queries(indices)


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 5), min_size=1, max_size=8),
    data=st.data(),
)
def test_subset_queries_matches_naive(sizes, data):
    ptr = np.concatenate(([0], np.cumsum(sizes)))
    n = int(ptr[-1])
    rng = np.random.default_rng(len(sizes))
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 3, size=n)
    pairs = [
        (a, b)
        for q in range(len(sizes))
        for a in range(ptr[q], ptr[q + 1])
        for b in range(ptr[q], ptr[q + 1])
        if a != b
    ]
    ds = RankingDataset(X, y, group_ptr=ptr, pairs=np.array(pairs, dtype=np.int64).reshape(-1, 2))
    chosen = data.draw(st.permutations(range(len(sizes))).map(lambda p: p[: data.draw(st.integers(0, len(p)))]))
    sub = ds.subset_queries(chosen)
    rows = [r for q in chosen for r in range(ptr[q], ptr[q + 1])]
    np.testing.assert_array_equal(sub.X, X[rows])
    assert sub.query_sizes.tolist() == [sizes[q] for q in chosen]
    # Each kept pair maps back to an original pair, and all pairs of the chosen queries are kept.
    back = {(rows[a], rows[b]) for a, b in sub.pairs.tolist()}
    expected = {p for p in pairs if any(ptr[q] <= p[0] < ptr[q + 1] for q in chosen)}
    assert back == expected and len(back) == len(sub.pairs)

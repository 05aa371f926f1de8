"""LETOR / SVMlight reading and writing, and the side files (query sizes,
pairs, group weights)."""

from __future__ import annotations

import bz2
import gzip
import os
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from metricrank._groups import NonContiguousQueryError
from metricrank.data import (
    OneQueryWarning,
    RankingDataset,
    load_group_weights,
    load_letor,
    load_pairs,
    load_query_file,
    load_weights,
    make_ltr,
    save_letor,
    save_pairs,
    save_query_file,
    save_weights,
)
from metricrank._io import atomic_write as _atomic_write
from metricrank.data.sidecars import save_group_weights


def write(path, text, mode="w"):
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    elif str(path).endswith(".bz2"):
        with bz2.open(path, "wt") as fh:
            fh.write(text)
    else:
        with open(path, mode) as fh:
            fh.write(text)
    return path


def where(path, line):
    """Regex requiring the file name and the line number in a message."""
    return re.escape(f"{path}, line {line}:")


def assert_same(a: RankingDataset, b: RankingDataset):
    Xa = a.X.toarray() if sp.issparse(a.X) else a.X
    Xb = b.X.toarray() if sp.issparse(b.X) else b.X
    assert Xa.shape == Xb.shape
    assert Xa.dtype == Xb.dtype
    np.testing.assert_array_equal(Xa, Xb)  # exact, not approximate
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.group_ptr, b.group_ptr)
    if a.qid is None or b.qid is None:
        assert a.qid is None and b.qid is None
    else:
        np.testing.assert_array_equal(a.qid, b.qid)
    if a.doc_ids is None or b.doc_ids is None:
        assert a.doc_ids is None and b.doc_ids is None
    else:
        assert a.doc_ids.tolist() == b.doc_ids.tolist()


# ---------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("with_doc_ids", [True, False])
def test_round_trip(tmp_path, suffix, sparse, with_doc_ids):
    ds = make_ltr(12, docs_per_query=(1, 9), n_features=7, random_state=3, sparse=sparse)
    if not with_doc_ids:
        ds = RankingDataset(ds.X, ds.y, qid=ds.qid)
    path = tmp_path / f"data.txt{suffix}"
    save_letor(ds, path)
    back = load_letor(path, n_features=7, dense=not sparse)
    assert sp.issparse(back.X) == sparse
    assert_same(ds, back)
    assert back.source == str(path)
    raw = path.read_bytes()
    if suffix == ".gz":
        assert raw[:2] == b"\x1f\x8b"
    elif suffix == ".bz2":
        assert raw[:3] == b"BZh"
    else:
        first = raw.split(b"\n", 1)[0]
        assert re.match(rb"^\d+ qid:0 1:\S+ ", first)
        assert first.endswith(b" #docid = q0-d0") == with_doc_ids


def test_round_trip_values_need_17_digits(tmp_path):
    # 0.1 + 0.2 needs 17 significant digits; sklearn's dump (%.16g) would lose it.
    X = np.array([[0.1 + 0.2, 1e-300, -2.5e17], [np.pi, 0.0, 1.0]])
    ds = RankingDataset(X, [0.5, 3], qid=[4, 4])
    save_letor(ds, tmp_path / "p.txt")
    assert_same(ds, load_letor(tmp_path / "p.txt", n_features=3))


def test_round_trip_float32(tmp_path):
    ds = make_ltr(5, n_features=4, n_informative=2, random_state=0)
    ds32 = RankingDataset(ds.X.astype(np.float32), ds.y, qid=ds.qid, doc_ids=ds.doc_ids)
    save_letor(ds32, tmp_path / "f.txt")
    back = load_letor(tmp_path / "f.txt", n_features=4, dtype=np.float32)
    assert back.X.dtype == np.float32
    assert_same(ds32, back)


def test_round_trip_trailing_empty_columns_need_n_features(tmp_path):
    X = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    save_letor((X, np.array([1.0, 0.0]), np.array([1, 1])), tmp_path / "t.txt")
    assert load_letor(tmp_path / "t.txt").n_features == 2
    np.testing.assert_array_equal(load_letor(tmp_path / "t.txt", n_features=3).X, X)


def test_save_without_qid_writes_query_index(tmp_path):
    ds = RankingDataset(np.ones((3, 1)), [1, 0, 1], group=[2, 1])
    save_letor(ds, tmp_path / "g.txt")
    back = load_letor(tmp_path / "g.txt")
    assert back.qid.tolist() == [0, 0, 1]
    assert back.group_ptr.tolist() == [0, 2, 3]


def test_save_string_qid_is_rejected(tmp_path):
    ds = RankingDataset(np.ones((2, 1)), [1, 0], qid=np.array(["a", "a"]))
    with pytest.raises(ValueError, match="qid must be integers"):
        save_letor(ds, tmp_path / "s.txt")
    assert not os.listdir(tmp_path)


def test_save_rejects_doc_id_with_space(tmp_path):
    ds = RankingDataset(np.ones((2, 1)), [1, 0], qid=[1, 1], doc_ids=["ok", "not ok"])
    with pytest.raises(ValueError, match="row 1"):
        save_letor(ds, tmp_path / "s.txt")


def test_save_comment_header_is_ignored_on_load(tmp_path):
    ds = make_ltr(2, n_features=3, n_informative=1)
    save_letor(ds, tmp_path / "c.txt", comment="made by a test\nsecond line")
    text = (tmp_path / "c.txt").read_text()
    assert text.startswith("# made by a test\n# second line\n")
    back = load_letor(tmp_path / "c.txt", n_features=3)
    assert_same(ds, back)
    # Line numbers in the loader count the header lines.
    write(tmp_path / "c2.txt", text.replace("1:", "1:x", 1))
    with pytest.raises(ValueError, match=where(tmp_path / "c2.txt", 3)):
        load_letor(tmp_path / "c2.txt")


def test_query_file_round_trip_lightgbm_style(tmp_path):
    ds = make_ltr(6, docs_per_query=(1, 4), n_features=3, n_informative=1, random_state=2)
    path = tmp_path / "rank.train"
    save_letor(ds, path, write_qid=False, write_doc_ids=False, query_file=True)
    assert "qid:" not in path.read_text()
    assert load_query_file(str(path) + ".query").tolist() == ds.query_sizes.tolist()
    back = load_letor(path, n_features=3)
    assert back.qid is None
    np.testing.assert_array_equal(back.group_ptr, ds.group_ptr)
    np.testing.assert_array_equal(back.X, ds.X)


def test_query_file_next_to_compressed_file(tmp_path):
    write(tmp_path / "r.txt.gz", "1 1:1\n0 1:2\n1 1:3\n")
    write(tmp_path / "r.txt.query", "2\n1\n")
    assert load_letor(tmp_path / "r.txt.gz").group_ptr.tolist() == [0, 2, 3]


def test_group_file_and_explicit_query_file(tmp_path):
    write(tmp_path / "a.txt", "1 1:1\n0 1:2\n1 1:3\n")
    with pytest.warns(OneQueryWarning, match="all 3 rows are treated as one query"):
        # no side file: one query, said out loud
        assert load_letor(tmp_path / "a.txt").group_ptr.tolist() == [0, 3]
    write(tmp_path / "a.txt.group", "1\n2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_letor(tmp_path / "a.txt").group_ptr.tolist() == [0, 1, 3]
    write(tmp_path / "sizes", "3\n")
    assert load_letor(tmp_path / "a.txt", query_file=tmp_path / "sizes").group_ptr.tolist() == [0, 3]


def test_query_file_not_matching_rows(tmp_path):
    write(tmp_path / "a.txt", "1 1:1\n0 1:2\n1 1:3\n")
    write(tmp_path / "a.txt.query", "2\n2\n")
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "a.txt.query")) + ".*4 rows.*3 rows"):
        load_letor(tmp_path / "a.txt")


def test_explicit_query_file_must_agree_with_qid(tmp_path):
    write(tmp_path / "a.txt", "1 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 1:3\n")
    write(tmp_path / "ok.query", "2\n1\n")
    write(tmp_path / "bad.query", "1\n2\n")
    assert load_letor(tmp_path / "a.txt", query_file=tmp_path / "ok.query").n_queries == 2
    with pytest.raises(ValueError, match="do not match"):
        load_letor(tmp_path / "a.txt", query_file=tmp_path / "bad.query")


def test_save_is_atomic(tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with _atomic_write(target) as fh:
            fh.write(b"partial")
            raise RuntimeError("boom")
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["keep.txt"]
    save_letor(make_ltr(2, n_features=2, n_informative=1), target)
    assert target.read_text().startswith(tuple("01234"))
    assert os.listdir(tmp_path) == ["keep.txt"]


# ---------------------------------------------------------------------------
# Reading options
# ---------------------------------------------------------------------------


def test_dense_auto_choice(tmp_path):
    # 2000 features, 2 entries per row: sparse.
    write(tmp_path / "wide.txt", "1 qid:1 1:1 2000:2\n0 qid:1 5:1\n")
    assert sp.issparse(load_letor(tmp_path / "wide.txt").X)
    assert isinstance(load_letor(tmp_path / "wide.txt", dense=True).X, np.ndarray)
    # Few features: dense even if sparse in content.
    write(tmp_path / "narrow.txt", "1 qid:1 1:1 20:2\n0 qid:1 5:1\n")
    assert isinstance(load_letor(tmp_path / "narrow.txt").X, np.ndarray)
    assert sp.issparse(load_letor(tmp_path / "narrow.txt", dense=False).X)
    # Many features but dense content.
    row = " ".join(f"{j}:1" for j in range(1, 1202))
    write(tmp_path / "full.txt", f"1 qid:1 {row}\n0 qid:1 {row}\n")
    assert isinstance(load_letor(tmp_path / "full.txt").X, np.ndarray)


def test_zero_based(tmp_path):
    write(tmp_path / "z.txt", "1 qid:1 0:5 2:7\n")
    assert load_letor(tmp_path / "z.txt", zero_based="auto").X.tolist() == [[5.0, 0.0, 7.0]]  # 0 seen
    assert load_letor(tmp_path / "z.txt", zero_based=True).X.tolist() == [[5.0, 0.0, 7.0]]
    with pytest.raises(ValueError, match=where(tmp_path / "z.txt", 1) + " feature index 0"):
        load_letor(tmp_path / "z.txt")  # default: 1-based, as SVMlight and LETOR
    write(tmp_path / "o.txt", "1 qid:1 1:5 3:7\n")
    assert load_letor(tmp_path / "o.txt").X.tolist() == [[5.0, 0.0, 7.0]]
    assert load_letor(tmp_path / "o.txt", zero_based="auto").X.tolist() == [[5.0, 0.0, 7.0]]
    assert load_letor(tmp_path / "o.txt", zero_based=True).X.tolist() == [[0.0, 5.0, 0.0, 7.0]]


def test_rows_without_features_and_comments(tmp_path):
    text = "# header\n\n2 qid:5 #docid = a\n   \n1 qid:5 2:1 # docid=b extra\n0 qid:6 1:3\n"
    ds = load_letor(write(tmp_path / "c.txt", text), n_features=2)
    assert ds.X.tolist() == [[0, 0], [0, 1], [3, 0]]
    assert ds.doc_ids.tolist() == ["a", "b", None]
    assert ds.group_ptr.tolist() == [0, 2, 3]


LONE_CR = r"carriage returns \(\\r\) split the line into rows: the file ends its lines with \\r alone"


@pytest.mark.parametrize("text", ["2 qid:1 1:0.5 #docid=a\r1 qid:1 1:0.2 #docid=b\r0 qid:2 1:0.3 #docid=c\r",
                                  "2 qid:1 1:0.5\r1 qid:1 1:0.2\r0 qid:2 1:0.3\r"])
def test_lines_ended_by_a_carriage_return_alone_are_refused(tmp_path, text):
    # with comments, a reader splitting at \n kept the first row of the three and dropped the rest silently
    path = tmp_path / "mac.txt"
    path.write_bytes(text.encode())
    with pytest.raises(ValueError, match="mac.txt, line 1: " + LONE_CR):
        load_letor(path)
    crlf = tmp_path / "dos.txt"
    crlf.write_bytes(text.replace("\r", "\r\n").encode())
    ds = load_letor(crlf)
    assert ds.y.tolist() == [2, 1, 0] and ds.group_ptr.tolist() == [0, 2, 3]


def test_a_carriage_return_that_splits_no_row_is_read_as_before(tmp_path):
    # a column pasted onto a CRLF file, a carriage return inside a comment, and one between two tokens
    text = "2 qid:1 1:0.5\r #docid = a\n1 qid:1 1:0.2 #docid = b\rx\n0 qid:2\r 1:0.3 #docid = c\n"
    path = tmp_path / "pasted.txt"
    path.write_bytes(text.encode())
    ds = load_letor(path)
    assert ds.y.tolist() == [2, 1, 0] and np.asarray(ds.X).ravel().tolist() == [0.5, 0.2, 0.3]
    assert ds.doc_ids.tolist() == ["a", "b", "c"]
    pairs = tmp_path / "pairs.txt"
    pairs.write_bytes(b"0\t1\r\t0.5\n2\t1\r\t2\n")  # a weight column pasted onto CRLF pairs
    got, weight = load_pairs(pairs, n_rows=3)
    assert got.tolist() == [[0, 1], [2, 1]] and weight.tolist() == [0.5, 2.0]


@pytest.mark.parametrize("loader, text", [
    (lambda p: load_query_file(p), "# sizes\r2\r1\r"),
    (lambda p: load_weights(p), "1\r2\r3\r"),
    (lambda p: load_pairs(p, n_rows=3), "0\t1\r2\t1\r"),
    (lambda p: load_group_weights(p, [1, 2]), "1\t0.5\r2\t2\r"),
])
def test_side_files_with_lines_ended_by_a_carriage_return_alone_are_refused(tmp_path, loader, text):
    path = tmp_path / "side.txt"
    path.write_bytes(text.encode())
    with pytest.raises(ValueError, match="side.txt, line 1: " + LONE_CR):
        loader(path)
    path.write_bytes(text.replace("\r", "\r\n").encode())
    loader(path)  # CRLF endings are read


def test_stable_sort_reorders_everything(tmp_path):
    text = (
        "2 qid:7 1:1 #docid = a\n"
        "0 qid:3 1:2 #docid = b\n"
        "1 qid:7 1:3 #docid = c\n"
        "0 qid:9 1:4 #docid = d\n"
        "1 qid:3 1:5 #docid = e\n"
    )
    path = write(tmp_path / "ns.txt", text)
    ds = load_letor(path, stable_sort=True)
    assert ds.qid.tolist() == [7, 7, 3, 3, 9]
    assert ds.group_ptr.tolist() == [0, 2, 4, 5]
    assert ds.X[:, 0].tolist() == [1, 3, 2, 5, 4]
    assert ds.y.tolist() == [2, 1, 0, 1, 0]
    assert ds.doc_ids.tolist() == ["a", "c", "b", "e", "d"]


# ---------------------------------------------------------------------------
# Bad input: every message names the file and the line
# ---------------------------------------------------------------------------

GOOD = "1 qid:1 1:0.5 2:1\n0 qid:1 1:0.25\n"


@pytest.mark.parametrize(
    "bad_line, reason",
    [
        ("1 qid:1 1:abc", "feature value"),
        ("1 qid:1 1:", "feature value"),
        ("1 qid:1 7", "index:value"),
        ("1 qid:1 x:2", "feature index"),
        ("high qid:1 1:2", "label 'high'"),
        ("1 qid:1 2:1 1:1", "sorted and unique"),
        ("1 qid:1 2:1 2:3", "sorted and unique"),
        ("1 qid:1 -3:1", "invalid feature index -3"),
        ("1 qid:x 1:1", "query id 'x'"),
        ("1 qid:1.5 1:1", "query id '1.5'"),
        ("1 qidx:3 1:1", "malformed query id token 'qidx:3'"),
        ("1 1:1 qid:3", "'qid:3' must directly follow the label"),
        # Python's float() and int() read digit separators ("1_0" is 10); SVMlight has none
        ("1_0 qid:1 1:1", "'1_0' holds a '_'"),
        ("1 qid:1 1:1_000", "'1:1_000' holds a '_'"),
        ("1 qid:1_2 1:1", "'qid:1_2' holds a '_'"),
        # a bare OverflowError from scikit-learn's reader, and "is not an integer" for an integer
        ("1 qid:1 2147483648:1", "feature index 2147483648 in '2147483648:1' is above 2147483647"),
        ("1 qid:99999999999999999999 1:1", "query id 99999999999999999999 is outside the 64-bit signed integers"),
    ],
)
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_malformed_line(tmp_path, bad_line, reason, suffix):
    path = write(tmp_path / f"bad.txt{suffix}", "# comment\n" + GOOD + bad_line + "  # docid = z\n" + GOOD)
    with pytest.raises(ValueError, match=where(path, 4) + ".*" + re.escape(reason)):
        load_letor(path)


@pytest.mark.parametrize("label", ["nan", "inf", "-inf", "NaN"])
def test_non_finite_label(tmp_path, label):
    path = write(tmp_path / "nan.txt", GOOD + "\n" + f"{label} qid:1 1:1\n")
    value = {"nan": "nan", "NaN": "nan", "inf": "inf", "-inf": "-inf"}[label]  # as Python prints the float
    with pytest.raises(ValueError, match=where(path, 4) + f" label {value} is not finite"):
        load_letor(path)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n#docid = x\n"])
def test_empty_file(tmp_path, text):
    path = write(tmp_path / "empty.txt", text)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": file contains no data rows"):
        load_letor(path)


def test_empty_gz_file(tmp_path):
    path = write(tmp_path / "empty.txt.gz", "")
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": file contains no data rows"):
        load_letor(path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_truncated_compressed_file(tmp_path, suffix):
    full = write(tmp_path / f"full.txt{suffix}", GOOD * 2000)
    cut = tmp_path / f"cut.txt{suffix}"
    data = full.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=re.escape(str(cut)) + r", line \d+: cannot read the file"):
        load_letor(cut)


def test_mixed_qid_and_no_qid(tmp_path):
    path = write(tmp_path / "mixed.txt", GOOD + "1 1:1\n")
    with pytest.raises(ValueError, match=where(path, 3) + " row has no qid.*line 1"):
        load_letor(path)
    path = write(tmp_path / "mixed2.txt", "1 1:1\n1 qid:1 1:1\n")
    with pytest.raises(ValueError, match=where(path, 2) + " row has a qid"):
        load_letor(path)


def test_feature_index_beyond_n_features(tmp_path):
    path = write(tmp_path / "wide.txt", GOOD + "1 qid:2 1:1 3:1 9:1\n")
    with pytest.raises(ValueError, match=where(path, 3) + " feature index 9 exceeds n_features=3"):
        load_letor(path, n_features=3)
    assert load_letor(path, n_features=9).n_features == 9
    assert load_letor(path, n_features=12).X.shape == (3, 12)


def test_non_contiguous_qid(tmp_path):
    # A blank line and a comment line: the error must give the FILE line, not row + 1.
    text = "1 qid:1 1:1\n\n0 qid:2 1:1\n# note\n1 qid:2 1:2\n0 qid:1 1:3\n"
    path = write(tmp_path / "nc.txt", text)
    with pytest.raises(NonContiguousQueryError, match=where(path, 6) + " query id 1 reappears.*line 1"):
        load_letor(path)
    # NonContiguousQueryError is a ValueError.
    with pytest.raises(ValueError, match="stable_sort=True"):
        load_letor(path)
    ds = load_letor(path, stable_sort=True)
    assert ds.qid.tolist() == [1, 1, 2, 2]
    assert ds.X[:, 0].tolist() == [1, 3, 1, 2]


def test_bad_arguments(tmp_path):
    path = write(tmp_path / "a.txt", GOOD)
    with pytest.raises(ValueError, match="zero_based"):
        load_letor(path, zero_based="yes")
    with pytest.raises(FileNotFoundError):
        load_letor(tmp_path / "missing.txt")


# ---------------------------------------------------------------------------
# Real data (../shared/data)
# ---------------------------------------------------------------------------

_MQ_CACHE: dict = {}


def _mq(shared_data, fold, split):
    key = (fold, split)
    if key not in _MQ_CACHE:
        _MQ_CACHE[key] = load_letor(shared_data / "MQ2008" / f"Fold{fold}" / f"{split}.txt.gz", n_features=46)
    return _MQ_CACHE[key]


@pytest.mark.data
@pytest.mark.parametrize("fold", [1, 2, 3, 4, 5])
def test_mq2008_fold(shared_data, fold):
    parts = [_mq(shared_data, fold, split) for split in ("train", "vali", "test")]
    qids = []
    for ds in parts:
        assert ds.n_features == 46
        assert isinstance(ds.X, np.ndarray)
        assert set(np.unique(ds.y).tolist()) <= {0.0, 1.0, 2.0}
        assert ds.doc_ids is not None and all(d.startswith("GX") for d in ds.doc_ids)
        assert ds.X.min() >= 0 and ds.X.max() <= 1  # query-level normalised
        assert np.unique(ds.query_ids).size == ds.n_queries
        qids.append(set(ds.query_ids.tolist()))
    # Each fold partitions the whole collection.
    assert sum(ds.n_docs for ds in parts) == 15211
    assert sum(ds.n_queries for ds in parts) == 784
    assert len(qids[0] | qids[1] | qids[2]) == 784


@pytest.mark.data
def test_mq2008_test_folds_cover_everything(shared_data):
    tests = [_mq(shared_data, k, "test") for k in range(1, 6)]
    assert [ds.n_queries for ds in tests] == [156, 157, 157, 157, 157]
    assert [ds.n_docs for ds in tests] == [2874, 2933, 3635, 3062, 2707]
    assert sum(ds.n_docs for ds in tests) == 15211
    assert len(set().union(*(set(ds.query_ids.tolist()) for ds in tests))) == 784
    # The official rotation: Fold(k+1)'s validation set is Fold k's test set.
    for k in range(1, 5):
        assert_same(_mq(shared_data, k, "test"), _mq(shared_data, k + 1, "vali"))
    first = tests[0]
    assert first.qid[0] == 18219 and first.y[0] == 0
    assert first.doc_ids[0] == "GX004-93-7097963"
    assert first.X[0, 0] == 0.052893 and first.X[0, 45] == 0.966667
    assert first.X[1, 1] == 0.0 and first.X[1, 2] == 0.25
    y = np.concatenate([ds.y for ds in tests])
    assert np.bincount(y.astype(int)).tolist() == [12279, 2001, 931]


@pytest.mark.data
def test_mq2008_round_trip(shared_data, tmp_path):
    ds = _mq(shared_data, 1, "test")
    save_letor(ds, tmp_path / "copy.txt.bz2")
    assert_same(ds, load_letor(tmp_path / "copy.txt.bz2", n_features=46))


@pytest.mark.data
def test_lightgbm_example_with_query_files(shared_data):
    d = shared_data / "lightgbm-rank-example"
    train = load_letor(d / "rank.train")
    test = load_letor(d / "rank.test", n_features=train.n_features)
    assert (train.n_queries, train.n_docs, train.n_features) == (201, 3005, 300)
    assert (test.n_queries, test.n_docs, test.n_features) == (50, 768, 300)
    assert train.qid is None and train.doc_ids is None
    np.testing.assert_array_equal(train.query_sizes, load_query_file(d / "rank.train.query"))
    np.testing.assert_array_equal(test.query_sizes, load_query_file(d / "rank.test.query"))
    assert np.bincount(train.y.astype(int)).tolist() == [645, 1211, 858, 222, 69]
    too_wide = re.escape(str(d / "rank.test")) + r", line \d+: feature index \d+ exceeds n_features=100"
    with pytest.raises(ValueError, match=too_wide):
        load_letor(d / "rank.test", n_features=100)
    # Explicit query file, and the wrong one.
    assert load_letor(d / "rank.test", query_file=d / "rank.test.query").n_queries == 50
    with pytest.raises(ValueError, match="rank.train.query"):
        load_letor(d / "rank.test", query_file=d / "rank.train.query")


@pytest.mark.data
def test_mslr_tiny(shared_data):
    d = shared_data / "mslr-tiny"
    train = load_letor(d / "search_tiny_train.txt")
    test = load_letor(d / "search_tiny_test.txt", n_features=train.n_features)
    assert (train.n_queries, train.n_docs, train.n_features) == (7, 582, 136)
    assert (test.n_queries, test.n_docs, test.n_features) == (4, 403, 136)
    assert train.qid[0] == 1 and train.y[0] == 2 and train.X[0, 0] == 3 and train.X[0, 15] == 6.931275
    assert set(np.unique(train.y).tolist()) <= {0, 1, 2, 3, 4}
    path = d / "search_tiny_train.txt"
    with pytest.raises(ValueError, match=where(path, 1) + " feature index 101 exceeds n_features=100"):
        load_letor(path, n_features=100)


# ---------------------------------------------------------------------------
# Side files
# ---------------------------------------------------------------------------


def check_line_errors(path, load, cases):
    """``load`` of ``path`` holding each case's text fails naming the file, the case's line and its reason."""
    for text, line, reason in cases:
        write(path, text)
        with pytest.raises(ValueError, match=where(path, line) + ".*" + re.escape(reason)):
            load(path)


def test_query_file_round_trip_and_errors(tmp_path):
    p = tmp_path / "x.query.gz"
    save_query_file(p, [3, 1, 2])
    assert load_query_file(p).tolist() == [3, 1, 2]
    assert load_query_file(p, n_rows=6).dtype == np.int64
    with pytest.raises(ValueError, match="6 rows but the data has 7"):
        load_query_file(p, n_rows=7)
    check_line_errors(tmp_path / "bad.query", load_query_file, [
        ("3\n0\n", 2, "must be >= 1"),
        ("3\nfour\n", 2, "'four' is not an integer"),
        ("3\n\n1 2\n", 3, "one query size per line"),
        ("2.5\n", 1, "not an integer"),
    ])
    empty = write(tmp_path / "empty.query", "\n")
    with pytest.raises(ValueError, match=re.escape(str(empty)) + ": query file contains no"):
        load_query_file(empty)
    with pytest.raises(ValueError):
        save_query_file(tmp_path / "y.query", [2, 0])
    assert not (tmp_path / "y.query").exists()


def test_pairs_round_trip(tmp_path):
    pairs = np.array([[0, 1], [3, 2], [3, 4]])
    save_pairs(tmp_path / "p.tsv", pairs)
    got, w = load_pairs(tmp_path / "p.tsv", n_rows=5)
    assert got.dtype == np.int64 and got.tolist() == pairs.tolist() and w is None
    save_pairs(tmp_path / "pw.tsv.bz2", pairs, [1.0, 0.25, 2])
    got, w = load_pairs(tmp_path / "pw.tsv.bz2")
    assert got.tolist() == pairs.tolist() and w.tolist() == [1.0, 0.25, 2.0]
    assert (tmp_path / "p.tsv").read_text() == "0\t1\n3\t2\n3\t4\n"
    # Missing weights default to 1 when some lines have one.
    p = write(tmp_path / "mix.tsv", "0\t1\n1\t2\t0.5\n")
    assert load_pairs(p)[1].tolist() == [1.0, 0.5]
    empty, w = load_pairs(write(tmp_path / "none.tsv", ""))
    assert empty.shape == (0, 2) and w is None


@pytest.mark.parametrize(
    "line, reason, kwargs",
    [
        ("4", "got 1 fields", {}),
        ("1\t2\t3\t4", "got 4 fields", {}),
        ("a\t2", "winner index 'a'", {}),
        ("1\t2.0", "loser index '2.0'", {}),
        ("-1\t2", "winner index -1 is negative", {}),
        ("1\t-2", "loser index -2 is negative", {}),
        ("1\t10", "loser index 10 is out of range for a data set of 10 rows", {"n_rows": 10}),
        ("3\t3", "pair of row 3 with itself", {}),
        ("1\t2\t-1", "weight '-1' must be finite", {}),
        ("1\t2\tnan", "weight 'nan' must be finite", {}),
        ("1\t2\theavy", "weight 'heavy' is not a number", {}),
        ("1\t7", "rows 1 and 7 belong to different queries (queries at positions 0 and 1)", {"group_ptr": [0, 5, 10]}),
        ("1\t7", "different queries (query ids q1 and q2)", {"group_ptr": [0, 5, 10], "qid": ["q1"] * 5 + ["q2"] * 5}),
        ("1\t10", "out of range", {"group_ptr": [0, 5, 10]}),
    ],
)
def test_pairs_errors(tmp_path, line, reason, kwargs):
    path = write(tmp_path / "bad.pairs", "0\t1\n\n" + line + "\n")
    with pytest.raises(ValueError, match=where(path, 3) + ".*" + re.escape(reason)):
        load_pairs(path, **kwargs)


def test_pairs_refuse_a_row_count_that_contradicts_the_queries(tmp_path):
    # n_rows=3 with queries of 10 rows: the pair (1, 7) of two queries passed unseen
    path = write(tmp_path / "p.pairs", "1\t7\n")
    with pytest.raises(ValueError, match="n_rows=3 but group_ptr ends at 10 rows"):
        load_pairs(path, n_rows=3, group_ptr=[0, 5, 10])
    pairs, _ = load_pairs(write(tmp_path / "ok.pairs", "1\t2\n"), n_rows=10, group_ptr=[0, 5, 10])
    assert pairs.tolist() == [[1, 2]]


def test_group_weights(tmp_path):
    ds = RankingDataset(np.zeros((4, 1)), [1, 0, 1, 0], qid=[30, 30, 10, 20])
    p = write(tmp_path / "gw.tsv", "10\t0.5\n20\t2\n030\t1.5\n")
    assert load_group_weights(p, ds).tolist() == [1.5, 0.5, 2.0]
    assert load_group_weights(p, [10, 20, 30]).tolist() == [0.5, 2.0, 1.5]
    # String ids compare as strings.
    s = write(tmp_path / "gs.tsv", "b\t1\na\t3\n")
    assert load_group_weights(s, np.array(["a", "b"])).tolist() == [3.0, 1.0]
    # Data set without qid: ids are the query indices.
    noqid = RankingDataset(np.zeros((3, 1)), [1, 0, 1], group=[1, 2])
    save_group_weights(tmp_path / "gi.tsv", noqid, [4, 5])
    assert load_group_weights(tmp_path / "gi.tsv", noqid).tolist() == [4.0, 5.0]
    assert (tmp_path / "gi.tsv").read_text() == "0\t4\n1\t5\n"


@pytest.mark.parametrize(
    "text, match",
    [
        ("10\t1\n20\t1\n99\t1\n30\t1\n", "line 3: group id '99' is not a query"),
        ("10\t1\n20\t1\n10\t2\n30\t1\n", "line 3: group id '10' already given on line 1"),
        ("10\t1\n20\t1\n\n30\n", "line 4: expected 'group_id<TAB>weight'"),
        ("10\t1\n20\t-1\n30\t1\n", "line 2: weight '-1' must be finite and >= 0"),
        ("10\t1\nx\t1\n30\t1\n", "line 2: group id 'x' is not an integer"),
        ("10\t1\n30\t1\n", ": no weight for query id\\(s\\) 20"),
    ],
)
def test_group_weight_errors(tmp_path, text, match):
    path = write(tmp_path / "gw.tsv", text)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ",? ?" + match):
        load_group_weights(path, [10, 20, 30])


def test_weights_round_trip_and_errors(tmp_path):
    # LightGBM's weight file: one row weight per line, in row order
    p = tmp_path / "train.txt.weight.gz"
    save_weights(p, [1.0, 0.25, 2, 1 / 3])
    got = load_weights(p, n_rows=4)
    assert got.dtype == np.float64 and got.tolist() == [1.0, 0.25, 2.0, 1 / 3]  # exact: shortest repr written
    commented = write(tmp_path / "c.weight", "# comment\n1\n\n0.5\n")
    assert load_weights(commented).tolist() == [1.0, 0.5]
    with pytest.raises(ValueError, match=re.escape(f"{p}: 4 weights for 5 rows")):
        load_weights(p, n_rows=5)
    check_line_errors(tmp_path / "bad.weight", load_weights, [
        ("1\n-0.5\n", 2, "weight '-0.5' must be finite and >= 0"),
        ("1\ninf\n", 2, "weight 'inf' must be finite"),
        ("heavy\n", 1, "weight 'heavy' is not a number"),
        ("1\n\n1 2\n", 3, "one weight per line, got 2 fields"),
    ])
    for weights in ([1, -1], [1, np.nan], [[1, 2]]):
        with pytest.raises(ValueError, match="weights must be"):
            save_weights(tmp_path / "never.weight", weights)
    assert not (tmp_path / "never.weight").exists()


def test_shared_data_fixture_skips_or_fails_when_absent(tmp_path, monkeypatch):
    from conftest import SHARED_DATA, require_data_dir

    assert SHARED_DATA.parts[-2:] == ("shared", "data")
    assert SHARED_DATA.parent.parent == __import__("pathlib").Path(__file__).resolve().parents[1].parent
    missing = tmp_path / "nowhere"
    monkeypatch.delenv("METRICRANK_REQUIRE_DATA", raising=False)
    with pytest.raises(pytest.skip.Exception, match="absent"):
        require_data_dir(missing)
    monkeypatch.setenv("METRICRANK_REQUIRE_DATA", "1")
    with pytest.raises(pytest.fail.Exception, match="METRICRANK_REQUIRE_DATA=1"):
        require_data_dir(missing)
    assert require_data_dir(tmp_path) == tmp_path


def test_save_letor_refuses_query_ids_load_letor_could_not_read_back(tmp_path):
    ds = RankingDataset(np.eye(2), [1, 0], qid=np.array([2**64 - 1] * 2, dtype=np.uint64))
    with pytest.raises(ValueError, match=f"query id {2**64 - 1} is above {2**63 - 1}: load_letor reads qids as "
                                         "64-bit signed integers"):
        save_letor(ds, tmp_path / "u.txt")
    assert not (tmp_path / "u.txt").exists()
    fits = RankingDataset(np.eye(2), [1, 0], qid=np.array([2**63 - 1] * 2, dtype=np.uint64))
    save_letor(fits, tmp_path / "u.txt")
    np.testing.assert_array_equal(load_letor(tmp_path / "u.txt").qid, [2**63 - 1] * 2)


def test_a_lightgbm_weight_file_beside_the_data_is_named_as_unread(tmp_path):
    # LightGBM weighs the rows by DATA.weight; load_letor reads DATA.query the same way, but no weights
    import metricrank

    path = write(tmp_path / "d.txt", GOOD)
    (tmp_path / "d.txt.weight").write_text("1\n3\n")
    with pytest.warns(UserWarning, match=r"d\.txt\.weight is not read \(LightGBM reads it by default\)") as record:
        ds = load_letor(path)
    assert ds.weight is None and record[0].filename == __file__
    assert record[0].category is metricrank.data.UnreadWeightFileWarning  # its own class, to filter by
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", metricrank.data.UnreadWeightFileWarning)
        load_letor(path)
    hint = re.search(r"weight=(metricrank\.data\.load_weights\(.*\))", str(record[0].message)).group(1)
    np.testing.assert_array_equal(eval(hint, {"metricrank": metricrank}), [1.0, 3.0])  # the call it advises works
    os.remove(tmp_path / "d.txt.weight")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_letor(path)


def test_save_letor_names_what_the_format_cannot_hold(tmp_path):
    ds = RankingDataset(np.eye(3), [1, 0, 1], group=[3], weight=[1.0, 2.0, 3.0], group_weight=[2.0],
                        pairs=[[0, 1]])
    with pytest.warns(UserWarning, match=r"save_letor writes no weights \(save_weights\), group weights "
                                         r"\(save_group_weights\), pairs \(save_pairs\)") as record:
        save_letor(ds, tmp_path / "w.txt")
    assert record[0].filename == __file__
    back = load_letor(tmp_path / "w.txt", n_features=3)
    np.testing.assert_array_equal(back.X, ds.X)
    assert back.weight is None and back.group_weight is None and back.pairs is None  # as the warning said
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        save_letor(RankingDataset(np.eye(3), [1, 0, 1], group=[3]), tmp_path / "plain.txt")


def test_the_weight_file_note_after_stable_sorts_reorder_and_in_predict(tmp_path, capsys):
    # the advised load_weights call would put the weights on the wrong rows once stable_sort moved them
    path = write(tmp_path / "m.txt", "1 qid:1 1:1\n0 qid:2 1:2\n1 qid:1 1:3\n0 qid:2 1:4\n")
    (tmp_path / "m.txt.weight").write_text("10\n20\n30\n40\n")
    with pytest.warns(UserWarning, match="its weights follow the file's rows, which stable_sort reordered") as record:
        load_letor(path, stable_sort=True)
    assert "load_weights" not in str(record[0].message)
    # predict has no use for weights: no word on them (it handed a command-line user a Python call)
    from metricrank import LambdaMART
    from metricrank.cli import main

    sorted_path = write(tmp_path / "s.txt", "1 qid:1 1:1\n1 qid:1 1:3\n0 qid:2 1:2\n0 qid:2 1:4\n")
    (tmp_path / "s.txt.weight").write_text("10\n30\n20\n40\n")
    LambdaMART(n_estimators=1, min_data_in_leaf=1).fit(np.arange(4.0)[:, None], [1, 0, 1, 0], group=[2, 2]).save(
        tmp_path / "model.json")
    assert main(["predict", "--model", str(tmp_path / "model.json"), "--data", str(sorted_path),
                 "--out", str(tmp_path / "scores.txt")]) == 0
    assert ".weight" not in capsys.readouterr().err

"""UCI loaders of the Ataman et al. experiment, the accuracy threshold and a small end-to-end run."""

import re
import shutil

import numpy as np
import pytest

from metricrank.experiments._uci import UCI_DATASETS, load_uci
from metricrank.experiments.ataman_uci import best_threshold, run

# (rows, features, positives); class counts from each set's .names file
EXPECTED = {
    "boston": (506, 13, None),           # MEDV > 35 counted from the file below
    "ecoli": (336, 7, 52),               # pp (perisplasm) 52
    "glass": (214, 9, 29),               # headlamps 29
    "heart": (270, 13, 120),             # statlog heart: 150 absent, 120 present
    "sonar": (208, 60, 97),              # 111 mines, 97 rocks
    "cancer": (683, 9, 239),             # 699 rows, 16 with '?'; 241 malignant of which 2 dropped
    "ionosphere": (351, 34, 126),        # 225 good, 126 bad
    "haberman": (306, 3, 81),            # 225 survived, 81 died
    "liver": (345, 6, 145),              # selector 1: 145, 2: 200
}


@pytest.mark.parametrize("name", UCI_DATASETS)
def test_loader_shapes_and_positive_counts(shared_data, name):
    d = load_uci(name, shared_data)
    n, p, n_pos = EXPECTED[name]
    if name == "boston":
        medv = np.loadtxt(shared_data / "uci" / "housing" / "housing.data")[:, 13]
        n_pos = int((medv > 35).sum())
        assert n_pos == 48
    assert d.X.shape == (n, p) and d.X.dtype == np.float64
    assert d.y.dtype == bool and d.n_pos == n_pos
    assert np.isfinite(d.X).all()
    assert d.n_pos < n - d.n_pos, "the positive class is the rare one"
    assert d.positive


def test_cancer_missing_rows_dropped_and_ids_removed(shared_data):
    raw = (shared_data / "uci" / "breast-cancer-wisconsin" / "breast-cancer-wisconsin.data").read_text().split()
    kept = [r.split(",") for r in raw if "?" not in r]
    d = load_uci("breast-cancer-wisconsin", shared_data)
    np.testing.assert_array_equal(d.X, np.array([r[1:10] for r in kept], dtype=float))
    np.testing.assert_array_equal(d.y, np.array([r[10] == "4" for r in kept]))


def test_glass_id_column_is_not_a_feature(shared_data):
    d = load_uci("glass", shared_data)
    assert not np.array_equal(d.X[:, 0], np.arange(1, 215))
    assert d.X[0, 0] == pytest.approx(1.52101)   # refractive index of row 1


def test_header_row_is_skipped(shared_data, tmp_path):
    src = shared_data / "uci" / "liver-bupa" / "bupa.data"
    (tmp_path / "uci" / "liver-bupa").mkdir(parents=True)
    dst = tmp_path / "uci" / "liver-bupa" / "bupa.data"
    dst.write_text("mcv,alkphos,sgpt,sgot,gammagt,drinks,selector\n" + src.read_text())
    a, b = load_uci("liver", shared_data), load_uci("liver-bupa", tmp_path)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)


def test_unknown_name_and_bad_label(shared_data, tmp_path):
    with pytest.raises(ValueError, match="unknown UCI data set"):
        load_uci("iris", shared_data)
    (tmp_path / "uci" / "haberman").mkdir(parents=True)
    (tmp_path / "uci" / "haberman" / "haberman.csv").write_text("30,64,1,1\n31,60,2,3\n")
    with pytest.raises(ValueError, match="unexpected class label"):
        load_uci("haberman", tmp_path)


def _brute_force_best_accuracy(s, y):
    cands = np.r_[np.unique(s), np.inf]
    return max(np.mean((s >= t) == y) for t in cands)


@pytest.mark.parametrize("seed", range(20))
def test_best_threshold_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    s = np.round(rng.normal(size=n), 1)                      # ties included
    y = rng.random(n) < rng.random()
    t = best_threshold(s, y)
    assert np.mean((s >= t) == y) == pytest.approx(_brute_force_best_accuracy(s, y))


def test_run_small_end_to_end(shared_data, tmp_path):
    md = run(data_dir=shared_data, out_dir=tmp_path / "out", datasets=["glass", "ecoli"], n_folds=3,
             progress=False, gamma_multipliers=(1.0,), C_values=(1.0,), chunk_size=1000, n_jobs=1)
    assert (tmp_path / "out" / "report.md").read_text(encoding="utf-8") == md
    for name in ("glass", "ecoli"):
        row = next(line for line in md.splitlines() if line.startswith(f"| {name} | {EXPECTED[name][0]} |"))
        aucs = [float(v) for v in re.findall(r"(\d\.\d{3}) ±", row)]
        assert len(aucs) == 4 and all(0.5 < v <= 1.0 for v in aucs)
        chunk = next(line for line in md.splitlines() if line.startswith(f"| {name} | ") and "%" in line
                     and "(" not in line)
        gaps = [float(g) for g in re.findall(r"\| (\d\.\de[+-]\d\d)", chunk)]
        assert len(gaps) == 2 and max(gaps) < 1e-6   # chunked objective = full-LP objective
    assert re.search(r"\*\*\d/\d/\d\*\*", md)
    assert not list((tmp_path / "out").glob(".*.tmp"))
    shutil.rmtree(tmp_path / "out")

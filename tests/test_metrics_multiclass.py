"""Welleck's class-reference AUC, MAUC and micro/macro precision; Yue et al.'s ROCArea."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from metricrank.metrics._base import MetricInput, compute_value, fill_defaults
from metricrank.metrics._multiclass import DEFINITIONS

DEFS = {name: d for d in DEFINITIONS for name in (d.name,) + d.aliases}


def evaluate(name, y, score, group_ptr=None, group_weight=None, **params):
    y = np.ascontiguousarray(y, dtype=np.float64)
    score = np.ascontiguousarray(score, dtype=np.float64)
    ptr = np.array([0, y.size]) if group_ptr is None else np.asarray(group_ptr)
    ptr = np.ascontiguousarray(ptr, dtype=np.int64)
    nq = ptr.size - 1
    gw = np.ones(nq) if group_weight is None else np.ascontiguousarray(group_weight, dtype=np.float64)
    inp = MetricInput(y, score, ptr, np.ones(y.size), gw, has_group_weight=group_weight is not None)
    defn = DEFS[name]
    return compute_value(defn, inp, fill_defaults(defn, params))


def random_queries(seed, max_label=4, n_queries=30, tie_prob=0.3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, size=n_queries)
    n = int(sizes.sum())
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    y = rng.integers(0, max_label + 1, size=n).astype(np.float64)
    score = np.round(rng.normal(size=n), 1)  # rounding creates ties
    score[rng.random(n) < tie_prob] = 0.0
    return y, score, ptr


# --- brute force ------------------------------------------------------------------------

def brute_auc(pos_scores, neg_scores):
    """Share of (positive, negative) pairs ordered correctly, ties 1/2 (Welleck eq. 9)."""
    total = 0.0
    for sp in pos_scores:
        for sn in neg_scores:
            total += 1.0 if sp > sn else 0.5 if sp == sn else 0.0
    return total / (len(pos_scores) * len(neg_scores))


def brute_class_auc(y, s, c):
    """AUC(c): class c positive, *all other labels* negative (Welleck sec. 3.1.4)."""
    pos, neg = s[y == c], s[y != c]
    if pos.size == 0 or neg.size == 0:
        return None
    return brute_auc(pos, neg)


def brute_mauc(y, s, classes="relevant"):
    """MAUC = sum_c p(c) AUC(c) (Welleck eq. 5)."""
    cls = np.unique(y[y > 0]) if classes == "relevant" else np.unique(y)
    if cls.size == 0:
        return None
    base = np.count_nonzero(y > 0) if classes == "relevant" else y.size
    total = 0.0
    for c in cls:
        auc = brute_class_auc(y, s, c)
        if auc is None:
            return None
        total += np.count_nonzero(y == c) / base * auc
    return total


def per_query(fn, y, s, ptr, *args):
    out = []
    for q in range(ptr.size - 1):
        a, b = ptr[q], ptr[q + 1]
        out.append(fn(y[a:b], s[a:b], *args))
    return out


def mean_of_defined(values):
    vals = [v for v in values if v is not None]
    return np.mean(vals), len(vals)


# --- ClassAUC ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("cls", [0, 1, 3])
def test_class_auc_equals_pair_enumeration(seed, cls):
    y, s, ptr = random_queries(seed)
    expected = per_query(brute_class_auc, y, s, ptr, cls)
    value, pq, counted = evaluate("ClassAUC", y, s, ptr, cls=cls)
    exp_mean, exp_count = mean_of_defined(expected)
    assert counted == exp_count
    assert value == pytest.approx(exp_mean, rel=1e-12)
    for v, e in zip(pq, expected):
        assert (np.isnan(v) and e is None) or v == pytest.approx(e, rel=1e-12)


def test_class_auc_is_one_vs_all_not_one_vs_below():
    # perfect ranking of labels 0,1,2: class 1 beats class 0 but loses to class 2
    y = np.array([0.0, 1.0, 2.0])
    s = y.copy()
    assert evaluate("ClassAUC", y, s, cls=1)[0] == pytest.approx(1 / 2)
    assert evaluate("ClassAUC", y, s, cls=2)[0] == 1.0
    assert evaluate("ClassAUC", y, s, cls=0)[0] == 0.0


def test_class_auc_needs_cls_and_absent_class_is_nan():
    with pytest.raises(ValueError, match="cls"):
        fill_defaults(DEFS["ClassAUC"], {})
    value, pq, counted = evaluate("ClassAUC", [0, 1, 1], [0.1, 0.2, 0.3], cls=7)
    assert np.isnan(value) and counted == 0


def test_group_weights_weight_the_mean_when_use_weights():
    y = np.array([0, 1, 0, 1, 1.0])
    s = np.array([0.1, 0.2, 0.2, 0.1, 0.3])  # q0 AUC 1, q1 AUC (0 + 1) / 2
    ptr = [0, 2, 5]
    assert evaluate("ClassAUC", y, s, ptr, group_weight=[3.0, 1.0], cls=1)[0] == pytest.approx(0.75)
    assert evaluate("ClassAUC", y, s, ptr, group_weight=[3.0, 1.0], cls=1, use_weights=True)[0] == \
        pytest.approx((3 * 1 + 1 * 0.5) / 4)


# --- MAUC -------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("classes", ["relevant", "all"])
def test_mauc_equals_pair_enumeration(seed, classes):
    y, s, ptr = random_queries(seed)
    expected = per_query(brute_mauc, y, s, ptr, classes)
    value, pq, counted = evaluate("MAUC", y, s, ptr, classes=classes)
    exp_mean, exp_count = mean_of_defined(expected)
    assert counted == exp_count
    assert value == pytest.approx(exp_mean, rel=1e-12)
    for v, e in zip(pq, expected):
        assert (np.isnan(v) and e is None) or v == pytest.approx(e, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("classes", ["relevant", "all"])
def test_pooled_mauc_ignores_queries(seed, classes):
    y, s, ptr = random_queries(seed, n_queries=8)
    value, pq, counted = evaluate("MAUC", y, s, ptr, classes=classes, pooled=True)
    assert counted == 1
    assert value == pytest.approx(brute_mauc(y, s, classes), rel=1e-12)


def test_mauc_hand_example():
    # labels 0,1,2,1 scored 0.1,0.5,0.5,0.2 (one tie between a class-1 and the class-2 doc)
    y = np.array([0, 1, 2, 1.0])
    s = np.array([0.1, 0.5, 0.5, 0.2])
    auc1 = (1 + 0.5 + 1 + 0) / 4  # class 1 docs {0.5, 0.2} vs {0.1, 0.5}
    auc2 = (1 + 0.5 + 1) / 3  # class 2 doc 0.5 vs {0.1, 0.5, 0.2}
    assert evaluate("MAUC", y, s)[0] == pytest.approx(2 / 3 * auc1 + 1 / 3 * auc2)
    auc0 = 0.0
    assert evaluate("MAUC", y, s, classes="all")[0] == pytest.approx(
        1 / 4 * auc0 + 2 / 4 * auc1 + 1 / 4 * auc2)


def test_mauc_degenerate_queries_not_counted():
    # q0: no relevant doc; q1: a single label; q2: scorable
    y = np.array([0, 0, 2, 2, 0, 1.0])
    s = np.array([0.3, 0.1, 0.2, 0.4, 0.0, 1.0])
    value, pq, counted = evaluate("MAUC", y, s, [0, 2, 4, 6])
    assert counted == 1 and np.isnan(pq[0]) and np.isnan(pq[1]) and value == 1.0
    value, pq, counted = evaluate("MAUC", y, s, [0, 2, 4, 6], classes="all")
    assert counted == 1 and value == pytest.approx(0.5 * 0 + 0.5 * 1)


labels_scores = st.integers(2, 15).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.integers(-5, 5), min_size=n, max_size=n),  # small range: many ties
    )
)


@settings(max_examples=150, deadline=None)
@given(labels_scores, st.sampled_from(["relevant", "all"]))
def test_mauc_properties(data, classes):
    y = np.array(data[0], dtype=float)
    s = np.array(data[1], dtype=float)
    value, _, counted = evaluate("MAUC", y, s, classes=classes)
    if counted == 0:
        assert np.isnan(value)
        return
    assert 0.0 <= value <= 1.0
    # invariant to strictly increasing transforms (ties preserved)
    assert evaluate("MAUC", y, np.exp(s / 2) + 3 * s, classes=classes)[0] == pytest.approx(value, rel=1e-12)
    # reversing the ranking maps AUC(c) to 1 - AUC(c)
    assert evaluate("MAUC", y, -s, classes=classes)[0] == pytest.approx(1 - value, abs=1e-12)
    # a perfect ranking (score = label): AUC(c) = share of other docs with a lower label
    perfect = evaluate("MAUC", y, y, classes=classes)[0]
    cls = np.unique(y[y > 0]) if classes == "relevant" else np.unique(y)
    base = np.count_nonzero(y > 0) if classes == "relevant" else y.size
    expected = sum(
        np.count_nonzero(y == c) / base * np.count_nonzero(y < c) / np.count_nonzero(y != c) for c in cls
    )
    assert perfect == pytest.approx(expected, rel=1e-12)
    if np.unique(y).size == 2 and y.min() == 0:  # binary query: a perfect ranking gives 1
        assert evaluate("MAUC", y, y, classes="relevant")[0] == 1.0


# --- ROCArea ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_roc_area_per_query_equals_sklearn(seed):
    y, s, ptr = random_queries(seed, max_label=2)
    value, pq, counted = evaluate("ROCArea", y, s, ptr)
    expected = []
    for q in range(ptr.size - 1):
        yy, ss = y[ptr[q]:ptr[q + 1]] > 0, s[ptr[q]:ptr[q + 1]]
        if yy.all() or not yy.any():
            assert np.isnan(pq[q])
            continue
        expected.append(roc_auc_score(yy, ss))
        assert pq[q] == pytest.approx(expected[-1], rel=1e-12)
    assert counted == len(expected)
    assert value == pytest.approx(np.mean(expected), rel=1e-12)
    # border: relevance = label > 1
    value1, _, _ = evaluate("ROCArea", y, s, ptr, border=1.0)
    exp1 = [roc_auc_score(y[a:b] > 1, s[a:b]) for a, b in zip(ptr[:-1], ptr[1:])
            if 0 < np.count_nonzero(y[a:b] > 1) < b - a]
    assert value1 == pytest.approx(np.mean(exp1), rel=1e-12)


def test_yue_toy_example_tables_1_2():
    # Yue et al. Table 1: relevance p of docs 1..8, and the rank value each
    # hypothesis gives (8 = top of the ranking, as Table 2's MAP figures imply).
    p = np.array([1, 0, 0, 0, 0, 1, 1, 0], dtype=float)
    h1 = np.array([8, 7, 6, 5, 4, 3, 2, 1], dtype=float)
    h2 = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=float)
    # h1: doc 1 beats all 5 non-relevant; docs 6, 7 each beat only doc 8 -> 7 of 3*5 pairs
    roc1 = evaluate("ROCArea", p, h1)[0]
    roc2 = evaluate("ROCArea", p, h2)[0]
    assert roc1 == pytest.approx(7 / 15)
    assert roc2 == pytest.approx(8 / 15)
    assert (round(roc1, 2), round(roc2, 2)) == (0.47, 0.53)  # Table 2


# --- Precision micro / macro ------------------------------------------------------------

def test_precision_micro_hand_examples():
    # C = 3 classes (largest label); k = 2
    y = np.array([0, 1, 2, 1, 0, 2, 3.0])
    s = np.array([0.1, 0.5, 0.4, 0.2, 0.9, 0.3, 0.35])
    ptr = [0, 3, 7]
    # q0 top 2: labels 1, 2 -> 2 relevant-class docs; q1 top 2: labels 0, 3 -> 1
    expected_q = [2 / (3 * 2), 1 / (3 * 2)]
    value, pq, counted = evaluate("PrecisionMicro", y, s, ptr, top=2)
    assert pq.tolist() == pytest.approx(expected_q)
    assert value == pytest.approx(np.mean(expected_q))
    # classes=2 counts only labels 1 and 2: q1's label-3 doc no longer counts
    assert evaluate("PrecisionMicro", y, s, ptr, top=2, classes=2)[1].tolist() == pytest.approx(
        [2 / (2 * 2), 0 / (2 * 2)])
    # a query shorter than k still divides by k (eq. 2); top=-1 uses k = n
    assert evaluate("PrecisionMicro", y, s, ptr, top=5)[1].tolist() == pytest.approx([2 / 15, 3 / 15])
    assert evaluate("PrecisionMicro", y, s, ptr, top=-1)[1].tolist() == pytest.approx([2 / 9, 3 / 12])


def test_precision_macro_hand_example():
    # eq. 4 with 1/n: (1/C) sum_c (1/n) sum_i n_ic / k
    y = np.array([0, 1, 2, 1, 0, 2, 3.0])
    s = np.array([0.1, 0.5, 0.4, 0.2, 0.9, 0.3, 0.35])
    ptr = [0, 3, 7]
    n_ic = np.array([[1, 1, 0], [0, 0, 1]])  # queries x classes 1..3 in the top 2
    expected = np.mean([np.mean(n_ic[:, c]) / 2 for c in range(3)])
    assert evaluate("PrecisionMacro", y, s, ptr, top=2)[0] == pytest.approx(expected)


def test_precision_macro_is_an_alias_of_micro():
    from metricrank.metrics import ALIASES, available_metrics, evaluate as api_evaluate, get_metric

    assert ALIASES["PrecisionMacro"] == "PrecisionMicro"
    assert "PrecisionMicro" in available_metrics() and "PrecisionMacro" not in available_metrics()
    assert get_metric("PrecisionMacro:top=3").definition is get_metric("PrecisionMicro:top=3").definition
    assert get_metric("precisionmacro").spec == "PrecisionMicro"
    assert get_metric("precision_macro@5").spec == "PrecisionMicro:top=5"
    y, s, ptr = random_queries(3)
    qid = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    assert api_evaluate(y, s, qid=qid, metric="PrecisionMacro:top=3") == api_evaluate(
        y, s, qid=qid, metric="PrecisionMicro:top=3")


def test_metrics_listing_shows_alias(capsys):
    from metricrank.cli import main

    assert main(["metrics", "--width", "80"]) == 0
    out = capsys.readouterr().out
    assert "PrecisionMicro (higher is better); alias: PrecisionMacro" in out
    assert "\nPrecisionMacro (" not in out


@pytest.mark.parametrize("seed", range(5))
def test_precision_micro_equals_macro_as_written(seed):
    # eq. 2 and eq. 4 coincide: every class has TP_c + FP_c = k
    y, s, ptr = random_queries(seed)
    for top in (1, 3, 10):
        micro = evaluate("PrecisionMicro", y, s, ptr, top=top)
        macro = evaluate("PrecisionMacro", y, s, ptr, top=top)
        assert micro[0] == pytest.approx(macro[0], rel=1e-12)
        np.testing.assert_allclose(micro[1], macro[1], rtol=1e-12)


def test_precision_tie_policies():
    # three docs tied at the top, k = 1
    y = np.array([0, 2, 1.0])
    s = np.zeros(3)
    c = 2  # largest label
    got = {t: evaluate("PrecisionMicro", y, s, top=1, ties=t)[0]
           for t in ("stable", "reverse", "pessimistic", "optimistic", "docid")}
    assert got == pytest.approx({
        "stable": 0 / (c * 1), "reverse": 1 / (c * 1), "pessimistic": 0 / (c * 1),
        "optimistic": 1 / (c * 1), "docid": 1 / (c * 1),
    })
    assert fill_defaults(DEFS["PrecisionMicro"], {})["ties"] == "stable"
    assert fill_defaults(DEFS["PrecisionMicro"], {})["top"] == 10


# --- label checks and flags -------------------------------------------------------------

@pytest.mark.parametrize("name,extra", [("ClassAUC", {"cls": 1}), ("MAUC", {}),
                                        ("PrecisionMicro", {}), ("PrecisionMacro", {})])
@pytest.mark.parametrize("bad", [-1.0, 0.5])
def test_labels_must_be_relevance_classes(name, extra, bad):
    with pytest.raises(ValueError, match=name):
        evaluate(name, [0.0, 1.0, bad], [0.1, 0.2, 0.3], **extra)


def test_directions_and_sources():
    for name in ("ClassAUC", "MAUC", "PrecisionMicro", "PrecisionMacro"):
        assert DEFS[name].higher_is_better and DEFS[name].source == "welleck"
    assert DEFS["ROCArea"].higher_is_better and DEFS["ROCArea"].source == "yue"
    assert fill_defaults(DEFS["MAUC"], {}) == {"use_weights": False, "classes": "relevant", "pooled": False}
    assert fill_defaults(DEFS["ROCArea"], {})["border"] == 0.0


def test_many_queries_parallel_kernel_consistent():
    y, s, ptr = random_queries(42, n_queries=2000)
    expected = per_query(brute_mauc, y, s, ptr, "relevant")
    value, _, counted = evaluate("MAUC", y, s, ptr)
    exp_mean, exp_count = mean_of_defined(expected)
    assert counted == exp_count and value == pytest.approx(exp_mean, rel=1e-12)


# --- issue 11: memory follows the number of classes, not the label values -------------------

def value(*args, **params):
    return evaluate(*args, **params)[0]


def _huge_label_case():
    y, s, ptr = random_queries(11, max_label=2, n_queries=6)
    huge = np.where(y == 2, 10.0**6, np.where(y == 1, 5.0, 0.0))  # classes 0, 5, 10**6
    return y, huge, s, ptr


@pytest.mark.parametrize("name,params", [
    ("MAUC", {}), ("MAUC", {"classes": "all"}), ("MAUC", {"pooled": True}),
])
def test_mauc_huge_label_equals_relabelled(name, params, monkeypatch):
    import metricrank.metrics._multiclass as mc

    sizes = []
    original = mc.class_rank_sums

    def spy(score, label, group_ptr, n_labels):
        sizes.append(n_labels)
        return original(score, label, group_ptr, n_labels)

    monkeypatch.setattr(mc, "class_rank_sums", spy)
    y, huge, s, ptr = _huge_label_case()
    assert value(name, huge, s, ptr, **params) == pytest.approx(value(name, y, s, ptr, **params))
    assert max(sizes) == 3  # three columns, not a million


def test_class_auc_huge_label(monkeypatch):
    import metricrank.metrics._multiclass as mc

    sizes = []
    original = mc.class_rank_sums
    monkeypatch.setattr(mc, "class_rank_sums",
                        lambda *a: sizes.append(a[3]) or original(*a))
    y, huge, s, ptr = _huge_label_case()
    assert value("ClassAUC", huge, s, ptr, cls=10**6) == pytest.approx(
        value("ClassAUC", y, s, ptr, cls=2))
    assert value("ClassAUC", huge, s, ptr, cls=5) == pytest.approx(
        value("ClassAUC", y, s, ptr, cls=1))
    assert max(sizes) == 3
    assert np.isnan(value("ClassAUC", huge, s, ptr, cls=2))  # absent class: nothing counted


def test_mauc_relevant_without_label_zero():
    # no label 0 in the data: dense id 0 (label 3) is a relevant class and must be summed
    y = np.array([3.0, 7.0, 7.0, 3.0])
    s = np.array([0.1, 0.9, 0.8, 0.2])
    # p(3) = p(7) = 1/2; AUC(3) = 0 (both 3s below both 7s), AUC(7) = 1
    assert value("MAUC", y, s) == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)
    # with label 0 present it is not summed: p(7) = 2/3, AUC(7) = 1; p(3) = 1/3, AUC(3) = 1/3
    y0 = np.array([0.0, 7.0, 7.0, 3.0])
    assert value("MAUC", y0, s) == pytest.approx(2 / 3 * 1.0 + 1 / 3 * (1 / 3))


def test_precision_huge_label_is_the_formula():
    # C = largest label = 10**6 relevance classes (eq. 2): hits / (C k)
    y = np.array([10.0**6, 0.0, 1.0, 0.0])
    s = np.array([0.9, 0.8, 0.7, 0.1])
    hits = 2  # labels 10**6 and 1 in the top 3
    assert value("PrecisionMicro", y, s, top=3) == pytest.approx(hits / (10**6 * 3))

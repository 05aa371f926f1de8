"""YetiRank's ``mode``, ``noise`` and ``num_neighbors`` (CatBoost's YetiLoss family): against CatBoost, and by
brute force.

Two oracles:

* CatBoost 1.2.10 itself, without noise (``noise=No``: every permutation is the score order, so the pairs are
  deterministic): a one-tree model on binary features spelling each row's index, learning rate 1, no L2
  penalty, random strength or bootstrap, current scores as the Pool's baseline. CatBoost refuses another leaf
  method for YetiRank; its leaves are Newton steps ``-Σ grad / Σ hess`` over the rows of each leaf (read with
  ``calc_leaf_indexes``: the tree does not always separate every row), shifted so that their mean over the
  rows is 0. With Gauss noise the same holds in expectation over many permutations.
* A brute-force reading of each mode's definition over the very noise the objective draws (the generator's
  uniforms or normals, in the same order): DCG's and ERR's weights as the metric's change when the two
  documents swap, computed from the whole ranked list.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from conftest import catboost_one_tree, ptr_of

from metricrank import GBRanker, evaluate, make_ltr
from metricrank.objectives import get_objective
from metricrank.objectives._base import as_training_data
from metricrank.objectives.registry import describe_objectives
from metricrank.objectives.yetirank import BoundYetiRank, YetiVariant


def catboost_newton_leaves(y, qid, spec, raw):
    """CatBoost's one-tree output per row and the leaf of each row (see the module docstring)."""
    model, X = catboost_one_tree(y, qid, spec, raw)
    return model.predict(X), model.calc_leaf_indexes(X)[:, 0]


def newton_leaves(grad, hess, leaf):
    """``-Σ grad / Σ hess`` per leaf (0 where no row has a pair), per row, shifted to mean 0 over the rows."""
    g = np.bincount(leaf, grad)
    h = np.bincount(leaf, hess)
    value = np.divide(-g, h, out=np.zeros_like(g), where=h > 0)[leaf]
    return value - value.mean()


NOISE_FREE = [  # (spec, label values)
    ("YetiRank:noise=No;decay=0.85", (0, 1, 2)),  # CatBoost 1.2.10's default decay, not metricrank's 0.99
    ("YetiRank:noise=No;decay=0.5", (0, 1, 2, 3)),
    ("YetiRank:mode=NDCG;noise=No", (0, 1, 2, 3)),
    ("YetiRank:mode=NDCG;noise=No;top=4;num_neighbors=2;dcg_type=Exp", (0, 1, 2, 3, 4)),
    ("YetiRank:mode=DCG;noise=No;top=3;dcg_type=Exp;dcg_denominator=Position;num_neighbors=-1", (0, 1, 2)),
    ("YetiRank:mode=MRR;noise=No;num_neighbors=3", (0, 1)),
    ("YetiRank:mode=MRR;noise=No;top=3;num_neighbors=-1", (0, 1, 2)),
    ("YetiRank:mode=MAP;noise=No;num_neighbors=2", (0, 1, 2)),
    ("YetiRank:mode=ERR;noise=No;num_neighbors=-1", (0, 0.25, 0.5, 1.0)),
    ("YetiRank:mode=ERR;noise=No;top=2;num_neighbors=4", (0, 0.3, 1.0)),
]


@pytest.mark.parametrize("spec,labels", NOISE_FREE)
def test_noise_free_leaves_equal_catboosts(spec, labels):
    rng = np.random.default_rng(zlib.crc32(spec.encode()))  # hash() of a str varies by process
    for draw in range(3):
        sizes = rng.integers(2, 13, 5)
        qid = np.repeat(np.arange(5), sizes)
        y = rng.choice(labels, qid.size).astype(float)
        # all scores tied on the first draw (CatBoost's start: input order), then scores with ties inside queries
        raw = np.zeros(qid.size) if draw == 0 else np.round(rng.normal(size=qid.size), 1)
        grad, hess = get_objective(spec).gradient_hessian(y, raw, ptr_of(qid))
        assert np.any(grad != 0)
        out, leaf = catboost_newton_leaves(y, qid, spec, raw)
        np.testing.assert_allclose(out, newton_leaves(grad, hess, leaf), rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("mode", ["Classic", "NDCG"])
def test_gauss_noise_has_catboosts_standard_deviation(mode):
    # 4,000 permutations: the mean pair weights of both sides are close to their expectation; a noise of half
    # or twice the standard deviation moves the leaves about ten times as far (1.0-1.1 against 0.10-0.15 when
    # this test was written)
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(4), [6, 8, 5, 7])
    y = rng.choice((0.0, 1.0, 2.0), qid.size)
    raw = np.round(rng.normal(size=qid.size) * 0.7, 1)
    decay = ";decay=0.85" if mode == "Classic" else ""  # CatBoost 1.2.10's default
    spec = f"YetiRank:mode={mode};noise=Gauss;noise_power={{}};permutations=4000{decay}"
    out, leaf = catboost_newton_leaves(y, qid, spec.format(0.5), raw)
    far = {}
    for power in (0.5, 0.25, 1.0):
        grad, hess = get_objective(spec.format(power)).gradient_hessian(y, raw, ptr_of(qid), random_state=1)
        far[power] = np.abs(out - newton_leaves(grad, hess, leaf)).max()
    assert far[0.5] < 0.3
    assert far[0.25] > 0.7 and far[1.0] > 0.7


# --- brute force -------------------------------------------------------------------------------------------

def dcg(labels, top, exp_gain, log_position):
    labels = labels if top == -1 else labels[:top]
    r = np.arange(len(labels))
    gain = 2.0 ** labels - 1 if exp_gain else labels
    return float((gain / (np.log2(r + 2.0) if log_position else r + 1.0)).sum())


def err(labels):
    reach, total = 1.0, 0.0
    for r, t in enumerate(labels):
        total += reach * t / (r + 1)
        reach *= 1 - t
    return total


def definition_weights(ranked, mode, top, neighbors, decay, exp_gain=False, log_position=True):
    """``{(winner, loser): weight}`` of one permutation, ``ranked`` the labels in its order (positions as keys)."""
    n = len(ranked)
    out = {}
    if mode == "Classic":
        for r in range(n - 1):
            if ranked[r] != ranked[r + 1]:
                key = (r, r + 1) if ranked[r] > ranked[r + 1] else (r + 1, r)
                out[key] = 0.15 * decay ** r * abs(ranked[r] - ranked[r + 1])
        return out
    relevant = ranked > 0
    first = int(np.argmax(relevant)) if relevant.any() else n
    for r in range(n if top == -1 else min(top, n)):
        if mode == "MRR" and r > first:
            break
        for p in range(r + 1, n if neighbors == -1 else min(n, r + neighbors + 1)):
            if ranked[r] == ranked[p]:
                continue
            swapped = ranked.copy()
            swapped[[r, p]] = swapped[[p, r]]
            if mode in ("DCG", "NDCG"):
                w = abs(dcg(swapped, top, exp_gain, log_position) - dcg(ranked, top, exp_gain, log_position))
                if mode == "NDCG":
                    w /= dcg(np.sort(ranked)[::-1], top, exp_gain, log_position)
            elif mode == "ERR":
                w = abs(err(swapped) - err(ranked))
            elif relevant[r] == relevant[p]:
                w = 0.0
            elif mode == "MRR":
                w = 1 / (r + 1) - 1 / (p + 1)
            else:  # MAP: the upper document's reciprocal rank and those of the relevant documents between
                w = 1 / (r + 1) + sum(1 / (j + 1) for j in range(r + 1, p) if relevant[j])
            if w:
                key = (r, p) if ranked[r] > ranked[p] else (p, r)
                out[key] = w
    return out


def brute_force_pairs(y, raw, ptr, noise_rows, mode, top, neighbors, decay, **dcg_kw):
    """``{(winner row, loser row): weight}`` averaged over the permutations that ``noise_rows`` define."""
    total = {}
    for noise in noise_rows:
        for q in range(len(ptr) - 1):
            s, e = ptr[q], ptr[q + 1]
            order = np.argsort(-(raw[s:e] + noise[s:e]), kind="stable")
            for (a, b), w in definition_weights(y[s:e][order], mode, top, neighbors, decay, **dcg_kw).items():
                key = (s + order[a], s + order[b])
                total[key] = total.get(key, 0.0) + w / len(noise_rows)
    return total


def listed_pairs(bound):
    win, lose, w = bound.pairs()
    return {(int(a), int(b)): float(c) for a, b, c in zip(win, lose, w)}


def assert_same_pairs(got, expected):
    assert got.keys() == expected.keys()
    np.testing.assert_allclose([got[k] for k in expected], list(expected.values()), rtol=1e-9, atol=1e-15)


BRUTE = [  # (spec, label values, noise)
    ("YetiRank:mode=NDCG;num_neighbors=2", (0, 1, 2, 3), "Gumbel"),
    ("YetiRank:mode=DCG;top=3;num_neighbors=-1;dcg_type=Exp;dcg_denominator=Position", (0, 1, 2), "Gumbel"),
    ("YetiRank:mode=MRR;num_neighbors=-1;noise=Gauss;noise_power=0.5", (0, 1, 2), "Gauss"),
    ("YetiRank:mode=MAP;num_neighbors=3;top=4", (0, 1), "Gumbel"),
    ("YetiRank:mode=ERR;num_neighbors=-1", (0, 0.2, 0.6, 1.0), "Gumbel"),
    ("YetiRank:noise=Gauss;noise_power=2;decay=0.8", (0, 1, 2), "Gauss"),
]


@pytest.mark.parametrize("spec,labels,noise", BRUTE)
def test_pairs_are_the_definitions_over_the_drawn_noise(spec, labels, noise):
    obj = get_objective(spec)
    p = obj.params
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 15, 12)
    qid = np.repeat(np.arange(12), sizes)
    y = rng.choice(labels, qid.size).astype(float)
    raw = np.round(rng.normal(size=qid.size), 1)
    ptr = ptr_of(qid)
    bound = obj.bind(as_training_data(y, ptr), random_state=5)
    bound(raw)
    draws = np.random.default_rng(5)
    if noise == "Gumbel":
        u = draws.random((p["permutations"], qid.size))
        noise_rows = np.log(u) - np.log1p(-u)
    else:
        noise_rows = draws.standard_normal((p["permutations"], qid.size)) * p["noise_power"]
    expected = brute_force_pairs(y, raw, ptr, noise_rows, p["mode"], p.get("top", -1), p.get("num_neighbors", 1),
                                 p.get("decay", 0.0), exp_gain=p.get("dcg_type") == "Exp",
                                 log_position=p.get("dcg_denominator") != "Position")
    assert_same_pairs(listed_pairs(bound), expected)


def test_noise_free_pairs_are_one_permutation_for_all():
    y = np.array([0.0, 2.0, 1.0, 0.0, 1.0])
    raw = np.array([0.5, 0.1, 0.3, -1.0, 0.3])
    bound = get_objective("YetiRank:mode=NDCG;noise=No;num_neighbors=-1;permutations=7").bind(
        as_training_data(y, [0, 5]))
    bound(raw)
    expected = brute_force_pairs(y, raw, [0, 5], np.zeros((1, 5)), "NDCG", -1, -1, 0.0)
    assert_same_pairs(listed_pairs(bound), expected)


@pytest.mark.parametrize("n", [300, 1500])  # a dense table up to 1,024 documents, sorted merges above
def test_the_general_kernel_gives_the_fast_kernels_classic_pairs(n):
    # the classic mode with Gumbel noise, through the general kernel and through the fast one, from the same
    # generator draws: the same permutations, so the same pairs
    rng = np.random.default_rng(n)
    sizes = np.array([n, 7, 1, 40])
    y = rng.integers(0, 4, sizes.sum()).astype(float)
    raw = rng.normal(size=sizes.sum())
    data = as_training_data(y, np.concatenate(([0], np.cumsum(sizes))))
    general = YetiVariant(code=0, top=-1, neighbors=1, exp_gain=False, log_position=True, normalise=False,
                          noise="Gumbel", noise_power=1.0)
    fast = BoundYetiRank(data, 4, 0.97, True, np.random.default_rng(8))
    slow = BoundYetiRank(data, 4, 0.97, True, np.random.default_rng(8), general)
    for _ in range(2):  # successive calls draw new permutations alike
        g1, h1 = fast(raw)
        g2, h2 = slow(raw)
        f, s = listed_pairs(fast), listed_pairs(slow)
        assert f.keys() == s.keys() and len(f) > n // 2
        np.testing.assert_allclose([s[k] for k in f], list(f.values()), rtol=1e-12)
        np.testing.assert_allclose(g2, g1, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(h2, h1, rtol=1e-9, atol=1e-15)


def test_a_large_query_merges_a_metric_modes_pairs():
    # 1,500 documents: each permutation's pairs are merged into the query's sorted list
    rng = np.random.default_rng(0)
    n = 1500
    y = rng.integers(0, 3, n).astype(float)
    raw = rng.normal(size=n)
    obj = get_objective("YetiRank:mode=NDCG;top=20;num_neighbors=-1;permutations=3")
    bound = obj.bind(as_training_data(y, [0, n]), random_state=2)
    bound(raw)
    u = np.random.default_rng(2).random((3, n))
    expected = brute_force_pairs(y, raw, [0, n], np.log(u) - np.log1p(-u), "NDCG", 20, -1, 0.0)
    assert_same_pairs(listed_pairs(bound), expected)


# --- specs, labels, training -----------------------------------------------------------------------------

def test_defaults_and_the_metric_of_each_mode():
    assert get_objective("YetiRank:mode=ndcg;noise=gauss").params["mode"] == "NDCG"  # any case, as metric names
    assert get_objective("YetiRank:mode=NDCG").params == {
        "mode": "NDCG", "permutations": 10, "top": -1, "num_neighbors": 1, "dcg_type": "Base",
        "dcg_denominator": "LogPosition", "noise": "Gumbel", "use_weights": True}
    assert get_objective("YetiRank:noise=Gauss").params["noise_power"] == 1.0
    assert get_objective("YetiRank").eval_spec == "NDCG:top=10"
    assert get_objective("YetiRank:mode=MRR").eval_spec == "MRR:border=0"
    assert get_objective("YetiRank:mode=MAP;top=5").eval_spec == "MAP:border=0;top=5"
    assert get_objective("YetiRank:mode=ERR;top=3").eval_spec == "ERR:top=3"
    assert get_objective("YetiRank:mode=DCG;dcg_type=Exp;top=4").eval_spec == "DCG:top=4;type=Exp"
    assert get_objective("YetiRank:mode=NDCG").eval_spec == "NDCG"
    assert get_objective("YetiRank:mode=MAP").judged_by("NDCG:top=10").eval_spec == "NDCG:top=10"
    listed = {name: params for name, params, _ in describe_objectives()}
    assert "mode=Classic" in listed["YetiRank"] and "noise_power=1 (Gauss)" in listed["YetiRankPairwise"]


@pytest.mark.parametrize("spec,message", [
    ("YetiRank:mode=NDCG;decay=0.9", "YetiRank:mode=NDCG;noise=Gumbel has no parameter 'decay' (it belongs to "
                                     "mode=Classic)"),
    ("YetiRank:top=3", "has no parameter 'top' (it belongs to modes other than Classic)"),
    ("YetiRank:num_neighbors=2", "has no parameter 'num_neighbors'"),
    ("YetiRank:mode=MAP;dcg_type=Exp", "has no parameter 'dcg_type' (it belongs to mode=DCG and NDCG)"),
    ("YetiRank:noise_power=2", "has no parameter 'noise_power' (it belongs to noise=Gauss)"),
    ("YetiRankPairwise:mode=NDGC", "YetiRank's mode is one of Classic, DCG, NDCG, MRR, ERR, MAP; got 'NDGC'"),
    ("YetiRank:noise=Gaus", "YetiRank's noise is one of Gumbel, Gauss, No; got 'Gaus'"),
    ("YetiRank:mode=DCG;dcg_denominator=Log", "dcg_denominator=Log is not allowed; choose one of LogPosition, "
                                              "Position"),
    ("YetiRank:mode=MRR;num_neighbors=0", "num_neighbors must be an integer >= 1 or -1"),
    ("YetiRank:mode=MRR;top=0", "top must be a positive integer or -1"),
    ("YetiRank:noise=Gauss;noise_power=0", "noise_power"),
])
def test_bad_specs_are_refused_naming_the_parameter(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        get_objective(spec)


def test_labels_outside_the_modes_domain_are_refused():
    data = as_training_data([0.0, 2.0], [0, 2])
    with pytest.raises(ValueError, match=r"mode=ERR needs labels in \[0, 1\] \(probabilities\); row 1 has label 2"):
        get_objective("YetiRank:mode=ERR").bind(data)
    with pytest.raises(ValueError, match="mode=NDCG needs labels >= 0; row 0 has label -1"):
        get_objective("YetiRank:mode=NDCG").bind(as_training_data([-1.0, 2.0], [0, 2]))
    get_objective("YetiRank").bind(as_training_data([-1.0, 2.0], [0, 2]))  # the classic mode takes any label


def test_gbranker_trains_a_mode_and_judges_it_by_its_metric():
    train = make_ltr(60, n_features=6, docs_per_query=(5, 20), random_state=0)
    test = make_ltr(40, n_features=6, docs_per_query=(5, 20), random_state=1)
    model = GBRanker("YetiRank:mode=MAP;num_neighbors=2", n_estimators=30).fit(train.X, train.y, qid=train.qid)
    assert model.objective_.eval_spec == "MAP:border=0"
    trained = evaluate(test.y, model.predict(test.X), qid=test.qid, metric="MAP:border=0")
    untrained = evaluate(test.y, np.zeros(test.n_docs), qid=test.qid, metric="MAP:border=0")
    assert trained > untrained + 0.1

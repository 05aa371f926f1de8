"""Every benchmark script loads: what it reads from the library at import exists.

The scripts are run by hand, often sessions after their last edit, and several patch the library for a run
(``hessian_probe.py`` wraps the engine's ``boost_lanes``): a probe still reading a function the library has since
moved failed before it fitted anything. Loading each script catches that without running it. (Names read only
inside functions are pyflakes' to check: tests/test_static_names.py.)
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def test_the_scripts_are_found():
    assert len(SCRIPTS) >= 40


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_script_loads(path, monkeypatch):
    # checked first: a script without the guard would run its whole benchmark on load
    assert 'if __name__ == "__main__":' in path.read_text(), f"{path.name} runs on import: give it a main() guard"
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # as when run: the scripts import each other (data_shapes)
    runpy.run_path(str(path), run_name="loaded_by_test")  # the bench extra's packages are imported inside functions


def _loaded(monkeypatch, name: str) -> dict:
    """The names of benchmarks/``name``, loaded as when run (the scripts import each other), without running it."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return runpy.run_path(str(BENCHMARKS / name), run_name="loaded_by_test")


def test_data_shapes_train_fraction_keeps_a_seeded_share_of_the_training_queries(monkeypatch):
    from metricrank import make_ltr
    from metricrank.experiments import quality as q

    shapes = _loaded(monkeypatch, "data_shapes.py")
    data = make_ltr(40, docs_per_query=(3, 9), n_features=6, random_state=0)
    split = q.Split("drawn", 1, data, data.subset_queries([0, 1]), data.subset_queries([2]))
    kept = shapes["with_train_fraction"](split, 0.25, (1, 0))
    assert kept.train.n_queries == round(0.25 * 40)
    # the kept queries are training queries, in their order, with their own rows
    sizes = np.diff(data.group_ptr)
    starts = {int(data.qid[data.group_ptr[i]]): i for i in range(40)}
    kept_ids = [int(kept.train.qid[p]) for p in kept.train.group_ptr[:-1]]
    assert kept_ids == sorted(kept_ids, key=starts.get) and len(set(kept_ids)) == len(kept_ids)
    assert list(np.diff(kept.train.group_ptr)) == [sizes[starts[i]] for i in kept_ids]
    assert kept.vali is split.vali and kept.test is split.test
    # the same seed keeps the same queries (so two runs pair up), another seed others
    again = shapes["with_train_fraction"](split, 0.25, (1, 0))
    other = shapes["with_train_fraction"](split, 0.25, (1, 1000))
    assert np.array_equal(again.train.qid, kept.train.qid) and not np.array_equal(other.train.qid, kept.train.qid)
    assert shapes["with_train_fraction"](split, 1.0, (1, 0)).train.n_queries == 40


def test_data_shapes_binary_training_labels_keep_what_map_and_mrr_read(monkeypatch):
    from metricrank import evaluate, make_ltr
    from metricrank.experiments import quality as q

    shapes = _loaded(monkeypatch, "data_shapes.py")
    data = make_ltr(30, docs_per_query=(3, 9), n_features=6, n_labels=4, random_state=0)
    split = q.Split("drawn", 1, data, data.subset_queries([0, 1]), data.subset_queries([2]))
    binary = shapes["with_binary_training_labels"](split)
    assert np.array_equal(binary.train.y, (data.y > 0.5).astype(float)) and set(np.unique(data.y)) == {0, 1, 2, 3}
    assert np.array_equal(binary.train.group_ptr, data.group_ptr) and binary.train.X is data.X
    assert binary.vali is split.vali and binary.test is split.test
    # the premise: MAP and MRR score any ranking the same on the binary labels, query by query
    scores = np.random.default_rng(0).normal(size=data.n_docs)
    for metric in ("MAP", "MRR"):
        np.testing.assert_array_equal(evaluate(binary.train, scores, metric=metric, per_query=True),
                                      evaluate(data, scores, metric=metric, per_query=True))


def test_data_shapes_makes_training_labels_binary_before_dropping_queries_of_one_label(monkeypatch):
    from types import SimpleNamespace

    from metricrank import RankingDataset
    from metricrank.experiments import quality as q

    shapes = _loaded(monkeypatch, "data_shapes.py")
    # three queries: labels {1, 2} (one relevance), {0, 2} and {0, 0}
    train = RankingDataset(np.zeros((6, 1)), [1, 2, 0, 2, 0, 0], qid=[1, 1, 2, 2, 3, 3])
    split = q.Split("drawn", 1, train, train, train)
    args = SimpleNamespace(query_norm=False, binary_training_labels=True, drop_one_label=True, train_fraction=None)
    kept = shapes["prepared"](split, args, 1)
    assert kept.train.y.tolist() == [0.0, 1.0] and kept.vali is train
    args.binary_training_labels = False
    assert shapes["prepared"](split, args, 1).train.y.tolist() == [1, 2, 0, 2]


@pytest.mark.parametrize("argv, message", [
    (["--binary-training-labels", "--judged", "MAP", "NDCG:top=10"], "judge by MAP or MRR at their default border"),
    (["--binary-training-labels", "--judged", "MAP:border=1"], "judge by MAP or MRR at their default border"),
    (["--binary-training-labels", "--compare", "a.json", "b.json"], "--binary-training-labels go with fits"),
    (["--train-fraction", "0"], "--train-fraction must be > 0 and <= 1; got 0.0"),
    (["--train-fraction", "1.5"], "--train-fraction must be > 0 and <= 1; got 1.5"),
    (["--train-fraction", "nan"], "--train-fraction must be > 0 and <= 1; got nan"),
    (["--train-fraction", "0.5", "--compare", "a.json", "b.json"], "--binary-training-labels go with fits, not"),
    (["--random-state", "-1"], "--random-state must be >= 0; got -1"),
])
def test_data_shapes_refuses_a_bad_fraction_before_fitting(monkeypatch, capsys, argv, message):
    shapes = _loaded(monkeypatch, "data_shapes.py")
    with pytest.raises(SystemExit):
        shapes["main"](["--shape", "ohsumed", "--noise", "3", *argv])
    assert message in capsys.readouterr().err


def test_mixed_weights_reads_each_kind_as_its_fit_alone_scores(monkeypatch):
    from metricrank import LambdaMART, make_ltr

    probe = _loaded(monkeypatch, "mixed_weights.py")
    data = make_ltr(40, docs_per_query=(10, 30), n_features=8, relevance="nonlinear", random_state=1)
    kw = dict(n_estimators=6, n_models=2, random_state=3, n_jobs=1)
    mixed = LambdaMART("MAP", grow_policy="mixed", **kw).fit(data)
    paths = probe["kind_scores"](mixed, data.X)
    assert paths.shape == (2, 6, data.n_docs)
    # the oracle: each kind fitted alone (a mixed fit holds each kind as its fit alone, tests/test_grow_policy_mixed.py)
    for kind, path in zip(("symmetric_then_leafwise", "leafwise"), paths):
        alone = LambdaMART("MAP", grow_policy=kind, **kw).fit(data)
        for k in (1, 3, 6):
            np.testing.assert_allclose(path[k - 1], alone.predict(data.X, num_iteration=k), rtol=1e-12, atol=1e-12)
    for k in (1, 6):  # half and half is the mixed model's own score; w weighs the symmetric kind
        np.testing.assert_allclose(probe["weighed"](paths, 0.5)[k - 1], mixed.predict(data.X, num_iteration=k))
    np.testing.assert_allclose(probe["weighed"](paths, 0.75), 0.75 * paths[0] + 0.25 * paths[1])


def test_mixed_weights_refuses_a_split_where_the_default_grows_one_kind(monkeypatch):
    from metricrank import make_ltr
    from metricrank.experiments import quality as q

    probe = _loaded(monkeypatch, "mixed_weights.py")
    data = make_ltr(20, docs_per_query=(5, 10), n_features=6, random_state=0)
    split = q.Split("drawn", 1, data, data, data)
    fit = probe["systems"](["MAP"], (0.5,))["LambdaMART(MAP) w=0.5"][1]
    with pytest.raises(SystemExit, match="grew 'leafwise' trees, not both kinds side by side"):
        fit(split, ["MAP"], 0.1, 3, 1, 0)


def test_mixed_weights_fits_each_split_once_and_scores_its_own_fit(monkeypatch):
    from metricrank import LambdaMART, make_ltr
    from metricrank.experiments import quality as q

    probe = _loaded(monkeypatch, "mixed_weights.py")
    splits = []
    for seed in (1, 2):
        data = make_ltr(30, docs_per_query=(10, 20), n_features=8, relevance="nonlinear", random_state=seed)
        splits.append(q.Split("drawn", seed, *(data.subset_queries(r) for r in (range(20), range(20, 25),
                                                                                   range(25, 30)))))
    made = probe["systems"](["MAP"], (0.5, 1.0), grow_policy="mixed")
    fits, fit = [], LambdaMART.fit

    def counted(self, *args, **kwargs):
        fits.append(self.metric)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(LambdaMART, "fit", counted)
    for split in splits:  # the same judged metric on both: the second split must not reuse the first one's fit
        for name in ("LambdaMART(MAP) w=0.5", "LambdaMART(MAP) w=1"):
            curves, predict_test = made[name][1](split, ["MAP"], 0.1, 4, 1, 0)
        own = LambdaMART("MAP", grow_policy="mixed", n_estimators=4, n_jobs=1, random_state=0).fit(split.train)
        np.testing.assert_allclose(predict_test(4), probe["kind_scores"](own, split.test.X)[0][3])
        assert len(curves["MAP"]) == 4
    assert len(fits) == 2 + 2  # one fit per split (and the two oracles)


def test_data_shapes_against_names_each_tables_metric(monkeypatch, tmp_path, capsys):
    import json

    shapes = _loaded(monkeypatch, "data_shapes.py")
    runs = {f"LambdaMART({m}) w={w}": {m: [base + w / 10, base, base + 0.3]}
            for m, base in (("MAP", 0.4), ("MRR", 0.5)) for w in (0.5, 1)}
    (tmp_path / "w.json").write_text(json.dumps(runs))
    shapes["main"](["--tables", str(tmp_path / "w.json"), "--against", "LambdaMART({M}) w=0.5"])
    out = capsys.readouterr().out
    for m, base in (("MAP", 0.4), ("MRR", 0.5)):
        assert f"{m}: against LambdaMART({m}) w=0.5" in out
        # w=1's mean is base + (0.1 + 0.3) / 3; it leads w=0.5 on the first query only, by (1 - 0.5) / 10
        assert f"| LambdaMART({m}) w=1 | {base + 0.4 / 3:.4f} | +{0.5 / 10 / 3:.4f} |" in out


def test_query_bootstrap_weighs_each_querys_gradient_and_hessian_by_one_draw(monkeypatch):
    from metricrank.objectives import get_objective
    from metricrank.objectives._base import as_training_data

    probe = _loaded(monkeypatch, "query_bootstrap.py")
    rng = np.random.default_rng(0)
    ptr = np.array([0, 5, 9, 16, 20])
    y, raw = rng.integers(0, 3, 20).astype(float), rng.normal(size=20)

    def bound():
        return get_objective("YetiRank").bind(as_training_data(y, ptr), random_state=7)

    # the oracle: the plain objective's call, then the weights drawn from its generator after the permutations
    plain = bound()
    grad, hess = (a.copy() for a in plain(raw))
    weights = (-np.log(plain.rng.random(4))) ** 0.5
    per_row = np.repeat(weights, np.diff(ptr))
    with probe["bootstrapped_queries"](0.5):
        got_grad, got_hess = bound()(raw)
    np.testing.assert_allclose(got_grad, grad * per_row, rtol=1e-12)
    np.testing.assert_allclose(got_hess, hess * per_row, rtol=1e-12)
    assert len(set(np.round(weights, 12))) == 4  # the draws differ: one weight for all rows fails the checks above
    again_grad, _ = bound()(raw)  # the plain objective again once the block is left
    np.testing.assert_allclose(again_grad, grad, rtol=1e-12)


def test_query_bootstrap_per_model_keeps_each_models_draw_for_its_whole_fit(monkeypatch):
    from metricrank.learners._boosting import ModelGradients
    from metricrank.objectives import get_objective
    from metricrank.objectives._base import as_training_data

    probe = _loaded(monkeypatch, "query_bootstrap.py")
    rng = np.random.default_rng(1)
    ptr = np.array([0, 5, 9, 16, 20])
    y, raw = rng.integers(0, 3, 20).astype(float), rng.normal(size=(20, 2))  # two models side by side

    def models():
        return ModelGradients(get_objective("YetiRank").bind(as_training_data(y, ptr), random_state=7))

    # the oracle: the plain models' first call, then one weight per query and model from the generator, kept
    plain = models()
    first = [a.copy() for a in plain(raw)]
    weights = (-np.log(plain.bound.rng.random(8))).reshape(4, 2)
    per_row = np.repeat(weights, np.diff(ptr), axis=0)
    second = [a.copy() for a in plain(raw + 0.1)]  # the generator's next state: as after the weighted first call
    with probe["bootstrapped_models"](1.0):
        bagged = models()
        for expected, got in zip((first, second), (bagged(raw), bagged(raw + 0.1))):
            np.testing.assert_allclose(got[0], expected[0] * per_row, rtol=1e-12)  # the same weights at every tree
            np.testing.assert_allclose(got[1], expected[1] * per_row, rtol=1e-12)
    assert not np.allclose(weights[:, 0], weights[:, 1])  # each model its own draw


@pytest.mark.parametrize("script, argv, message", [
    ("mixed_weights.py", ["--weights", "0.5", "1.5"], "--weights must be distinct numbers in [0, 1]"),
    ("mixed_weights.py", ["--weights", "0.5", "0.5"], "--weights must be distinct numbers in [0, 1]"),
    ("mixed_weights.py", ["--scale", "1"], "--scale must be a finite number above 1; got 1.0"),
    ("mixed_weights.py", ["--tables", "a.json"], "mixed_weights.py fits; compare or tabulate its --out files"),
    ("query_bootstrap.py", ["--temperature", "0"], "--temperature must be a finite number above 0; got 0.0"),
    ("query_bootstrap.py", ["--temperature", "nan"], "--temperature must be a finite number above 0; got nan"),
    ("query_bootstrap.py", ["--scale", "0.5"], "--scale must be a finite number above 1; got 0.5"),
    ("query_bootstrap.py", ["--compare", "a.json", "b.json"], "query_bootstrap.py fits; compare or tabulate"),
])
def test_fitting_wrappers_refuse_bad_options_before_fitting(monkeypatch, capsys, script, argv, message):
    probe = _loaded(monkeypatch, script)
    with pytest.raises(SystemExit):
        probe["main"](["--shape", "ohsumed", "--noise", "3", *argv])
    assert message in capsys.readouterr().err


def test_query_bootstrap_names_its_systems_and_fits_no_anchor(monkeypatch):
    probe = _loaded(monkeypatch, "query_bootstrap.py")
    made = probe["systems"](["MAP", "MAUC"], 1.0)
    assert list(made) == ["LambdaMART(MAP) qb=1", "LambdaMART(MAUC) qb=1"]
    assert list(probe["systems"](["MAP"], 0.5, per_model=True)) == ["LambdaMART(MAP) qbm=0.5"]
    assert made["LambdaMART(MAP) qb=1"][0] == ("MAP",)
    with pytest.raises(SystemExit, match="fits no CatBoost anchor"):
        probe["systems"](["MAP"], 1.0, cb_params={"depth": 8})

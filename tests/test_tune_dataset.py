"""tune on a RankingDataset that holds weights, pairs or doc ids: every fold and the refit read them.

The oracle fits each fold by hand on the data set's whole-query subsets and scores the held-out side with
``metricrank.evaluate`` on the data set itself, so its weights, pairs and doc ids are read as ``evaluate`` reads
them. Each case first checks that what the data set holds moves the values (else it would show nothing).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from metricrank import GBRanker, LambdaMART, RankingDataset, evaluate, make_ltr
from metricrank.model_selection import tune

optuna = pytest.importorskip("optuna")


def _held(base, kind, rng):
    """``base`` with what ``kind`` names added: row and query weights, pairs with weights, or doc ids."""
    extra = {}
    if kind == "weights":
        extra = {"weight": rng.uniform(0.1, 3.0, base.n_docs), "group_weight": rng.uniform(0.2, 5.0, base.n_queries)}
    elif kind == "pairs":
        pairs = [(a, b) for _, rows in base.iter_queries() for a in range(rows.start, rows.stop)
                 for b in range(rows.start, rows.stop) if base.y[a] > base.y[b] and rng.random() < 0.4]
        extra = {"pairs": np.asarray(pairs), "pair_weight": rng.uniform(0.1, 3.0, len(pairs))}
    elif kind == "doc_ids":
        extra = {"doc_ids": rng.permutation(base.n_docs)}
    return RankingDataset(base.X, base.y, qid=base.qid, **extra)


CASES = {  # the estimator, the metric that reads what the data set holds
    "weights": (GBRanker("QueryRMSE", n_estimators=12, num_leaves=4, min_data_in_leaf=5, n_jobs=1, random_state=0),
                "QueryRMSE"),
    "pairs": (GBRanker("PairLogit", n_estimators=12, num_leaves=4, min_data_in_leaf=5, n_jobs=1, random_state=0),
              "PairAccuracy"),
    # two leaves and few trees: scores tie, and ties=docid orders them by the doc ids
    "doc_ids": (LambdaMART("NDCG:top=5;ties=docid", n_estimators=6, num_leaves=2, min_data_in_leaf=5, n_jobs=1,
                           random_state=0), "NDCG:top=5;ties=docid"),
}


def by_hand(estimator, ds, folds, params, metric, rounds):
    """Each fold's (held-out value, trees kept): fitted on the data set's training queries, stopped and scored
    on its test queries, all read from the data set."""
    row_query = np.repeat(np.arange(ds.n_queries), ds.query_sizes)
    out = []
    for train, test in folds:
        train_set, test_set = (ds.subset_queries(np.unique(row_query[rows])) for rows in (train, test))
        model = clone(estimator).set_params(**params)
        model.fit(train_set, eval_set=[test_set], eval_metrics=[metric], early_stopping_rounds=rounds)
        out.append((evaluate(test_set, model.predict(test_set.X), metric=metric),
                    model.best_iteration_ or model.n_estimators_))
    return out


@pytest.mark.parametrize("kind", sorted(CASES))
def test_every_fold_and_the_refit_read_the_data_set(kind):
    base = make_ltr(60, docs_per_query=(6, 14), n_features=6, noise=0.5, random_state=4)
    ds = _held(base, kind, np.random.default_rng(0))
    estimator, metric = CASES[kind]
    space = {"num_leaves": optuna.distributions.IntDistribution(2, 6)}
    res = tune(estimator, ds, metric=metric, n_trials=2, cv=3, param_space=space, early_stopping_rounds=3,
               random_state=0, show_progress=False, start_from_estimator=False)
    plain = tune(estimator, base.X, base.y, qid=base.qid, metric=metric, n_trials=2, cv=3, param_space=space,
                 early_stopping_rounds=3, random_state=0, show_progress=False, start_from_estimator=False)
    assert [r.tolist() for fold in res.folds_ for r in fold] == [r.tolist() for fold in plain.folds_ for r in fold]
    for trial, other in zip(res.study_.trials, plain.study_.trials):
        assert trial.params == other.params  # the same trials: only the data set's extras differ
        expected = by_hand(estimator, ds, res.folds_, trial.params, metric, 3)
        assert trial.user_attrs["fold_values"] == pytest.approx([v for v, _ in expected], rel=1e-12)
        assert trial.user_attrs["best_iterations"] == [n for _, n in expected]
        assert not np.allclose(trial.user_attrs["fold_values"], other.user_attrs["fold_values"], rtol=1e-9)
    refit = clone(estimator).set_params(**res.best_params_).fit(ds)
    np.testing.assert_allclose(res.best_estimator_.predict(ds.X), refit.predict(ds.X), rtol=1e-12)


def test_weights_moved_the_refit():
    # the refit trains on the weights: the same parameters fitted without them predict otherwise
    base = make_ltr(60, docs_per_query=(6, 14), n_features=6, noise=0.5, random_state=4)
    ds = _held(base, "weights", np.random.default_rng(0))
    estimator, metric = CASES["weights"]
    res = tune(estimator, ds, metric=metric, n_trials=1, cv=3, random_state=0, show_progress=False,
               param_space={"num_leaves": optuna.distributions.IntDistribution(2, 6)})
    unweighted = clone(estimator).set_params(**res.best_params_).fit(base.X, base.y, qid=base.qid)
    assert not np.allclose(res.best_estimator_.predict(ds.X), unweighted.predict(ds.X))


def test_folds_must_take_whole_queries_of_the_data_set():
    base = make_ltr(20, docs_per_query=(5, 8), n_features=6, random_state=1)
    ds = _held(base, "weights", np.random.default_rng(0))
    starts = np.searchsorted(ds.qid, np.unique(ds.qid))
    rows = np.arange(ds.n_docs)
    cut = [(rows[starts[10] + 1:], rows[:starts[10]])]  # query 10's first row on neither side
    with pytest.raises(ValueError, match=rf"cv's fold 0's training rows take part of the rows of query "
                                         rf"{ds.qid[starts[10]].item()!r}; with a RankingDataset"):
        tune(CASES["weights"][0], ds, metric="QueryRMSE", n_trials=1, cv=cut, show_progress=False)


def test_a_stored_search_tells_the_weights_apart(tmp_path):
    base = make_ltr(30, docs_per_query=(5, 8), n_features=6, random_state=1)
    rng = np.random.default_rng(0)
    first, second = _held(base, "weights", rng), _held(base, "weights", rng)
    estimator = CASES["weights"][0].set_params(n_estimators=3)
    storage = f"sqlite:///{tmp_path / 'search.db'}"
    tune(estimator, first, metric="QueryRMSE", n_trials=1, storage=storage, random_state=0, show_progress=False)
    with pytest.raises(ValueError, match="holds another search: its data differ"):
        tune(estimator, second, metric="QueryRMSE", n_trials=1, storage=storage, random_state=0,
             show_progress=False)


def test_cli_tune_trains_and_scores_on_the_pairs_file(tmp_path, capsys):
    from metricrank import save_letor
    from metricrank.cli import main

    base = make_ltr(45, docs_per_query=(6, 12), n_features=6, noise=0.5, random_state=4)
    save_letor(base, tmp_path / "train.txt")
    positions = np.repeat(np.arange(base.n_queries), base.query_sizes)  # the query ids the command gives the rows
    ds = _held(RankingDataset(base.X, base.y, qid=positions), "pairs", np.random.default_rng(0))
    np.savetxt(tmp_path / "pairs.txt", np.column_stack([ds.pairs, ds.pair_weight]), fmt=["%d", "%d", "%.17g"],
               delimiter="\t")
    argv = ["tune", "--train", str(tmp_path / "train.txt"), "--objective", "PairLogit", "--metric", "PairAccuracy",
            "--trials", "2", "--cv", "3", "--seed", "0", "--trees", "6", "--early-stopping", "3", "--threads", "1",
            "--quiet", "--out", str(tmp_path / "model.json")]
    with_pairs, without = tmp_path / "pairs.json", tmp_path / "labels.json"
    assert main(argv + ["--pairs", str(tmp_path / "pairs.txt"), "--params-out", str(with_pairs)]) == 0, \
        capsys.readouterr().err
    assert main(argv + ["--params-out", str(without)]) == 0, capsys.readouterr().err
    import json

    got = json.loads(with_pairs.read_text())
    model = GBRanker("PairLogit", n_estimators=6, n_jobs=1, random_state=0)
    expected = tune(model, ds, metric="PairAccuracy", n_trials=2, cv=3, early_stopping_rounds=3, random_state=0,
                    show_progress=False)
    assert got["best_score"] == pytest.approx(expected.best_score_, rel=1e-12)
    assert got["best_params"] == expected.summary()["best_params"]
    assert got["best_score"] != pytest.approx(json.loads(without.read_text())["best_score"], rel=1e-6)
    # a pair across queries is named by the file's query ids (here not their positions)
    save_letor(RankingDataset(base.X, base.y, qid=base.qid + 70), tmp_path / "ids.txt")
    (tmp_path / "cross.txt").write_text(f"0\t{base.group_ptr[1]}\n")
    argv[argv.index("--train") + 1] = str(tmp_path / "ids.txt")
    assert main(argv + ["--pairs", str(tmp_path / "cross.txt")]) == 2
    assert "belong to different queries (query ids 70 and 71)" in capsys.readouterr().err

"""``metricrank train`` and ``metricrank predict``."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import LambdaMART, evaluate, make_ltr, save_letor
from metricrank.cli import main
from metricrank.learners import load_ranker


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    train = make_ltr(40, docs_per_query=(5, 20), n_features=6, random_state=3)
    valid = make_ltr(15, docs_per_query=(5, 20), n_features=6, random_state=4)
    save_letor(train, root / "train.txt")
    save_letor(valid, root / "valid.txt.gz")
    return root, train, valid


def test_train_then_predict(files, capsys):
    root, train, valid = files
    model_path = root / "model.json"
    code = main(["train", "--train", str(root / "train.txt"), "--valid", str(root / "valid.txt.gz"),
                 "--objective", "lambda:NDCG:top=5;type=Exp", "--metric", "MAP", "--metric", "NDCG:top=5",
                 "--trees", "12", "--learning-rate", "0.2", "--leaves", "5", "--min-data-in-leaf", "3",
                 "--threads", "1", "--quiet", "--out", str(model_path)])
    assert code == 0
    err = capsys.readouterr().err
    assert "objective lambda:NDCG:top=5;type=Exp" in err and "valid: MAP=" in err
    model = LambdaMART.load(model_path)
    assert model.metric == "NDCG:top=5;type=Exp" and model.n_estimators_ == 12
    assert set(model.evals_result_["valid"]) == {"MAP", "NDCG:top=5"}
    assert main(["predict", "--model", str(model_path), "--data", str(root / "valid.txt.gz"),
                 "--out", str(root / "scores.txt")]) == 0
    scores = np.loadtxt(root / "scores.txt")
    np.testing.assert_array_equal(scores, model.predict(valid.X))  # %.17g round-trips exactly
    assert evaluate(valid, scores, metric="MAP") == pytest.approx(model.evals_result_["valid"]["MAP"][-1])


def test_predict_num_iteration_scores_with_the_first_k_iterations(files, tmp_path, capsys):
    root, train, valid = files
    out = tmp_path / "m.json"
    assert main(["train", "--train", str(root / "train.txt"), "--valid", str(root / "valid.txt.gz"), "--trees", "15",
                 "--early-stopping", "3", "--threads", "1", "--seed", "1", "--quiet", "--out", str(out)]) == 0
    model = LambdaMART.load(out)
    assert model.best_iteration_ is not None and model.best_iteration_ == model.n_estimators_ >= 2  # later ones dropped
    grown = len(model.evals_result_["valid"]["NDCG:top=10"])
    assert model.n_models_ == 4 and (f"wrote {out} ({model.n_estimators_} trees in each of 4 averaged models, the best "
                                     f"of {grown} grown)") in capsys.readouterr().err
    head = model.best_iteration_ - 1
    for k, expected in ((None, model.predict(valid.X)), (head, model.predict(valid.X, num_iteration=head))):
        scores = tmp_path / f"s{k}.txt"
        assert main(["predict", "--model", str(out), "--data", str(root / "valid.txt.gz"), "--out", str(scores),
                     *([] if k is None else ["--num-iteration", str(k)])]) == 0
        np.testing.assert_array_equal(np.loadtxt(scores), expected)
    assert not np.array_equal(model.predict(valid.X), model.predict(valid.X, num_iteration=head))
    capsys.readouterr()
    for k, message in ((0, "--num-iteration must be an integer >= 1; got 0"),
                       (model.n_estimators_ + 1, f"--num-iteration {model.n_estimators_ + 1}: {out} holds "
                                                 f"{model.n_estimators_} iterations")):
        bad = tmp_path / "bad.txt"
        assert main(["predict", "--model", str(out), "--data", str(root / "valid.txt.gz"), "--out", str(bad),
                     "--num-iteration", str(k)]) != 0
        assert message in capsys.readouterr().err and not bad.exists()


def test_predict_start_iteration_scores_with_the_iterations_from_s_on(files, tmp_path, capsys):
    root, train, valid = files
    out = tmp_path / "m.json"
    assert main(["train", "--train", str(root / "train.txt"), "--trees", "9", "--threads", "1", "--quiet",
                 "--out", str(out)]) == 0
    model = LambdaMART.load(out)
    full = model.predict(valid.X)
    for args, expected in ((["--start-iteration", "4"], full - model.predict(valid.X, num_iteration=4)),
                           (["--start-iteration", "2", "--num-iteration", "3"],
                            model.predict(valid.X, num_iteration=5) - model.predict(valid.X, num_iteration=2)),
                           (["--start-iteration", "0"], full)):
        scores = tmp_path / "s.txt"
        assert main(["predict", "--model", str(out), "--data", str(root / "valid.txt.gz"), "--out", str(scores),
                     *args]) == 0
        np.testing.assert_allclose(np.loadtxt(scores), expected, rtol=1e-12, atol=1e-12)
    capsys.readouterr()
    for args, message in ((["--start-iteration", "-1"], "--start-iteration must be an integer >= 0; got -1"),
                          (["--start-iteration", "9"], f"--start-iteration 9: {out} holds 9 iterations (0 to 8)"),
                          (["--start-iteration", "5", "--num-iteration", "5"],
                           f"--num-iteration 5 from --start-iteration 5: {out} holds 9 iterations")):
        bad = tmp_path / "bad.txt"
        assert main(["predict", "--model", str(out), "--data", str(root / "valid.txt.gz"), "--out", str(bad),
                     *args]) != 0
        assert message in capsys.readouterr().err and not bad.exists()


@pytest.mark.parametrize("metric_args, metric, target", [
    ([], "NDCG:top=10", "YetiRank"),
    (["--metric", "MAP", "--metric", "NDCG:top=5"], "MAP", "YetiRank"),
    (["--metric", "MRR"], "MRR", "PairLogit:max_pairs=250000"),
])
def test_without_objective_train_fits_what_lambdamart_fits_by_default(files, tmp_path, capsys, metric_args, metric,
                                                                     target):
    root, train, valid = files
    out = tmp_path / "m.json"
    assert main(["train", "--train", str(root / "train.txt"), "--trees", "8", "--threads", "1", "--quiet",
                 "--out", str(out), *metric_args]) == 0
    assert f"objective lambda:{metric}, target auto" in capsys.readouterr().err
    model = LambdaMART.load(out)
    assert (model.metric, model.target, model.target_) == (metric, "auto", target)
    library = LambdaMART(metric, n_estimators=8, n_jobs=1, random_state=0).fit(train)  # --seed 0
    np.testing.assert_array_equal(model.predict(valid.X), library.predict(valid.X))


def test_without_objective_a_metric_lambdamart_cannot_train_for_is_refused(files, tmp_path, capsys):
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--metric", "PFound", "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert code == 2 and "--metric PFound: without --objective the model is LambdaMART(metric='PFound')" in err
    assert "name an --objective" in err and not (tmp_path / "m.json").exists()
    assert main(["train", "--train", str(root / "train.txt"), "--objective", "YetiRank", "--metric", "PairAccuracy",
                 "--trees", "3", "--quiet", "--out", str(tmp_path / "m.json")]) == 0


def test_ranknet_objective_and_progress_bar(files, capsys):
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--objective", "ranknet", "--trees", "3",
                 "--leaves", "4", "--min-data-in-leaf", "3", "--out", str(root / "rn.json")])
    assert code == 0
    assert LambdaMART.load(root / "rn.json").metric == "RankNet"


def test_a_stand_in_judge_reads_a_signed_validation_file_by_dcg(files, tmp_path, capsys):
    # YetiRank trains on any label and NDCG@10 only stands in for it: labels >= 0 in training but not in
    # validation are judged by DCG@10, as GBRanker.fit judges them (it refused the file after reading it)
    import metricrank

    root, _, valid = files
    signed = metricrank.RankingDataset(valid.X, valid.y - 1, group_ptr=valid.group_ptr)
    save_letor(signed, tmp_path / "signed.txt")
    code = main(["train", "--train", str(root / "train.txt"), "--valid", str(tmp_path / "signed.txt"),
                 "--objective", "YetiRank", "--trees", "3", "--leaves", "4", "--min-data-in-leaf", "3", "--quiet",
                 "--out", str(tmp_path / "m.json")])
    assert code == 0, capsys.readouterr().err
    assert list(load_ranker(tmp_path / "m.json").evals_result_["valid"]) == ["DCG:top=10"]


@pytest.mark.parametrize("objective, message", [
    ("MAP", "write lambda:MAP"),
    ("lambda:PFound", "valid targets are NDCG, DCG, MAP"),
    ("lambda:", "needs a metric spec"),
    ("YetiRank:decay=2", "decay"),
    ("Yeti", "objectives are"),
])
def test_bad_objective(files, capsys, objective, message):
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--objective", objective, "--out",
                 str(root / "bad.json")])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (root / "bad.json").exists()


def test_predict_rejects_a_non_model(files, capsys):
    root, _, _ = files
    code = main(["predict", "--model", str(root / "train.txt"), "--data", str(root / "train.txt"),
                 "--out", str(root / "s.txt")])
    assert code == 2
    assert "not a metricrank model file" in capsys.readouterr().err
    assert not (root / "s.txt").exists()


def test_train_any_objective_with_explicit_pairs_then_predict(files, capsys, tmp_path):
    root, train, valid = files
    from metricrank import GBRanker
    from metricrank.data import save_pairs

    pairs = [[0, 1], [1, 2], [5, 7]]
    save_pairs(tmp_path / "train.pairs", pairs, [1.0, 2.0, 0.5])
    out = tmp_path / "yeti.json"
    code = main(["train", "--train", str(root / "train.txt"), "--valid", str(root / "valid.txt.gz"),
                 "--objective", "PairLogit", "--pairs", str(tmp_path / "train.pairs"), "--trees", "4",
                 "--leaves", "4", "--min-data-in-leaf", "2", "--seed", "3", "--out", str(out)])
    assert code == 0
    model = GBRanker.load(out)
    expected = GBRanker("PairLogit", n_estimators=4, num_leaves=4, min_data_in_leaf=2, random_state=3).fit(
        train, pairs=pairs, pair_weight=[1.0, 2.0, 0.5])
    np.testing.assert_array_equal(model.predict(valid.X), expected.predict(valid.X))
    # the training report reads the pairs trained on (as CatBoost reports a pool's pairs), not pairs of the labels
    scores, weight = model.predict(train.X), np.array([1.0, 2.0, 0.5])
    winners, losers = np.array(pairs).T
    on_pairs = np.sum(weight * np.log1p(np.exp(-(scores[winners] - scores[losers])))) / weight.sum()
    assert f"train: PairLogit={on_pairs:.6f}" in capsys.readouterr().err
    assert main(["predict", "--model", str(out), "--data", str(root / "valid.txt.gz"),
                 "--out", str(tmp_path / "s.txt")]) == 0
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "s.txt"), model.predict(valid.X))
    code = main(["train", "--train", str(root / "train.txt"), "--objective", "YetiRank:permutations=3",
                 "--trees", "3", "--leaves", "4", "--min-data-in-leaf", "2", "--quiet", "--out",
                 str(tmp_path / "y.json")])
    assert code == 0 and GBRanker.load(tmp_path / "y.json").objective == "YetiRank:permutations=3"


@pytest.mark.parametrize("extra, message", [
    (["--objective", "QueryRMSE", "--pairs", "{root}/train.txt"], "--pairs needs an objective that reads explicit pairs"),
    (["--objective", "YetiRank", "--sigma", "2"], "--sigma applies to λ objectives"),
    (["--objective", "YetiRank", "--metric", "NDGC"], "unknown metric"),
    (["--objective", "YetiRank", "--metric", "MAP", "--metric", "MAP"], "eval metrics must be distinct"),
    (["--objective", "YetiRank", "--target", "auto"], "--target applies to λ objectives"),
    (["--objective", "lambda:MRR", "--target", "AUC"], "--target AUC: 'AUC' cannot be a λ target"),
    (["--objective", "lambda:MAP", "--target", "YetiRank", "--sigma", "2"],
     "--sigma applies to λ targets, not to --target YetiRank: leave it out, or name a λ target (--target MAP)"),
    (["--objective", "lambda:MAP", "--target", "PairLogit", "--truncation", "3", "--sigma", "2"],
     "--sigma and --truncation apply to λ targets, not to --target PairLogit: leave them out"),
    (["--objective", "lambda:MAP", "--target", "YetiRank:permutations=0"], "permutations must be an integer >= 1"),
])
def test_train_rejects_bad_option_combinations_before_reading_data(files, capsys, extra, message):
    root, _, _ = files
    extra = [e.format(root=root) for e in extra]
    code = main(["train", "--train", str(root / "train.txt"), "--out", str(root / "never.json"), *extra])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (root / "never.json").exists()


def test_objectives_lists_every_objective_with_defaults(capsys):
    assert main(["objectives"]) == 0
    out = capsys.readouterr().out
    for name in ("PairLogit", "PairLogitPairwise", "YetiRank", "YetiRankPairwise", "StochasticFilter",
                 "StochasticRank", "QueryRMSE", "QuerySoftMax", "QueryCrossEntropy", "LambdaMart", "lambda:<metric>",
                 "RankNet"):
        assert name in out
    assert "permutations=10" in out and "decay=0.99" in out and "alpha=0.95" in out
    assert "-E[metric(a + sigma z)]" in out  # square brackets are text, not rich markup


@pytest.mark.parametrize("extra, message", [
    (["--trees", "0"], "--trees must be an integer >= 1; got 0"),
    (["--learning-rate", "-1"], "--learning-rate must be a positive number"),
    (["--leaves", "1"], "--leaves must be 'auto' or an integer >= 2; got 1"),
    (["--l2", "-1"], "--l2 must be 'auto' or a number >= 0; got -1.0"),
    (["--l2", "nan"], "--l2 must be 'auto' or a number >= 0; got nan"),
    (["--valid", "nope.txt"], "--valid nope.txt: no such file"),
    (["--valid-query-file", "a.query"], "--valid-query-file a.query: no such file"),
    (["--grow-policy", "symmetric", "--depth", "9"], "--depth must be 1-8 with --grow-policy symmetric; got 9"),
    (["--grow-policy", "symmetric_then_leafwise", "--depth", "9"],
     "--depth must be 1-8 with --grow-policy symmetric_then_leafwise; got 9"),
    (["--depth", "0"], "--depth must be >= 1; got 0"),
    (["--seed", "-1"], "--seed must be an integer in [0, 2**31); got -1"),
    (["--early-stopping", "5"], "--early-stopping stops on the last --valid file's metric; pass --valid"),
    (["--grow-policy", "symmetric_then_leafwise", "--dask", "tcp://127.0.0.1:1"],
     "--grow-policy symmetric_then_leafwise chooses each tree's splits from all rows on one machine"),
    (["--grow-policy", "symmetric", "--dask", "tcp://127.0.0.1:1"],
     "--grow-policy symmetric chooses each tree's splits from all rows on one machine; a --dask fit grows "
     "leaf-wise trees: drop --grow-policy or --dask"),
])
def test_train_checks_options_with_their_cli_names(files, capsys, extra, message):
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--out", str(root / "never.json"), *extra])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (root / "never.json").exists()


def test_leaves_takes_auto_or_an_integer(files, capsys):
    root, _, _ = files
    with pytest.raises(SystemExit) as exit_:  # argparse's usage error, as for any malformed option
        main(["train", "--train", str(root / "train.txt"), "--leaves", "many", "--out", str(root / "never.json")])
    assert exit_.value.code == 2
    assert "argument --leaves: must be 'auto' or an integer >= 2; got 'many'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--train", str(root / "train.txt"), "--l2", "lots", "--out", str(root / "never.json")])
    assert "argument --l2: must be 'auto' or a number >= 0; got 'lots'" in capsys.readouterr().err


def test_train_checks_the_output_directory_before_training(files, capsys, tmp_path):
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--out", str(tmp_path / "missing" / "m.json")])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_ctrl_c_writes_nothing_and_says_how_far_it_got(files, capsys, monkeypatch, tmp_path):
    from metricrank import _cli_train

    original = _cli_train._Progress.__call__

    def interrupt_at_three(self, info):
        original(self, info)
        if info.iteration == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(_cli_train._Progress, "__call__", interrupt_at_three)
    root, _, _ = files
    out = tmp_path / "m.json"
    code = main(["train", "--train", str(root / "train.txt"), "--trees", "50", "--leaves", "4",
                 "--min-data-in-leaf", "3", "--out", str(out)])
    assert code == 130
    assert "interrupted after 3 of 50 trees; nothing was written" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("when", ["mid-fit", "after the last tree"])
def test_a_real_ctrl_c_stops_at_the_next_tree_and_writes_nothing(files, capsys, monkeypatch, tmp_path, when):
    # raised at once, the interrupt could land inside a numba or llvmlite call and crash the process; the first
    # Ctrl-C only asks the fit to stop, at the next tree (or, after the last one, before the model is written)
    import signal

    from metricrank import _cli_train

    original = _cli_train._Progress.__call__
    returned = []

    def signal_at(self, info):
        at = 3 if when == "mid-fit" else 8
        if info.iteration == at and when == "mid-fit":
            signal.raise_signal(signal.SIGINT)
            returned.append(info.iteration)  # the handler did not raise here
        original(self, info)
        if info.iteration == at and when != "mid-fit":
            signal.raise_signal(signal.SIGINT)
            returned.append(info.iteration)

    monkeypatch.setattr(_cli_train._Progress, "__call__", signal_at)
    root, _, _ = files
    out = tmp_path / "m.json"
    before = signal.getsignal(signal.SIGINT)
    code = main(["train", "--train", str(root / "train.txt"), "--trees", "8" if when != "mid-fit" else "50",
                 "--leaves", "4", "--min-data-in-leaf", "3", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 130 and returned
    assert "stopping at the next tree (Ctrl-C again to stop at once)" in err
    assert f"interrupted after {3 if when == 'mid-fit' else 8} of" in err and "nothing was written" in err
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGINT) is before  # the handler is put back


def test_a_second_ctrl_c_stops_at_once_and_an_interrupt_inside_a_kernel_is_an_interrupt(files, capsys, monkeypatch,
                                                                                       tmp_path):
    from metricrank import _cli_train

    progress = _cli_train._Progress(10, enabled=False)
    progress._on_interrupt(2, None)
    with pytest.raises(KeyboardInterrupt):
        progress._on_interrupt(2, None)

    def dispatch_interrupted(self, info):  # numba's dispatcher: "returned a result with an exception set"
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("CPUDispatcher(<function _dcg_kernel>) returned a result with an exception set")

    monkeypatch.setattr(_cli_train._Progress, "__call__", dispatch_interrupted)
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--trees", "5", "--leaves", "4",
                 "--min-data-in-leaf", "3", "--out", str(tmp_path / "m.json")])
    assert code == 130 and capsys.readouterr().err.strip().endswith("metricrank: interrupted")


def test_progress_is_logged_per_tree_off_a_terminal_and_predict_writes_to_stdout(files, capsys, tmp_path):
    root, _, valid = files
    out = tmp_path / "m.json"
    assert main(["train", "--train", str(root / "train.txt"), "--valid", str(root / "valid.txt.gz"),
                 "--trees", "12", "--leaves", "4", "--min-data-in-leaf", "3", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "[tree 1/12] valid NDCG:top=10=" in captured.err and "[tree 10/12]" in captured.err
    assert "[tree" not in captured.out
    assert main(["predict", "--model", str(out), "--data", str(root / "valid.txt.gz"), "--out", "-"]) == 0
    printed = np.array(capsys.readouterr().out.split(), dtype=float)
    np.testing.assert_array_equal(printed, LambdaMART.load(out).predict(valid.X))


def test_a_split_query_error_gives_command_line_advice(tmp_path, capsys):
    path = tmp_path / "split.txt"
    path.write_text("1 qid:1 1:0.5\n0 qid:2 1:0.1\n2 qid:1 1:0.9\n")
    code = main(["train", "--train", str(path), "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert code == 2 and "reappears" in err and "sort -s -t: -k2,2n" in err
    assert "stable_sort" not in err


def test_a_library_error_is_one_line_not_a_traceback(files, capsys, monkeypatch):
    import lightgbm

    from metricrank.learners import gbranker

    def boom(*args, **kwargs):
        raise lightgbm.basic.LightGBMError("simulated engine failure")

    monkeypatch.setattr(gbranker, "boost_lanes", boom)
    root, _, _ = files
    code = main(["train", "--train", str(root / "train.txt"), "--trees", "2", "--out", str(root / "x.json")])
    err = capsys.readouterr().err
    assert code == 1 and err.strip().splitlines()[-1] == "metricrank: error: LightGBMError: simulated engine failure"
    assert "Traceback" not in err


@pytest.mark.parametrize("command, shown", [("train", "(default: 300)"), ("tune", "(default: 30)"),
                                            ("predict", None)])
def test_help_shows_defaults_except_none_and_false(command, shown, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one help line per option: the checks do not depend on wrapping
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "(default: None)" not in out and "(default: False)" not in out
    assert shown is None or shown in out


def test_grow_policy_symmetric_trains_symmetric_trees_of_depth(files, tmp_path, capsys):
    from metricrank._cli_train import GROW_POLICIES, MAX_DEPTH
    from metricrank.learners._gbdt import GROW_POLICIES as LIBRARY_POLICIES
    from metricrank.learners._symmetric import MAX_DEPTH as LIBRARY_MAX_DEPTH

    assert (GROW_POLICIES, MAX_DEPTH) == (LIBRARY_POLICIES, LIBRARY_MAX_DEPTH)  # one meaning in both
    root, train, _ = files
    assert main(["train", "--train", str(root / "train.txt"), "--grow-policy", "symmetric", "--depth", "2",
                 "--min-data-in-leaf", "3", "--trees", "4", "--quiet", "--out", str(tmp_path / "s.json")]) == 0
    model = LambdaMART.load(tmp_path / "s.json")
    assert model.grow_policy == "symmetric" and model.max_depth == 2 and model.num_leaves_ == 4
    for tree in model.booster_.dump_model()["tree_info"]:
        root_node = tree["tree_structure"]
        children = (root_node["left_child"], root_node["right_child"])
        assert tree["num_leaves"] == 4 and len({(c["split_feature"], c["threshold"]) for c in children}) == 1
    # completed: the same depth, and LightGBM's own splits on (no split penalty, the fit's leaf minimum)
    assert main(["train", "--train", str(root / "train.txt"), "--grow-policy", "symmetric_then_leafwise", "--depth",
                 "2", "--min-data-in-leaf", "3", "--trees", "4", "--quiet", "--out", str(tmp_path / "c.json")]) == 0
    model = LambdaMART.load(tmp_path / "c.json")
    assert model.grow_policy == "symmetric_then_leafwise" and model.num_leaves_ == 4
    assert model.booster_.params["min_data_in_leaf"] == 3 and model.booster_.params["max_depth"] == 2


def test_grow_policy_defaults_to_the_estimators_own(files, tmp_path, capsys, monkeypatch):
    # λ targets train LambdaMART, whose default is "auto"; the other objectives GBRanker, leaf-wise by default
    from metricrank.learners import _capacity

    root, _, _ = files
    common = ["--train", str(root / "train.txt"), "--trees", "3", "--quiet"]
    assert main(["train", *common, "--out", str(tmp_path / "a.json")]) == 0
    model = LambdaMART.load(tmp_path / "a.json")
    assert model.grow_policy == "auto" and model.grow_policy_ == "leafwise"  # 40 queries: no check, leaf-wise
    assert "grow policy auto: leafwise trees" in capsys.readouterr().err
    assert main(["train", *common, "--objective", "YetiRank", "--out", str(tmp_path / "y.json")]) == 0
    assert load_ranker(tmp_path / "y.json").grow_policy == "leafwise"
    assert "grow policy auto" not in capsys.readouterr().err
    # where the check runs, "auto" grows completed symmetric trees of the depth it chose beside leaf-wise ones
    monkeypatch.setattr(_capacity, "CHECK_MIN_DOCS", 100)
    monkeypatch.setattr(_capacity, "CHECK_MIN_QUERIES", 30)
    assert main(["train", *common, "--out", str(tmp_path / "c.json")]) == 0
    model = LambdaMART.load(tmp_path / "c.json")
    assert model.grow_policy_ == "mixed"
    assert [k.capacity_check.grow_policy for k in model.kinds_] == ["symmetric_then_leafwise", "leafwise"]
    err = capsys.readouterr().err
    assert "grow policy auto: mixed trees" in err and err.count("capacity check by") == 2 and "-> depth" in err


def test_train_names_by_query_id_a_pair_that_crosses_two_queries(tmp_path, capsys):
    data = tmp_path / "t.txt"
    data.write_text("".join(f"{r % 2} qid:{q} 1:{r}\n" for q in (101, 205) for r in range(3)))
    (tmp_path / "t.pairs").write_text("0\t1\n2\t3\n")  # row 2 is query 101's, row 3 query 205's
    code = main(["train", "--train", str(data), "--objective", "PairLogit", "--pairs", str(tmp_path / "t.pairs"),
                 "--out", str(tmp_path / "m.json")])
    assert code == 2 and not (tmp_path / "m.json").exists()
    assert "line 2: rows 2 and 3 belong to different queries (query ids 101 and 205)" in capsys.readouterr().err

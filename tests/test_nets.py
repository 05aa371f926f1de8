"""RankNet and LambdaRank on PyTorch: the factorised λ gradient, learning, persistence, determinism."""

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sklearn.base import clone  # noqa: E402

from metricrank import RankingDataset, evaluate, make_ltr  # noqa: E402
from metricrank.learners import LambdaRank, RankNet  # noqa: E402
from metricrank.learners.nets._batches import make_batch  # noqa: E402
from metricrank.learners.nets._lambdas import PairLambdas, backward_lambdas  # noqa: E402
from metricrank.learners.nets._model import build_scorer  # noqa: E402
from metricrank.learners.nets._pairs import pair_gradient  # noqa: E402
from metricrank.objectives.lambda_objective import resolve_target, swap_delta_matrix  # noqa: E402

SIGMA = 1.7  # not 1, so a lost σ shows


def _queries(seed, n_queries=6, n_features=5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_queries)  # includes one-document queries
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    y = rng.integers(0, 4, ptr[-1]).astype(np.float64)  # ties of labels included
    X = torch.tensor(rng.normal(size=(ptr[-1], n_features)), dtype=torch.float64)
    return X, y, ptr


def _mlp(n_features, seed):
    torch.manual_seed(seed)
    return build_scorer(n_features, (7, 4), "tanh", dtype=torch.float64)


def _param_grads(model):
    return [p.grad.detach().clone() for p in model.parameters()]


def _autograd(model, X, cost_fn):
    model.zero_grad()
    cost = cost_fn(model(X).squeeze(-1))
    cost.backward()
    return _param_grads(model)


def _factorised(model, X, ptr, lambdas, queries):
    model.zero_grad()
    backward_lambdas(model, X, make_batch(ptr, queries), lambdas)
    return _param_grads(model)


def _assert_same(got, want):
    assert len(got) == len(want)
    assert torch.count_nonzero(want[0]) > 0  # the output bias gets none: pair costs are shift-invariant
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-12)


def _pairwise_cost(s, y, ptr, delta=None):
    """Σ over pairs l_i > l_j of |ΔZ_ij| log(1 + exp(-σ (s_i - s_j))) (|ΔZ| = 1 for RankNet)."""
    total = s.sum() * 0
    for q in range(len(ptr) - 1):
        a, b = ptr[q], ptr[q + 1]
        for i in range(a, b):
            for j in range(a, b):
                if y[i] > y[j]:
                    dz = 1.0 if delta is None else delta[i, j]
                    total = total + dz * torch.nn.functional.softplus(-SIGMA * (s[i] - s[j]))
    return total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranknet_factorised_gradient_equals_autograd_of_pairwise_cross_entropy(seed):
    X, y, ptr = _queries(seed)
    model = _mlp(X.shape[1], seed)
    lambdas = RankNet(sigma=SIGMA)._lambdas(RankingDataset(X.numpy(), y, group_ptr=ptr))  # as fit does
    want = _autograd(model, X, lambda s: _pairwise_cost(s, y, ptr))
    # a shuffled batch of every query: one backward pass over all of them
    order = np.random.default_rng(seed).permutation(len(ptr) - 1)
    _assert_same(_factorised(model, X, ptr, lambdas, order), want)


def _global_deltas(spec, s, y, ptr):
    """|ΔZ_ij| of every same-query pair at the current ranking (global row indices)."""
    target = resolve_target(spec)
    n = len(y)
    delta = np.zeros((n, n))
    for q in range(len(ptr) - 1):
        a, b = ptr[q], ptr[q + 1]
        order = a + np.argsort(-s[a:b], kind="stable")  # random scores: no ties
        d = swap_delta_matrix(target, y[order])
        delta[np.ix_(order, order)] = d
    return delta


@pytest.mark.parametrize("spec", ["NDCG:top=10", "NDCG:top=3;type=Exp", "MAP", "ERR:type=Graded;max_label=3",
                                  "MRR", "ROCArea"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lambdarank_factorised_gradient_equals_autograd_at_fixed_deltas(spec, seed):
    X, y, ptr = _queries(seed + 10)
    model = _mlp(X.shape[1], seed)
    with torch.no_grad():
        s = model(X).squeeze(-1).numpy()
    delta = _global_deltas(spec, s, y, ptr)
    assert delta.max() > 0
    want = _autograd(model, X, lambda scores: _pairwise_cost(scores, y, ptr, delta))
    lambdas = LambdaRank(metric=spec, sigma=SIGMA, norm=False)._lambdas(RankingDataset(X.numpy(), y, group_ptr=ptr))
    _assert_same(_factorised(model, X, ptr, lambdas, np.arange(len(ptr) - 1)[::-1]), want)


def _random_pairs(rng, ptr, n_pairs=25):
    pairs = []
    while len(pairs) < n_pairs:
        q = rng.integers(len(ptr) - 1)
        a, b = ptr[q], ptr[q + 1]
        if b - a >= 2:
            w, lo = rng.choice(np.arange(a, b), 2, replace=False)
            pairs.append((w, lo))
    return np.array(pairs, dtype=np.int64), rng.uniform(0.1, 3.0, n_pairs)


def test_pair_gradient_equals_autograd_of_weighted_pair_cross_entropy():
    rng = np.random.default_rng(3)
    s = torch.tensor(rng.normal(size=12), dtype=torch.float64, requires_grad=True)
    pairs = rng.integers(0, 12, (30, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    w = rng.uniform(0.1, 3.0, len(pairs))
    cost = (torch.tensor(w) * torch.nn.functional.softplus(-SIGMA * (s[pairs[:, 0]] - s[pairs[:, 1]]))).sum()
    cost.backward()
    got = pair_gradient(s.detach().numpy(), pairs[:, 0], pairs[:, 1], w, SIGMA, 12)
    np.testing.assert_allclose(got, s.grad.numpy(), rtol=1e-12)


def test_explicit_pair_ranknet_gradient_equals_autograd():
    X, y, ptr = _queries(4, n_queries=8)
    rng = np.random.default_rng(4)
    pairs, w = _random_pairs(rng, ptr)
    model = _mlp(X.shape[1], 4)

    def cost(s):
        return (torch.tensor(w) * torch.nn.functional.softplus(-SIGMA * (s[pairs[:, 0]] - s[pairs[:, 1]]))).sum()

    want = _autograd(model, X, cost)
    ds = RankingDataset(X.numpy(), np.zeros(len(X)), group_ptr=ptr, pairs=pairs, pair_weight=w)
    lambdas = RankNet(sigma=SIGMA)._lambdas(ds)
    assert isinstance(lambdas, PairLambdas)
    _assert_same(_factorised(model, X, ptr, lambdas, rng.permutation(len(ptr) - 1)), want)


@pytest.fixture(scope="module")
def split():
    ds = make_ltr(120, n_features=10, n_informative=4, random_state=0)
    return ds.subset_queries(np.arange(80)), ds.subset_queries(np.arange(80, 120))


@pytest.mark.parametrize("cls", [RankNet, LambdaRank])
def test_net_learns(cls, split):
    train, test = split
    trained = cls(max_epochs=10, random_state=0).fit(train)
    untrained = cls(max_epochs=1, learning_rate=1e-12, random_state=0).fit(train)
    rng = np.random.default_rng(0)
    random_ndcg = np.mean([evaluate(test, rng.normal(size=test.n_docs)) for _ in range(20)])
    ndcg = evaluate(test, trained.predict(test))
    # measured: trained 0.93-0.94, untrained 0.32, random 0.41
    assert ndcg > evaluate(test, untrained.predict(test)) + 0.3
    assert ndcg > random_ndcg + 0.3


def test_ranknet_learns_from_explicit_pairs(split):
    train, test = split
    pairs = [(a + i, a + j) for a, b in zip(train.group_ptr[:-1], train.group_ptr[1:])
             for i in range(b - a) for j in range(b - a) if train.y[a + i] > train.y[a + j]]
    model = RankNet(max_epochs=10, random_state=0).fit(train.X, qid=train.qid, pairs=np.array(pairs))
    rng = np.random.default_rng(0)
    random_ndcg = np.mean([evaluate(test, rng.normal(size=test.n_docs)) for _ in range(20)])
    assert evaluate(test, model.predict(test)) > random_ndcg + 0.1


def test_early_stopping_restores_best_epoch(split):
    train, test = split
    model = LambdaRank(max_epochs=40, learning_rate=0.03, random_state=0).fit(
        train, eval_set=[test], eval_metrics=["NDCG:top=5", "MAP"], early_stopping_rounds=3)
    history = model.evals_result_["valid_0"]["NDCG:top=5"]
    assert model.best_epoch_ == int(np.argmax(history)) + 1
    assert model.n_epochs_ < 40 and "did not improve" in model.stop_reason_
    assert evaluate(test, model.predict(test), metric="NDCG:top=5") == pytest.approx(max(history), abs=1e-12)
    assert model.best_score_["valid_0"] == {spec: pytest.approx(evaluate(test, model.predict(test), metric=spec),
                                                                abs=1e-12) for spec in ("NDCG:top=5", "MAP")}


def test_the_training_data_among_the_eval_sets_is_named_training_and_not_watched(split):
    # as the tree rankers (and LightGBM) read it: early stopping watches the last set that is not the training data
    train, test = split
    params = dict(max_epochs=40, learning_rate=0.01, random_state=0)  # MAP stops at 17 there, at 7 on the training
    alone = LambdaRank(**params).fit(train, eval_set=[test], eval_metrics=["MAP"], early_stopping_rounds=3)
    both = LambdaRank(**params).fit(train, eval_set=[test, train], eval_metrics=["MAP"], early_stopping_rounds=3)
    assert list(both.evals_result_) == ["valid_0", "training"]
    assert both.best_epoch_ == alone.best_epoch_ and both.n_epochs_ == alone.n_epochs_ < 40
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval set other than the training data"):
        LambdaRank(**params).fit(train, eval_set=[train], early_stopping_rounds=3)


def test_best_score_without_early_stopping_is_the_last_epochs(split):
    train, test = split
    model = LambdaRank(max_epochs=15, learning_rate=0.03, random_state=0).fit(
        train, eval_set=[test], eval_metrics=["NDCG:top=5", "MAP"])
    history = model.evals_result_["valid_0"]["NDCG:top=5"]
    assert model.best_epoch_ is None and max(history) > history[-1]  # the best epoch is not the last
    assert model.best_score_["valid_0"] == {spec: pytest.approx(evaluate(test, model.predict(test), metric=spec),
                                                                abs=1e-12) for spec in ("NDCG:top=5", "MAP")}


def test_eval_set_labels_outside_the_metric_fail_before_the_first_epoch(split, monkeypatch):
    import metricrank.learners.nets._base as nets_base

    train, test = split
    signed = RankingDataset(test.X, test.y - 1, group_ptr=test.group_ptr)
    monkeypatch.setattr(nets_base, "dataset_evaluator", None)  # an epoch's evaluation calls it: none may run
    with pytest.raises(ValueError, match="eval set valid_0: NDCG needs labels >= 0"):
        RankNet(max_epochs=2, random_state=0).fit(train, eval_set=[signed], eval_metrics=["NDCG:top=5"])


def test_ranknets_stand_in_judge_reads_negative_labels_by_dcg(split):
    # RankNet trains on any label and its NDCG@10 only stands in: signed labels, in training or in an eval
    # set, are judged by DCG@10 in fit's evaluation and in score (NDCG@10 refused them)
    train, test = split
    signed = RankingDataset(test.X, test.y - 1, group_ptr=test.group_ptr)
    model = RankNet(max_epochs=2, random_state=0).fit(train, eval_set=[signed])
    assert list(model.evals_result_["valid_0"]) == ["DCG:top=10"]
    assert model.score(signed.X, signed.y, group=signed.query_sizes) == pytest.approx(
        evaluate(signed, model.predict(signed), metric="DCG:top=10"))
    model = RankNet(max_epochs=2, random_state=0).fit(train, eval_set=[test])
    assert list(model.evals_result_["valid_0"]) == ["NDCG:top=10"]


@pytest.mark.parametrize("cls, sizes", [(RankNet, (6, 3)), (LambdaRank, (6, 3)), (RankNet, [6, 3]), (RankNet, 6)])
def test_save_load_round_trip(cls, sizes, split, tmp_path):
    train, test = split
    model = cls(hidden_layer_sizes=sizes, dropout=0.1, max_epochs=2, random_state=0).fit(train)
    path = tmp_path / "net.json.gz"
    model.save(path)
    assert os.listdir(tmp_path) == ["net.json.gz"]
    loaded = cls.load(path)
    np.testing.assert_array_equal(loaded.predict(test), model.predict(test))
    assert loaded.get_params() == model.get_params()  # the sizes as given: a tuple, a list or an int
    assert type(loaded.hidden_layer_sizes) is type(sizes)
    np.testing.assert_array_equal(loaded.feature_mean_, model.feature_mean_)


def test_load_rejects_bad_files(split, tmp_path):
    train, _ = split
    garbage = tmp_path / "garbage.json"
    garbage.write_text("not json")
    with pytest.raises(ValueError, match="not a metricrank model"):
        RankNet.load(garbage)
    path = tmp_path / "net.json"
    RankNet(max_epochs=1, random_state=0).fit(train).save(path)
    with pytest.raises(ValueError, match="holds a RankNet model, not a LambdaRank"):
        LambdaRank.load(path)
    doc = json.loads(path.read_text())
    doc["state"]["state_dict"].popitem()
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="checksum mismatch"):  # edited after saving
        RankNet.load(damaged)
    from metricrank.learners._persistence import state_digest

    doc["state_sha256"] = state_digest(doc["state"])  # damaged before the checksum was written
    damaged.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="damaged RankNet"):
        RankNet.load(damaged)


@pytest.mark.parametrize("cls", [RankNet, LambdaRank])
def test_cpu_determinism(cls, split):
    train, test = split
    params = dict(hidden_layer_sizes=(8,), dropout=0.2, max_epochs=3, batch_queries=5)
    torch.manual_seed(1)  # the caller's generator state must not matter
    a = cls(random_state=7, **params).fit(train).predict(test)
    torch.manual_seed(2)
    b = cls(random_state=7, **params).fit(train).predict(test)
    c = cls(random_state=8, **params).fit(train).predict(test)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_a_numpy_generator_seeds_a_fit_with_one_draw(split):
    # as a RandomState does (scikit-learn's rule): one seed drawn per fit, so the generator advances
    train, test = split
    params = dict(hidden_layer_sizes=(8,), dropout=0.2, max_epochs=2, batch_queries=5)
    rng = np.random.default_rng(4)
    a = RankNet(random_state=rng, **params).fit(train).predict(test)
    fresh = np.random.default_rng(4)
    fresh.integers(0, 2**31 - 1)
    assert rng.integers(0, 2**31 - 1) == fresh.integers(0, 2**31 - 1)  # exactly one seed was drawn
    b = RankNet(random_state=np.random.default_rng(4), **params).fit(train).predict(test)
    c = RankNet(random_state=np.random.default_rng(5), **params).fit(train).predict(test)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_verbose_shows_progress(split, capsys):
    RankNet(max_epochs=2, verbose=True, random_state=0).fit(split[0], eval_set=[split[1]])
    assert "epoch 2" in capsys.readouterr().out


def test_fit_leaves_callers_torch_generator_alone(split):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    RankNet(max_epochs=1, random_state=0).fit(split[0])
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("param, value, allowed", [
    ("activation", "swish", "relu, tanh, sigmoid, gelu, elu"),
    ("optimizer", "rmsprop", "adam, sgd"),
    ("device", "tpu", "cpu, cuda"),
    ("preset", "sklearn", "catboost, lightgbm, xgboost, trec_eval"),  # was taken, unread until scoring
    ("random_state", -1, r"random_state must be None, an integer in \[0, 2\*\*32\), a numpy RandomState or a numpy "
                         "Generator"),
])
def test_bad_names_list_allowed_values(param, value, allowed, split):
    with pytest.raises(ValueError, match=allowed):
        RankNet(**{param: value}).fit(split[0])


@pytest.mark.parametrize("param, value, message", [
    ("learning_rate", True, "learning_rate must be a positive finite number"),
    ("weight_decay", True, "weight_decay must be a finite number >= 0"),
    ("dropout", False, r"dropout must be in \[0, 1\)"),
    ("max_epochs", True, "max_epochs must be an integer >= 1"),
    ("hidden_layer_sizes", (True, 4), "hidden_layer_sizes must be a tuple of positive integers"),
    ("random_state", True, r"random_state must be None, an integer in \[0, 2\*\*32\), a numpy RandomState or a "
                           "numpy Generator"),
    ("verbose", -1, r"verbose must be a bool or an integer >= 0 \(0 or False: silent, otherwise a progress bar\)"),
    ("verbose", None, "verbose must be a bool or an integer >= 0"),
    ("verbose", "yes", "verbose must be a bool or an integer >= 0"),
])
def test_a_bool_is_no_number_and_verbose_is_checked(param, value, message, split):
    # (each was taken: True as 1, False as 0, and any verbose by its truth value)
    with pytest.raises(ValueError, match=message):
        RankNet(**{param: value}).fit(split[0])


@pytest.mark.parametrize("rounds", ["x", True, 2.0, 2.5, 0])
def test_early_stopping_rounds_names_itself(rounds, split):
    # ("x" raised int()'s message and 2.0 was taken)
    with pytest.raises(ValueError, match=f"early_stopping_rounds must be None or an integer >= 1; got {rounds!r}"):
        RankNet(max_epochs=1).fit(split[0], eval_set=[split[1]], early_stopping_rounds=rounds)


def test_bad_metric_lists_targets(split):
    with pytest.raises(ValueError, match="valid targets are NDCG, DCG, MAP"):
        LambdaRank(metric="Fancy").fit(split[0])


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_cuda_unavailable_is_a_clear_error(split):
    with pytest.raises(ValueError, match="cuda.is_available"):
        RankNet(device="cuda").fit(split[0])


def test_pairs_only_for_ranknet(split):
    train, _ = split
    with pytest.raises(ValueError, match="explicit pairs train RankNet"):
        LambdaRank().fit(RankingDataset(train.X, train.y, qid=train.qid, pairs=[[0, 1]]))


def test_clone_and_get_params():
    model = LambdaRank(metric="MAP", hidden_layer_sizes=(4,), learning_rate=0.01)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert copy.get_params()["metric"] == "MAP" and "sigma" in RankNet().get_params()


# starting scores (init_score) ----------------------------------------------------------------------


@pytest.mark.parametrize("spec", [None, "NDCG:top=3;type=Exp"])
def test_gradient_at_starting_scores_equals_autograd_of_the_cost_there(spec):
    # with init_score b the cost is read at b + s: autograd of the pair cost at b + model(X) (λ-NDCG: with the
    # |ΔZ| of the ranking by b + s), against one factorised backward pass with the offset
    X, y, ptr = _queries(5)
    model = _mlp(X.shape[1], 5)
    b = np.random.default_rng(5).normal(scale=2.0, size=len(y))
    with torch.no_grad():
        s = model(X).squeeze(-1).numpy()
    delta = None if spec is None else _global_deltas(spec, s + b, y, ptr)
    bt = torch.as_tensor(b)
    want = _autograd(model, X, lambda scores: _pairwise_cost(scores + bt, y, ptr, delta))
    ds = RankingDataset(X.numpy(), y, group_ptr=ptr)
    lambdas = (RankNet(sigma=SIGMA) if spec is None else LambdaRank(metric=spec, sigma=SIGMA, norm=False))._lambdas(ds)
    model.zero_grad()
    backward_lambdas(model, X, make_batch(ptr, np.arange(len(ptr) - 1)), lambdas, offset=b)
    _assert_same(_param_grads(model), want)


@pytest.mark.parametrize("cls", [RankNet, LambdaRank])
def test_init_score_that_already_ranks_perfectly_leaves_nothing_to_learn(cls, split):
    # starting scores 50 × label order every query with margins of 50: every pair's λ is about e^-50, so the
    # network keeps its initial weights, which a run at a negligible step size also keeps; without them it learns
    train, test = split
    params = dict(max_epochs=3, random_state=0)
    settled = cls(**params).fit(train, init_score=50.0 * train.y)
    unmoved = cls(**params, learning_rate=1e-12).fit(train)
    learned = cls(**params).fit(train)
    np.testing.assert_allclose(settled.predict(test), unmoved.predict(test), rtol=0, atol=1e-6)
    assert np.max(np.abs(learned.predict(test) - unmoved.predict(test))) > 0.1


def test_eval_curves_start_from_eval_init_score(split):
    train, test = split
    rng = np.random.default_rng(1)
    start, vstart = rng.normal(size=train.n_docs), rng.normal(size=test.n_docs)
    model = LambdaRank(max_epochs=1, random_state=0).fit(train, init_score=start, eval_set=[test],
                                                          eval_init_score=[vstart], eval_metrics=["NDCG:top=5"])
    # the curve reads the starting scores plus the network's; predict gives the network's alone
    first = evaluate(test, vstart + model.predict(test), metric="NDCG:top=5")
    assert model.evals_result_["valid_0"]["NDCG:top=5"][0] == pytest.approx(first, abs=1e-12)
    assert evaluate(test, model.predict(test), metric="NDCG:top=5") != pytest.approx(first, abs=1e-3)


def test_bad_starting_scores_are_named(split):
    train, test = split
    with pytest.raises(ValueError, match=rf"init_score must have shape \({train.n_docs},\)"):
        RankNet(max_epochs=1).fit(train, init_score=np.zeros(3))
    bad = np.zeros(train.n_docs)
    bad[4] = np.inf
    with pytest.raises(ValueError, match="init_score must be finite; row 4 is inf"):
        RankNet(max_epochs=1).fit(train, init_score=bad)
    with pytest.raises(ValueError, match="eval_init_score needs init_score"):
        RankNet(max_epochs=1).fit(train, eval_set=[test], eval_init_score=[np.zeros(test.n_docs)])


@pytest.mark.parametrize("cls", [RankNet, LambdaRank])
def test_a_data_frames_columns_are_kept_and_checked_as_the_tree_rankers_do(cls, tmp_path):
    pd = pytest.importorskip("pandas")
    ds = make_ltr(12, docs_per_query=(4, 9), n_features=4, n_informative=2, random_state=2)
    columns = ["w", "x", "y", "z"]
    frame = pd.DataFrame(ds.X, columns=columns)
    labelled = frame.assign(label=ds.y, qid=ds.qid)
    params = dict(hidden_layer_sizes=(5,), max_epochs=2, random_state=0, n_jobs=1)
    on_array = cls(**params).fit(ds.X, ds.y, qid=ds.qid)
    assert not hasattr(on_array, "feature_names_in_")
    # fit(df, "label", qid="qid") as LambdaMART takes it: the same net as the arrays'
    model = cls(**params).fit(labelled, "label", qid="qid", eval_set=[(labelled, "label", "qid")])
    assert list(model.feature_names_in_) == columns
    np.testing.assert_array_equal(model.predict(frame), on_array.predict(ds.X))
    np.testing.assert_array_equal(model.evals_result_["training"][model._score_metric(ds.y)],  # the fit's own data
                                  on_array.fit(ds.X, ds.y, qid=ds.qid, eval_set=[(ds.X, ds.y, ds.qid)])
                                  .evals_result_["training"][model._score_metric(ds.y)])
    with pytest.raises(ValueError, match="training columns in another order"):
        model.predict(frame[columns[::-1]])
    with pytest.raises(ValueError, match=r"missing \['z'\], unexpected \['v'\]"):
        model.predict(frame.rename(columns={"z": "v"}))
    model.save(tmp_path / "net.json")
    loaded = cls.load(tmp_path / "net.json")
    assert list(loaded.feature_names_in_) == columns
    with pytest.raises(ValueError, match="training columns in another order"):
        loaded.predict(frame[columns[::-1]])
    with pytest.raises(ValueError, match="column\\(s\\) 'x' have dtype 'category'"):
        cls(**params).fit(frame.astype({"x": "category"}), ds.y, qid=ds.qid)
    # text: convert it; a category column is the tree rankers' way, not a net's (it said "or make it a category")
    with pytest.raises(ValueError, match=r"convert it \(pd.to_numeric for numbers kept as text\) \(the tree rankers "
                                         r"also take it as a pandas 'category' column\)$"):
        cls(**params).fit(frame.assign(x=frame.x.astype(str)), ds.y, qid=ds.qid)


def test_incomplete_features_are_refused_in_words_for_a_net():
    ds = make_ltr(6, docs_per_query=(4, 6), n_features=3, n_informative=2, random_state=0)
    model = RankNet(max_epochs=1, random_state=0, n_jobs=1)
    for value, message in ((np.inf, "features must be finite .*the neural ones need complete features"),
                           (np.nan, "has a missing value \\(NaN\\) at row 2, feature 1; neural rankers need complete")):
        X = ds.X.copy()
        X[2, 1] = value
        with pytest.raises(ValueError, match=message):
            model.fit(X, ds.y, qid=ds.qid)
        with pytest.raises(ValueError, match=message):
            model.fit(ds.X, ds.y, qid=ds.qid).predict(X)


def test_a_bare_ranking_dataset_is_one_eval_set_for_the_nets_and_the_trees():
    # the DataFrame encoding of the eval sets iterated it as a list ("'RankingDataset' object is not iterable")
    from metricrank import LambdaMART

    train = make_ltr(10, docs_per_query=(4, 8), n_features=4, n_informative=2, random_state=0)
    valid = make_ltr(5, docs_per_query=(4, 8), n_features=4, n_informative=2, random_state=1)
    for make in (lambda: RankNet(max_epochs=2, random_state=0, n_jobs=1),
                 lambda: LambdaMART(n_estimators=3, min_data_in_leaf=2, n_jobs=1)):
        bare = make().fit(train, eval_set=valid)
        listed = make().fit(train, eval_set=[valid])
        assert list(bare.evals_result_) == ["valid_0"] and bare.evals_result_ == listed.evals_result_

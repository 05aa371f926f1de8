"""local_optimality: Burges' Monte-Carlo test, and the parameter adapters it moves models through."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, Ridge

from metricrank import LambdaMART, RankingDataset, evaluate, make_ltr
from metricrank.analysis import get_params_vector, local_optimality, n_directions_for, set_params_vector
from metricrank.analysis._params import adapter_for


@pytest.mark.parametrize("delta, p0", [(0.01, 0.01), (0.05, 0.01), (0.01, 0.1), (0.2, 0.3)])
def test_number_of_directions_is_the_formula(delta, p0):
    n = n_directions_for(delta, p0)
    assert n == math.ceil(math.log(delta) / math.log(1 - p0))
    assert (1 - p0) ** n <= delta < (1 - p0) ** (n - 1)  # the smallest n with (1 - p0)^n <= δ
    assert n_directions_for(0.01, 0.01) == 459


def test_perfect_linear_ranker_has_no_ascent_direction():
    X = np.array([[3.0, 0.5], [2.0, 1.0], [1.0, 0.2], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([4.0, 3.0, 2.0, 1.0, 0.0])
    model = LinearRegression().fit(X, y)
    assert evaluate(y, model.predict(X), metric="NDCG") == 1.0
    r = local_optimality(model, X, y, metric="NDCG", random_state=0)
    assert r.n_directions == 459 and r.gains.shape == (459,)
    assert r.n_ascent == 0 and r.max_gain <= 0 and r.base_value == 1.0
    assert "at most p0 = 0.01" in r.bound and "0.99" in r.bound
    # a step large enough to reorder documents: many directions descend, none ascends
    big = local_optimality(model, X, y, metric="NDCG", random_state=0, step=2 * np.linalg.norm(model.coef_))
    assert big.n_ascent == 0 and np.count_nonzero(big.gains < 0) > 20


@pytest.fixture(scope="module")
def linear_data():
    return make_ltr(60, docs_per_query=(5, 20), n_features=5, n_informative=5, random_state=1)


def test_bad_linear_model_has_ascent_directions(linear_data):
    ds = linear_data
    model = Ridge(alpha=1.0).fit(ds.X, ds.y)
    good = evaluate(ds, model.predict(ds.X), metric="NDCG:top=10")
    model.coef_ = -model.coef_  # the reversed ranker: almost every direction improves it
    r = local_optimality(model, ds, metric="NDCG:top=10", random_state=0)
    assert r.base_value < good
    assert r.n_ascent > 0 and r.max_gain > 0
    assert "not at a local optimum" in r.bound
    assert r.gains[np.argmax(r.gains)] == r.max_gain
    # the profile passes through the base value at 0 and improves along the best direction
    assert r.profile_steps[8] == 0 and r.profile_steps[10] == 1
    assert r.profile_values[8] == r.base_value and r.profile_values[10] == pytest.approx(r.base_value + r.max_gain)
    # at a larger step most directions improve the reversed ranker, far more than the fitted one
    step = 0.05 * np.linalg.norm(model.coef_)
    reversed_ = local_optimality(model, ds, metric="NDCG:top=10", random_state=0, step=step, n_directions=100)
    model.coef_ = -model.coef_
    fitted = local_optimality(model, ds, metric="NDCG:top=10", random_state=0, step=step, n_directions=100)
    assert reversed_.n_ascent > 60 and fitted.n_ascent < reversed_.n_ascent / 2


def test_deterministic_given_random_state(linear_data):
    ds = linear_data
    model = Ridge(alpha=1.0).fit(ds.X, ds.y)
    a = local_optimality(model, ds, metric="MAP", random_state=3, n_directions=30)
    b = local_optimality(model, ds, metric="MAP", random_state=3, n_directions=30)
    c = local_optimality(model, ds, metric="MAP", random_state=4, n_directions=30)
    np.testing.assert_array_equal(a.gains, b.gains)
    np.testing.assert_array_equal(a.best_direction, b.best_direction)
    assert not np.array_equal(a.gains, c.gains)
    assert "only 30 directions" in a.bound or a.n_ascent > 0


@pytest.fixture(scope="module", params=[1, 2], ids=["one model", "two models"])
def boosted(request):
    ds = make_ltr(40, docs_per_query=(5, 20), n_features=6, random_state=2)
    valid = make_ltr(15, docs_per_query=(5, 20), n_features=6, random_state=3)
    # n_models=2: two trees per iteration, the score their mean
    kw = dict(num_leaves=7, min_data_in_leaf=5, learning_rate=0.2, n_jobs=1, random_state=0, n_models=request.param)
    base = LambdaMART("NDCG:top=10", n_estimators=5, **kw).fit(ds)
    model = LambdaMART("NDCG:top=10", n_estimators=25, **kw).fit(ds, eval_set=[valid], early_stopping_rounds=3,
                                                                  init_model=base)
    return ds, model


def test_lambdamart_gather_sum_equals_predict(boosted):
    ds, model = boosted
    adapter = adapter_for(model)
    theta = get_params_vector(model)
    assert theta.shape[0] == adapter.offsets[-1]
    assert adapter.n_trees == (model.best_iteration_ or model.n_estimators_) * model.n_models_
    np.testing.assert_allclose(adapter.scorer(ds.X)(theta), model.predict(ds.X), rtol=1e-13, atol=1e-13)


def test_lambdamart_perturbed_equals_lightgbm_on_a_copy(boosted):
    ds, model = boosted
    before = model.predict(ds.X)
    theta = get_params_vector(model)
    rng = np.random.default_rng(0)
    moved = theta + 0.05 * rng.standard_normal(theta.shape[0])
    oracle = set_params_vector(model, moved)  # set_leaf_output on a booster copy
    assert oracle.booster_ is not model.booster_
    np.testing.assert_allclose(adapter_for(model).scorer(ds.X)(moved), oracle.predict(ds.X), rtol=0, atol=1e-12)
    assert not np.allclose(oracle.predict(ds.X), before)
    np.testing.assert_array_equal(model.predict(ds.X), before)  # the user's model is untouched


def test_lambdamart_local_optimality_runs_and_leaves_model_alone(boosted, tmp_path):
    ds, model = boosted
    before = model.predict(ds.X)
    r = local_optimality(model, ds, metric="NDCG:top=10", random_state=0, n_directions=40)
    assert r.base_value == pytest.approx(evaluate(ds, before, metric="NDCG:top=10"))
    assert r.n_directions == 40 and 0 <= r.n_ascent <= 40
    np.testing.assert_array_equal(model.predict(ds.X), before)
    r.plot(tmp_path / "profile.png")
    assert (tmp_path / "profile.png").stat().st_size > 1000


def test_torch_module():
    torch = pytest.importorskip("torch")
    ds = make_ltr(20, docs_per_query=(5, 10), n_features=4, n_informative=2, random_state=5)
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)).double()

    class Net:  # the protocol a net class exposes: module_ and _forward_scores
        def __init__(self, module):
            self.module_ = module

        def _forward_scores(self, X):
            return self.module_(torch.as_tensor(np.asarray(X), dtype=torch.float64)).reshape(-1)

    net = Net(module)
    theta = get_params_vector(net)
    assert theta.shape[0] == 4 * 3 + 3 + 3 + 1
    scorer = adapter_for(net).scorer(ds.X)
    with torch.no_grad():
        expected = module(torch.as_tensor(ds.X)).reshape(-1).numpy()
    np.testing.assert_allclose(scorer(theta), expected)
    moved = theta + 0.1
    np.testing.assert_allclose(scorer(moved), set_params_vector(net, moved)._forward_scores(ds.X).detach().numpy())
    np.testing.assert_array_equal(get_params_vector(net), theta)  # untouched
    r = local_optimality(module, ds, metric="NDCG:top=5", random_state=0, n_directions=20)  # a bare module
    assert r.n_directions == 20


def test_bad_input(linear_data):
    ds = linear_data
    model = Ridge().fit(ds.X, ds.y)
    with pytest.raises(ValueError, match="model"):
        local_optimality(object(), ds)
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="delta"):
            local_optimality(model, ds, delta=bad)
        with pytest.raises(ValueError, match="p0"):
            local_optimality(model, ds, p0=bad)
    with pytest.raises(ValueError, match="unknown metric"):
        local_optimality(model, ds, metric="NoSuchMetric")
    with pytest.raises(ValueError, match="step"):
        local_optimality(model, ds, step=-1.0)
    # rows, columns and fitting are named as such (they surfaced as the metric's "y_score", as LightGBM's or
    # NumPy's shape errors, and as "no parameters to perturb")
    with pytest.raises(ValueError, match=f"^y has {ds.X.shape[0] - 1} labels but X has {ds.X.shape[0]} rows"):
        local_optimality(model, ds.X, ds.y[:-1], qid=ds.qid)
    with pytest.raises(ValueError, match=f"^X has {ds.X.shape[1] - 1} features, but Ridge was fitted on "
                                         f"{ds.X.shape[1]}"):
        local_optimality(model, ds.X[:, 1:], ds.y, qid=ds.qid)
    with pytest.raises(NotFittedError):
        local_optimality(Ridge(), ds)
    with pytest.raises(NotFittedError):
        local_optimality(LambdaMART(), ds)
    # a wrong type names its parameter too (it raised NumPy's TypeError)
    for name, bad in (("step", "a"), ("tol", "a"), ("n_directions", "a"), ("n_directions", 2.5), ("random_state", "x"),
                      ("random_state", -1)):
        with pytest.raises(ValueError, match=f"^{name} must be"):
            local_optimality(model, ds, **{name: bad})


@pytest.mark.parametrize("net", ["RankNet", "LambdaRank"])
def test_the_librarys_nets_are_tested_as_they_predict(net):
    pytest.importorskip("torch")
    import metricrank

    ds = make_ltr(20, docs_per_query=(5, 10), n_features=4, n_informative=2, random_state=5)
    ds = RankingDataset(ds.X * 50 + 7, ds.y, group_ptr=ds.group_ptr)  # far from standardised: a lost step shows
    model = getattr(metricrank, net)(hidden_layer_sizes=(3,), max_epochs=2, random_state=0, n_jobs=1).fit(ds)
    before = model.predict(ds.X)
    theta = get_params_vector(model)
    assert theta.shape[0] == 4 * 3 + 3 + 3 + 1
    np.testing.assert_allclose(adapter_for(model).scorer(ds.X)(theta), before, rtol=1e-12)
    moved = theta + 0.1
    oracle = set_params_vector(model, moved)  # a copy of the net with those parameters
    np.testing.assert_allclose(adapter_for(model).scorer(ds.X)(moved), oracle.predict(ds.X), rtol=1e-12)
    assert not np.allclose(oracle.predict(ds.X), before)
    r = local_optimality(model, ds, metric="NDCG:top=5", random_state=0, n_directions=20)
    assert r.base_value == pytest.approx(evaluate(ds, before, metric="NDCG:top=5"), abs=1e-12)
    np.testing.assert_array_equal(model.predict(ds.X), before)  # the user's net is untouched

"""``random_state`` takes None, an integer, a numpy RandomState or a numpy Generator everywhere, as scikit-learn's and
LightGBM's estimators do. A RandomState or Generator is drawn from once per fit (LightGBM's scikit-learn rule), so it
advances and the next fit differs; the oracle is the integer that draw gives, fitted as a plain seed."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from metricrank import GBRanker, LambdaMART, LPRanker, make_ltr
from metricrank.analysis import local_optimality
from metricrank.learners import MARTClassifier
from metricrank.learners.gbranker import load_ranker

LIGHTGBM_SEEDS = 2 ** 31  # LightGBM's seeds are C ints


def first_draws(kind, seed, n=2):
    """The first ``n`` seeds a fresh RandomState or Generator of ``seed`` gives a fit."""
    if kind == "RandomState":
        rs = np.random.RandomState(seed)
        return [int(rs.randint(0, LIGHTGBM_SEEDS)) for _ in range(n)]
    rng = np.random.default_rng(seed)
    return [int(rng.integers(0, LIGHTGBM_SEEDS)) for _ in range(n)]


def generator(kind, seed):
    return np.random.RandomState(seed) if kind == "RandomState" else np.random.default_rng(seed)


@pytest.fixture(scope="module")
def data():
    return make_ltr(40, docs_per_query=(5, 15), n_features=6, random_state=0)


def trees(model):
    return model.booster_.model_to_string().split("parameters:")[0]


@pytest.mark.parametrize("kind", ["RandomState", "Generator"])
def test_a_generator_seeds_each_fit_with_one_draw(data, kind):
    # YetiRank's permutations and the randomised thresholds both read the seed, so a different draw shows
    first, second = first_draws(kind, 11)
    rng = generator(kind, 11)
    model = GBRanker("YetiRank", n_estimators=6, extra_trees=True, random_state=rng).fit(data)
    assert model.seed_ == first and model.booster_.params["seed"] == first
    assert trees(model) == trees(GBRanker("YetiRank", n_estimators=6, extra_trees=True, random_state=first).fit(data))
    assert model.get_params()["random_state"] is rng  # the parameter is left as given (scikit-learn's contract)
    model.fit(data)  # the generator advanced: the next fit draws the next seed
    assert model.seed_ == second
    assert trees(model) == trees(GBRanker("YetiRank", n_estimators=6, extra_trees=True, random_state=second).fit(data))
    assert first != second


def test_an_integer_or_none_is_the_seed_itself(data):
    assert GBRanker("PairLogit", n_estimators=2, random_state=7).fit(data).seed_ == 7
    model = GBRanker("PairLogit", n_estimators=2).fit(data)
    assert model.seed_ is None and "seed" not in model.booster_.params  # LightGBM's own fixed seeds


def test_mart_classifier_draws_its_seed_too(data):
    y = (data.y > 0).astype(int)
    first = first_draws("RandomState", 5, 1)[0]
    model = MARTClassifier(n_estimators=5, extra_trees=True, random_state=np.random.RandomState(5)).fit(data.X, y)
    by_int = MARTClassifier(n_estimators=5, extra_trees=True, random_state=first).fit(data.X, y)
    assert model.seed_ == first and trees(model) == trees(by_int)


def test_the_capacity_checks_fold_models_share_the_fits_draw(low_threshold):
    # the check clones the estimator: a clone holds a copy of the generator, which would draw a second seed
    from metricrank.learners.gbranker import GBRanker as Fitted

    ds = make_ltr(150, docs_per_query=(5, 15), n_features=6, relevance="nonlinear", noise=0.1, random_state=4)
    seeds, fit = [], Fitted.fit

    def recording_fit(self, *args, **kwargs):
        out = fit(self, *args, **kwargs)
        seeds.append(self.seed_)
        return out

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(Fitted, "fit", recording_fit)
        model = LambdaMART("NDCG@10", grow_policy="leafwise", n_estimators=10,
                           random_state=np.random.RandomState(9)).fit(ds)
    assert model.capacity_check_ is not None and len(seeds) >= 3  # fold models, then the final fit
    assert seeds == [first_draws("RandomState", 9, 1)[0]] * len(seeds)


def test_a_saved_model_keeps_the_seed_it_drew(data, tmp_path):
    model = LambdaMART("MAP", n_estimators=5, extra_trees=True, random_state=np.random.default_rng(3)).fit(data)
    path = tmp_path / "model.json"
    model.save(path)  # a generator is no JSON: the file keeps the drawn seed
    loaded = load_ranker(path)
    assert loaded.random_state == loaded.seed_ == model.seed_ == first_draws("Generator", 3, 1)[0]
    np.testing.assert_array_equal(loaded.predict(data.X), model.predict(data.X))
    refit = LambdaMART(**loaded.get_params()).fit(data)  # the file's parameters retrain the same model
    assert trees(refit) == trees(model)


@pytest.mark.parametrize("bad", [-1, 2 ** 31, 2.5, "x", True, np.random.SeedSequence(0)])
def test_other_seeds_are_refused_by_name(data, bad):
    with pytest.raises(ValueError, match=r"random_state must be None, an integer in \[0, 2\*\*31\), a numpy "
                                         r"RandomState or a numpy Generator; got "):
        GBRanker(n_estimators=2, random_state=bad).fit(data)


# the functions and estimators seeded through numpy's Generator take a RandomState by drawing a Generator's seed


def as_generator_oracle(seed):
    return np.random.default_rng(np.random.RandomState(seed).randint(0, LIGHTGBM_SEEDS))  # draw_seed's one draw


def test_make_ltr_takes_a_random_state():
    a = make_ltr(5, random_state=np.random.RandomState(3))
    b = make_ltr(5, random_state=as_generator_oracle(3))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)


def test_lp_ranker_takes_a_random_state(data):
    # max_pairs draws a sample of the pairs: the seed decides which
    params = dict(C=1.0, max_pairs=60, border=1)
    a = LPRanker(**params, random_state=np.random.RandomState(2)).fit(data.X, data.y)
    b = LPRanker(**params, random_state=as_generator_oracle(2)).fit(data.X, data.y)
    c = LPRanker(**params, random_state=as_generator_oracle(3)).fit(data.X, data.y)
    np.testing.assert_array_equal(a.decision_function(data.X), b.decision_function(data.X))
    assert not np.array_equal(a.decision_function(data.X), c.decision_function(data.X))


def test_the_optimality_test_takes_a_random_state(data):
    model = Ridge().fit(data.X, data.y)
    a = local_optimality(model, data, metric="MAP", random_state=np.random.RandomState(1), n_directions=20)
    b = local_optimality(model, data, metric="MAP", random_state=as_generator_oracle(1), n_directions=20)
    np.testing.assert_array_equal(a.gains, b.gains)


@pytest.mark.parametrize("bad", [-1, "x", 1.5])
def test_generator_seeds_name_what_they_take(bad):
    with pytest.raises(ValueError, match="random_state must be None, an integer >= 0, a numpy RandomState or a "
                                         "numpy Generator; got "):
        make_ltr(5, random_state=bad)

"""One spec parser for metrics and objectives: the same syntax, the same errors."""

from __future__ import annotations

import pytest

from metricrank import get_metric
from metricrank.objectives import get_objective


@pytest.mark.parametrize("spec, canonical", [
    ("ndcg@10", "NDCG:top=10"), ("NDCG:top=10;type=Exp", "NDCG:top=10;type=Exp"),
    ("map@5:border=1", "MAP:top=5;border=1"), (" MRR : top=3 ", "MRR:top=3"),
])
def test_metric_specs(spec, canonical):
    assert get_metric(spec).spec == canonical


@pytest.mark.parametrize("spec, message", [
    ("ndcg@10:top=3", "sets 'top' twice"),
    ("NDCG:top=1;top=2", "sets 'top' twice"),
    ("NDCG:top", "parameter 'top' is not of the form name=value"),
    ("ndcg@", "cannot parse metric spec"),
    ("foo@3", "foo@k is not a known shorthand"),
    ("NDCG:tpo=3", "NDCG has no parameter 'tpo'; its parameters are"),
    # copied from a CatBoost eval_metric
    ("NDCG:top=10;hints=skip_train~false", "hints is CatBoost's word on whether to compute a metric on the training "
                                           "data during training, not a parameter of NDCG: drop it"),
    ("NDCG:top=x", "NDCG: bad value for top"),
    ("", "a metric spec must be a non-empty string"),
])
def test_metric_spec_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        get_metric(spec)


@pytest.mark.parametrize("spec, message", [
    ("YetiRank:decay=0.5;decay=0.6", "sets 'decay' twice"),
    ("YetiRank:decay", "parameter 'decay' is not of the form name=value"),
    ("YetiRank:permutations=x", "YetiRank: bad value for permutations"),
    ("YetiRank:tpo=3", "YetiRank has no parameter 'tpo'; its parameters are mode, decay, permutations, top, "
                        "num_neighbors, dcg_type, dcg_denominator, noise, noise_power, use_weights"),
    ("Yeti@3", "unknown objective"),
    # the name is read before the parameters, and the other libraries' ranking objectives say what trains alike
    ("NoSuch:oops", "unknown objective 'NoSuch:oops'; objectives are"),
    ("rank:ndcg", r"unknown objective 'rank:ndcg' \(XGBoost's; here LambdaMART\('NDCG:type=Exp'\)"),
    ("lambdarank", r"unknown objective 'lambdarank' \(LightGBM's; here LambdaMART"),
    ("StochasticRank", "needs the parameter 'metric'"),
])
def test_objective_spec_errors_use_the_same_parser(spec, message):
    with pytest.raises(ValueError, match=message):
        get_objective(spec)


def test_objective_specs_keep_what_was_written():
    assert get_objective("yetirank:permutations=20").spec == "YetiRank:permutations=20"
    assert get_objective("YetiRank").params == {"mode": "Classic", "decay": 0.99, "permutations": 10, "noise": "Gumbel",
                                                "use_weights": True}
    assert get_objective("lambda:ndcg@5").spec == "lambda:NDCG:top=5"

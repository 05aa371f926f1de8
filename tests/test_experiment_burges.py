"""Burges' MQ2008 experiment: a one-fold smoke run of the real pipeline (tiny nets and boosting)."""

from __future__ import annotations

import re

import pytest

from metricrank.experiments.burges_mq2008 import MODELS, TEST_METRICS, TRAINED, run


@pytest.mark.data
def test_one_fold_report(shared_data, tmp_path):
    report = run(data_dir=shared_data, out_dir=tmp_path, folds=(1,), n_directions=10, n_estimators=8,
                 early_stopping_rounds=3, net_epochs=1, n_jobs=1, progress=False)
    assert "| model | " + " | ".join(t for t, _s in TEST_METRICS) + " | train s per fold |" in report
    for name in MODELS:
        value = r"(\*\*)?0\.\d{4}(\*\*)?"  # the best of a column is bold
        assert re.search(rf"^\| {re.escape(name)} \| {value} \| {value} \| {value} \| \d", report, re.M), name
    alpha = re.search(r"^\| 1 \| (\d\.\d{4}) \|", report, re.M)
    assert alpha is not None and 0.0 <= float(alpha.group(1)) <= 1.0
    assert "| Combination LM+LR vs LambdaMART |" in report and "| Combination LM+LR vs LambdaRank |" in report
    for name in TRAINED:
        assert re.search(rf"^\| {name} \| 1 \| 0\.\d{{4}} \| \d+/10 \|", report, re.M), name
        assert re.search(rf"^- {name}, fold 1: .*(ascent directions exist|no ascent direction in 10)", report,
                         re.M), name
    assert "The same test with step = 0.1 × the default" in report
    for name in TRAINED:
        assert re.search(rf"^\| {name} \| \d+/10 \| \d+ \|", report, re.M), name
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == report
    pngs = ["combination.png"] + [f"optimality_{name}.png" for name in TRAINED]
    for png in pngs:
        assert (tmp_path / png).stat().st_size > 1000
        assert f"]({png})" in report
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(pngs + ["report.md"])


def test_lambdamart_trains_on_the_exact_lambda_of_the_target():
    # Burges' LambdaMART is λ-NDCG: the experiment names the target, not LambdaMART's "auto" (YetiRank)
    from types import SimpleNamespace

    from metricrank import make_ltr
    from metricrank.experiments.burges_mq2008 import TARGET, _fit_models

    fold = SimpleNamespace(train=make_ltr(20, n_features=5, random_state=0), vali=make_ltr(8, n_features=5,
                                                                                          random_state=1))
    models, _ = _fit_models(fold, n_estimators=3, early_stopping_rounds=2, net_epochs=1, n_jobs=1, random_state=0)
    assert models["LambdaMART"].target_ == TARGET and models["LambdaMART"].objective_.name == "lambda"

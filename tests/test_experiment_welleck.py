"""Welleck's MQ2008 experiment: a one-fold smoke run of the real pipeline."""

from __future__ import annotations

import pytest

from metricrank.experiments.welleck_mq2008 import TARGETS, run


@pytest.mark.data
def test_one_fold_report(shared_data, tmp_path):
    report = run(data_dir=shared_data, out_dir=tmp_path, folds=(1,), learning_rates=(0.5,), n_estimators=8,
                 early_stopping_rounds=3, n_jobs=1, progress=False)
    for name, *_ in TARGETS:
        assert f"| {name} |" in report
    assert "| paper: LambdaMART-MAUC | 0.734 | | 0.474 |" in report
    assert (tmp_path / "report.md").read_text() == report
    assert (tmp_path / "precision.png").stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["precision.png", "report.md"]


def test_lambdamart_trains_on_the_exact_lambda_of_its_target():
    # Welleck's LambdaMART-MAUC is λ-MAUC: the experiment names the target, not LambdaMART's "auto" (YetiRank)
    from types import SimpleNamespace

    from metricrank import make_ltr
    from metricrank.experiments.welleck_mq2008 import _fit_selected

    fold = SimpleNamespace(train=make_ltr(30, n_features=5, random_state=0), vali=make_ltr(10, n_features=5,
                                                                                           random_state=1))
    _, _, model = _fit_selected("MAUC", "MAUC", fold, (0.1,), 3, 2, 1)
    assert model.target_ == "MAUC" and model.objective_.name == "lambda"

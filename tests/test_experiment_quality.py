"""The quality suite's protocol: tree count chosen on validation by the judged metric, test value there."""

from __future__ import annotations

import numpy as np
import pytest

from metricrank import LambdaMART, evaluate, make_ltr
from metricrank.experiments import quality


@pytest.fixture(scope="module")
def split():
    def make(n, seed):
        return make_ltr(n, docs_per_query=(5, 15), n_features=8, relevance="nonlinear", random_state=seed)

    return quality.Split("tiny", 1, make(40, 0), make(15, 1), make(15, 2))


def test_run_system_selects_the_tree_count_on_validation(split):
    metrics = ["NDCG:top=5", "MAP"]
    fit = quality.lambdamart("NDCG:top=5", num_leaves=4, min_data_in_leaf=3)
    out = quality.run_system(fit, split, metrics, lr=0.3, trees=15, threads=1)
    # independent oracle: the same model, every tree count evaluated by hand
    model = LambdaMART("NDCG:top=5", n_estimators=15, learning_rate=0.3, num_leaves=4, min_data_in_leaf=3,
                       n_jobs=1, random_state=0).fit(split.train)
    for metric in metrics:
        curve = [evaluate(split.vali, model.predict(split.vali.X, num_iteration=k), metric=metric)
                 for k in range(1, 16)]
        k = int(np.argmax(curve)) + 1
        assert out[metric]["trees"] == k
        assert out[metric]["vali"] == pytest.approx(curve[k - 1], rel=1e-12)
        assert out[metric]["test"] == pytest.approx(
            evaluate(split.test, model.predict(split.test.X, num_iteration=k), metric=metric), rel=1e-12)
        assert len(out[metric]["per_query"]) == split.test.n_queries


@pytest.mark.parametrize("anchor", ["LightGBM lambdarank", "CatBoost YetiRank"])
def test_anchor_curves_match_their_own_staged_predictions(split, anchor):
    out = quality.run_system(quality.ANCHORS[anchor], split, ["NDCG:top=5"], lr=0.3, trees=8, threads=1)
    assert 1 <= out["NDCG:top=5"]["trees"] <= 8
    assert 0 < out["NDCG:top=5"]["test"] <= 1


def test_run_writes_a_report_with_every_system(split, tmp_path):
    systems = {"LambdaMART(NDCG:top=10;type=Exp)": (("NDCG:top=10;type=Exp",), quality.lambdamart(
        "NDCG:top=10;type=Exp", num_leaves=4, min_data_in_leaf=3))}
    report = quality.run(out_dir=tmp_path, splits=[split], lr=0.3, trees=6, threads=1,
                         anchors=["LightGBM lambdarank"], metricrank_systems=systems, progress=False)
    assert "## tiny" in report and "LightGBM lambdarank (best anchor)" in report
    assert "LambdaMART(NDCG:top=10;type=Exp)" in report
    assert (tmp_path / "results.json").exists() and (tmp_path / "report.md").exists()
    assert (tmp_path / "tiny.png").exists()

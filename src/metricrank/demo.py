"""The README's main job: train rankers on built-in synthetic data and compare
them on every kind of metric the package defines."""

from __future__ import annotations

import numpy as np

from .data import make_ltr
from .metrics import evaluate_many

DEMO_METRICS = (
    "NDCG:top=10", "NDCG:top=10;type=Exp", "MAP", "MRR", "ERR:type=Graded", "PrecisionAt:top=5",
    "AUC:type=Ranking", "QueryAUC:type=Ranking", "MAUC", "PairAccuracy",
)


def _fit_rankers(train, seed):
    """Baselines that need no metricrank learner: what users compare against."""
    import lightgbm as lgb
    from sklearn.linear_model import Ridge

    rankers = {}
    ridge = Ridge(alpha=1.0).fit(train.X, train.y)
    rankers["Ridge (pointwise)"] = ridge.predict
    native = lgb.LGBMRanker(
        n_estimators=100, learning_rate=0.1, num_leaves=31, random_state=seed, verbose=-1, n_jobs=2,
    ).fit(train.X, train.y, group=train.query_sizes)
    rankers["LightGBM lambdarank"] = native.predict
    rankers["LightGBM regression"] = lgb.LGBMRegressor(
        n_estimators=100, learning_rate=0.1, num_leaves=31, random_state=seed, verbose=-1, n_jobs=2,
    ).fit(train.X, train.y).predict
    correlations = np.array([np.corrcoef(train.X[:, j], train.y)[0, 1] for j in range(train.X.shape[1])])
    best = int(np.nanargmax(np.abs(correlations)))
    sign = float(np.sign(correlations[best]))
    rankers[f"feature x{best}"] = lambda X, j=best, sign=sign: sign * X[:, j]
    rng = np.random.default_rng(seed)
    rankers["random"] = lambda X: rng.random(X.shape[0])
    return rankers


def run_demo(n_queries: int = 300, seed: int = 0, console=None):
    """Train baseline rankers on ``make_ltr`` data and print test metrics.

    Returns the table as ``{ranker: {metric: value}}``.
    """
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    data = make_ltr(n_queries, n_features=30, n_informative=8, noise=2.0, random_state=seed)
    cut = int(0.7 * data.n_queries)
    train = data.subset_queries(np.arange(cut))
    test = data.subset_queries(np.arange(cut, data.n_queries))
    console.print(f"[bold]metricrank demo[/bold]: make_ltr data, {train.n_queries} train / "
                  f"{test.n_queries} test queries, {data.n_features} features, labels 0..4")
    results = {}
    for name, predict in _fit_rankers(train, seed).items():
        results[name] = {r.spec: r.value for r in evaluate_many(test, predict(test.X), DEMO_METRICS)}
    table = Table(title="test-set metrics (higher is better)")
    table.add_column("metric", no_wrap=True)
    for name in results:
        table.add_column(name, justify="right")
    for spec in DEMO_METRICS:
        best = max(r[spec] for r in results.values())
        table.add_row(spec, *(f"[bold]{r[spec]:.4f}[/bold]" if r[spec] == best else f"{r[spec]:.4f}"
                              for r in results.values()))
    console.print(table)
    return results

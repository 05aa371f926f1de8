"""The README's main job: train LambdaMART for several target metrics on built-in
synthetic data, next to the usual baselines, and compare every ranker on every
evaluation metric (does each target win on its own metric?)."""

from __future__ import annotations

import sys

import numpy as np

from .data import make_ltr
from .metrics import evaluate_many

DEMO_METRICS = (
    "NDCG:top=10", "NDCG:top=10;type=Exp", "MAP", "MRR", "ERR:type=Graded", "PrecisionAt:top=5",
    "ROCArea", "MAUC", "AUC:type=Ranking", "PairAccuracy",
)
SHORT_NAMES = {
    "NDCG:top=10": "NDCG@10", "NDCG:top=10;type=Exp": "NDCG@10e", "MAP": "MAP", "MRR": "MRR",
    "ERR:type=Graded": "ERR", "PrecisionAt:top=5": "P@5", "ROCArea": "ROCArea", "MAUC": "MAUC",
    "AUC:type=Ranking": "AUC-gr", "PairAccuracy": "PairAcc",
}
#: λ targets trained by the demo: (column name, target spec)
DEMO_TARGETS = (
    ("λ-NDCG@10", "NDCG:top=10;type=Exp"), ("λ-MAP", "MAP"), ("λ-MRR", "MRR"), ("λ-ERR", "ERR:type=Graded"),
    ("λ-ROCArea", "ROCArea"), ("λ-MAUC", "MAUC"), ("RankNet", "RankNet"),
)


def _fit_rankers(train, seed, n_estimators):
    """LambdaMART for each demo target, then the baselines users compare against."""
    import lightgbm as lgb
    from sklearn.linear_model import Ridge

    from .learners import LambdaMART

    rankers = {}
    for name, target in DEMO_TARGETS:
        model = LambdaMART(target, n_estimators=n_estimators, learning_rate=0.1, num_leaves=31,
                           random_state=seed, n_jobs=2).fit(train)
        rankers[name] = model.predict
    ridge = Ridge(alpha=1.0).fit(train.X, train.y)
    rankers["Ridge (pointwise)"] = ridge.predict
    native = lgb.LGBMRanker(
        n_estimators=n_estimators, learning_rate=0.1, num_leaves=31, random_state=seed, verbose=-1, n_jobs=2,
    ).fit(train.X, train.y, group=train.query_sizes)
    rankers["LightGBM lambdarank"] = native.predict
    rankers["LightGBM regression"] = lgb.LGBMRegressor(
        n_estimators=n_estimators, learning_rate=0.1, num_leaves=31, random_state=seed, verbose=-1, n_jobs=2,
    ).fit(train.X, train.y).predict
    correlations = np.array([np.corrcoef(train.X[:, j], train.y)[0, 1] for j in range(train.X.shape[1])])
    best = int(np.nanargmax(np.abs(correlations)))
    sign = float(np.sign(correlations[best]))
    rankers[f"feature x{best}"] = lambda X, j=best, sign=sign: sign * X[:, j]
    rng = np.random.default_rng(seed)
    rankers["random"] = lambda X: rng.random(X.shape[0])
    return rankers


def run_demo(n_queries: int = 300, seed: int = 0, console=None, n_estimators: int = 60):
    """Train baseline rankers on ``make_ltr`` data and print test metrics.

    Returns the table as ``{ranker: {metric: value}}``.
    """
    from rich.console import Console
    from rich.table import Table

    # a pipe gets rich's 80 columns by default, too narrow for a dozen columns
    console = console or Console(width=None if sys.stdout.isatty() else 140)
    data = make_ltr(n_queries, n_features=30, n_informative=8, noise=2.0, random_state=seed)
    cut = int(0.7 * data.n_queries)
    train = data.subset_queries(np.arange(cut))
    test = data.subset_queries(np.arange(cut, data.n_queries))
    console.print(f"[bold]metricrank demo[/bold]: make_ltr data, {train.n_queries} train / "
                  f"{test.n_queries} test queries, {data.n_features} features, labels 0..4")
    results = {}
    for name, predict in _fit_rankers(train, seed, n_estimators).items():
        results[name] = {r.spec: r.value for r in evaluate_many(test, predict(test.X), DEMO_METRICS)}
    table = Table(title="test-set metrics (higher is better; bold = best in its column)",
                  caption="λ-X = LambdaMART trained on the exact λ-gradients of metric X (compare row λ-X "
                          "with column X); make_ltr labels are linear in the features, which suits Ridge")
    table.add_column("ranker", no_wrap=True)
    for spec in DEMO_METRICS:
        table.add_column(SHORT_NAMES.get(spec, spec), justify="right")
    best = {spec: max(r[spec] for r in results.values()) for spec in DEMO_METRICS}
    for name, row in results.items():
        table.add_row(name, *(f"[bold]{row[s]:.4f}[/bold]" if row[s] == best[s] else f"{row[s]:.4f}"
                              for s in DEMO_METRICS))
    table.add_section()
    console.print("columns: " + ", ".join(f"{SHORT_NAMES[s]} = {s}" for s in DEMO_METRICS))
    console.print(table)
    return results

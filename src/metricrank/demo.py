"""The README's main job: train LambdaMART for several target metrics on built-in
synthetic data whose relevance is nonlinear in the features (as in web search,
where boosted trees beat linear models), next to the usual baselines, and compare
every ranker on every evaluation metric: does each target win on its own metric,
and where does it not?"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from ._checks import check_lightgbm_seed, is_integer
from .data import make_ltr
from .metrics import evaluate_many
from .objectives.target_choice import STOCHASTIC_MRR_MIN_DOCS

#: The fewest queries the demo's split leaves one of in each of train, validation and test.
MIN_DEMO_QUERIES = 5

DEMO_METRICS = (
    "NDCG:top=10", "NDCG:top=10;type=Exp", "MAP", "MRR", "ERR:type=Graded", "PrecisionAt:top=5",
    "ROCArea", "MAUC", "AUC:type=Ranking", "PairAccuracy",
)
SHORT_NAMES = {
    "NDCG:top=10": "NDCG@10", "NDCG:top=10;type=Exp": "NDCG@10e", "MAP": "MAP", "MRR": "MRR",
    "ERR:type=Graded": "ERR", "PrecisionAt:top=5": "P@5", "ROCArea": "ROCArea", "MAUC": "MAUC",
    "AUC:type=Ranking": "AUC-gr", "PairAccuracy": "PairAcc",
}
#: λ targets trained by the demo, each judged by its own metric: (row name, metric, target)
DEMO_TARGETS = tuple((name, spec, spec) for name, spec in (
    ("λ-NDCG@10", "NDCG:top=10;type=Exp"), ("λ-MAP", "MAP"), ("λ-MRR", "MRR"), ("λ-ERR", "ERR:type=Graded"),
    ("λ-ROCArea", "ROCArea"), ("λ-MAUC", "MAUC"), ("RankNet", "RankNet"),
))
#: LambdaMART as users get it (target="auto"): judged NDCG@10 trains on YetiRank, judged MRR on the demo's
#: training queries (5,123 documents at its default 300 queries) on PairLogit (YetiRank from 30,000;
#: BENCHMARKS.md, "Which gradient for which judged metric", "Stop 51" and "Stop 63")
DEMO_DEFAULTS = (("LambdaMART(metric=NDCG@10e)", "NDCG:top=10;type=Exp", "auto"),
                 ("LambdaMART(metric=MRR)", "MRR", "auto"))


def _fit_rankers(train, valid, seed, n_estimators):
    """LambdaMART for each demo target, then the baselines users compare against.

    Every tree learner may grow ``n_estimators`` trees and stops on the validation
    queries after 30 trees without improvement (LambdaMART on its own target
    metric, LightGBM on its default metric), so each uses its best tree count.
    """
    import lightgbm as lgb
    from sklearn.linear_model import Ridge

    from .learners import LambdaMART

    rankers = {}
    for name, metric, target in DEMO_TARGETS + DEMO_DEFAULTS:
        # metricrank's own tree defaults (BENCHMARKS.md "Defaults"); early stopping on `metric`
        model = LambdaMART(metric, target=target, n_estimators=n_estimators, learning_rate=0.1, random_state=seed,
                           n_jobs=2)
        model.fit(train, eval_set=[valid], early_stopping_rounds=30)
        rankers[name] = model.predict
    ridge = Ridge(alpha=1.0).fit(train.X, train.y)
    rankers["Ridge (pointwise)"] = ridge.predict
    # the anchors with their own defaults (31 leaves, no L2 penalty)
    stop = [lgb.early_stopping(30, verbose=False)]
    native = lgb.LGBMRanker(n_estimators=n_estimators, learning_rate=0.1, random_state=seed, verbose=-1, n_jobs=2)
    regression = lgb.LGBMRegressor(n_estimators=n_estimators, learning_rate=0.1, random_state=seed, verbose=-1,
                                   n_jobs=2)
    with warnings.catch_warnings():
        # LightGBM >= 4.7 prefers eval_X/eval_y, which the older 4.x we support lack: its notice is noise here
        warnings.filterwarnings("ignore", message="The argument 'eval_set' is deprecated")
        native.fit(train.X, train.y, group=train.query_sizes, eval_set=[(valid.X, valid.y)],
                   eval_group=[valid.query_sizes], eval_at=[10], callbacks=stop)
        regression.fit(train.X, train.y, eval_set=[(valid.X, valid.y)], callbacks=stop)
    rankers["LightGBM lambdarank"] = native.predict
    rankers["LightGBM regression"] = regression.predict
    correlations = np.array([np.corrcoef(train.X[:, j], train.y)[0, 1] for j in range(train.X.shape[1])])
    best = int(np.nanargmax(np.abs(correlations)))
    sign = float(np.sign(correlations[best]))
    rankers[f"feature x{best}"] = lambda X, j=best, sign=sign: sign * X[:, j]
    rng = np.random.default_rng(seed)
    rankers["random"] = lambda X: rng.random(X.shape[0])
    return rankers


def run_demo(n_queries: int = 300, seed: int = 0, console=None, n_estimators: int = 300):
    """Train baseline rankers on ``make_ltr`` data and print test metrics.

    Returns the table as ``{ranker: {metric: value}}``.
    """
    from rich.console import Console
    from rich.table import Table

    if not is_integer(n_queries) or n_queries < MIN_DEMO_QUERIES:
        raise ValueError(f"n_queries must be an integer >= {MIN_DEMO_QUERIES} (60/20/20 % of the queries train, "
                         f"validate and test); got {n_queries!r}")
    check_lightgbm_seed(seed, "seed")
    # a pipe gets rich's 80 columns by default, too narrow for a dozen columns
    console = console or Console(width=None if sys.stdout.isatty() else 140)
    data = make_ltr(n_queries, n_features=30, n_informative=8, relevance="nonlinear", random_state=seed)
    a, b = int(0.6 * data.n_queries), int(0.8 * data.n_queries)
    train = data.subset_queries(np.arange(a))
    valid = data.subset_queries(np.arange(a, b))
    test = data.subset_queries(np.arange(b, data.n_queries))
    console.print(f"[bold]metricrank demo[/bold]: make_ltr(relevance='nonlinear') data, {train.n_queries} train / "
                  f"{valid.n_queries} validation / {test.n_queries} test queries, {data.n_features} features, "
                  f"labels 0..4; every tree learner: learning rate 0.1, at most {n_estimators} trees, the count "
                  f"chosen on validation, its own defaults otherwise")
    results = {}
    for name, predict in _fit_rankers(train, valid, seed, n_estimators).items():
        results[name] = {r.spec: r.value for r in evaluate_many(test, predict(test.X), DEMO_METRICS)}
    table = Table(title="test-set metrics (higher is better; bold = best in its column)",
                  caption="λ-X = LambdaMART trained on the exact λ-gradients of metric X: compare row λ-X "
                          "with column X. Relevance here is a nonlinear function of the features (thresholds and "
                          "interactions), so trees beat Ridge. A λ target does not always win its own column: "
                          f"one split of {test.n_queries} test quer{'y' if test.n_queries == 1 else 'ies'} is "
                          "noisy, and MAP/MRR targets still trail (BENCHMARKS.md). LambdaMART(metric=X) rows are "
                          "the defaults (target=\"auto\"), early-stopped on X: judged NDCG@10e trains on YetiRank, "
                          f"judged MRR on PairLogit below {STOCHASTIC_MRR_MIN_DOCS:,} training documents and on "
                          "YetiRank from there; compare them with λ-NDCG@10 and λ-MRR in columns NDCG@10e and MRR.")
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

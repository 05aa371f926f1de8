"""Tuning that ranking users can trust: per-query scorers for scikit-learn, and :func:`tune` on Optuna.

A ranking metric is a mean over *queries*. scikit-learn's search tools score a
fold with ``scorer(estimator, X_test, y_test)``, which knows nothing of
queries; :func:`make_scorer` returns a scorer that receives ``qid`` through
scikit-learn's metadata routing and raises (instead of scoring the whole fold
as one query) when it does not. Split with a query-aware splitter
(``GroupKFold`` with ``groups=qid``) so that no query is cut in two.

:func:`tune` searches tree parameters with Optuna (``pip install
'metricrank[tune]'``): folds by query, early stopping on the held-out fold
inside every trial, median pruning on the held-out values while the trees grow and
after each fold (so a single train -> validation split prunes too), a progress bar,
and the best estimator refitted on all rows with the mean best tree count.

Examples
--------
>>> import sklearn
>>> from sklearn.model_selection import GroupKFold, cross_val_score
>>> from metricrank import LambdaMART, make_ltr
>>> from metricrank.model_selection import make_scorer
>>> ds = make_ltr(30, n_features=5, random_state=0)
>>> with sklearn.config_context(enable_metadata_routing=True):
...     model = LambdaMART(n_estimators=5, num_leaves=3, min_data_in_leaf=5).set_fit_request(qid=True)
...     scores = cross_val_score(model, ds.X, ds.y, cv=GroupKFold(3), scoring=make_scorer("NDCG:top=5"),
...                              params={"qid": ds.qid, "groups": ds.qid})
>>> scores.shape
(3,)
"""

# The learners import RankerScoreMixin from here, so the modules import what they use from the learners inside
# their functions: importing this package before metricrank.learners (``from metricrank import tune``) must work.
from ._scoring import RankerScoreMixin, RankingScorer, make_scorer
from ._selection import improvement_pvalue, selection_level
from ._space import default_param_space
from ._tune import TuneResult, tune

__all__ = ["RankerScoreMixin", "RankingScorer", "TuneResult", "default_param_space", "improvement_pvalue",
           "make_scorer", "selection_level", "tune"]

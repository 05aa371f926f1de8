"""Per-query scoring for scikit-learn: :func:`make_scorer` and the rankers' ``score(X, y, qid=...)``."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.metadata_routing import MetadataRequest

from .._groups import group_ptr_from_qid
from ..data import OneQueryWarning, RankingDataset
from ..metrics import evaluate, get_metric
from ..objectives._base import default_eval_spec

__all__ = ["RankerScoreMixin", "RankingScorer", "make_scorer"]

_ROUTING_HELP = (
    "pass the query id of every row through scikit-learn's metadata routing: "
    "sklearn.set_config(enable_metadata_routing=True) (or sklearn.config_context), "
    "estimator.set_fit_request(qid=True), and give qid=... to the search's fit "
    "(GridSearchCV.fit(X, y, qid=qid, groups=qid)) or params={'qid': qid, 'groups': qid} to cross_val_score; "
    "split with GroupKFold and groups=qid so that no query is cut in two"
)


def _sign(metric) -> float:
    return 1.0 if metric.higher_is_better else -1.0


class RankingScorer:
    """A scikit-learn scorer that evaluates a ranking metric per query.

    Build it with :func:`make_scorer`. Called as ``scorer(estimator, X, y, qid=...)``
    it returns ``sign * metricrank.evaluate(y, estimator.predict(X), qid=qid, metric=...)``
    with ``sign = -1`` for metrics where lower is better (scikit-learn maximises scores);
    rankers whose ``predict`` reads the queries (SVM-acc3/acc4) are given them. A
    ``sample_weight`` given is the rows' ``weights`` of :func:`metricrank.evaluate`.

    ``qid`` is requested from metadata routing by default (a ranking scorer has no
    meaning without it); :meth:`set_score_request` changes the request as for
    scikit-learn's own scorers. ``sample_weight`` is not requested by default: as
    with scikit-learn's scorers, a search given one fails until
    ``set_score_request(sample_weight=True)`` (or ``False``) says what to do with it.
    """

    def __init__(self, metric: str, preset: str | None = None):
        self._metric = get_metric(metric, preset=preset)  # fails now on a bad spec
        self.metric = metric
        self.preset = preset
        self.sign = _sign(self._metric)
        self._requests = {"qid": True, "sample_weight": None}  # None: passed but not requested is an error

    def __repr__(self) -> str:
        direction = "" if self.sign > 0 else ", negated: lower is better"
        preset = "" if self.preset is None else f", preset={self.preset!r}"
        return f"make_scorer({self.metric!r}{preset}{direction})"

    def __call__(self, estimator, X, y, qid=None, sample_weight=None, **kwargs) -> float:
        if kwargs:
            raise TypeError(f"{self!r} got unexpected metadata {sorted(kwargs)}; it reads qid and sample_weight only")
        if qid is None:
            raise ValueError(f"{self!r} needs the query id of every scored row, got none; " + _ROUTING_HELP)
        qid = _contiguous_qid(qid)
        # a metricrank ranker predicts through its score hook, which passes the queries where predict needs them
        predict = getattr(estimator, "_score_predict", None)
        scores = np.asarray(estimator.predict(X) if predict is None else predict(X, qid, None), dtype=np.float64)
        value = evaluate(y, scores, qid=qid, metric=self._metric, weights=sample_weight)
        return float(self.sign * value)

    # --- metadata routing (the public MetadataRequest API; no private scorer base) ------------

    def set_score_request(self, **kwargs) -> "RankingScorer":
        """Request metadata for ``__call__``: ``qid`` (default True) and ``sample_weight`` (default None), each
        ``True``, ``False``, ``None`` or an alias."""
        for name, alias in kwargs.items():
            if name not in self._requests:
                raise TypeError(f"{self!r} consumes qid and sample_weight only; cannot request {name!r}")
            self._requests[name] = alias
        return self

    def get_metadata_routing(self) -> MetadataRequest:
        request = MetadataRequest(owner=self)
        for name, alias in self._requests.items():
            request.score.add_request(param=name, alias=alias)
        return request


def _contiguous_qid(qid) -> np.ndarray:
    """``qid`` checked: rows of a query must be contiguous (GroupKFold keeps them so)."""
    qid = np.asarray(qid)
    group_ptr_from_qid(qid, source="qid of the scored rows")  # raises on a scattered query
    return qid


def make_scorer(metric: str = "NDCG:top=10", *, preset: str | None = None) -> RankingScorer:
    """A scikit-learn scorer for a ranking metric, evaluated per query.

    Parameters
    ----------
    metric : str, default "NDCG:top=10"
        A metric spec (``"NDCG:top=10;type=Exp"``, ``"MAP"``, ``"ndcg@5"``, ...).
    preset : str, optional
        Metric conventions (``catboost``, ``lightgbm``, ``xgboost``, ``trec_eval``).

    Returns
    -------
    RankingScorer
        ``scorer(estimator, X, y, qid=...)`` -> float, greater is better: metrics
        where lower is better (e.g. ``QueryRMSE``) are **negated**, as scikit-learn's
        ``neg_*`` scorers are. ``qid`` is requested from metadata routing by default;
        without it the scorer raises a ValueError that says how to route it.

    Examples
    --------
    >>> from metricrank import LambdaMART, make_ltr
    >>> ds = make_ltr(20, n_features=5, random_state=0)
    >>> model = LambdaMART(n_estimators=5, num_leaves=3, min_data_in_leaf=5).fit(ds.X, ds.y, qid=ds.qid)
    >>> scorer = make_scorer("NDCG:top=5")
    >>> 0 < scorer(model, ds.X, ds.y, qid=ds.qid) <= 1
    True
    """
    return RankingScorer(metric, preset=preset)


class RankerScoreMixin:
    """``score(X, y, qid=...)`` for rankers: the estimator's own metric, per query.

    The metric is ``metric`` if given, else the estimator's default,
    :meth:`_score_metric`: the fitted objective's evaluation metric
    (``self.objective_.eval_spec``), else ``"NDCG:top=10"``; the SVM, LP and
    neural rankers override it with the metric they optimise. As for
    :func:`make_scorer`, greater is better: metrics where lower is better are negated.
    Rankers whose ``predict`` needs the queries override :meth:`_score_predict`.
    """

    def _score_metric(self, y) -> str:
        """Default metric spec of :meth:`score` for the labels ``y`` (an override may check them)."""
        return default_eval_spec(getattr(self, "objective_", None), y)

    def _score_predict(self, X, qid, group):
        """Scores of ``X`` for :meth:`score` (an override passes the queries to ``predict``)."""
        return self.predict(X)

    def score(self, X, y=None, *, qid=None, group=None, metric=None, sample_weight=None) -> float:
        """Mean per-query metric of ``self.predict(X)`` (negated if lower is better).

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or RankingDataset
            A RankingDataset carries the labels, the queries and its weights
            (then leave ``y``, ``qid``, ``group`` and ``sample_weight`` None), as
            in ``fit`` and ``predict``.
        y : array-like of shape (n,), or str
            Labels, or the name of X's label column (as in ``fit``); required
            unless ``X`` is a RankingDataset.
        qid : array-like of shape (n,), or str, optional
            Query id of every row (rows of a query contiguous), or the name of
            X's query column. Without qid and
            group every row belongs to one query, as in ``fit`` and ``evaluate``,
            and a :class:`~metricrank.data.OneQueryWarning` says so, as ``fit``'s does;
            a scikit-learn search passes qid through metadata routing (see
            :func:`make_scorer`, which requires it).
        group : array-like, optional
            Query sizes in row order, instead of ``qid``.
        metric : str, optional
            Metric spec; default the estimator's own metric (see the class docstring).
        sample_weight : array-like of shape (n,), optional
            Row weights, for the metrics that use them.
        """
        from ..learners._frames import refuse_named_weights, take_columns

        if isinstance(X, RankingDataset):
            given = [name for name, value in (("y", y), ("qid", qid), ("group", group),
                                               ("sample_weight", sample_weight)) if value is not None]
            if given:
                raise ValueError(f"score: pass either a RankingDataset or arrays (X, y, qid/group), not both; got "
                                 f"{', '.join(given)} with the dataset, which carries its own")
            scores = self._score_predict(X, None, None)
            m = get_metric(metric if metric is not None else self._score_metric(X.y),
                           preset=getattr(self, "preset", None))
            return float(_sign(m) * evaluate(X, scores, metric=m))
        if y is None:
            raise ValueError("score needs y (the labels), unless X is a RankingDataset")
        refuse_named_weights(sample_weight=sample_weight)
        X, y, qid = take_columns(X, y, qid)
        # predict checks X (and fittedness) first, with the estimator's own messages
        scores = self._score_predict(X, qid, group)
        if len(y) != len(scores):  # (evaluate would name the scores, which the caller did not pass)
            raise ValueError(f"y has {len(y)} labels but X has {len(scores)} rows")
        if qid is None and group is None and len(y) > 1:
            # a scikit-learn search without metadata routing calls score(X, y): one query over every row is
            # rarely what was meant, so never silently (fit warns the same way)
            warnings.warn(f"score: no qid or group given: all {len(y)} rows are scored as one query",
                          OneQueryWarning, stacklevel=2)
        if metric is None:
            metric = self._score_metric(y)
        m = get_metric(metric, preset=getattr(self, "preset", None))
        value = evaluate(y, scores, qid=qid, group=group, metric=m, weights=sample_weight)
        return float(_sign(m) * value)

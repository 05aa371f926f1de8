"""LambdaRank (Burges section 4): RankNet's λ scaled by the exact |ΔZ| of the metric you name."""

from __future__ import annotations

from ..._checks import check_flag
from ...objectives.lambda_objective import LambdaObjective, resolve_target
from ._base import NetRanker, _check_torch_installed
from ._lambdas import LabelLambdas
from .ranknet import _ATTRIBUTES, _COMMON_PARAMS, _FIT_DOC

__all__ = ["LambdaRank"]


class LambdaRank(NetRanker):
    __doc__ = """LambdaRank: a neural scorer trained with the λ-gradients of a metric (Burges section 4).

    ``λ_ij = σ |ΔZ_ij| / (1 + exp(σ (s_i - s_j)))`` with ``|ΔZ_ij|`` the exact change
    of the metric when documents ``i`` and ``j`` swap ranks: the same kernel and swap
    deltas as :class:`~metricrank.learners.LambdaMART`, so every λ target works
    (NDCG, DCG, MAP, MRR, ERR, PrecisionAt, ROCArea, QueryAUC, MAUC, RankNet). The
    network is back-propagated once per batch of queries (section 2.1).
    :meth:`score` defaults to the λ target's metric (``metric``; ``"NDCG:top=10"``
    for the RankNet target), as :meth:`fit`'s evaluation does.

    Parameters
    ----------
    metric : str, default "NDCG:top=10"
        λ target (a metric spec such as ``"NDCG:top=10;type=Exp"``, ``"MAP"``,
        ``"ERR"``); also the default early-stopping metric.
    norm : bool, default False
        LightGBM's ``lambdarank_norm`` (per-query ``log2(1+S)/S`` and division of
        ``|ΔZ|`` by ``0.01 + |s_i - s_j|``).
    truncation : int or None, default None
        Only pairs whose higher-ranked document is in the first ``truncation`` positions.""" \
        + _COMMON_PARAMS + "\n" + _ATTRIBUTES + """

    Examples
    --------
    >>> from metricrank import make_ltr, evaluate
    >>> from metricrank.learners import LambdaRank
    >>> ds = make_ltr(40, n_features=8, random_state=0)
    >>> model = LambdaRank(metric="NDCG:top=10", max_epochs=5, random_state=0).fit(ds)
    >>> bool(evaluate(ds, model.predict(ds), metric="NDCG:top=10") > 0.7)
    True
    """

    def __init__(self, metric="NDCG:top=10", *, norm=False, truncation=None, hidden_layer_sizes=(32,),
                 activation="relu", dropout=0.0, weight_decay=0.0, standardize=True, sigma=1.0, optimizer="adam",
                 learning_rate=1e-3, max_epochs=15, batch_queries=8, preset=None, device="cpu", n_jobs=1,
                 random_state=None, verbose=False):
        _check_torch_installed()
        self.metric = metric
        self.norm = norm
        self.truncation = truncation
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.dropout = dropout
        self.weight_decay = weight_decay
        self.standardize = standardize
        self.sigma = sigma
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.max_epochs = max_epochs
        self.batch_queries = batch_queries
        self.preset = preset
        self.device = device
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self) -> None:
        super()._check_params()
        check_flag(self.norm, "norm")

    def _lambdas(self, ds):
        objective = LambdaObjective(self.metric, sigma=self.sigma, truncation=self.truncation, norm=self.norm,
                                    preset=self.preset)
        return LabelLambdas(objective, ds.y, ds.weight, ds.group_weight)

    def _score_metric(self, y) -> str:
        return resolve_target(self.metric, preset=self.preset).eval_spec  # the λ target's own metric

    def fit(self, X, y=None, *, qid=None, group=None, sample_weight=None, group_weight=None, eval_set=None,
            eval_qid=None, eval_group=None, eval_names=None, eval_metrics=None, early_stopping_rounds=None,
            eval_metric=None, eval_at=None, init_score=None, eval_init_score=None, eval_sample_weight=None,
            eval_group_weight=None):
        return self._fit(X, y, qid=qid, group=group, sample_weight=sample_weight, group_weight=group_weight,
                         pairs=None, pair_weight=None, eval_set=eval_set, eval_qid=eval_qid,
                         eval_group=eval_group, eval_names=eval_names, eval_metrics=eval_metrics,
                         early_stopping_rounds=early_stopping_rounds, eval_metric=eval_metric, eval_at=eval_at,
                         init_score=init_score, eval_init_score=eval_init_score,
                         eval_sample_weight=eval_sample_weight, eval_group_weight=eval_group_weight)

    fit.__doc__ = _FIT_DOC.format(pairs_y="", pairs_doc="", default_metric="the λ target's metric")

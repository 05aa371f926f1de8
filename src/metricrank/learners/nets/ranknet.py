"""RankNet (Burges section 2): a neural scorer trained on the pairwise cross-entropy, factorised."""

from __future__ import annotations

from ...metrics.registry import judge_reading
from ...objectives.lambda_objective import LambdaObjective
from ._base import NetRanker, _check_torch_installed
from ._lambdas import LabelLambdas, PairLambdas

__all__ = ["RankNet"]

#: RankNet optimises no ranking metric; fit's evaluation (early stopping) and score judge it by NDCG@10 (DCG@10 where
#: labels are negative, which NDCG refuses).
_EVAL_SPEC = "NDCG:top=10"

_COMMON_PARAMS = """
    hidden_layer_sizes : tuple of int, default (32,)
        Widths of the hidden layers; ``()`` is a linear model ``s = w·x + b``.
    activation : {"relu", "tanh", "sigmoid", "gelu", "elu"}, default "relu"
    dropout : float, default 0.0
        Dropout after every hidden layer while training.
    weight_decay : float, default 0.0
        L2 penalty of the optimiser.
    standardize : bool, default True
        Centre and scale every feature by its training mean and standard deviation
        (stored in ``feature_mean_``/``feature_scale_`` and applied at predict).
    sigma : float, default 1.0
        σ of ``P_ij = 1 / (1 + exp(-σ (s_i - s_j)))``.
    optimizer : {"adam", "sgd"}, default "adam"
    learning_rate : float, default 1e-3
    max_epochs : int, default 15
        Passes over the training queries. Defaults were chosen on MQ2008 (BENCHMARKS.md):
        without early stopping, 30 or 60 epochs overfit the 32-unit MLP.
    batch_queries : int, default 8
        Queries per optimiser step (the gradient is their mean).
    preset : str, optional
        Metric convention preset for the evaluation metrics.
    device : str, default "cpu"
        ``"cpu"``, ``"cuda"`` or ``"cuda:<index>"`` (ValueError when CUDA is unavailable).
    n_jobs : int or None, default 1
        Threads for torch and the λ kernel while fitting and predicting (restored
        afterwards); None leaves torch's and numba's settings as they are.
    random_state : int, numpy RandomState or Generator, or None, default None
        Seeds the initial weights, dropout and the query order; on the CPU two fits with
        the same integer give identical models. The caller's torch generator is left as it was.
    verbose : bool or int, default False
        Show a rich progress bar with the evaluation of every epoch (any value but 0 or False)."""

_ATTRIBUTES = """
    Attributes
    ----------
    model_ : torch.nn.Sequential
        The scoring network (input: standardised features).
    n_features_in_ : int
    feature_mean_, feature_scale_ : ndarray of shape (n_features_in_,)
    evals_result_ : dict
        ``{eval set name: {metric spec: [value after each epoch]}}``.
    best_epoch_ : int or None
        With ``early_stopping_rounds``: the epoch whose weights were restored.
    best_score_ : dict
        ``{eval set name: {metric spec: value}}`` of the weights :meth:`predict`
        uses: ``best_epoch_``'s with early stopping, otherwise the last epoch's.
    n_epochs_ : int
        Epochs run.
    stop_reason_ : str"""

_FIT_DOC = """Train the network.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, n_features), or RankingDataset
        y : array-like of shape (n,)
            Relevance labels (omit when ``X`` is a RankingDataset{pairs_y}).
        qid : array-like of shape (n,), optional
            Query id of every row; rows of a query must be contiguous.
        group : array-like, optional
            Query sizes in row order, instead of ``qid``.
        sample_weight : array-like of shape (n,), optional
            Multiplies each row's λ.
        group_weight : array-like of shape (n_queries,), optional
            Multiplies every λ of a query.{pairs_doc}
        eval_set : list of RankingDataset, (X, y) or (X, y, qid), optional
            Sets evaluated after every epoch; the last one drives early stopping.
        eval_qid, eval_group : list, optional
        eval_names : list of str, optional
        eval_metrics : list of str, optional
            Metric specs evaluated on every eval set; the first drives early stopping.
            Default: {default_metric}.
        eval_metric, eval_at : optional
            LightGBM's spellings, as :meth:`metricrank.GBRanker.fit`.
        early_stopping_rounds : int, optional
            Stop when that metric has not improved for this many epochs and restore
            the weights of the best epoch.
        init_score : array-like of shape (n,), optional
            Raw starting scores (LightGBM's ``init_score``, as :meth:`metricrank.GBRanker.fit`):
            the cost is read at these plus the network's scores, so the network learns
            what to add to them; :meth:`predict` returns the network's scores alone.
        eval_init_score : list of array-like, optional
            The eval sets' starting scores, one array (or None: zeros) per eval set, with
            ``init_score``: their metrics, and so early stopping, read them plus the
            network's scores.
        eval_sample_weight, eval_group_weight : list, optional
            Row and query weights of the array entries of ``eval_set``, one array
            (or None) per eval set, as :meth:`metricrank.GBRanker.fit` reads them.

        Returns
        -------
        self
        """


class RankNet(NetRanker):
    __doc__ = """RankNet: a neural scorer trained on the pairwise cross-entropy (Burges section 2).

    Every pair of a query with different labels (``l_i > l_j``) costs
    ``log(1 + exp(-σ (s_i - s_j)))``. Training uses the factorisation of section
    2.1: the λ kernel sums each document's pair gradients into one ``λ_i``, and the
    network is back-propagated once per batch of queries. Explicit preference pairs
    with weights (CatBoost pairs) can replace the labels. :meth:`score` defaults to
    ``"NDCG:top=10"``, the default evaluation metric of :meth:`fit`.

    Parameters
    ----------""" + _COMMON_PARAMS + "\n" + _ATTRIBUTES + """

    Examples
    --------
    >>> from metricrank import make_ltr, evaluate
    >>> from metricrank.learners import RankNet
    >>> ds = make_ltr(40, n_features=8, random_state=0)
    >>> model = RankNet(max_epochs=5, random_state=0).fit(ds)
    >>> bool(evaluate(ds, model.predict(ds), metric="NDCG:top=10") > 0.7)
    True
    """

    _accepts_pairs = True

    def __init__(self, *, hidden_layer_sizes=(32,), activation="relu", dropout=0.0, weight_decay=0.0,
                 standardize=True, sigma=1.0, optimizer="adam", learning_rate=1e-3, max_epochs=15,
                 batch_queries=8, preset=None, device="cpu", n_jobs=1, random_state=None, verbose=False):
        _check_torch_installed()
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

    def _lambdas(self, ds):
        if ds.pairs is not None:
            return PairLambdas(ds.pairs, ds.pair_weight, ds.group_ptr, ds.group_weight, self.sigma)
        objective = LambdaObjective("RankNet", sigma=self.sigma, norm=False)
        return LabelLambdas(objective, ds.y, ds.weight, ds.group_weight)

    def _score_metric(self, y) -> str:
        return judge_reading(_EVAL_SPEC, y)  # a stand-in: negative labels, which RankNet trains on, read by DCG@10

    def fit(self, X, y=None, *, qid=None, group=None, sample_weight=None, group_weight=None, pairs=None,
            pair_weight=None, eval_set=None, eval_qid=None, eval_group=None, eval_names=None, eval_metrics=None,
            early_stopping_rounds=None, eval_metric=None, eval_at=None, init_score=None, eval_init_score=None,
            eval_sample_weight=None, eval_group_weight=None):
        return self._fit(X, y, qid=qid, group=group, sample_weight=sample_weight, group_weight=group_weight,
                         pairs=pairs, pair_weight=pair_weight, eval_set=eval_set, eval_qid=eval_qid,
                         eval_group=eval_group, eval_names=eval_names, eval_metrics=eval_metrics,
                         early_stopping_rounds=early_stopping_rounds, eval_metric=eval_metric, eval_at=eval_at,
                         init_score=init_score, eval_init_score=eval_init_score,
                         eval_sample_weight=eval_sample_weight, eval_group_weight=eval_group_weight)

    fit.__doc__ = _FIT_DOC.format(
        pairs_y=", or when ``pairs`` are given: then labels are not used",
        pairs_doc="""
        pairs : int array of shape (n_pairs, 2), optional
            Explicit preferences ``(winner, loser)`` as global row indices (both rows in
            one query). When given, RankNet learns from these pairs only, each costing
            ``pair_weight · log(1 + exp(-σ (s_winner - s_loser)))``; ``sample_weight``
            is then not allowed.
        pair_weight : array-like of shape (n_pairs,), optional""",
        default_metric=f"``{_EVAL_SPEC}`` (``DCG:top=10`` where the training or eval labels hold a negative one)")

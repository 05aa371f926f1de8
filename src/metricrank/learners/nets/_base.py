"""What RankNet and LambdaRank share: parameters, data preparation, the fit loop, predict, save/load.

Subclasses define ``__init__`` (explicit keyword arguments, stored as given),
``_lambdas(ds)`` (where the per-document λ come from) and ``_score_metric`` (the default
metric of ``score`` and of ``fit``'s evaluation).
"""

from __future__ import annotations

import contextlib
import numbers
import os

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state

from ..._checks import (check_early_stopping_rounds, check_flag, check_positive_finite, check_verbose, is_integer,
                        is_real)
from ...data import RankingDataset
from ...metrics.conventions import check_preset
from ...metrics.evaluate import dataset_evaluator
from ...model_selection import RankerScoreMixin
from .._boosting import numba_threads
from .._frames import (FeatureNamesMixin, FeatureSchema, apply_schema, encode_eval_set, fit_schema,
                       refuse_named_weights, take_columns)
from .._inputs import (as_dataset, check_eval_labels, check_features, eval_datasets, eval_specs, eval_starting_scores,
                       name_training, starting_scores, training_entries, warn_no_order_to_learn, warn_unmoved_judges,
                       warn_unread_eval_weights)
from .._persistence import read_model_file, write_model_file
from ._model import ACTIVATIONS, build_scorer
from ._state import decode_state_dict, encode_state_dict
from ._torch import require_torch
from ._train import train

__all__ = ["NetRanker", "OPTIMIZERS"]

#: Names accepted as ``optimizer``.
OPTIMIZERS = ("adam", "sgd")

#: Rows scored per forward pass in :meth:`NetRanker.predict`.
_PREDICT_CHUNK = 65536


def _check_torch_installed() -> None:
    """ImportError naming the extra when torch is missing (called by the constructors)."""
    require_torch()


def _dense_features(X, *, n_features=None, what="X", estimator="the model") -> np.ndarray:
    X = check_features(X, n_features=n_features, what=what, estimator=estimator)
    X = X.toarray() if sp.issparse(X) else X
    X = np.asarray(X, dtype=np.float64)
    if np.isnan(X).any():
        row, col = divmod(int(np.flatnonzero(np.isnan(X))[0]), X.shape[1])
        raise ValueError(f"{what} has a missing value (NaN) at row {row}, feature {col}; neural rankers "
                         "need complete features (impute them first)")
    return X


@contextlib.contextmanager
def _threads(n_jobs):
    """torch's and numba's thread counts set to ``n_jobs`` in this block, then restored.

    Small nets train fastest on one thread: each step is a few small matrix products,
    and waking a thread pool for each costs more than it saves (measured on MQ2008).
    """
    if n_jobs is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(int(n_jobs))
    try:
        with numba_threads(n_jobs):
            yield
    finally:
        torch.set_num_threads(before)


class NetRanker(FeatureNamesMixin, RankerScoreMixin, BaseEstimator):
    """Base of the neural rankers (see :class:`RankNet` and :class:`LambdaRank`).

    ``score`` is :class:`~metricrank.model_selection.RankerScoreMixin`'s; subclasses
    override ``_score_metric``, the default metric of both ``score`` and ``fit``'s evaluation.
    """

    _accepts_pairs = False

    # --- validation ------------------------------------------------------------------------

    def _check_params(self) -> None:
        sizes = self.hidden_layer_sizes
        if is_integer(sizes):
            sizes = (sizes,)
        try:
            sizes = tuple(sizes)
        except TypeError:
            sizes = None
        if sizes is None or not all(is_integer(s) and s >= 1 for s in sizes):
            raise ValueError(f"hidden_layer_sizes must be a tuple of positive integers (() = linear model); "
                             f"got {self.hidden_layer_sizes!r}")
        self._sizes = tuple(int(s) for s in sizes)
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}; got {self.activation!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {', '.join(OPTIMIZERS)}; got {self.optimizer!r}")
        if not (is_real(self.dropout) and 0 <= self.dropout < 1):
            raise ValueError(f"dropout must be in [0, 1); got {self.dropout!r}")
        for name in ("learning_rate", "sigma"):
            check_positive_finite(getattr(self, name), name)
        if not (is_real(self.weight_decay) and np.isfinite(self.weight_decay) and self.weight_decay >= 0):
            raise ValueError(f"weight_decay must be a finite number >= 0; got {self.weight_decay!r}")
        for name in ("max_epochs", "batch_queries"):
            value = getattr(self, name)
            if not (is_integer(value) and value >= 1):
                raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
        if not (self.n_jobs is None or (is_integer(self.n_jobs) and self.n_jobs >= 1)):
            raise ValueError(f"n_jobs must be a positive integer or None (leave torch's setting); got {self.n_jobs!r}")
        check_flag(self.standardize, "standardize")
        check_preset(self.preset)
        check_verbose(self.verbose, "0 or False: silent, otherwise a progress bar")
        try:
            if isinstance(self.random_state, (bool, np.bool_)):
                raise ValueError("a bool is no seed")
            if not isinstance(self.random_state, np.random.Generator):
                check_random_state(self.random_state)
        except ValueError as err:
            raise ValueError(f"random_state must be None, an integer in [0, 2**32), a numpy RandomState or a numpy "
                             f"Generator; got {self.random_state!r} ({err})") from None
        self._torch_device()

    def _torch_device(self):
        torch = require_torch()
        device = self.device
        if not isinstance(device, str) or not (device == "cpu" or device == "cuda"
                                               or (device.startswith("cuda:") and device[5:].isdigit())):
            raise ValueError(f"device must be one of cpu, cuda, cuda:<index>; got {device!r}")
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise ValueError(f"device={device!r} but torch.cuda.is_available() is False (this torch "
                             f"{torch.__version__} build or machine has no usable GPU); use device='cpu'")
        return torch.device(device)

    # --- data ------------------------------------------------------------------------------

    def _dataset(self, X, y, qid, group, sample_weight, group_weight, pairs, pair_weight) -> RankingDataset:
        if pairs is None and pair_weight is not None:
            raise ValueError("pair_weight needs pairs")
        if pairs is not None and not self._accepts_pairs:
            raise ValueError(f"{type(self).__name__} learns from graded labels; explicit pairs train RankNet")
        if pairs is None:
            ds = as_dataset(X, y, qid=qid, group=group, sample_weight=sample_weight, group_weight=group_weight)
        elif isinstance(X, RankingDataset):
            raise ValueError("pass pairs inside the RankingDataset (its pairs/pair_weight), not to fit")
        else:
            X = check_features(X)
            y = np.zeros(X.shape[0]) if y is None else y
            ds = RankingDataset(X, y, qid=qid, group=group, weight=sample_weight, group_weight=group_weight,
                                pairs=pairs, pair_weight=pair_weight)
        if ds.n_docs == 0:
            raise ValueError("training data has no rows")
        if ds.pairs is not None and not self._accepts_pairs:
            raise ValueError(f"{type(self).__name__} learns from graded labels; the dataset's explicit pairs "
                             "train RankNet")
        if ds.pairs is not None and ds.weight is not None:
            raise ValueError("sample_weight is not used with explicit pairs; weight the pairs (pair_weight)")
        return ds

    def _standardise(self, X: np.ndarray) -> np.ndarray:
        return (X - self.feature_mean_) / self.feature_scale_

    def _tensor(self, X: np.ndarray):
        torch = require_torch()
        return torch.as_tensor(self._standardise(X), dtype=torch.float32, device=self._device_)

    def _evaluator(self, eds: RankingDataset, specs: list[str], base=None):
        X = self._tensor(_dense_features(eds.X, what="eval set X"))
        judge = dataset_evaluator(eds, specs, preset=self.preset)

        def evaluate(model):
            import torch

            with torch.no_grad():
                raw = model(X).squeeze(-1).cpu().numpy().astype(np.float64)
            if base is not None:
                raw = raw + base
            return [(r.spec, r.value, r.higher_is_better) for r in judge(raw)]

        return evaluate

    # --- fitting ---------------------------------------------------------------------------

    def _fit(self, X, y, *, qid, group, sample_weight, group_weight, pairs, pair_weight, eval_set, eval_qid,
             eval_group, eval_names, eval_metrics, early_stopping_rounds, eval_metric=None, eval_at=None,
             init_score=None, eval_init_score=None, eval_sample_weight=None, eval_group_weight=None):
        self._check_params()
        check_early_stopping_rounds(early_stopping_rounds)
        torch = require_torch()
        device = self._torch_device()
        refuse_named_weights(dict(eval_sample_weight=eval_sample_weight, eval_group_weight=eval_group_weight,
                                  eval_init_score=eval_init_score),
                             sample_weight=sample_weight, group_weight=group_weight, init_score=init_score)
        training = training_entries(eval_set, X, y, early_stopping_rounds)  # before X, y and the sets are converted
        X, y, qid = take_columns(X, y, qid)
        X, schema = fit_schema(X)
        if schema.categorical:
            names = [schema.names[j] for j in schema.categorical]
            raise ValueError(f"X: column(s) {', '.join(map(repr, names))} have dtype 'category'; a neural ranker "
                             "reads numbers: encode them (one-hot, or their codes as numbers)")
        eval_set = encode_eval_set(eval_set, schema)
        ds = self._dataset(X, y, qid, group, sample_weight, group_weight, pairs, pair_weight)
        if init_score is None:  # a starting score's order stays
            warn_no_order_to_learn(ds, stacklevel=4, model="net")
        lambdas = self._lambdas(ds)
        Xd = _dense_features(ds.X)
        evals = name_training(eval_datasets(eval_set, eval_qid, eval_group, eval_names, eval_sample_weight,
                                            eval_group_weight), training, eval_names)
        watchable = [name for i, (name, _) in enumerate(evals) if i not in training]
        for name, eds in evals:
            if eds.n_features != ds.n_features:
                raise ValueError(f"eval set {name} has {eds.n_features} features; training data has {ds.n_features}")
        # score's default, so fit and score judge alike, read for every label it judges
        eval_metrics = eval_specs(eval_metrics, eval_metric, eval_at, default=lambda: self._score_metric(
            np.concatenate([ds.y, *(eds.y for _, eds in evals)])))
        check_eval_labels(evals, eval_metrics, self.preset)
        warn_unread_eval_weights(eval_metrics, self.preset, eval_sample_weight, eval_group_weight, stacklevel=4)
        warn_unmoved_judges(ds, evals, eval_metrics, self.preset, step="epoch", stacklevel=4)
        if early_stopping_rounds is not None and not evals:
            raise ValueError("early_stopping_rounds needs an eval_set")
        offset = None if init_score is None else starting_scores(init_score, ds.n_docs, "init_score")
        eval_bases = eval_starting_scores(init_score, eval_init_score, evals)

        if self.standardize:
            mean, scale = Xd.mean(axis=0), Xd.std(axis=0)
            scale[scale == 0] = 1.0  # constant feature: centred to 0, not divided
        else:
            mean, scale = np.zeros(Xd.shape[1]), np.ones(Xd.shape[1])
        self.feature_mean_, self.feature_scale_ = mean, scale
        self._device_ = device
        seed = (int(self.random_state.integers(0, 2**31 - 1)) if isinstance(self.random_state, np.random.Generator)
                else int(check_random_state(self.random_state).randint(0, 2**31 - 1)))
        rng = np.random.default_rng(seed)
        fork = [] if device.type == "cpu" else [device]
        with _threads(self.n_jobs), torch.random.fork_rng(devices=fork):  # caller's generator untouched
            torch.manual_seed(seed)
            model = build_scorer(Xd.shape[1], self._sizes, self.activation, self.dropout).to(device)
            opt_class = torch.optim.Adam if self.optimizer == "adam" else torch.optim.SGD
            optimizer = opt_class(model.parameters(), lr=float(self.learning_rate),
                                  weight_decay=float(self.weight_decay))
            evaluators = [(name, self._evaluator(eds, list(eval_metrics), base))
                          for (name, eds), base in zip(evals, eval_bases)]
            result = train(model, self._tensor(Xd), ds.group_ptr, lambdas, optimizer,
                           max_epochs=int(self.max_epochs), batch_queries=int(self.batch_queries), rng=rng,
                           evals=evaluators, watched=watchable[-1] if watchable else None,
                           early_stopping_rounds=early_stopping_rounds,
                           verbose=bool(self.verbose), offset=offset)
        self.model_ = model
        self.n_features_in_ = int(Xd.shape[1])
        self._set_schema(schema)
        self.evals_result_ = result.evals_result
        self.best_epoch_ = result.best_epoch
        self.best_score_ = result.best_score
        self.n_epochs_ = result.n_epochs
        self.stop_reason_ = result.stop_reason
        return self

    # --- prediction ------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # densified per batch
        tags.target_tags.required = True
        return tags

    def predict(self, X) -> np.ndarray:
        """Scores (higher = ranked higher), one per row (float64).

        Parameters
        ----------
        X : array-like, sparse matrix or RankingDataset
        """
        self._check_fitted()
        torch = require_torch()
        if isinstance(X, RankingDataset):
            X = X.X
        X = apply_schema(X, self._schema(), "X")
        Xd = _dense_features(X, n_features=self.n_features_in_, estimator=type(self).__name__)
        out = np.empty(Xd.shape[0])
        self.model_.eval()
        with _threads(self.n_jobs), torch.no_grad():
            for start in range(0, Xd.shape[0], _PREDICT_CHUNK):
                part = self._tensor(Xd[start:start + _PREDICT_CHUNK])
                out[start:start + part.shape[0]] = self.model_(part).squeeze(-1).cpu().numpy()
        return out

    # --- the analysis tools' view (metricrank.analysis._params.TorchAdapter) ---------------

    @property
    def module_(self):
        """The fitted ``torch.nn.Module`` (``model_``), whose parameters Burges' local-optimality test perturbs."""
        self._check_fitted()
        return self.model_

    def _forward_scores(self, X) -> np.ndarray:
        """The scores of the current parameters, as :meth:`predict` computes them (standardised features)."""
        return self.predict(X)

    # --- persistence -----------------------------------------------------------------------

    def _state(self) -> dict:
        self._check_fitted()
        params = self.get_params()
        given = self.hidden_layer_sizes  # kept as given (an int, a list or a tuple), so get_params round-trips
        params["hidden_layer_sizes"] = int(given) if is_integer(given) else list(self._sizes)
        if not (params["random_state"] is None or isinstance(params["random_state"], numbers.Integral)):
            params["random_state"] = None  # a RandomState object is not JSON; the weights are saved anyway
        elif params["random_state"] is not None:
            params["random_state"] = int(params["random_state"])
        return {
            "params": params,
            "sizes_as": "list" if isinstance(given, list) else "tuple",
            "n_features_in": self.n_features_in_,
            "features": self._schema().to_dict(),
            "feature_mean": self.feature_mean_.tolist(),
            "feature_scale": self.feature_scale_.tolist(),
            "state_dict": encode_state_dict(self.model_.state_dict()),
            "evals_result": self.evals_result_,
            "best_epoch": self.best_epoch_,
            "best_score": self.best_score_,
            "n_epochs": self.n_epochs_,
            "stop_reason": self.stop_reason_,
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the fitted model to ``path`` (JSON, versioned; written atomically)."""
        write_model_file(path, type(self).__name__, self._state())

    @classmethod
    def load(cls, path: str | os.PathLike):
        """Read a model written by :meth:`save` (ValueError for any other file)."""
        _, state = read_model_file(path, cls.__name__)
        try:
            params = dict(state["params"])
            if not is_integer(params["hidden_layer_sizes"]):  # older files: a tuple
                params["hidden_layer_sizes"] = (list if state.get("sizes_as") == "list" else tuple)(
                    params["hidden_layer_sizes"])
            model = cls(**params)
            model._check_params()
            model._device_ = model._torch_device()
            model.n_features_in_ = int(state["n_features_in"])
            model._set_schema(FeatureSchema.from_dict(state.get("features")))  # older files: no names
            model.feature_mean_ = np.asarray(state["feature_mean"], dtype=np.float64)
            model.feature_scale_ = np.asarray(state["feature_scale"], dtype=np.float64)
            net = build_scorer(model.n_features_in_, model._sizes, model.activation, model.dropout)
            net.load_state_dict(decode_state_dict(state["state_dict"]))
            model.model_ = net.to(model._device_).eval()
            model.evals_result_ = state["evals_result"]
            model.best_epoch_ = state["best_epoch"]
            model.best_score_ = state["best_score"]
            model.n_epochs_ = int(state["n_epochs"])
            model.stop_reason_ = state["stop_reason"]
        except (KeyError, TypeError, RuntimeError, ValueError) as err:
            if isinstance(err, ValueError) and "device" in str(err):
                raise
            raise ValueError(f"{path}: a damaged {cls.__name__} model file ({type(err).__name__}: {err})") from None
        return model

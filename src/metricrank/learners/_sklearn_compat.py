"""scikit-learn contract for the SVM and LP rankers: inputs, tags, save/load.

* ``fit(X, y, *, qid=None, group=None)`` also takes a :class:`RankingDataset`
  as ``X`` (then ``y``, ``qid`` and ``group`` stay None), like ``LambdaMART``;
  ``predict(X)`` takes a RankingDataset too (its ``X``, and its queries where
  the model needs them).
* Arrays are validated by :func:`sklearn.utils.validation.validate_data`, so
  messages, ``n_features_in_``, ``feature_names_in_`` and the feature-count
  check at predict are scikit-learn's.
* ``score(X, y, qid=...)``: :class:`~metricrank.model_selection.RankerScoreMixin`
  with each ranker's own metric (``_score_metric``).
* ``save(path)`` / ``load(path)``: the versioned, checksummed, atomic model file
  of :mod:`._persistence`. The state is JSON: parameters plus every fitted
  attribute (arrays with dtype and shape, dataclasses, nested scikit-learn or
  metricrank estimators). Loading only rebuilds classes from ``metricrank``
  and ``sklearn`` -- never arbitrary code, unlike pickle.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data

from .._arrays import numeric_array
from ..data import OneQueryWarning, RankingDataset
from ..model_selection import RankerScoreMixin
from ._frames import take_columns
from ._persistence import read_model_file, write_model_file

__all__ = ["RankerContractMixin", "border_spec", "decode_state", "encode_state", "expected_failed_checks"]

_ALLOWED_MODULES = ("metricrank.", "sklearn.")


def _qualname(obj) -> str:
    cls = type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


def _import(qualified: str):
    module, _, name = qualified.partition(":")
    if not module.startswith(_ALLOWED_MODULES):
        raise ValueError(f"model file names class {qualified!r}, which is not a metricrank or "
                         f"scikit-learn class; refusing to load it")
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def encode_state(value):
    """``value`` as JSON-ready data (see the module docstring for what is supported)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"__dtype__": np.dtype(value).str}
    if isinstance(value, np.dtype):
        return {"__dtype__": value.str, "instance": True}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return {"__ndarray_object__": [encode_state(v) for v in value.ravel().tolist()],
                    "shape": list(value.shape)}
        return {"__ndarray__": value.ravel().tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if sp.issparse(value):
        m = sp.csr_matrix(value)
        return {"__csr__": [encode_state(m.data), encode_state(m.indices), encode_state(m.indptr)],
                "shape": list(m.shape)}
    if isinstance(value, (list, tuple)):
        return {"__tuple__": [encode_state(v) for v in value]} if isinstance(value, tuple) else \
            [encode_state(v) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode_state(k), encode_state(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__dataclass__": _qualname(value),
                "fields": {f.name: encode_state(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if hasattr(value, "get_params") and hasattr(value, "__dict__"):
        return {"__object__": _qualname(value),
                "attrs": {k: encode_state(v) for k, v in vars(value).items()}}
    raise TypeError(f"cannot save a {type(value).__name__} in a model file")


def decode_state(data):
    """Inverse of :func:`encode_state`."""
    if isinstance(data, list):
        return [decode_state(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "__dtype__" in data:
        dt = np.dtype(data["__dtype__"])
        return dt if data.get("instance") else dt.type
    if "__ndarray__" in data:
        return np.asarray(data["__ndarray__"], dtype=np.dtype(data["dtype"])).reshape(data["shape"])
    if "__ndarray_object__" in data:
        out = np.empty(len(data["__ndarray_object__"]), dtype=object)
        out[:] = [decode_state(v) for v in data["__ndarray_object__"]]
        return out.reshape(data["shape"])
    if "__csr__" in data:
        values, indices, indptr = (decode_state(v) for v in data["__csr__"])
        return sp.csr_matrix((values, indices, indptr), shape=tuple(data["shape"]))
    if "__tuple__" in data:
        return tuple(decode_state(v) for v in data["__tuple__"])
    if "__dict__" in data:
        return {_hashable(decode_state(k)): decode_state(v) for k, v in data["__dict__"]}
    if "__dataclass__" in data:
        cls = _import(data["__dataclass__"])
        return cls(**{k: decode_state(v) for k, v in data["fields"].items()})
    if "__object__" in data:
        cls = _import(data["__object__"])
        obj = cls.__new__(cls)
        obj.__dict__.update({k: decode_state(v) for k, v in data["attrs"].items()})
        return obj
    raise ValueError(f"model state has an unknown entry with keys {sorted(data)[:5]}")


def _hashable(v):
    return tuple(v) if isinstance(v, list) else v


def border_spec(name: str, border) -> str:
    """Spec of the binary metric ``name`` with ``label > border`` relevant (the rankers' ``border``).

    Examples
    --------
    >>> border_spec("MAP", 0), border_spec("ROCArea", 1.5)
    ('MAP:border=0.0', 'ROCArea:border=1.5')
    """
    b = float(border)
    if not np.isfinite(b):
        raise ValueError(f"border must be a finite number; got {border!r}")
    return f"{name}:border={b!r}"


class RankerContractMixin(RankerScoreMixin):
    """Tags, input handling, ``score`` and save/load shared by the SVM and LP rankers.

    Subclasses set ``_fitted_attr`` (checked by :func:`check_is_fitted`) and
    ``_accept_sparse``, and override ``_score_metric`` (the default metric of
    ``score``). A per-query learner sets ``_per_query`` so that arrays without
    ``qid`` or ``group`` warn (:class:`~metricrank.data.OneQueryWarning`), as
    the tree rankers do; the one-set methods (SVM-ROCArea, SVM-acc, the LP
    ranker) learn from one set by design.
    """

    _fitted_attr = "coef_"
    _accept_sparse = "csr"
    _per_query = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True
        tags.requires_fit = True
        return tags

    # --- inputs -------------------------------------------------------------------------

    def _training_data(self, X, y, qid=None, group=None) -> RankingDataset:
        """Validated training data as a RankingDataset (sets ``n_features_in_``)."""
        if isinstance(X, RankingDataset):
            if any(v is not None for v in (y, qid, group)):
                raise ValueError(f"{type(self).__name__}.fit: pass either a RankingDataset or arrays "
                                 f"(X, y, qid/group), not both")
            ds = X
            validate_data(self, ds.X, ds.y, accept_sparse=self._accept_sparse, dtype=np.float64,
                          y_numeric=True)
            return ds
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X, y, qid = take_columns(X, y, qid)  # fit(df, "label", qid="qid"), as the tree rankers and score take it
        if qid is not None and group is not None:
            raise ValueError("pass at most one of qid and group")
        y = numeric_array(y, "y (labels)")  # before scikit-learn's y_numeric, which reads text as numbers
        X, y = validate_data(self, X, y, accept_sparse=self._accept_sparse, dtype=np.float64,
                             y_numeric=True)
        if self._per_query and qid is None and group is None and y.shape[0] > 1:
            warnings.warn(f"{type(self).__name__}.fit: no qid or group given: all {y.shape[0]} rows are "
                          "treated as one query", OneQueryWarning, stacklevel=3)
        return RankingDataset(X, y, qid=qid, group=group)

    def _predict_data(self, X):
        """``(X, group_ptr or None)`` for prediction; raises NotFittedError before fit."""
        check_is_fitted(self, self._fitted_attr)
        group_ptr = None
        if isinstance(X, RankingDataset):
            group_ptr = X.group_ptr
            X = X.X
        X = validate_data(self, X, reset=False, accept_sparse=self._accept_sparse, dtype=np.float64)
        return X, group_ptr

    # --- persistence --------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the fitted model to a versioned, checksummed JSON file (``.gz``/``.bz2`` ok)."""
        check_is_fitted(self, self._fitted_attr)
        state = {"params": encode_state(self.get_params(deep=False)),
                 "fitted": {k: encode_state(v) for k, v in vars(self).items() if k.endswith("_")
                            and not k.startswith("_")}}
        write_model_file(path, type(self).__name__, state)

    @classmethod
    def load(cls, path: str | os.PathLike):
        """Read a model written by :meth:`save` (ValueError on a foreign, newer or corrupted file)."""
        _, state = read_model_file(path, cls.__name__)
        model = cls(**decode_state(state["params"]))
        for k, v in state["fitted"].items():
            setattr(model, k, decode_state(v))
        return model


#: checks of ``sklearn.utils.estimator_checks.check_estimator`` these rankers fail by design
_ONE_CLASS_TARGETS = (
    "its targets are all relevant (y = 4 * X[:, 0] > 0 = border), a single class: a ranker "
    "learns from relevant/non-relevant pairs and raises a ValueError saying the training set "
    "has only one class"
)
_ONE_FEATURE_TARGETS = (
    "expects a message about the single feature, but its y is a single class too, which a "
    "ranker rejects first (ValueError: only one class); one feature alone is fine"
)


def expected_failed_checks(estimator) -> dict[str, str]:
    """``{check name: reason}`` for :func:`check_estimator` / ``parametrize_with_checks``."""
    return {
        "check_estimators_dtypes": _ONE_CLASS_TARGETS,
        "check_fit2d_1feature": _ONE_FEATURE_TARGETS,
    }

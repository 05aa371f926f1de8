"""Parameter adapters: a model's parameters as one flat vector, and its scores for any vector.

The Monte-Carlo optimality test (:mod:`.optimality`) moves a model's parameters along
random directions. It reaches them through an *adapter*, a class with

``matches(model) -> bool`` (classmethod)
    Whether the adapter handles ``model``.
``__init__(model)``
``get() -> ndarray``
    The parameter vector θ (float64, a copy).
``scorer(X) -> callable``
    A function ``theta -> scores of X`` that never modifies ``model``; adapters
    precompute what they can (tree leaves of every row) so a call is cheap.
``perturbed(theta) -> model``
    A *copy* of the model carrying ``theta`` (an independent oracle for tests, and a
    way to keep a perturbed model).

Adapters live in :data:`ADAPTERS` and are tried in order; :func:`register_adapter` adds
one. Built in:

``booster``
    Estimators with ``booster_`` (a ``lightgbm.Booster``): θ is the leaf values of the
    trees ``predict`` uses (the first ``best_iteration_`` trees when set, else all), read
    from ``booster_.dump_model()`` for the tree shapes and ``get_leaf_output`` for the
    exact values; scores are a gather-sum over leaf indices computed once with
    ``predict(X, pred_leaf=True)`` (divided by the trees per iteration: a model of
    ``n_models`` > 1 scores the mean of its models), plus ``init_model_.predict(X)`` when present
    (the base model is not perturbed). ``perturbed`` writes leaves with
    ``set_leaf_output`` on a booster rebuilt from ``model_to_string()``.
``linear``
    Estimators with ``coef_`` (scikit-learn style): θ is ``coef_`` raveled and the
    score is ``X @ coef_ + intercept_``. The intercept is not part of θ: it cannot
    change any ranking.
``torch``
    Objects exposing a ``torch.nn.Module`` as ``module_`` (or modules themselves):
    θ is ``parameters_to_vector``. Scores come from the object's
    ``_forward_scores(X)`` hook on a private deep copy when it has one, else from
    ``module(torch.as_tensor(X))`` flattened. torch is imported only here, when such a
    model is passed. A new net class needs only ``module_`` and ``_forward_scores``.
"""

from __future__ import annotations

import copy

import numpy as np

from .._checks import check_flag

__all__ = ["ADAPTERS", "adapter_for", "get_params_vector", "register_adapter", "set_params_vector"]


class BoosterAdapter:
    """Leaf values of a LightGBM booster (see the module docstring)."""

    @classmethod
    def matches(cls, model) -> bool:
        return getattr(model, "booster_", None) is not None and hasattr(model.booster_, "set_leaf_output")

    def __init__(self, model):
        self.model = model
        booster = model.booster_
        dump = booster.dump_model()
        # n_models > 1 (GBRanker, LambdaMART): one tree per model and iteration, the score their mean
        self.per_iteration = int(dump.get("num_tree_per_iteration", 1))
        n_iter = getattr(model, "best_iteration_", None) or getattr(model, "n_estimators_", None) \
            or booster.current_iteration()
        self.n_trees = min(int(n_iter) * self.per_iteration, len(dump["tree_info"]))
        self.leaves = np.array([dump["tree_info"][t]["num_leaves"] for t in range(self.n_trees)], dtype=np.int64)
        self.offsets = np.zeros(self.n_trees + 1, dtype=np.int64)
        np.cumsum(self.leaves, out=self.offsets[1:])

    def get(self) -> np.ndarray:
        booster = self.model.booster_
        return np.array([booster.get_leaf_output(t, leaf) for t in range(self.n_trees)
                         for leaf in range(self.leaves[t])], dtype=np.float64)

    def scorer(self, X):
        model = self.model
        if hasattr(X, "group_ptr") and hasattr(X, "X"):
            X = X.X
        leaf = np.asarray(model.booster_.predict(X, num_iteration=self.n_trees // self.per_iteration, pred_leaf=True),
                          dtype=np.int64)
        leaf = leaf.reshape(leaf.shape[0], -1)[:, :self.n_trees] + self.offsets[:-1]
        base = np.zeros(leaf.shape[0])
        if getattr(model, "init_model_", None) is not None:
            base = np.asarray(model.init_model_.predict(X), dtype=np.float64)

        per_iteration = self.per_iteration

        def scores(theta):
            out = np.zeros(leaf.shape[0])
            for t in range(leaf.shape[1]):  # tree by tree, the order LightGBM sums in
                out += theta[leaf[:, t]]
            return (out if per_iteration == 1 else out / per_iteration) + base

        return scores

    def perturbed(self, theta):
        import lightgbm

        booster = lightgbm.Booster(model_str=self.model.booster_.model_to_string())
        for t in range(self.n_trees):
            for leaf in range(self.leaves[t]):
                booster.set_leaf_output(t, leaf, float(theta[self.offsets[t] + leaf]))
        clone = copy.copy(self.model)
        clone.booster_ = booster
        return clone


class LinearAdapter:
    """``coef_`` of a linear scorer ``X @ coef_ + intercept_``."""

    @classmethod
    def matches(cls, model) -> bool:
        return getattr(model, "coef_", None) is not None

    def __init__(self, model):
        self.model = model
        self.shape = np.shape(model.coef_)
        if len(self.shape) == 2 and self.shape[0] != 1:
            raise ValueError(f"model: coef_ has shape {self.shape}; a ranker needs one score per row")

    def get(self) -> np.ndarray:
        return np.array(self.model.coef_, dtype=np.float64).ravel()

    def scorer(self, X):
        if hasattr(X, "group_ptr") and hasattr(X, "X"):
            X = X.X
        intercept = float(np.sum(np.ravel(getattr(self.model, "intercept_", 0.0))))

        def scores(theta):
            return np.asarray(X @ theta, dtype=np.float64).ravel() + intercept

        return scores

    def perturbed(self, theta):
        clone = copy.deepcopy(self.model)
        clone.coef_ = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        return clone


class TorchAdapter:
    """Parameters of a ``torch.nn.Module`` (``model.module_`` or the model itself)."""

    @classmethod
    def matches(cls, model) -> bool:
        return getattr(model, "module_", None) is not None or callable(getattr(model, "parameters", None))

    def __init__(self, model):
        import torch  # noqa: F401  (only when a torch model is passed)

        self.model = model
        self.module = model.module_ if getattr(model, "module_", None) is not None else model

    def get(self) -> np.ndarray:
        from torch.nn.utils import parameters_to_vector

        return parameters_to_vector(self.module.parameters()).detach().cpu().double().numpy().copy()

    def _copy_with(self, theta):
        import torch
        from torch.nn.utils import vector_to_parameters

        clone = copy.deepcopy(self.model)
        module = clone.module_ if clone is not self.model and getattr(clone, "module_", None) is not None else clone
        first = next(module.parameters())
        with torch.no_grad():
            vector_to_parameters(torch.as_tensor(theta, dtype=first.dtype, device=first.device), module.parameters())
        return clone, module

    def scorer(self, X):
        import torch
        from torch.nn.utils import vector_to_parameters

        if hasattr(X, "group_ptr") and hasattr(X, "X"):
            X = X.X
        clone, module = self._copy_with(self.get())
        first = next(module.parameters())

        def scores(theta):
            with torch.no_grad():
                vector_to_parameters(torch.as_tensor(theta, dtype=first.dtype, device=first.device),
                                     module.parameters())
                if hasattr(clone, "_forward_scores"):
                    out = clone._forward_scores(X)
                else:
                    out = module(torch.as_tensor(np.asarray(X), dtype=first.dtype, device=first.device))
            if hasattr(out, "detach"):
                out = out.detach().cpu().double().numpy()
            return np.asarray(out, dtype=np.float64).reshape(-1)

        return scores

    def perturbed(self, theta):
        return self._copy_with(theta)[0]


#: name -> adapter class, tried in this order
ADAPTERS: dict[str, type] = {"booster": BoosterAdapter, "linear": LinearAdapter, "torch": TorchAdapter}


_ADAPTER_METHODS = ("matches", "get", "scorer", "perturbed")


def register_adapter(name: str, adapter: type, *, first: bool = True) -> None:
    """Add an adapter class (tried before the built-in ones unless ``first=False``).

    Parameters
    ----------
    name : str
        The adapter's key in :data:`ADAPTERS`; an adapter of the same name is replaced.
    adapter : type
        A class with ``matches`` (a classmethod), ``get``, ``scorer`` and ``perturbed``, as
        the module docstring describes; ``__init__`` takes the model.
    first : bool, default=True
        Try it before every other adapter (so it can claim models a built-in one would
        match), else after them.

    Returns
    -------
    None
        :data:`ADAPTERS` is changed in place.

    Raises
    ------
    ValueError
        ``name`` is not a non-empty string, ``adapter`` is not a class, or it lacks one of
        the four methods (named).

    Examples
    --------
    >>> import numpy as np
    >>> class Weights:                       # a ranker scoring X @ w
    ...     def __init__(self, w): self.w = np.asarray(w, dtype=float)
    >>> class WeightsAdapter:
    ...     @classmethod
    ...     def matches(cls, model): return isinstance(model, Weights)
    ...     def __init__(self, model): self.model = model
    ...     def get(self): return self.model.w.copy()
    ...     def scorer(self, X): return lambda theta: np.asarray(X) @ theta
    ...     def perturbed(self, theta): return Weights(theta)
    >>> register_adapter("weights", WeightsAdapter)
    >>> list(ADAPTERS)[0], get_params_vector(Weights([1, 2])).tolist()
    ('weights', [1.0, 2.0])
    >>> del ADAPTERS["weights"]
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string; got {name!r}")
    if not isinstance(adapter, type):
        raise ValueError(f"adapter must be a class (it is instantiated with the model); got {adapter!r}")
    missing = [m for m in _ADAPTER_METHODS if not callable(getattr(adapter, m, None))]
    if missing:
        raise ValueError(f"adapter {adapter.__name__} lacks {', '.join(missing)}; an adapter needs "
                         f"{', '.join(_ADAPTER_METHODS)} (see {__name__})")
    check_flag(first, "first")
    if first:
        items = [(name, adapter)] + [(k, v) for k, v in ADAPTERS.items() if k != name]
        ADAPTERS.clear()
        ADAPTERS.update(items)
    else:
        ADAPTERS[name] = adapter


def adapter_for(model):
    """The first adapter in :data:`ADAPTERS` that matches ``model``."""
    for adapter in ADAPTERS.values():
        if adapter.matches(model):
            return adapter(model)
    raise ValueError(
        f"model: {type(model).__name__} has no parameters to perturb; supported are estimators with "
        f"booster_ (LightGBM), coef_ (linear) or a torch module (module_); see {__name__}"
    )


def get_params_vector(model) -> np.ndarray:
    """The model's parameter vector θ (a copy).

    Parameters
    ----------
    model : estimator
        A fitted model that one of :data:`ADAPTERS` handles: LightGBM-based (``booster_``),
        linear (``coef_``) or a torch module (``module_``).

    Returns
    -------
    ndarray of float64
        θ as the first matching adapter reads it (module docstring); changing it leaves
        the model unchanged.

    Raises
    ------
    ValueError
        No adapter handles the model.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> m = LinearRegression().fit(np.eye(3), [1.0, 2.0, 3.0])
    >>> np.allclose(get_params_vector(m), [-1.0, 0.0, 1.0])
    True
    """
    return adapter_for(model).get()


def set_params_vector(model, theta):
    """A copy of ``model`` carrying the parameter vector ``theta``; ``model`` is left unchanged.

    Parameters
    ----------
    model : estimator
        As in :func:`get_params_vector`.
    theta : array-like of float
        The new θ, as long as :func:`get_params_vector` returns.

    Returns
    -------
    estimator
        A copy of ``model`` whose parameters are ``theta``.

    Raises
    ------
    ValueError
        No adapter handles the model, or ``theta`` has the wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> m = LinearRegression().fit(np.eye(3), [1.0, 2.0, 3.0])   # θ = coef_ = (-1, 0, 1), intercept 2
    >>> moved = set_params_vector(m, get_params_vector(m) + [1.0, 0.0, 0.0])
    >>> moved.predict(np.eye(3)).round(6).tolist(), m.predict(np.eye(3)).round(6).tolist()
    ([2.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    """
    adapter = adapter_for(model)
    theta = np.asarray(theta, dtype=np.float64).ravel()
    if theta.shape != adapter.get().shape:
        raise ValueError(f"theta has {theta.shape[0]} entries; the model has {adapter.get().shape[0]} parameters")
    return adapter.perturbed(theta)

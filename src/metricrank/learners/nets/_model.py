"""The scoring model: a linear map or an MLP from features to one score per document."""

from __future__ import annotations

from ._torch import require_torch

__all__ = ["ACTIVATIONS", "build_scorer"]

#: Hidden-layer activations accepted by ``activation``.
ACTIVATIONS = ("relu", "tanh", "sigmoid", "gelu", "elu")


def build_scorer(n_features: int, hidden_layer_sizes=(), activation: str = "relu", dropout: float = 0.0,
                 dtype=None):
    """``torch.nn.Sequential`` mapping ``(n, n_features)`` to ``(n, 1)`` scores.

    ``hidden_layer_sizes=()`` is the linear model ``s = w·x + b``; otherwise each
    hidden layer is ``Linear -> activation [-> Dropout]``. Parameters are
    initialised from torch's global generator (seed it for reproducibility).

    Examples
    --------
    >>> import torch
    >>> net = build_scorer(4, (8,), "tanh")
    >>> tuple(net(torch.zeros(3, 4)).shape)
    (3, 1)
    """
    torch = require_torch()
    nn = torch.nn
    layers = []
    width = n_features
    act = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "gelu": nn.GELU, "elu": nn.ELU}[activation]
    for size in hidden_layer_sizes:
        layers.append(nn.Linear(width, int(size)))
        layers.append(act())
        if dropout > 0:
            layers.append(nn.Dropout(float(dropout)))
        width = int(size)
    layers.append(nn.Linear(width, 1))
    model = nn.Sequential(*layers)
    return model if dtype is None else model.to(dtype)

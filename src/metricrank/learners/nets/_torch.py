"""PyTorch is an optional extra: import it only when a net is built or fitted."""

from __future__ import annotations

EXTRA_HINT = "pip install 'metricrank[nets]'"

__all__ = ["EXTRA_HINT", "require_torch"]


def require_torch():
    """The ``torch`` module, or ImportError naming the extra that installs it."""
    try:
        import torch
    except ImportError as err:
        raise ImportError(f"RankNet and LambdaRank need PyTorch, which is not installed; install the "
                          f"extra: {EXTRA_HINT}") from err
    return torch

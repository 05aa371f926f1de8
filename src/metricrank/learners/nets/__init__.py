"""Neural rankers on PyTorch (optional extra ``metricrank[nets]``): RankNet and LambdaRank.

Importing this package does not import torch; building or fitting a net does, and
raises ImportError naming the extra when torch is missing.
"""

from ._base import OPTIMIZERS
from ._model import ACTIVATIONS
from .lambdarank import LambdaRank
from .ranknet import RankNet

__all__ = ["ACTIVATIONS", "OPTIMIZERS", "LambdaRank", "RankNet"]

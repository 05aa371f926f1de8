"""Distributed training on a Dask cluster, with LightGBM's Dask interface as the engine.

:class:`DaskGBRanker` and :class:`DaskLambdaMART` train the trees of
:class:`~metricrank.GBRanker` and :class:`~metricrank.LambdaMART` with
``lightgbm.dask``: every worker computes the metricrank objective over the
whole queries of its own partitions, and LightGBM's data-parallel learner
merges the workers' histograms to grow each tree. What runs where:

* workers: the objective's gradients (per query, exact), LightGBM's histograms
  and, for dask input, :meth:`~DaskGBRanker.predict`;
* client: the query layout check (one summary per partition), the per-tree
  evaluation of validation sets with metricrank's metrics and early stopping
  (validation data are read to the client; see :mod:`._early_stopping`).

Requires the ``dask`` extra: ``pip install metricrank[dask]``.
"""

from ._estimators import DaskGBRanker, DaskLambdaMART
from ._partitions import QuerySplitError, partition_by_query, scatter_by_query

__all__ = ["DaskGBRanker", "DaskLambdaMART", "QuerySplitError", "partition_by_query", "scatter_by_query"]

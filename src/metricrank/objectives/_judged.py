"""A pair loss judged by a metric: LambdaMART's targets that are not λ-gradients (YetiRank, PairLogit)."""

from __future__ import annotations

import copy

import numpy as np

from ..metrics.registry import get_metric

__all__ = ["JudgedByMetric"]


class JudgedByMetric:
    """Mixin of an :class:`~metricrank.objectives._base.Objective` that a model judged by a metric trains on.

    :meth:`judged_by` returns a copy whose :attr:`eval_spec` (default evaluation and early-stopping
    metric) is the judged metric and whose :meth:`check_labels` enforces that metric's label domain,
    which the loss itself does not restrict. The loss is unchanged.
    """

    #: the metric a model trained on this loss is judged by, when set by :meth:`judged_by`
    judged = None

    def judged_by(self, metric: str, preset: str | None = None):
        """This loss, judged by ``metric`` (``LambdaMART``'s target for that metric).

        Examples
        --------
        >>> from metricrank.objectives import get_objective
        >>> get_objective("YetiRank").judged_by("MAP").eval_spec
        'MAP'
        >>> get_objective("PairLogit").judged_by("MRR").eval_spec, get_objective("PairLogit").eval_spec
        ('MRR', 'PairLogit')
        """
        twin = copy.copy(self)
        twin.judged = get_metric(metric, preset=preset)
        return twin

    @property
    def eval_spec(self) -> str:
        return self.loss_eval_spec if self.judged is None else self.judged.spec

    @property
    def loss_eval_spec(self) -> str:
        """The evaluation metric of the loss itself, when no metric judges it (the objective's default)."""
        return super().eval_spec

    def check_labels(self, y: np.ndarray) -> None:
        if self.judged is None:
            return
        # imported here: the λ kernels import pairlogit's, so lambda_objective cannot be imported at load time
        from .lambda_objective import resolve_target

        y = np.ascontiguousarray(y, dtype=np.float64)
        try:
            # a metric with an exact swap delta has a λ target's label domain (NDCG: graded labels >= 0, ...)
            domain = resolve_target(self.judged)
        except ValueError:
            if self.judged.definition.check_labels is not None:
                self.judged.definition.check_labels(y, self.judged.params)
            return
        domain.check_labels(y, role="judged metric")

"""One HiGHS model of the pair LP that grows by pairs and re-solves from its last basis.

The LP and its two lifted forms are described in
:mod:`metricrank.learners._lp_chunking`. This module holds them in a single
:class:`highspy.Highs` object so constraint generation can add pairs without
rebuilding anything:

* ``"dual"`` (variables ``[w | lambda]``): the ``2m`` rows ``w - E^T lambda = 0``
  and ``K_y^T w <= 1`` are fixed; a pair is a new *column* ``lambda_pn`` in
  ``[0, C]`` with two entries (``addCols``). The old basis stays primal
  feasible (new columns are non-basic at 0), so HiGHS restarts from it.
* ``"primal"`` (variables ``[alpha | s | z]``): the ``m`` rows ``s = K_y alpha``
  are fixed; a pair is a new column ``z_pn >= 0`` (cost ``C``, no entries) and
  a new *row* ``s_p - s_n + z_pn >= epsilon`` (``addCols`` then ``addRows``).
  The old basis plus the new rows' slacks is dual feasible, so HiGHS restarts
  with the dual simplex.

HiGHS keeps its basis across :meth:`PairLP.solve` calls; that is the warm
start. ``alpha`` is the multiplier of ``K_y^T w <= 1`` in the dual form and a
primal value in the primal form.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass

import highspy
import numpy as np

__all__ = ["LPSolveError", "PairLP", "RoundResult"]

_INF = highspy.kHighsInf


class LPSolveError(RuntimeError):
    """HiGHS did not return an optimal solution; the message names its status."""


@dataclass(frozen=True)
class RoundResult:
    """One HiGHS solve of the current model."""

    alpha: np.ndarray   #: weights, shape (m,), clipped at 0
    objective: float    #: sum(alpha) + C * sum(z) over the model's pairs (HiGHS's value)
    status: str         #: HiGHS model status ("Optimal")
    iterations: int     #: simplex iterations of this solve
    solve_time: float   #: seconds inside ``Highs.run``


class _QuietHighs(highspy.Highs):
    """``highspy.Highs`` that prints nothing, its banner included.

    highspy's constructor enables callbacks, and HiGHS (1.16) logs its banner
    then, before any option can be set; this sets ``output_flag`` first.
    """

    def enableCallbacks(self):  # noqa: N802 (highspy's name)
        self.setOptionValue("output_flag", False)
        super().enableCallbacks()


def _run_interruptibly(h) -> None:
    """``h.run()``, stopped by Ctrl-C at HiGHS's next interrupt check, then KeyboardInterrupt.

    highspy calls Python during the simplex (its callbacks), so Python's own
    Ctrl-C handler would raise inside a callback, which HiGHS reports as a
    solve error. While it runs, Ctrl-C only sets a flag; the simplex interrupt
    callback stops HiGHS on it, and KeyboardInterrupt is raised after.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(h, "cbSimplexInterrupt") \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        h.run()
        return
    pressed = []

    def stop_if_pressed(event):
        if pressed:
            event.interrupt()

    h.cbSimplexInterrupt += stop_if_pressed
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        h.run()
    finally:
        signal.signal(signal.SIGINT, previous)
        h.cbSimplexInterrupt -= stop_if_pressed
    if pressed:
        raise KeyboardInterrupt


def _dense_rows(A):
    """CSR arrays (starts, indices, values) of the non-zeros of a dense matrix, row by row."""
    nz = A != 0
    rows, cols = np.nonzero(nz)
    starts = np.r_[0, np.cumsum(nz.sum(axis=1))[:-1]]
    return starts.astype(np.int32), cols.astype(np.int32), A[rows, cols]


class PairLP:
    """The pair LP over a growing set of pairs, held in one :class:`highspy.Highs` model.

    Parameters
    ----------
    Ky : ndarray of shape (m, m)
        ``Ky[j, i] = y_i K(x_j, x_i)``.
    C, epsilon : float
        Error weight and required score gap.
    formulation : {"dual", "primal"}
    time_limit : float, optional
        Seconds allowed to each :meth:`solve`.
    """

    def __init__(self, Ky, *, C, epsilon, formulation="dual", time_limit=None):
        self.m = Ky.shape[0]
        self.C, self.epsilon = float(C), float(epsilon)
        self.formulation = formulation
        self.time_limit = time_limit
        self.n_pairs = 0
        h = self._h = _QuietHighs()
        h.setOptionValue("output_flag", False)
        m = self.m
        if formulation == "dual":
            # columns w (free); rows w - E^T lambda = 0, then K_y^T w <= 1
            h.addVars(m, np.full(m, -_INF), np.full(m, _INF))
            eye = np.arange(m, dtype=np.int32)
            h.addRows(m, np.zeros(m), np.zeros(m), m, eye, eye, np.ones(m))
            starts, cols, vals = _dense_rows(np.ascontiguousarray(Ky.T))
            h.addRows(m, np.full(m, -_INF), np.ones(m), vals.size, starts, cols, vals)
        elif formulation == "primal":
            # columns alpha >= 0 (cost 1), s (free); rows s - K_y alpha = 0
            h.addVars(2 * m, np.r_[np.zeros(m), np.full(m, -_INF)], np.full(2 * m, _INF))
            h.changeColsCost(m, np.arange(m, dtype=np.int32), np.ones(m))
            starts, cols, vals = _dense_rows(np.hstack([-Ky, np.eye(m)]))
            h.addRows(m, np.zeros(m), np.zeros(m), vals.size, starts, cols, vals)
        else:
            raise ValueError(f"formulation must be 'dual' or 'primal'; got {formulation!r}")

    def add_pairs(self, pairs):
        """Add the constraints of ``pairs`` ((positive, negative) rows, shape (k, 2))."""
        k = pairs.shape[0]
        if k == 0:
            return
        h, m = self._h, self.m
        p, n = pairs[:, 0].astype(np.int32), pairs[:, 1].astype(np.int32)
        if self.formulation == "dual":
            # lambda_pn enters w = sum lambda (e_p - e_n): row p gets -1, row n gets +1
            h.addCols(k, np.full(k, -self.epsilon), np.zeros(k), np.full(k, self.C), 2 * k,
                      np.arange(0, 2 * k, 2, dtype=np.int32), np.column_stack([p, n]).ravel(),
                      np.tile([-1.0, 1.0], k))
        else:
            z = (2 * m + self.n_pairs + np.arange(k)).astype(np.int32)
            h.addCols(k, np.full(k, self.C), np.zeros(k), np.full(k, _INF), 0,
                      np.zeros(k, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
            h.addRows(k, np.full(k, self.epsilon), np.full(k, _INF), 3 * k,
                      np.arange(0, 3 * k, 3, dtype=np.int32),
                      np.column_stack([m + p, m + n, z]).ravel(), np.tile([1.0, -1.0, 1.0], k))
        self.n_pairs += k

    def solve(self) -> RoundResult:
        """Re-solve from the current basis.

        Raises
        ------
        LPSolveError
            If HiGHS stops without an optimal solution (its model status).
        """
        h = self._h
        if self.time_limit is not None:
            # HiGHS's time limit counts the object's run time over all runs, so extend it per solve.
            h.setOptionValue("time_limit", h.getRunTime() + float(self.time_limit))
        t0 = time.perf_counter()
        _run_interruptibly(h)
        elapsed = time.perf_counter() - t0
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise LPSolveError(
                f"HiGHS did not solve the LP ranker problem: model status {int(status)} "
                f"({h.modelStatusToString(status)}) over {self.n_pairs} pairs"
            )
        info, sol = h.getInfo(), h.getSolution()
        if self.formulation == "dual":
            alpha = -np.asarray(sol.row_dual)[self.m:]
            objective = -info.objective_function_value
        else:
            alpha = np.asarray(sol.col_value)[:self.m]
            objective = info.objective_function_value
        return RoundResult(alpha=np.maximum(alpha, 0.0), objective=float(objective),
                           status=h.modelStatusToString(status), iterations=int(info.simplex_iteration_count),
                           solve_time=elapsed)

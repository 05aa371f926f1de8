"""The epoch loop: shuffled query batches, one backward pass per batch, evaluation and early stopping."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from .._boosting import _improved, last_values
from ._batches import make_batch
from ._lambdas import backward_lambdas

__all__ = ["TrainResult", "train"]


@dataclass
class TrainResult:
    evals_result: dict = field(default_factory=dict)  # {set: {metric: [value per epoch]}}
    best_epoch: int | None = None  # 1-based; set only with early stopping
    best_score: dict = field(default_factory=dict)
    n_epochs: int = 0
    stop_reason: str = ""


def _progress(verbose: bool, total: int):
    if not verbose:
        return contextlib.nullcontext(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())


def train(model, X, group_ptr, lambdas, optimizer, *, max_epochs: int, batch_queries: int, rng,
          evals=(), watched: str | None = None, early_stopping_rounds: int | None = None, verbose: bool = False,
          offset=None) -> TrainResult:
    """Train ``model`` in place for up to ``max_epochs`` passes over the queries, its scores added to ``offset``
    (the rows' starting scores, or None) in the cost.

    ``evals`` is a list of ``(name, evaluate)`` with ``evaluate(model) -> [(spec, value,
    higher_is_better), ...]``; early stopping watches the first metric of the set named ``watched``
    (default: the last; the fit passes the last that is not the training data, as LambdaMART watches) and
    restores the weights of the best epoch.
    """
    result = TrainResult()
    n_queries = group_ptr.size - 1
    best_value, best_epoch, best_weights = float("nan"), 0, None
    with _progress(verbose, max_epochs) as progress:
        task = None if progress is None else progress.add_task("epoch", total=max_epochs)
        for epoch in range(1, max_epochs + 1):
            model.train()
            order = rng.permutation(n_queries)
            for start in range(0, n_queries, batch_queries):
                batch = make_batch(group_ptr, order[start:start + batch_queries])
                optimizer.zero_grad(set_to_none=True)
                # mean over the batch's queries, so the step size does not grow with batch_queries
                backward_lambdas(model, X, batch, lambdas, scale=1.0 / batch.queries.size, offset=offset)
                optimizer.step()
            result.n_epochs = epoch
            evaluations = {}
            directions = {}
            if evals:
                model.eval()
                for name, evaluate in evals:
                    for spec, value, higher in evaluate(model):
                        evaluations.setdefault(name, {})[spec] = value
                        directions[name, spec] = higher
                        result.evals_result.setdefault(name, {}).setdefault(spec, []).append(value)
            if progress is not None:
                shown = "  ".join(f"{n} {s}={v:.4f}" for n, vals in evaluations.items() for s, v in vals.items())
                progress.update(task, advance=1, description=f"epoch {epoch} {shown}")
            if not evals:
                continue
            watched = evals[-1][0] if watched is None else watched
            spec = next(iter(evaluations[watched]))
            value = evaluations[watched][spec]
            if _improved(value, best_value, directions[watched, spec]):
                best_value, best_epoch = value, epoch
                result.best_score = {name: dict(vals) for name, vals in evaluations.items()}
                if early_stopping_rounds is not None:
                    best_weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
            elif early_stopping_rounds is not None and epoch - best_epoch >= early_stopping_rounds:
                result.stop_reason = (f"{spec} on {watched} did not improve for {early_stopping_rounds} epochs; "
                                      f"best {best_value:.6g} at epoch {best_epoch}")
                break
    if best_weights is not None:
        model.load_state_dict(best_weights)
        result.best_epoch = best_epoch
    else:  # best_score: the last epoch's values, the model predict() uses (as the trees' without early stopping)
        result.best_score = last_values(result.evals_result)
    if not result.stop_reason:
        result.stop_reason = f"max_epochs={max_epochs} reached"
    model.eval()
    return result

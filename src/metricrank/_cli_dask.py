"""``metricrank train --dask ADDRESS``: the same training, on a Dask cluster.

The data file is read on the machine running the command (the Dask client),
cut into query-aligned partitions (one per worker) and sent to the workers;
the model is trained there by :class:`metricrank.dask.DaskGBRanker` (or
:class:`~metricrank.dask.DaskLambdaMART` for λ objectives) and saved as the
usual single-machine model file.
"""

from __future__ import annotations

import contextlib
import os
import re

__all__ = ["check_objective", "connect", "fit_on_dask", "parse_address"]

_ADDRESS = re.compile(r"^(?:(tcp|tls|ucx|ws|wss)://)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


def _require_distributed() -> None:
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise ValueError("--dask needs dask and distributed: pip install 'metricrank[dask]'")


def parse_address(value: str):
    """``("local", n_workers)`` for ``local:N``, else ``("scheduler", "scheme://host:port")``.

    Examples
    --------
    >>> parse_address("local:2"), parse_address("10.0.0.5:8786")
    (('local', 2), ('scheduler', 'tcp://10.0.0.5:8786'))
    """
    text = str(value).strip()
    if text.lower().startswith("local:"):
        count = text[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--dask {value}: local:N needs a number of workers N >= 1, e.g. local:2")
        _require_distributed()
        return "local", int(count)
    match = _ADDRESS.match(text)
    if not match or not 1 <= int(match.group(3)) <= 65535:
        raise ValueError(f"--dask {value}: expected a scheduler address such as tcp://host:8786 (schemes tcp, tls, "
                         f"ucx, ws, wss; host:port means tcp) or local:N to start N local workers")
    scheme = match.group(1) or "tcp"
    _require_distributed()
    return "scheduler", f"{scheme}://{match.group(2)}:{match.group(3)}"


def check_objective(objective, pairs_file) -> None:
    """Fail before reading data when the objective or --pairs cannot train distributed."""
    from .dask._objective import check_distributable

    if pairs_file:
        raise ValueError("--pairs cannot be used with --dask: explicit pairs index the rows of one in-memory "
                         "training set; train without --dask")
    check_distributable(objective)


@contextlib.contextmanager
def connect(value: str, threads: int | None = None):
    """A ``distributed.Client`` for ``--dask``: to a running scheduler, or to a LocalCluster of in-process workers."""
    from distributed import Client, LocalCluster

    kind, target = parse_address(value)
    if kind == "local":
        per_worker = threads or max(1, (os.cpu_count() or 1) // target)
        with LocalCluster(n_workers=target, threads_per_worker=per_worker, processes=False,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(target, timeout="20s")
    except OSError as err:
        raise ValueError(f"--dask {value}: cannot reach the Dask scheduler ({err})") from None
    with client:
        yield client


def _dask_twin(model, client):
    """The Dask estimator with ``model``'s parameters (those that apply distributed)."""
    from .dask import DaskGBRanker, DaskLambdaMART
    from .learners import LambdaMART

    cls = DaskLambdaMART if isinstance(model, LambdaMART) else DaskGBRanker
    names = cls().get_params()
    return cls(**{k: v for k, v in model.get_params().items() if k in names}, client=client)


def fit_on_dask(args, client, model, train, valid, names, console):
    """Train ``model``'s Dask twin on ``client``'s cluster; return the fitted single-machine model."""
    from .dask import scatter_by_query
    from .dask._partitions import cluster_workers

    try:
        workers = len(cluster_workers(client))
    except ValueError as error:
        raise ValueError(f"--dask {args.dask}: {error}") from None
    console.print(f"dask: {workers} worker(s) at {client.scheduler.address}; {args.train} is read here and "
                  "sent to them in query-aligned partitions (one per worker)")
    X = train.X.toarray() if hasattr(train.X, "toarray") else train.X
    X, y, qid, *weight = scatter_by_query(X, train.y, train.row_qid, sample_weight=train.weight, client=client)
    dask_model = _dask_twin(model, client)
    dask_model.fit(X, y, qid=qid, sample_weight=weight[0] if weight else None, eval_set=valid or None,
                   eval_names=names or None, eval_metrics=args.metric, early_stopping_rounds=args.early_stopping)
    console.print(f"trained on {dask_model.n_workers_} worker(s), {dask_model.n_partitions_} partition(s)")
    return dask_model.to_local()

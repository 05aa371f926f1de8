"""``metricrank tune``: search a ranker's tree parameters with Optuna, folds made of whole queries.

``metricrank tune --train F [--weights F] [--group-weights F] [--pairs F | --valid F [--valid-query-file F]
[--valid-weights F] [--valid-group-weights F]] [--objective SPEC] [--target SPEC|auto] --metric SPEC --trials N
--cv K --timeout S --seed S [--storage URL [--study-name NAME]] --out MODEL.json [--params-out best.json]`` runs
:func:`metricrank.model_selection.tune` and writes the refitted best model (``metricrank predict`` reads it) and,
optionally, the best parameters as JSON. With ``--valid`` the trials train on ``--train`` and stop early and score
on ``--valid`` (one split instead of ``--cv`` folds); the best model is refitted on both files. With ``--storage``
the study is kept in that database, and the same command run again after a stop goes on with the trials it lacks.
"""

from __future__ import annotations

import contextlib
import json
import logging

import numpy as np

from ._checks import check_lightgbm_seed
from ._cli_data import add_weights_options
from ._cli_help import HelpFormatter
from ._io import atomic_write, check_readable, check_writable, refuse_overwriting, same_file


def _check_options(args):
    """Every option that can be checked without the data, before any long work."""
    from .metrics import get_metric

    if args.trials < 1:
        raise ValueError(f"--trials must be >= 1; got {args.trials}")
    if args.cv is not None and args.cv < 2:
        raise ValueError(f"--cv must be >= 2 folds; got {args.cv}")
    if args.cv is not None and args.valid:
        raise ValueError("--cv and --valid exclude each other: --valid is the one held-out split")
    if args.timeout is not None and not args.timeout > 0:
        raise ValueError(f"--timeout must be a positive number of seconds; got {args.timeout}")
    if args.trees < 1:
        raise ValueError(f"--trees must be >= 1; got {args.trees}")
    if args.early_stopping < 1:
        raise ValueError(f"--early-stopping must be >= 1; got {args.early_stopping}")
    if args.threads is not None and args.threads < 1:
        raise ValueError(f"--threads must be >= 1; got {args.threads}")
    from ._cli_train import check_pair_target, lambda_target, objective_and_target, only_for_lambda
    from .learners import GBRanker, LambdaMART
    from .objectives import LambdaObjective

    check_lightgbm_seed(args.seed, "--seed")
    if args.metric is not None:  # repeatable in train (the first judges), so not silently the last one here
        if len(args.metric) > 1:
            raise ValueError(f"--metric given {len(args.metric)} times ({', '.join(args.metric)}); tune optimises "
                             "one metric: pass it once")
        args.metric = args.metric[0]
        get_metric(args.metric, preset=args.preset)
    objective, target = objective_and_target(args.objective, args.target, args.metric, args.preset)
    common = dict(n_estimators=args.trees, preset=args.preset, n_jobs=args.threads, random_state=args.seed)
    if isinstance(objective, LambdaObjective):
        model = check_pair_target(LambdaMART(
            objective.target.spec, target=lambda_target(objective, target, args.preset), **common))
    else:
        only_for_lambda(objective, args, ("target",))
        model = GBRanker(objective.spec, **common)
    if args.pairs is not None:
        if args.valid:
            raise ValueError("--pairs and --valid exclude each other: the pairs are rows of --train, and --valid's "
                             "queries would have none; tune with --cv folds of --train")
        if not objective.accepts_pairs:
            raise ValueError(f"--pairs needs an objective that reads explicit pairs (PairLogit, PairLogitPairwise), "
                             f"not {objective.spec}")
    for option, what in (("--valid-weights", "weighs --valid's rows"),
                         ("--valid-group-weights", "weighs --valid's queries"),
                         ("--valid-query-file", "gives --valid's group sizes")):
        if getattr(args, option[2:].replace("-", "_")) is not None and not args.valid:
            raise ValueError(f"{option} {what}; pass --valid")
    side_files = ((args.pairs, "--pairs"), (args.weights, "--weights"), (args.group_weights, "--group-weights"),
                  (args.valid_weights, "--valid-weights"), (args.valid_group_weights, "--valid-group-weights"))
    for path, option in side_files:
        check_readable(path, option)
    refuse_overwriting_inputs(args, [(option, path) for path, option in side_files])
    if args.study_name is not None and args.storage is None:
        raise ValueError("--study-name names a study in --storage; pass --storage too")
    for path, option in ((args.out, "--out"), (args.params_out, "--params-out")):
        if path is not None:
            check_writable(path, option)
    if args.params_out is not None and same_file(args.out, args.params_out):
        raise ValueError(f"--out and --params-out are the same file ({args.out}): the parameters would replace the "
                         "model; name two files")
    from .model_selection._space import _optuna, check_storage

    try:
        _optuna()  # before reading data
    except ImportError as err:
        raise ValueError(str(err)) from None
    if args.storage is not None:
        check_storage(args.storage, "--storage")
    data_files = ((args.train, "--train"), (args.train_query_file, "--train-query-file"),
                  (args.valid, "--valid"), (args.valid_query_file, "--valid-query-file"))
    for path, option in data_files:
        check_readable(path, option)  # last: the checks above need no data
    refuse_overwriting_inputs(args, [(option, path) for path, option in data_files])
    return model, objective


def refuse_overwriting_inputs(args, inputs) -> None:
    """A ValueError when ``--out`` or ``--params-out`` names the file of one of ``inputs`` (``(option, path)``)."""
    refuse_overwriting("--out", args.out, inputs, "the model")
    refuse_overwriting("--params-out", args.params_out, inputs, "the parameters")


def cmd_tune(args) -> int:
    from ._cli_train import message_console, print_target, target_note

    from ._cli_data import read_ranking_file, with_file_lines
    from .data import RankingDataset, load_pairs
    from .metrics import evaluate
    from .model_selection import tune
    from .model_selection._selection import SELECTION_ALPHA

    console = message_console()
    model, objective = _check_options(args)
    train = read_ranking_file(args.train, query_file=args.train_query_file, weights=args.weights,
                              group_weights=args.group_weights)
    weight, group_weight = train.weight, train.group_weight
    X, y, qid = train.X, train.y, _query_ids(train, 0)
    cv = args.cv or 3
    if args.cv is not None and not args.valid and cv > train.n_queries:  # before the header announcing the folds
        raise ValueError(f"--cv {cv}: {args.train} holds {train.n_queries} queries; give 2 to {train.n_queries} "
                         "folds")
    if args.valid:
        valid = read_ranking_file(args.valid, n_features=train.n_features, query_file=args.valid_query_file,
                                  weights=args.valid_weights,
                                  group_weights=args.valid_group_weights, weights_option="--valid-weights")
        weight = _joined(weight, valid.weight, train.n_docs, valid.n_docs)
        group_weight = _joined(group_weight, valid.group_weight, train.n_queries, valid.n_queries)
        vqid = _query_ids(valid, train.n_queries)  # its own queries, whatever ids the two files use
        X = _stack(train.X, valid.X)
        y = np.concatenate([train.y, valid.y])
        qid = np.concatenate([qid, vqid])
        cv = [(np.arange(train.n_docs), np.arange(train.n_docs, train.n_docs + valid.n_docs))]
    console.print(f"tuning {type(model).__name__} ({objective.spec}{target_note(model)}) on {args.train}"
                  f"{' + ' + args.valid if args.valid else ''}: {len(np.unique(qid))} queries, {len(y)} "
                  f"documents; {args.trials} trials, "
                  f"{'train -> valid' if args.valid else f'{cv} query folds'}")
    data = {"X": X, "y": y, "qid": qid}
    if args.pairs is not None or weight is not None or group_weight is not None:  # every fold and the refit read them
        pairs, pair_weight = (load_pairs(args.pairs, group_ptr=train.group_ptr, qid=train.qid) if args.pairs
                              else (None, None))
        data = {"X": RankingDataset(X, y, qid=qid, weight=weight, group_weight=group_weight, pairs=pairs,
                                    pair_weight=pair_weight)}
    try:
        with _interrupts_without_traceback():
            result = tune(model, **data, metric=args.metric, n_trials=args.trials, cv=cv,
                          early_stopping_rounds=args.early_stopping, timeout=args.timeout, random_state=args.seed,
                          show_progress=not args.quiet, storage=args.storage, study_name=args.study_name)
    except ValueError as err:  # a label check's rows (of --train, then --valid), as lines of their files
        raise ValueError(with_file_lines(str(err), (args.train, train.n_docs), *[args.valid] * bool(args.valid))) \
            from None
    best = result.best_estimator_
    best.save(args.out)
    summary = result.summary()
    top = result.study_.best_trial
    if result.selected_trial_ != top.number:
        console.print(f"the best trial ({top.number}, {result.metric_} = {top.value:.6f}) does not beat the starting "
                      f"parameters significantly (one-sided Wilcoxon p = {result.selection_pvalue_:.3g} >= "
                      f"{result.selection_level_:.3g} = {SELECTION_ALPHA:g} / {summary['n_completed'] - 1} "
                      "completed trials over the held-out queries): keeping them")
    console.print(f"kept mean held-out {result.metric_} = {result.best_score_:.6f} "
                  f"(trial {result.selected_trial_}; {summary['n_trials']} trials, {summary['n_pruned']} pruned, "
                  f"{result.elapsed_:.1f} s)")
    print_target(console, best)
    console.print("parameters: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                                  for k, v in result.best_params_.items()))
    truth, where = (y, {"qid": qid}) if "y" in data else (data["X"], {})  # its weights and pairs read
    train_value = evaluate(truth, best.predict(X), metric=result.metric_, preset=args.preset, **where)
    console.print(f"refitted on all rows: {result.metric_} = {train_value:.6f} on the tuning data; wrote {args.out}")
    if args.params_out:
        payload = {**summary, "objective": objective.spec,
                   "target": getattr(best, "target_", None)}  # LambdaMART's
        with atomic_write(args.params_out) as fh:
            fh.write((json.dumps(payload, indent=2) + "\n").encode("utf-8"))
        console.print(f"wrote {args.params_out}")
    return 0


class _InterruptedTrial(logging.Filter):
    """Drops Optuna's report of a trial that Ctrl-C stopped (its traceback, then "failed with value None"):
    the command line then says "metricrank: interrupted" in one line, as for any other command."""

    def __init__(self):
        super().__init__()
        self.dropped = False
        self.record = self.keep = None

    def filter(self, record) -> bool:
        if record is not self.record:  # decided once per record: every handler of the logger asks
            interrupted = bool(record.exc_info) and isinstance(record.exc_info[1], KeyboardInterrupt)
            self.keep = not (interrupted or (self.dropped and "failed with value" in record.getMessage()))
            self.dropped = interrupted
            self.record = record
        return self.keep


@contextlib.contextmanager
def _interrupts_without_traceback():
    handlers = logging.getLogger("optuna").handlers
    quiet = _InterruptedTrial()
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)


def _joined(first, second, n_first: int, n_second: int):
    """The two files' weights one after the other (a file without them weighs 1); None when neither has any."""
    if first is None and second is None:
        return None
    return np.concatenate([np.ones(n_first) if first is None else first,
                           np.ones(n_second) if second is None else second])


def _query_ids(ds, offset: int) -> np.ndarray:
    """Query position (plus ``offset``) of every row: ids that stay distinct across files."""
    return offset + np.repeat(np.arange(ds.n_queries), ds.query_sizes)


def _stack(a, b):
    import scipy.sparse as sp

    if sp.issparse(a) or sp.issparse(b):
        return sp.vstack([sp.csr_matrix(a), sp.csr_matrix(b)]).tocsr()
    return np.vstack([a, b])


def add_parsers(sub, preset_choices) -> None:
    tu = sub.add_parser("tune", help="search tree parameters with Optuna (folds by query) and save the best model",
                        formatter_class=HelpFormatter)
    tu.add_argument("--train", required=True, help="LETOR/SVMlight file with qid (.gz/.bz2 ok)")
    tu.add_argument("--train-query-file", help="group sizes for a training file without qid")
    tu.add_argument("--pairs", metavar="FILE",
                    help="CatBoost pairs file (winner, loser[, weight]: 0-based rows of --train) for PairLogit and "
                         "PairLogitPairwise: each fold and the refit train on the pairs of their queries")
    add_weights_options(tu, "--train", "in every fit and score")
    tu.add_argument("--valid-weights", metavar="FILE",
                    help="weight file for --valid's rows (default: they weigh 1)")
    tu.add_argument("--valid-group-weights", metavar="FILE",
                    help="group weights file for --valid's queries (default: they weigh 1)")
    tu.add_argument("--valid", metavar="FILE",
                    help="held-out queries: trials train on --train and score on this file (instead of --cv folds)")
    tu.add_argument("--valid-query-file", metavar="FILE", help="group sizes for a --valid file without qid")
    tu.add_argument("--objective", default=None,
                    help="objective spec (lambda:<metric spec>, YetiRank, ...; see `metricrank objectives`). Default: "
                         "what LambdaMART(metric=M) trains by default, M the --metric (NDCG:top=10 without one): "
                         "lambda:M with --target auto")
    tu.add_argument("--metric", default=None, metavar="SPEC", action="append",
                    help="metric to optimise and stop early on, once (default: the objective's)")
    tu.add_argument("--target", default=None, metavar="SPEC|auto",
                    help="λ objectives: the gradient the trees are trained on, when it is not the objective's λ "
                         "(a λ target spec, YetiRank[:params], or 'auto': LambdaMART's choice; default: 'auto' "
                         "without --objective, else the objective's metric itself)")
    tu.add_argument("--trials", type=int, default=30, help="Optuna trials (the first is the starting parameters)")
    tu.add_argument("--cv", type=int, default=None, help="query folds (default 3)")
    tu.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="stop starting trials after this")
    tu.add_argument("--trees", type=int, default=500, help="most trees per fit (early stopping picks fewer)")
    tu.add_argument("--early-stopping", type=int, default=30, metavar="ROUNDS",
                    help="a trial stops when its held-out metric has not improved for ROUNDS trees")
    tu.add_argument("--preset", choices=preset_choices, help="metric conventions")
    tu.add_argument("--threads", type=int, default=None, help="threads per fit (default: all cores)")
    tu.add_argument("--seed", type=int, default=0, help="folds, sampler and model seed")
    tu.add_argument("--storage", metavar="URL",
                    help="Optuna database for the study (e.g. sqlite:///search.db): run again with the same options "
                         "after a stop, the search goes on with the trials it lacks (--trials counts them all)")
    tu.add_argument("--study-name", metavar="NAME", help="the study's name in --storage (default metricrank-tune)")
    tu.add_argument("--quiet", action="store_true", help="no progress bar")
    tu.add_argument("--out", required=True, help="model file for the refitted best model (JSON; .gz ok)")
    tu.add_argument("--params-out", metavar="JSON", help="write the best parameters and score here")
    tu.set_defaults(func=cmd_tune)

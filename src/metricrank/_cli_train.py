"""``metricrank train``, ``metricrank predict`` and ``metricrank objectives``.

``metricrank train --train F [--valid F] [--objective SPEC] --trees N --learning-rate R --leaves L
--threads T --out MODEL`` trains a GBRanker (LambdaMART for ``lambda:<metric spec>``) with a progress
bar and per-tree evaluation (with ``--dask ADDRESS``, on a Dask cluster: see
:mod:`metricrank._cli_dask`); ``metricrank predict --model MODEL --data F --out SCORES`` writes one
score per line, in the file's row order; ``metricrank objectives`` lists every objective.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from ._checks import check_lightgbm_seed
from ._cli_data import add_weights_options
from ._cli_help import HelpFormatter
from ._cli_types import auto_or
from ._io import atomic_write, check_readable, check_writable, refuse_overwriting


class _Progress:
    """Progress on stderr: a rich bar on a terminal, otherwise one log line every ``log_every`` trees.

    Inside it, a first Ctrl-C stops the fit at the next tree, where a KeyboardInterrupt is raised from this
    callback: raised at once, it could land inside a numba or llvmlite call (loading the kernels) and crash the
    process or be swallowed there. A second Ctrl-C raises at once.
    """

    def __init__(self, total: int, enabled: bool, log_every: int = 10):
        self.total = total
        self.enabled = enabled
        self.log_every = log_every
        self.progress = None
        self.task = None
        self.done = 0
        self.terminal = sys.stderr.isatty()
        self.interrupted = False
        self._saved_handler = None

    def _on_interrupt(self, signum, frame) -> None:
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True
        print("metricrank: stopping at the next tree (Ctrl-C again to stop at once)", file=sys.stderr, flush=True)

    def _text(self, info) -> str:
        return "  ".join(f"{name} {spec}={value:.5f}" for name, vals in info.evaluations.items()
                         for spec, value in vals.items())

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self._saved_handler = signal.signal(signal.SIGINT, self._on_interrupt)
        if self.enabled and self.terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("trees"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                     TextColumn("{task.description}"), transient=False)
            self.progress.__enter__()
            self.task = self.progress.add_task("", total=self.total)
        return self

    def __call__(self, info) -> None:
        self.done = info.iteration
        if self.interrupted:
            raise KeyboardInterrupt
        if not self.enabled:
            return
        if self.progress is not None:
            self.progress.update(self.task, completed=info.iteration, description=self._text(info))
        elif info.iteration == 1 or info.iteration % self.log_every == 0 or info.iteration == self.total:
            print(f"[tree {info.iteration}/{self.total}] {self._text(info)}".rstrip(), file=sys.stderr, flush=True)

    def __exit__(self, *exc):
        if self._saved_handler is not None:
            import signal

            signal.signal(signal.SIGINT, self._saved_handler)
        if self.progress is not None:
            self.progress.__exit__(*exc)
        if self.interrupted and exc[0] is None:  # the fit ended before another tree: the interrupt still holds
            raise KeyboardInterrupt
        return False


def _model_for(args):
    """The estimator ``--objective`` asks for: LambdaMART for λ targets, GBRanker otherwise."""
    from .learners import GBRanker, LambdaMART
    from .objectives import LambdaObjective

    objective, target = objective_and_target(args.objective, args.target, (args.metric or [None])[0], args.preset)
    common = dict(n_estimators=args.trees, learning_rate=args.learning_rate, num_leaves=args.leaves,
                  min_data_in_leaf=args.min_data_in_leaf, lambda_l2=args.l2, n_models=args.models, preset=args.preset,
                  n_jobs=args.threads, random_state=args.seed, max_depth=-1 if args.depth is None else args.depth)
    if args.grow_policy is not None:  # else the estimator's default: "auto" for LambdaMART, "leafwise" for GBRanker
        common["grow_policy"] = args.grow_policy
    if isinstance(objective, LambdaObjective):
        sigma = 1.0 if args.sigma is None else args.sigma
        return check_pair_target(LambdaMART(
            objective.target.spec, target=lambda_target(objective, target, args.preset), sigma=sigma,
            truncation=args.truncation, **common)), objective
    only_for_lambda(objective, args, ("sigma", "truncation", "target"))
    return GBRanker(objective.spec, **common), objective


def objective_and_target(objective_spec, target, metric, preset):
    """The objective and ``--target`` a command trains with.

    ``--objective`` names a gradient: ``lambda:MRR`` trains on λ-MRR itself unless ``--target`` says
    otherwise. Without ``--objective`` the command trains what ``LambdaMART(metric=M)`` trains by default,
    M the judged metric (the first ``--metric``; NDCG:top=10 without one): ``lambda:M`` with ``--target``
    'auto' unless one is given, so the command line and the library give the same model.
    """
    from .objectives import get_objective

    if objective_spec is not None:
        return get_objective(objective_spec, preset=preset), target
    metric = "NDCG:top=10" if metric is None else metric
    try:
        objective = get_objective(f"lambda:{metric}", preset=preset)
    except ValueError as err:
        raise ValueError(f"--metric {metric}: without --objective the model is LambdaMART(metric={metric!r}), "
                         f"but {err}; name an --objective to train for it (see `metricrank objectives`)") from None
    return objective, "auto" if target is None else target


def lambda_target(objective, target, preset):
    """``--target`` checked: an objective names its gradient, so ``lambda:MRR`` trains on λ-MRR itself
    unless ``--target`` (a λ target spec, ``YetiRank[:params]``, ``PairLogit[:params]`` or ``auto``) says
    otherwise."""
    from .objectives import resolve_target
    from .objectives.target_choice import is_pair_target

    target = objective.target.spec if target is None else target
    if target != "auto" and not is_pair_target(target):
        try:
            resolve_target(target, preset=preset)
        except ValueError as err:
            raise ValueError(f"--target {target}: {err}") from None
    return target


def check_pair_target(model):
    """A LambdaMART whose ``--target`` names a pair loss (YetiRank, PairLogit), checked (its parameters; no λ
    option with it)."""
    from .objectives.target_choice import is_pair_target

    if is_pair_target(model.target):
        options = [f"--{name}" for name in model._lambda_options()]  # the command line sets sigma and truncation
        if options:
            raise ValueError(f"{' and '.join(options)} appl{'ies' if len(options) == 1 else 'y'} to λ targets, not to "
                             f"--target {model.target}: leave {'it' if len(options) == 1 else 'them'} out, or name a "
                             f"λ target (--target {model.metric})")
        try:
            model._make_objective()
        except ValueError as err:
            raise ValueError(f"--target {model.target}: {err}") from None
    return model


def message_console():
    """The console of a command's messages (stderr): one line per message at any width, so logs stay greppable
    (rich wraps at 80 columns where stderr is not a terminal)."""
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)


def print_target(console, model) -> None:
    """Say what a LambdaMART trained on when it is not its judged metric's own λ."""
    target = getattr(model, "target_", None)  # LambdaMART's
    if target is not None and target != model.metric:
        console.print(f"target: {target} (judged by {model.metric})")


def target_note(model) -> str:
    """``", target auto"`` and the like when a LambdaMART is not set to train on its judged metric's own λ."""
    target = getattr(model, "target", None)
    return "" if target is None or target == model.metric else f", target {target}"


def only_for_lambda(objective, args, options):
    """Reject λ-only ``options`` given with a non-λ ``objective``."""
    for option in options:
        if getattr(args, option) is not None:
            raise ValueError(f"--{option} applies to λ objectives (lambda:<metric>, ranknet) only, "
                             f"not to --objective {objective.spec}")


#: learners._gbdt.GROW_POLICIES and learners._symmetric.MAX_DEPTH, here without importing the learners at
#: start-up (tests/test_cli_train.py checks they agree)
GROW_POLICIES = ("auto", "leafwise", "symmetric", "symmetric_then_leafwise", "mixed")
MAX_DEPTH = 8
_POSITIVE = {"trees": 1, "leaves": 2, "models": 1, "min_data_in_leaf": 1, "early_stopping": 1, "truncation": 1,
             "threads": 1}


def _check_options(args) -> None:
    """Every option checked before any data is read, with the option's own name in the message."""
    for name, minimum in _POSITIVE.items():
        value = getattr(args, name, None)
        if value is not None and value != "auto" and value < minimum:
            allowed = "'auto' or " if name in ("leaves", "models") else ""
            raise ValueError(f"--{name.replace('_', '-')} must be {allowed}an integer >= {minimum}; got {value}")
    for name in ("learning_rate", "sigma"):
        value = getattr(args, name, None)
        if value is not None and not (np.isfinite(value) and value > 0):
            raise ValueError(f"--{name.replace('_', '-')} must be a positive number; got {value}")
    check_lightgbm_seed(args.seed, "--seed")
    if args.early_stopping is not None and not args.valid:
        raise ValueError("--early-stopping stops on the last --valid file's metric; pass --valid")
    if args.l2 != "auto" and not (np.isfinite(args.l2) and args.l2 >= 0):
        raise ValueError(f"--l2 must be 'auto' or a number >= 0; got {args.l2}")
    symmetric = args.grow_policy in ("symmetric", "symmetric_then_leafwise")
    if args.depth is not None and not 1 <= args.depth <= (MAX_DEPTH if symmetric else 2 ** 30):
        allowed = f"1-{MAX_DEPTH} with --grow-policy {args.grow_policy}" if symmetric else ">= 1"
        raise ValueError(f"--depth must be {allowed}; got {args.depth}")
    inputs = [("--train", args.train), ("--train-query-file", args.train_query_file), ("--pairs", args.pairs),
              ("--weights", args.weights), ("--group-weights", args.group_weights)]
    per_valid = {option: getattr(args, option[2:].replace("-", "_")) or []
                 for option in ("--valid-query-file", "--valid-weights", "--valid-group-weights")}
    inputs += [("--valid", v) for v in args.valid or []]
    inputs += [(option, path) for option, given in per_valid.items() for path in given]
    for option, path in inputs:
        check_readable(path, option)
    refuse_overwriting("--out", args.out, inputs, "the model")
    for option, given in per_valid.items():
        if given and len(given) != len(args.valid or []):
            raise ValueError(f"{option} is given {len(given)} times for {len(args.valid or [])} --valid files; "
                             "give one per --valid, in the same order")
    check_writable(args.out, "--out")
    if args.dask is not None:
        from ._cli_dask import parse_address

        if symmetric:  # "auto" grows leaf-wise where the capacity check does not run, as on a cluster
            raise ValueError(f"--grow-policy {args.grow_policy} chooses each tree's splits from all rows on one "
                             "machine; a --dask fit grows leaf-wise trees: drop --grow-policy or --dask")
        if args.group_weights is not None:
            raise ValueError("--group-weights weighs --train's queries, and a --dask fit reads row weights only: "
                             "drop --group-weights or --dask")
        parse_address(args.dask)


def cmd_train(args) -> int:
    from .learners._inputs import eval_specs
    from .metrics import get_metric

    console = message_console()
    _check_options(args)
    model, objective = _model_for(args)
    for spec in args.metric or []:
        get_metric(spec, preset=args.preset)  # fail before reading data
    if args.metric:
        eval_specs(args.metric, default=None)  # a repeated --metric too
    if args.pairs and not objective.accepts_pairs:
        raise ValueError(f"--pairs needs an objective that reads explicit pairs (PairLogit, PairLogitPairwise), "
                         f"not {objective.spec}")
    with contextlib.ExitStack() as stack:
        client = None
        if args.dask is not None:
            from ._cli_dask import check_objective, connect

            check_objective(objective, args.pairs)
            client = stack.enter_context(connect(args.dask, args.threads))  # reach the cluster before reading data
        return _train(args, model, objective, console, client)


def _train(args, model, objective, console, client) -> int:
    """Read the data, fit (on ``client``'s cluster when given), save and report."""
    from ._cli_data import read_ranking_file, with_file_lines
    from .learners._inputs import check_labels_for, warn_unread_weights
    from .data import load_pairs
    from .learners import _capacity
    from .metrics import evaluate_many

    train = read_ranking_file(args.train, query_file=args.train_query_file, weights=args.weights,
                              group_weights=args.group_weights)
    if args.pairs:  # held by the data set: trained on, and read by the training report's pair metrics
        pairs, pair_weight = load_pairs(args.pairs, group_ptr=train.group_ptr, qid=train.qid)
        train = train.replace(pairs=pairs, pair_weight=pair_weight)
    unset = [None] * len(args.valid or [])
    valid = [read_ranking_file(path, n_features=train.n_features, query_file=qf, weights=w, group_weights=gw,
                               weights_option="--valid-weights")
             for path, qf, w, gw in zip(args.valid or [], args.valid_query_file or unset, args.valid_weights or unset,
                                        args.valid_group_weights or unset)]
    console.print(f"training {type(model).__name__} on {args.train}: {train.n_queries} queries, {train.n_docs} "
                  f"documents, {train.n_features} features; objective {objective.spec}{target_note(model)}")
    names = [f"valid{i}" if len(valid) > 1 else "valid" for i in range(len(valid))]
    specs = args.metric or [objective.eval_spec_for(train.y, *(v.y for v in valid))]
    # --valid's weights are only read by its metrics (--train's also train)
    warn_unread_weights(specs, {"weights": "--valid-weights" if args.valid_weights else None,
                                "group_weights": "--valid-group-weights" if args.valid_group_weights else None},
                        args.preset)
    if args.dask is None and _capacity.applies(model, train, specs[0]):
        console.print("--leaves auto: checking first whether bigger trees win on held-out training queries "
                      "(one fit on 80 % of the queries per capacity and held-out fold; --leaves N skips it)")
    progress = _Progress(args.trees, enabled=not args.quiet)
    try:
        if args.dask is not None:
            from ._cli_dask import fit_on_dask

            check_labels_for(train, specs, args.preset, where=f"--train {args.train}")  # else reported after the fit
            model = fit_on_dask(args, client, model, train, valid, names, console)
        else:
            with progress:  # the metric kernels load here, where a Ctrl-C waits for the next tree
                check_labels_for(train, specs, args.preset, where=f"--train {args.train}")
                model.fit(train, eval_set=valid or None,
                          eval_names=names or None, eval_metrics=args.metric,
                          early_stopping_rounds=args.early_stopping, callbacks=[progress])
    except KeyboardInterrupt:
        console.print(f"interrupted after {progress.done} of {args.trees} trees; nothing was written to {args.out}")
        return 130
    except ValueError as err:  # a label check's rows, as lines of the file they came from
        if args.dask is not None:  # a worker's check counts the rows of its partition
            raise
        text = str(err)
        path = next((p for name, p in zip(names, args.valid or []) if text.startswith(f"eval set {name}:")),
                    args.train)
        raise ValueError(with_file_lines(text, path)) from None
    reports = [(label, evaluate_many(data, model.predict(data.X), specs, preset=args.preset))
               for label, data in [("train", train)] + list(zip(names, valid))]  # before the model is written
    model.save(args.out)
    for kind in getattr(model, "kinds_", []):
        if kind.capacity_check is not None:
            console.print(str(kind.capacity_check))
    if getattr(model, "grow_policy", None) == "auto":
        console.print(f"grow policy auto: {model._policy()} trees")
    print_target(console, model)
    if model.stop_reason_:
        console.print(f"stopped: {model.stop_reason_}")
    for label, results in reports:
        console.print(f"{label}: " + "  ".join(f"{r.spec}={r.value:.6f}" for r in results))
    models = getattr(model, "n_models_", 1)
    grown = max((len(values) for curves in model.evals_result_.values() for values in curves.values()), default=0)
    console.print(f"wrote {args.out} ({model.n_estimators_} trees"
                  f"{f' in each of {models} averaged models' if models > 1 else ''}"
                  f"{f', the best of {grown} grown' if model.best_iteration_ and grown > model.n_estimators_ else ''})")
    return 0


def cmd_predict(args) -> int:
    from ._cli_data import read_letor
    from .learners import load_ranker

    if args.num_iteration is not None and args.num_iteration < 1:
        raise ValueError(f"--num-iteration must be an integer >= 1; got {args.num_iteration}")
    if args.start_iteration < 0:
        raise ValueError(f"--start-iteration must be an integer >= 0; got {args.start_iteration}")
    if args.out != "-":
        check_writable(args.out, "--out")
    inputs = (("--model", args.model), ("--data", args.data), ("--query-file", args.query_file))
    for option, path in inputs:
        check_readable(path, option)
    refuse_overwriting("--out", args.out, inputs, "the scores")
    model = load_ranker(args.model)
    if args.start_iteration >= model.n_estimators_:
        raise ValueError(f"--start-iteration {args.start_iteration}: {args.model} holds {model.n_estimators_} "
                         f"iterations (0 to {model.n_estimators_ - 1})")
    if args.num_iteration is not None and args.start_iteration + args.num_iteration > model.n_estimators_:
        raise ValueError(f"--num-iteration {args.num_iteration}"
                         f"{f' from --start-iteration {args.start_iteration}' if args.start_iteration else ''}: "
                         f"{args.model} holds {model.n_estimators_} iterations")
    data = read_letor(args.data, n_features=model.n_features_in_, query_file=args.query_file)  # weights unused
    text = "".join(f"{s:.17g}\n" for s in np.asarray(model.predict(data.X, start_iteration=args.start_iteration,
                                                                     num_iteration=args.num_iteration)))
    if args.out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with atomic_write(args.out) as fh:
            fh.write(text.encode("ascii"))
    return 0


def add_parsers(sub, preset_choices) -> None:
    tr = sub.add_parser("train", help="train a GBRanker / LambdaMART on a LETOR/SVMlight file",
                        formatter_class=HelpFormatter)
    tr.add_argument("--train", required=True, help="training file (LETOR/SVMlight with qid, .gz/.bz2 ok)")
    tr.add_argument("--train-query-file", help="group sizes for a training file without qid")
    tr.add_argument("--valid", action="append", metavar="FILE",
                    help="validation file, evaluated after every tree (repeatable; the last drives early stopping)")
    tr.add_argument("--valid-query-file", action="append", metavar="FILE",
                    help="group sizes for a --valid file without qid (one per --valid, in order)")
    add_weights_options(tr, "--train", "in training and in --train's metrics")
    tr.add_argument("--valid-weights", action="append", metavar="FILE",
                    help="weight file for a --valid file (one per --valid, in order): its rows' weights in its "
                         "metrics and early stopping (default: its rows weigh 1)")
    tr.add_argument("--valid-group-weights", action="append", metavar="FILE",
                    help="group weights file for a --valid file (one per --valid, in order): its queries' weights "
                         "in its metrics and early stopping (default: its queries weigh 1)")
    tr.add_argument("--objective", default=None,
                    help="objective spec: lambda:<metric spec> (NDCG, DCG, MAP, MRR, ERR, PrecisionAt, ROCArea, "
                         "QueryAUC, MAUC), ranknet, or YetiRank, PairLogit, StochasticRank:metric=NDCG, QuerySoftMax, "
                         "... with CatBoost-style parameters (see `metricrank objectives`). Default: what "
                         "LambdaMART(metric=M) trains by default, M the first --metric (NDCG:top=10 without one): "
                         "lambda:M with --target auto")
    tr.add_argument("--pairs", metavar="FILE",
                    help="CatBoost pairs file (winner, loser[, weight]: 0-based rows of --train) for "
                         "PairLogit(Pairwise)")
    tr.add_argument("--metric", action="append", metavar="SPEC",
                    help="evaluation metric (repeatable; the first drives early stopping; default: the objective's)")
    tr.add_argument("--trees", type=int, default=300, help="number of trees (the cap under --early-stopping)")
    tr.add_argument("--learning-rate", type=float, default=0.1, help="shrinkage of every tree")
    tr.add_argument("--leaves", type=auto_or(int, "an integer >= 2"), default="auto",
                    help="leaves per tree, or 'auto' (7 to 31 by training size, and from 30,000 documents a "
                         "capacity check on held-out training queries may add one or two levels; see the estimators' "
                         "num_leaves)")
    tr.add_argument("--min-data-in-leaf", type=int, default=20, help="fewest documents in a leaf")
    tr.add_argument("--grow-policy", choices=GROW_POLICIES, default=None,
                    help="auto (the default for λ targets: mixed from 30,000 documents where the tree sizes are "
                         "left to the library, sized by the capacity check from 100 queries and by the size rule "
                         "with fewer; leafwise below 30,000 documents and where sizes are set), "
                         "leafwise (LightGBM's trees, the default for the other objectives), "
                         "symmetric (oblivious trees, CatBoost's default: one split per level) or "
                         "symmetric_then_leafwise (symmetric levels, completed by LightGBM's leaf-wise splits "
                         "within the depth where they stop early) or mixed (symmetric_then_leafwise and leafwise "
                         "trees side by side, each kind its own models, their scores averaged); see the "
                         "estimators' grow_policy")
    tr.add_argument("--depth", type=int, default=None,
                    help="levels of every tree (max_depth; no limit by default). With a symmetric --grow-policy "
                         f"1-{MAX_DEPTH}, by default the full tree of --leaves: 3, 4 or 5 levels by training size "
                         "(symmetric_then_leafwise: the capacity check may add up to two)")
    tr.add_argument("--models", type=auto_or(int, "an integer >= 1"), default="auto", metavar="K|auto",
                    help="boosted models trained side by side, each with its own random draws, and averaged "
                         "(n_models; K times the trees); 'auto': 4 for YetiRank, else 1")
    tr.add_argument("--l2", type=auto_or(float, "a number >= 0"), default="auto",
                    help="L2 penalty on leaf values, or 'auto' (10, and 1 at the levels the capacity check adds "
                         "and for randomised trees averaged over several models from 5,000 training documents or of "
                         "15 leaves or more, each at most 750 times the mean hessian per row and at least 0.1; see "
                         "the estimators' lambda_l2)")
    tr.add_argument("--sigma", type=float, default=None, help="σ of the λ objectives (default 1)")
    tr.add_argument("--truncation", type=int, default=None,
                    help="λ objectives: only pairs with a document in the top T (default: all pairs)")
    tr.add_argument("--target", default=None, metavar="SPEC|auto",
                    help="λ objectives: the gradient the trees are trained on, when it is not the objective's "
                         "λ (the objective's metric stays the judged one: default evaluation and early stopping): "
                         "a λ target spec, YetiRank[:params], PairLogit[:params], or 'auto', LambdaMART's choice "
                         "(NDCG, MAP, graded ERR, MAUC: YetiRank; MRR: YetiRank from 30,000 training documents, "
                         "PairLogit below). Default: 'auto' without --objective, else the objective's metric itself")
    tr.add_argument("--early-stopping", type=int, default=None, metavar="ROUNDS",
                    help="stop when the first --metric on the last --valid has not improved for ROUNDS trees")
    tr.add_argument("--preset", choices=preset_choices, help="metric conventions (default: CatBoost's)")
    tr.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    tr.add_argument("--seed", type=int, default=0, help="random seed (LightGBM and stochastic objectives)")
    tr.add_argument("--dask", metavar="ADDRESS",
                    help="train on a Dask cluster: a scheduler address (tcp://host:8786) or local:N for N workers "
                         "in this process (--threads threads each). The data files are read here and sent to the "
                         "workers, one query-aligned partition each; no per-tree progress; early stopping picks the "
                         "tree count after all --trees are grown (needs pip install metricrank[dask])")
    tr.add_argument("--quiet", action="store_true", help="no progress on stderr")
    tr.add_argument("--out", required=True, help="model file to write (JSON; .gz ok)")
    tr.set_defaults(func=cmd_train)

    pr = sub.add_parser("predict", help="score a LETOR/SVMlight file with a trained model",
                        formatter_class=HelpFormatter)
    pr.add_argument("--model", required=True, help="model file written by `metricrank train`")
    pr.add_argument("--data", required=True, help="LETOR/SVMlight file to score (.gz/.bz2 ok)")
    pr.add_argument("--query-file", help="group sizes for a file without qid")
    pr.add_argument("--num-iteration", type=int, default=None, metavar="K",
                    help="score with the first K iterations, 1 to the model's count (LightGBM's "
                         "num_iteration_predict; default: the best iteration when early stopping found one, else all)")
    pr.add_argument("--start-iteration", type=int, default=0, metavar="S",
                    help="score with the iterations from S on, 0-based (LightGBM's start_iteration_predict; with "
                         "--num-iteration K, iterations S to S+K-1; without it, S to the last)")
    pr.add_argument("--out", required=True, help="scores, one per line in the file's row order ('-': stdout)")
    pr.set_defaults(func=cmd_predict)

    ob = sub.add_parser("objectives", help="list every training objective with its parameters and defaults")
    ob.set_defaults(func=cmd_objectives)


def cmd_objectives(args) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from .objectives import describe_objectives

    table = Table(title="objectives (--objective / GBRanker(objective=...))", show_lines=False)
    for column in ("objective", "parameters (default)", "what it optimises"):
        table.add_column(column, overflow="fold")
    for name, params, doc in describe_objectives():
        table.add_row(escape(name), escape(params), escape(doc))  # "E[...]" is text, not rich markup
    Console().print(table)
    return 0

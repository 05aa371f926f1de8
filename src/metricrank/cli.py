"""The ``metricrank`` command line: ``train``, ``predict``, ``objectives``, ``tune``, ``analyze``,
``eval``, ``metrics``, ``experiment`` and ``demo``.

Examples
--------
``metricrank train --train train.txt --valid vali.txt --objective lambda:MAP --trees 300 --out model.json``
``metricrank predict --model model.json --data test.txt --out scores.txt``
``metricrank eval --data test.txt --scores scores.txt --metric NDCG:top=10 --metric MAP``

Results go to stdout, progress, warnings and errors to stderr. Every error is
one line ``metricrank: error: ...`` with exit status 2 (bad input) or 1 (the
system: a directory, a permission, a full disk).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import sys

import numpy as np

from ._cli_analyze import add_parsers as add_analyze_parsers
from ._cli_data import add_weights_options
from ._cli_help import HelpFormatter
from ._cli_train import add_parsers as add_train_parsers
from ._cli_tune import add_parsers as add_tune_parsers
from ._cli_types import integer_from
from ._io import (DATA_FILE_OPTIONS, atomic_write, input_file_problem, is_stdout, json_line, open_read,
                  refuse_lone_carriage_return, refuse_overwriting)

PRESET_CHOICES = ("catboost", "lightgbm", "xgboost", "trec_eval")


class CLIError(Exception):
    """A user-facing error: printed without a traceback, exit status 2."""


def load_scores(path, n_rows: int) -> np.ndarray:
    """One score per line, in the data file's row order."""
    values = []
    with open_read(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            try:
                refuse_lone_carriage_return(line, path, lineno)
            except ValueError as err:
                raise CLIError(str(err)) from None
            try:
                text = line.decode("utf-8").strip()
            except UnicodeDecodeError as err:
                raise CLIError(f"{path}, line {lineno}: not UTF-8 text ({err.reason} at byte {err.start})") from None
            if not text:
                raise CLIError(f"{path}, line {lineno}: empty line; expected one score per line")
            fields = text.split()
            if len(fields) != 1:
                raise CLIError(f"{path}, line {lineno}: {len(fields)} columns ({text[:40]!r}); "
                               f"expected one score per line")
            try:
                if "_" in fields[0]:  # Python's digit separators: no score file writes them
                    raise ValueError
                value = float(fields[0])
            except ValueError:
                raise CLIError(f"{path}, line {lineno}: {text[:40]!r} is not a number") from None
            if not np.isfinite(value):
                raise CLIError(f"{path}, line {lineno}: score {text!r} is not finite")
            values.append(value)
    if len(values) != n_rows:
        raise CLIError(f"{path} has {len(values)} scores but the data has {n_rows} rows")
    return np.asarray(values, dtype=np.float64)


def _check_input_file(path, option: str) -> None:
    """As :func:`~metricrank._io.check_readable` (a pipe only where a data file is read twice), for ``eval``."""
    if is_stdout(path):
        raise CLIError(f"{option}: reading from standard input is not supported; give a file")
    problem = input_file_problem(path, read_twice=option in DATA_FILE_OPTIONS)
    if problem is not None:
        raise CLIError(f"{option}: {path}: {problem}")


def check_output_file(path, option: str) -> None:
    """Fail before long work if ``path`` cannot be written (``-`` = stdout is always fine)."""
    if path is None or is_stdout(path):
        return
    if os.path.isdir(path):
        raise CLIError(f"{option}: {path} is a directory, not a file")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise CLIError(f"{option}: {path}: permission denied")
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CLIError(f"{option}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CLIError(f"{option}: directory {directory} is not writable")


def check_output_dir(path, option: str) -> None:
    """Fail before long work if directory ``path`` cannot be created or written."""
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        raise CLIError(f"{option}: {probe} exists and is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise CLIError(f"{option}: {probe} is not writable")


def _cmd_eval(args) -> int:
    from ._cli_data import read_ranking_file, with_file_lines
    from .learners._inputs import warn_unmoved_metrics, warn_unread_weights
    from .metrics import evaluate_many, get_metric

    specs = args.metric or ["NDCG:top=10"]
    repeated = sorted({spec for spec in specs if specs.count(spec) > 1})
    if repeated:  # the JSON output would keep one of them
        raise CLIError(f"--metric {repeated[0]} is given {specs.count(repeated[0])} times; give each metric once")
    for spec in specs:  # every spec parses before any file is read
        try:
            get_metric(spec, preset=args.preset)
        except ValueError as err:
            raise CLIError(f"--metric {spec!r}: {err}") from None
    _check_input_file(args.data, "--data")
    _check_input_file(args.scores, "--scores")
    for path, option in ((args.query_file, "--query-file"), (args.weights, "--weights"),
                         (args.group_weights, "--group-weights")):
        if path is not None:
            _check_input_file(path, option)
    check_output_file(args.per_query, "--per-query")
    refuse_overwriting("--per-query", args.per_query, (("--data", args.data), ("--scores", args.scores),
                                                        ("--query-file", args.query_file), ("--weights", args.weights),
                                                        ("--group-weights", args.group_weights)), "the values")
    if is_stdout(args.per_query) and args.format == "json":
        raise CLIError("--per-query - and --format json both write to standard output; write the per-query values "
                       "to a file, or use --format table (its summary then goes to stderr)")

    data = read_ranking_file(args.data, query_file=args.query_file, weights=args.weights,
                             group_weights=args.group_weights)
    warn_unread_weights(specs, {"weights": args.weights and "--weights",
                                "group_weights": args.group_weights and "--group-weights"}, args.preset)
    scores = load_scores(args.scores, len(data))
    try:
        results = evaluate_many(data, scores, specs, preset=args.preset)
    except ValueError as err:  # a label check's rows, as lines of the file
        raise CLIError(with_file_lines(str(err), args.data)) from None
    warn_unmoved_metrics([(args.data, data)], specs, args.preset, purpose="judges any scores")  # labels checked
    if args.per_query:
        _write_per_query(args.per_query, data, results)
    if args.format == "json":
        print(json_line({r.spec: float(r.value) for r in results}))
    else:
        # with --per-query - the CSV is stdout's result; the summary goes to stderr
        _print_table(
            f"{args.data} ({data.n_queries} queries, {len(data)} documents)",
            ["metric", "value", "queries counted"],
            [[r.spec, f"{r.value:.6f}",
              str(r.n_counted) if r.per_query.shape[0] == data.n_queries else "all rows (global)"]
             for r in results],
            stderr=is_stdout(args.per_query),
        )
    return 0


def _write_per_query(path, data, results) -> None:
    qids = data.query_ids if data.qid is not None else np.arange(data.n_queries)
    with atomic_write(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        writer = csv.writer(text)
        writer.writerow(["query", "n_docs"] + [r.spec for r in results])
        sizes = data.query_sizes
        for q in range(data.n_queries):
            row = [qids[q], int(sizes[q])]
            for r in results:
                v = r.per_query[q] if r.per_query.shape[0] == data.n_queries else np.nan
                row.append("" if np.isnan(v) else repr(float(v)))
            writer.writerow(row)
        text.flush()
        text.detach()


def _print_table(title, header, rows, stderr: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    Console(stderr=stderr).print(table)


def format_metrics(width: int = 80) -> str:
    """Plain-text listing of every metric, wrapped to ``width`` columns."""
    import textwrap

    from .metrics import REGISTRY
    from .metrics._base import REQUIRED

    body = textwrap.TextWrapper(width=width, initial_indent="    ", subsequent_indent="    ")
    lines = []
    for name in sorted(REGISTRY):
        d = REGISTRY[name]
        head = f"{name} ({'higher' if d.higher_is_better else 'lower'} is better)"
        if d.aliases:
            head += f"; alias: {', '.join(d.aliases)}"
        lines.extend(textwrap.wrap(head, width=width, subsequent_indent="    "))
        lines.extend(body.wrap(d.doc))
        for p in d.params:
            default = "required" if p.default is REQUIRED else f"default {p.default}"
            param = textwrap.TextWrapper(width=width, initial_indent=f"      {p.name}: ",
                                         subsequent_indent="        ")
            lines.extend(param.wrap(f"{p.doc} ({default})" if p.doc else f"({default})"))
        lines.append("")
    return "\n".join(lines)


def _cmd_metrics(args) -> int:
    import shutil

    width = args.width or min(shutil.get_terminal_size((80, 24)).columns, 100)
    print(format_metrics(max(width, 40)))
    return 0


def _cmd_demo(args) -> int:
    from ._checks import check_lightgbm_seed
    from .demo import MIN_DEMO_QUERIES, run_demo

    if args.queries < MIN_DEMO_QUERIES:
        raise CLIError(f"--queries must be >= {MIN_DEMO_QUERIES} (60/20/20 % of the queries train, validate and "
                       f"test); got {args.queries}")
    check_lightgbm_seed(args.seed, "--seed")
    run_demo(n_queries=args.queries, seed=args.seed)
    return 0


#: ``metricrank experiment NAME``: module (in metricrank.experiments) and what it reproduces
EXPERIMENTS = {
    "welleck": ("welleck_mq2008", "Welleck: LambdaMART-MAUC/-AUC/-MAP/-NDCG on MQ2008, 5 folds"),
    "yue": ("yue_mq2008", "Yue et al.: SVM-MAP vs SVM-ROCArea and SVM-acc baselines on MQ2008, 5 folds (about 10 min)"),
    "burges": ("burges_mq2008", "Burges: RankNet, LambdaRank, LambdaMART and their optimal combination on MQ2008, "
                                "5 folds, with the local-optimality test"),
    "ataman": ("ataman_uci", "Ataman et al.: LP ranker vs SVC on nine UCI sets, 10-fold CV, chunking (about 6 min)"),
    "quality": ("quality", "quality suite: metricrank vs LightGBM, XGBoost and CatBoost rankers on MQ2008, LightGBM's "
                           "example and nonlinear synthetic data, five judged metrics (hours on 2 cores)"),
}


#: The experiments on MQ2008's five folds (``--folds`` chooses among them).
MQ2008_EXPERIMENTS = ("welleck", "yue", "burges")
#: The folders of the shared data directory each experiment reads (checked before its output directory is made).
EXPERIMENT_DATA = {"welleck": ["MQ2008"], "yue": ["MQ2008"], "burges": ["MQ2008"], "ataman": ["uci"]}
#: The quality suite's data sets read from the shared data directory, and their folders.
QUALITY_DATA = {"mq2008": "MQ2008", "lgb-example": "lightgbm-rank-example"}


def _cmd_experiment(args) -> int:
    import importlib

    out = args.out or f"reports/{EXPERIMENTS[args.name][0]}"
    check_output_dir(out, "--out")
    if args.data_dir is not None and not os.path.isdir(args.data_dir):
        raise CLIError(f"--data-dir: {args.data_dir} is not a directory")
    options = {}
    quality_only = {"--random-states": args.random_states, "--datasets": args.datasets, "--threads": args.threads,
                    "--tune-storage": args.tune_storage}
    for option, value in quality_only.items():
        if value is not None and args.name != "quality":
            raise CLIError(f"{option}: only the quality experiment takes it, not {args.name}")
    for option, value, takers in (("--folds", args.folds, MQ2008_EXPERIMENTS),
                                  ("--trees", args.trees, ("welleck", "burges", "quality"))):
        if value is not None and args.name not in takers:
            raise CLIError(f"{option}: only the {', '.join(takers)} experiments take it, not {args.name}")
    if args.folds is not None:
        if any(k not in range(1, 6) for k in args.folds) or len(set(args.folds)) != len(args.folds):
            raise CLIError(f"--folds: distinct MQ2008 folds among 1, 2, 3, 4, 5; got {' '.join(map(str, args.folds))}")
        options["folds"] = tuple(args.folds)
    if args.trees is not None:
        if args.trees < 1:
            raise CLIError(f"--trees must be a positive integer; got {args.trees}")
        options["trees" if args.name == "quality" else "n_estimators"] = args.trees
    if args.random_states is not None:
        from .experiments.quality import check_random_states

        try:
            options["random_states"] = check_random_states(args.random_states)
        except ValueError as error:
            raise CLIError(f"--random-states: {error}") from None
    if args.datasets is not None:
        from .experiments.quality import SUITE

        unknown = [name for name in args.datasets if name not in SUITE]
        if unknown or len(set(args.datasets)) != len(args.datasets):
            raise CLIError(f"--datasets: {', '.join(unknown) or 'a data set named twice'}; choose distinct names "
                           f"among {', '.join(SUITE)}")
        options["datasets"] = tuple(args.datasets)
    if args.threads is not None:
        if args.threads < 1:
            raise CLIError(f"--threads must be a positive integer; got {args.threads}")
        options["threads"] = args.threads
    if args.tune_storage is not None:
        from .model_selection._space import _optuna, check_storage

        try:
            _optuna()  # the searches need Optuna: fail now, not hours in
        except ImportError as error:
            raise CLIError(f"--tune-storage: {error}") from None
        check_storage(args.tune_storage, "--tune-storage")
        options["tune_storage"] = args.tune_storage
    folders = EXPERIMENT_DATA.get(args.name, [])
    if args.name == "quality":
        folders = [QUALITY_DATA[name] for name in options.get("datasets", ("mq2008", "lgb-example"))
                   if name in QUALITY_DATA]
    if folders:
        from .experiments._datasets import shared_data_dir

        try:  # before the output directory is made
            root = shared_data_dir(args.data_dir)
        except FileNotFoundError as error:
            raise CLIError(str(error)) from None
        for folder in folders:
            if not (root / folder).is_dir():
                where = "--data-dir" if args.data_dir is not None else "the shared data directory"
                raise CLIError(f"{where} {root} holds no {folder}/, which experiment {args.name} reads; pass the "
                               "directory that holds it")
    try:  # the probe above reads permissions, which root passes where the directory cannot be made (/proc)
        os.makedirs(out, exist_ok=True)
    except OSError as error:
        raise CLIError(f"--out: cannot create {out}: {error.strerror or error}") from None
    module = importlib.import_module(f".experiments.{EXPERIMENTS[args.name][0]}", __package__)
    report = module.run(data_dir=args.data_dir, out_dir=out, **options)
    print(report)
    print(f"written to {out}/report.md", file=sys.stderr)
    return 0


def _version() -> str:
    from . import __version__

    return __version__


class _StoreOnce(argparse._StoreAction):
    """A single-valued option given twice is an error, not silently its last value (``predict --data a --data b``
    scored only b)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_options", set())
        if self.dest in given:
            raise argparse.ArgumentError(self, f"given twice ({getattr(namespace, self.dest)} and {values}); "
                                               "give it once")
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


def _single_valued_once(parser: argparse.ArgumentParser) -> None:
    """Make every single-valued option of ``parser`` and of its subcommands a :class:`_StoreOnce`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                _single_valued_once(subparser)
        elif type(action) is argparse._StoreAction and action.option_strings:
            action.__class__ = _StoreOnce


def parse_arguments(argv=None) -> argparse.Namespace:
    """The command line parsed, a single-valued option given twice refused."""
    args = build_parser().parse_args(argv)
    vars(args).pop("_given_options", None)
    return args


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="metricrank", formatter_class=HelpFormatter,
        description="Learning to rank for the metric you are judged by.\nResults go to stdout; progress, "
                    "warnings and errors to stderr.",
        epilog="'metricrank COMMAND --help' gives a command's options.")
    parser.add_argument("--version", action="version", version=f"metricrank {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_train_parsers(sub, PRESET_CHOICES)
    add_tune_parsers(sub, PRESET_CHOICES)
    add_analyze_parsers(sub, PRESET_CHOICES)

    ev = sub.add_parser("eval", help="evaluate scores against a LETOR/SVMlight file",
                        description="Evaluate one score per data row. Results go to stdout; "
                                    "warnings and errors to stderr.",
                        formatter_class=HelpFormatter)
    ev.add_argument("--data", required=True, help="LETOR/SVMlight file (.gz/.bz2 ok)")
    ev.add_argument("--scores", required=True,
                    help="one score per line (a single column), in the data file's row order")
    ev.add_argument("--metric", action="append", metavar="SPEC",
                    help="metric spec, e.g. NDCG:top=10;type=Exp or ndcg@10 (repeatable; "
                         "default: NDCG:top=10)")
    ev.add_argument("--preset", choices=PRESET_CHOICES,
                    help="conventions for unset parameters (default: each metric's own)")
    ev.add_argument("--query-file",
                    help="group sizes file for data without qid (default: DATA.query or DATA.group "
                         "if present, else the whole file is one query, with a warning)")
    add_weights_options(ev, "DATA", "for the metrics that read them")
    ev.add_argument("--per-query", metavar="CSV",
                    help="write per-query values to this CSV file; - = stdout (the summary table "
                         "then goes to stderr) (default: not written)")
    ev.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    ev.set_defaults(func=_cmd_eval)

    ls = sub.add_parser("metrics", help="list every metric with its parameters",
                        formatter_class=HelpFormatter)
    ls.add_argument("--width", type=integer_from(20), default=None,
                    help="wrap at this many columns (default: terminal width, at most 100)")
    ls.set_defaults(func=_cmd_metrics)

    ex = sub.add_parser("experiment", help="reproduce a paper's experiment (tables as Markdown, plots as PNG)",
                        description="\n".join(f"{k}: {v[1]}" for k, v in EXPERIMENTS.items()),
                        formatter_class=HelpFormatter)
    ex.add_argument("name", choices=sorted(EXPERIMENTS), help="the experiment")
    ex.add_argument("--data-dir", help="shared data directory (default: $METRICRANK_DATA or ../shared/data)")
    ex.add_argument("--out", help="report directory (default: reports/<experiment>)")
    ex.add_argument("--folds", type=int, nargs="+", metavar="K",
                    help="welleck, yue, burges: run these MQ2008 folds (1-5; default: all five), e.g. --folds 1 "
                         "for a quick run")
    ex.add_argument("--trees", type=int, metavar="N",
                    help="welleck, burges, quality: the tree budget (default: 300; validation chooses each "
                         "model's tree count within it)")
    ex.add_argument("--random-states", type=int, nargs="+", metavar="R",
                    help="quality only: run every system under each of these seeds (default: 0 alone); a fold's "
                         "value and each test query's are their means over them")
    ex.add_argument("--datasets", nargs="+", metavar="NAME",
                    help="quality only: these suite data sets (mq2008, lgb-example, synthetic-noisy-40k, "
                         "synthetic-50k, synthetic-250k; default: all of them)")
    ex.add_argument("--threads", type=int, metavar="N",
                    help="quality only: threads per fit, every system alike (default: 2)")
    ex.add_argument("--tune-storage", metavar="URL",
                    help="quality only: Optuna database for the tuned systems' searches (e.g. "
                         "sqlite:///searches.db), one study per search: run again after a stop, each search goes on "
                         "with the trials it lacks (default: searches in memory)")
    ex.set_defaults(func=_cmd_experiment)

    demo = sub.add_parser("demo", help="compare rankers on built-in synthetic data",
                          formatter_class=HelpFormatter)
    demo.add_argument("--queries", type=int, default=300, help="number of synthetic queries")
    demo.add_argument("--seed", type=int, default=0, help="random seed")
    demo.set_defaults(func=_cmd_demo)
    _single_valued_once(parser)
    return parser


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    if isinstance(err, OSError) and err.strerror and err.filename is not None:
        text = f"{err.filename}: {err.strerror}"
    if not isinstance(err, (CLIError, ValueError, OSError)):
        text = f"{type(err).__name__}: {text}"
    return text


#: The end of load_letor's message for a feature index 0, which names a Python parameter.
ZERO_BASED_ADVICE = "; pass zero_based=True for 0-based files"


def _interrupted_inside(err: BaseException) -> bool:
    """Whether a KeyboardInterrupt is among the exceptions ``err`` was raised while handling."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"metricrank: warning: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv=None) -> int:
    """Run one command; every error is one line ``metricrank: error: ...`` and a non-zero status
    (2 for bad input, 1 for a failure of the system: file system, memory, ...)."""
    import warnings

    args = parse_arguments(argv)
    saved = warnings.showwarning
    warnings.showwarning = _show_warning
    from ._groups import NonContiguousQueryError

    try:
        return args.func(args)
    except NonContiguousQueryError as err:
        # the Python advice (stable_sort=True) is no option of the command line
        text = _one_line(err).split(" Sort the", 1)[0]
        print(f"metricrank: error: {text} Sort the file by query id first, e.g. sort -s -t: -k2,2n FILE",
              file=sys.stderr)
        return 2
    except (CLIError, ValueError, LookupError, TypeError) as err:
        text = _one_line(err)
        if text.endswith(ZERO_BASED_ADVICE):  # the Python advice again: no option of the command line
            text = (text[:-len(ZERO_BASED_ADVICE)] + "; the command line reads 1-based files only: write it with "
                    "indices from 1 (scikit-learn: dump_svmlight_file(..., zero_based=False))")
        print(f"metricrank: error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("metricrank: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader has gone (metricrank metrics | head): quiet, as other Unix tools are
        with contextlib.suppress(OSError, ValueError):  # the interpreter's flush at exit would fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, the status of a tool the pipe's end stopped
    except Exception as err:  # noqa: BLE001 - e.g. LightGBMError: one line, never a traceback
        if _interrupted_inside(err):  # Ctrl-C inside a numba call surfaces as its SystemError
            print("metricrank: interrupted", file=sys.stderr)
            return 130
        print(f"metricrank: error: {_one_line(err)}", file=sys.stderr)
        return 1
    finally:
        warnings.showwarning = saved


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

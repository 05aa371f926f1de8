"""The ``metricrank`` command line: ``train``, ``predict``, ``eval``, ``metrics`` and ``demo``.

Examples
--------
``metricrank train --train train.txt --valid vali.txt --objective lambda:MAP --trees 300 --out model.json``
``metricrank predict --model model.json --data test.txt --out scores.txt``
``metricrank eval --data test.txt --scores scores.txt --metric NDCG:top=10 --metric MAP``
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

import numpy as np

from ._cli_analyze import add_parsers as add_analyze_parsers
from ._cli_train import add_parsers as add_train_parsers
from ._io import atomic_write, open_read

PRESET_CHOICES = ("catboost", "lightgbm", "xgboost", "trec_eval")


class CLIError(Exception):
    """A user-facing error: printed without a traceback, exit status 2."""


def load_scores(path, n_rows: int) -> np.ndarray:
    """One score per line, in the data file's row order."""
    values = []
    with open_read(path) as fh:
        for lineno, raw in enumerate(io.TextIOWrapper(fh, encoding="utf-8"), start=1):
            text = raw.strip()
            if not text:
                raise CLIError(f"{path}, line {lineno}: empty line; expected one score per line")
            try:
                value = float(text.split()[0])
            except ValueError:
                raise CLIError(f"{path}, line {lineno}: {text[:40]!r} is not a number") from None
            if not np.isfinite(value):
                raise CLIError(f"{path}, line {lineno}: score {text!r} is not finite")
            values.append(value)
    if len(values) != n_rows:
        raise CLIError(f"{path} has {len(values)} scores but the data has {n_rows} rows")
    return np.asarray(values, dtype=np.float64)


def _cmd_eval(args) -> int:
    from .data import load_letor
    from .metrics import evaluate_many

    data = load_letor(args.data, query_file=args.query_file)
    scores = load_scores(args.scores, len(data))
    specs = args.metric or ["NDCG:top=10"]
    results = evaluate_many(data, scores, specs, preset=args.preset)
    if args.per_query:
        _write_per_query(args.per_query, data, results)
    if args.format == "json":
        json.dump({r.spec: r.value for r in results}, sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_table(
            f"{args.data} ({data.n_queries} queries, {len(data)} documents)",
            ["metric", "value", "queries counted"],
            [[r.spec, f"{r.value:.6f}",
              str(r.n_counted) if r.per_query.shape[0] == data.n_queries else "all rows (global)"]
             for r in results],
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


def _print_table(title, header, rows) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def _cmd_metrics(args) -> int:
    from .metrics import REGISTRY
    from .metrics._base import REQUIRED

    rows = []
    for name in sorted(REGISTRY):
        d = REGISTRY[name]
        params = ", ".join(f"{p.name} (required)" if p.default is REQUIRED else f"{p.name}={p.default}"
                           for p in d.params)
        rows.append([name, "higher" if d.higher_is_better else "lower", params, d.doc])
    _print_table("metricrank metrics", ["metric", "better", "parameters (defaults)", "definition"], rows)
    return 0


def _cmd_demo(args) -> int:
    from .demo import run_demo

    run_demo(n_queries=args.queries, seed=args.seed)
    return 0


#: ``metricrank experiment NAME``: module (in metricrank.experiments) and what it reproduces
EXPERIMENTS = {
    "welleck": ("welleck_mq2008", "Welleck: LambdaMART-MAUC/-AUC/-MAP/-NDCG on MQ2008, 5 folds"),
    "yue": ("yue_mq2008", "Yue et al.: SVM-MAP vs SVM-ROCArea and SVM-acc baselines on MQ2008, 5 folds (about 10 min)"),
    "burges": ("burges_mq2008", "Burges: RankNet, LambdaRank, LambdaMART and their optimal combination on MQ2008, "
                                "5 folds, with the local-optimality test"),
    "ataman": ("ataman_uci", "Ataman et al.: LP ranker vs SVC on nine UCI sets, 10-fold CV, chunking (about 20 min)"),
}


def _cmd_experiment(args) -> int:
    import importlib

    module = importlib.import_module(f".experiments.{EXPERIMENTS[args.name][0]}", __package__)
    out = args.out or f"reports/{EXPERIMENTS[args.name][0]}"
    report = module.run(data_dir=args.data_dir, out_dir=out)
    print(report)
    print(f"written to {out}/report.md")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="metricrank", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_train_parsers(sub, PRESET_CHOICES)
    add_analyze_parsers(sub, PRESET_CHOICES)

    ev = sub.add_parser("eval", help="evaluate scores against a LETOR/SVMlight file")
    ev.add_argument("--data", required=True, help="LETOR/SVMlight file (.gz/.bz2 ok)")
    ev.add_argument("--scores", required=True, help="one score per line, in the data file's row order")
    ev.add_argument("--metric", action="append", metavar="SPEC",
                    help="metric spec, e.g. NDCG:top=10;type=Exp or ndcg@10 (repeatable)")
    ev.add_argument("--preset", choices=PRESET_CHOICES, help="conventions for unset parameters")
    ev.add_argument("--query-file", help="group sizes file for data without qid (default: DATA.query)")
    ev.add_argument("--per-query", metavar="CSV", help="write per-query values to this CSV file")
    ev.add_argument("--format", choices=("table", "json"), default="table")
    ev.set_defaults(func=_cmd_eval)

    ls = sub.add_parser("metrics", help="list every metric with its parameters")
    ls.set_defaults(func=_cmd_metrics)

    ex = sub.add_parser("experiment", help="reproduce a paper's experiment (tables as Markdown, plots as PNG)",
                        description="\n".join(f"{k}: {v[1]}" for k, v in EXPERIMENTS.items()),
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ex.add_argument("name", choices=sorted(EXPERIMENTS))
    ex.add_argument("--data-dir", help="shared data directory (default: $METRICRANK_DATA or ../shared/data)")
    ex.add_argument("--out", help="report directory (default: reports/<experiment>)")
    ex.set_defaults(func=_cmd_experiment)

    demo = sub.add_parser("demo", help="compare rankers on built-in synthetic data")
    demo.add_argument("--queries", type=int, default=300)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CLIError, ValueError, FileNotFoundError) as err:
        print(f"metricrank {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

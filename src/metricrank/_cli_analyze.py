"""``metricrank analyze optimality`` and ``metricrank analyze combine``.

``metricrank analyze optimality --model MODEL.json --data F --metric SPEC [--delta D --p0 P --step S
--directions N --seed K --plot PNG]`` runs Burges' Monte-Carlo test of local optimality on a
LambdaMART model file; ``metricrank analyze combine --data F --scores-a A --scores-b B --metric SPEC
[--plot PNG]`` finds the best ``α·a + (1 - α)·b``. Both print a small table, or JSON with
``--format json``. Every option is checked before the data is read.
"""

from __future__ import annotations

from ._cli_types import integer_from, positive, probability
from ._io import check_figure_path, check_readable, json_line, refuse_overwriting


def _check_common(args, files) -> None:
    from .metrics import get_metric

    try:
        get_metric(args.metric, args.preset)  # a bad spec fails here, before any loading
    except ValueError as err:
        raise ValueError(f"--metric {args.metric!r}: {err}") from None
    files = [*files, ("--query-file", args.query_file)]
    for flag, path in files:
        if path is not None:
            check_readable(path, flag)
    if args.plot:  # before the computation, whose results a failed write would lose
        check_figure_path(args.plot, "--plot")
        refuse_overwriting("--plot", args.plot, files, "the figure")


def _emit(args, title, payload: dict) -> None:
    from .cli import _print_table

    if args.format == "json":
        print(json_line(payload))
    else:
        _print_table(title, ["quantity", "value"],
                     [[k, f"{v:.6g}" if isinstance(v, float) else str(v)] for k, v in payload.items()])


def cmd_optimality(args) -> int:
    from ._cli_data import read_letor
    from .analysis import local_optimality
    from .learners import load_ranker

    _check_common(args, [("--model", args.model), ("--data", args.data)])
    model = load_ranker(args.model)  # any model train writes: LambdaMART or GBRanker
    data = read_letor(args.data, n_features=model.n_features_in_, query_file=args.query_file)
    r = local_optimality(model, data, metric=args.metric, delta=args.delta, p0=args.p0, step=args.step,
                         random_state=args.seed, n_directions=args.directions, preset=args.preset,
                         n_jobs=args.threads)
    if args.plot:
        r.plot(args.plot)
    _emit(args, f"local optimality of {args.model} on {args.data}", {
        "metric": r.metric, "base_value": r.base_value, "n_directions": r.n_directions, "n_ascent": r.n_ascent,
        "n_unchanged": r.n_unchanged, "max_gain": r.max_gain, "step": r.step, "delta": r.delta, "p0": r.p0,
        "conclusion": r.bound,
    })
    return 0


def cmd_combine(args) -> int:
    from ._cli_data import read_letor
    from .analysis import optimal_combination
    from .cli import load_scores

    _check_common(args, [("--data", args.data), ("--scores-a", args.scores_a), ("--scores-b", args.scores_b)])
    data = read_letor(args.data, query_file=args.query_file)
    a = load_scores(args.scores_a, len(data))
    b = load_scores(args.scores_b, len(data))
    r = optimal_combination(a, b, data.y, group_ptr=data.group_ptr, metric=args.metric, preset=args.preset,
                            n_jobs=args.threads)
    if args.plot:
        r.plot(args.plot)
    _emit(args, f"best α·a + (1 − α)·b on {args.data}", {
        "metric": r.metric, "alpha": r.alpha, "value": r.value, "value_a_alone": r.value_at_1,
        "value_b_alone": r.value_at_0, "n_breakpoints": int(r.breakpoints.shape[0]), "n_crossings": r.n_crossings,
    })
    return 0


def add_parsers(sub, preset_choices) -> None:
    an = sub.add_parser("analyze", help="analyse models: local optimality test, optimal combination of two rankers")
    an_sub = an.add_subparsers(dest="analysis", required=True)

    op = an_sub.add_parser("optimality", help="Burges' Monte-Carlo test of local optimality of a LambdaMART model")
    op.add_argument("--model", required=True, help="model file written by metricrank train")
    op.add_argument("--data", required=True, help="LETOR/SVMlight file the metric is averaged over")
    op.add_argument("--query-file", help="group sizes for a file without qid")
    op.add_argument("--metric", default="NDCG:top=10", metavar="SPEC")
    op.add_argument("--preset", choices=preset_choices)
    op.add_argument("--delta", type=probability("--delta"), default=0.01, help="1 - confidence")
    op.add_argument("--p0", type=probability("--p0"), default=0.01, help="bound on the fraction of ascent directions")
    op.add_argument("--step", type=positive, default=None, help="move length (default 0.01 × ||θ||)")
    op.add_argument("--directions", type=integer_from(1), default=None, help="override ceil(log δ / log(1 - p0))")
    op.add_argument("--seed", type=integer_from(0), default=0)
    op.add_argument("--plot", metavar="PNG", help="plot the metric along the best direction")
    op.add_argument("--threads", type=integer_from(1), default=1, help="threads for the metric kernels")
    op.add_argument("--format", choices=("table", "json"), default="table")
    op.set_defaults(func=cmd_optimality)

    co = an_sub.add_parser("combine", help="exact best α for α·a + (1 − α)·b of two score files")
    co.add_argument("--data", required=True, help="LETOR/SVMlight file with the labels")
    co.add_argument("--query-file", help="group sizes for a file without qid")
    co.add_argument("--scores-a", required=True, help="ranker a: one score per line, in the file's row order")
    co.add_argument("--scores-b", required=True, help="ranker b")
    co.add_argument("--metric", default="NDCG:top=10", metavar="SPEC")
    co.add_argument("--preset", choices=preset_choices)
    co.add_argument("--plot", metavar="PNG", help="plot the metric against α")
    co.add_argument("--threads", type=integer_from(1), default=1, help="threads for the metric kernels")
    co.add_argument("--format", choices=("table", "json"), default="table")
    co.set_defaults(func=cmd_combine)

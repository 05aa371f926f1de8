"""The command line's data files: a LETOR/SVMlight file read with its weight files (LightGBM's row weights,
CatBoost's group weights)."""

from __future__ import annotations

import os
import warnings

from ._row_refs import ROW


def read_ranking_file(path, *, n_features=None, query_file=None, weights=None, group_weights=None,
                      weights_option="--weights"):
    """:func:`~metricrank.data.load_letor` of ``path``, with ``weights`` (a LightGBM weight file: a weight per row)
    as the rows' weights and ``group_weights`` (a CatBoost group-weights file, ``group_id<TAB>weight``, every
    query of the file once) as the queries'. LightGBM reads ``PATH.weight`` when it is there: without
    ``weights``, a warning says that such a file is left unread and names ``weights_option``, which would read it."""
    from .data import load_group_weights, load_weights

    ds = read_letor(path, n_features=n_features, query_file=query_file)  # its word on PATH.weight is said below
    beside = f"{os.fspath(path)}.weight"
    if weights is None and os.path.isfile(beside):
        warnings.warn(f"{beside} is not read (LightGBM reads it by default): pass {weights_option} {beside} to "
                      "weigh the rows", UserWarning, stacklevel=2)
    if weights is None and group_weights is None:
        return ds
    group_option = weights_option.replace("weights", "group-weights")  # --group-weights, --valid-group-weights
    try:
        return ds.replace(weight=ds.weight if weights is None else load_weights(weights, n_rows=ds.n_docs),
                          group_weight=None if group_weights is None else load_group_weights(group_weights, ds))
    except ValueError as err:  # the data set's check of all the weights knows no option
        for option, given, prefix in ((group_option, group_weights, "group_weight "), (weights_option, weights,
                                                                                       "weight ")):
            if given is not None and str(err).startswith(prefix):
                raise ValueError(f"{option} {given}: {err}") from None
        raise


def read_letor(path, **options):
    """:func:`~metricrank.data.load_letor` without its warning that ``PATH.weight`` goes unread, which speaks to
    Python: a command says it in its own words (with the option that reads the file), or has no use for weights
    (``predict``)."""
    from .data import UnreadWeightFileWarning, load_letor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreadWeightFileWarning)
        ds = load_letor(path, **options)
    _refuse_infinite_features(ds, path)
    return ds


def _refuse_infinite_features(ds, path) -> None:
    """An infinite feature value, named by the file's line and the feature's index as the file writes it (the
    estimators' own check counts rows and features from 0 and knows no file)."""
    from .learners._inputs import FINITE_FEATURES, first_infinite

    infinite = first_infinite(ds.X)
    if infinite is not None:
        row, col, value = infinite
        raise ValueError(with_file_lines(f"row {row}: feature {col + 1} is {value}; {FINITE_FEATURES}", path,
                                         about_rows=True))


def with_file_lines(message: str, *files, about_rows: bool = False) -> str:
    """A label check's message with each "row N" of the data followed by its file and line.

    The checks count the rows of a data set from 0; the command line's user has files, whose comments and
    blank lines are no rows. ``files`` are the data files whose rows, in this order, make the data set: each a
    path, or a ``(path, n_rows)`` pair where later files follow (``tune --valid`` joins ``--train`` and
    ``--valid``); a row of a later file is renumbered as that file's row. Messages not about labels are returned
    as they are, unless ``about_rows`` says that the message's rows are the data's.
    """
    rows = {int(match.group(1)) for match in ROW.finditer(message)} if about_rows or "label" in message else set()
    if not rows:
        return message
    from ._io import open_read

    where, first = {}, 0  # row of the data -> (path, row of the file, line)
    for part in files:
        path, n_rows = part if isinstance(part, tuple) else (part, None)
        wanted = {row - first for row in rows if row >= first and (n_rows is None or row < first + n_rows)}
        row = -1
        with open_read(path) as fh:
            for lineno, raw in enumerate(fh, start=1):
                if not wanted or row >= max(wanted):
                    break
                if raw.split(b"#", 1)[0].strip():  # a data row, as load_letor reads them
                    row += 1
                    if row in wanted:
                        where[first + row] = (path, row, lineno)
        if n_rows is None:
            break
        first += n_rows

    def file_row(match):
        if int(match.group(1)) not in where:
            return match.group(0)
        path, row, line = where[int(match.group(1))]
        return f"row {row} ({path}, line {line})"

    return ROW.sub(file_row, message)


def add_weights_options(parser, whose: str, use: str) -> None:
    """``--weights FILE`` and ``--group-weights FILE``: the rows' and queries' weights of the file ``whose``
    names, read for ``use``."""
    parser.add_argument("--weights", metavar="FILE",
                        help=f"LightGBM weight file (a weight per line, every row of {whose} in order): the rows' "
                             f"weights {use} (default: every row weighs 1; {whose}.weight is not read unless named)")
    parser.add_argument("--group-weights", metavar="FILE",
                        help=f"CatBoost group weights file (group_id<TAB>weight, every query of {whose} once): the "
                             f"queries' weights {use} (default: every query weighs 1)")

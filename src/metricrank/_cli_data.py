"""The command line's data files: a LETOR/SVMlight file read with its CatBoost group-weights file."""

from __future__ import annotations


def read_ranking_file(path, *, n_features=None, query_file=None, group_weights=None):
    """:func:`~metricrank.data.load_letor` of ``path``; with ``group_weights`` (a CatBoost group-weights file,
    ``group_id<TAB>weight``, every query of the file once) its weights become the queries' weights."""
    from .data import RankingDataset, load_group_weights, load_letor

    ds = load_letor(path, n_features=n_features, query_file=query_file)
    if group_weights is None:
        return ds
    return RankingDataset(ds.X, ds.y, group_ptr=ds.group_ptr, qid=ds.qid, weight=ds.weight,
                          group_weight=load_group_weights(group_weights, ds), pairs=ds.pairs,
                          pair_weight=ds.pair_weight, doc_ids=ds.doc_ids, source=ds.source)


def warn_unread_group_weights(specs, option: str, preset=None) -> None:
    """Warn, once per metric spec of ``specs`` that leaves them unread, that the queries' weights ``option``
    gave are ignored by it (:func:`~metricrank.metrics.evaluate.unread_weights`: MAP reads none, for one)."""
    import warnings

    from .metrics import get_metric
    from .metrics.evaluate import unread_weights

    for spec in specs:
        for argument, why in unread_weights(get_metric(spec, preset=preset), {"group_weights": option}):
            warnings.warn(f"metric {spec}: {argument} is ignored: {why}", UserWarning, stacklevel=2)


def add_group_weights_option(parser, whose: str, use: str) -> None:
    """``--group-weights FILE``: the queries' weights of the file ``whose`` names, read for ``use``."""
    parser.add_argument("--group-weights", metavar="FILE",
                        help=f"CatBoost group weights file (group_id<TAB>weight, every query of {whose} once): the "
                             f"queries' weights {use} (default: every query weighs 1)")

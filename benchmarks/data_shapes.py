"""Default ``LambdaMART(metric=M)`` against the anchors on LETOR shapes the quality suite lacks.

The suite's sets have 500-2,500 training queries of 10-180 documents. Other LETOR shapes, drawn
with ``make_ltr(relevance="nonlinear")`` and run with the suite's protocol (learning rate 0.1, 300
trees, the tree count chosen on validation by the judged metric, test value at that count):

- ``gov``: LETOR 3.0's TD/HP/NP shape: 150 queries of 500-1,000 documents (about 110,000), split
  90/30/30 by query, labels 0-2 at 97/2/1 %. With 90 training queries the capacity check does not
  run (it needs 100), and the size rule gives 31 leaves from about 67,000 training documents.
- ``mq2007``: LETOR 4.0 MQ2007's shape (the size of the held-out collection): 1,692 queries of 6-76
  documents (about 69,000), split 1,015/338/339 by query (LETOR's 3:1:1 folds), labels 0-2 at 74/19/7 %.
  The suite's noisy 40k set has this kind of data and was used to choose defaults; these are fresh
  draws of it that no default was chosen on (with ``--noise 5``, the noisy set's level). From about
  41,000 training documents the size rule gives 15 randomised leaves and the capacity check runs.
- ``ohsumed``: OHSUMED's shape: 106 queries of 50-250 documents (about 16,000), split 64/21/21,
  labels 0-2 at 70/16/14 %. The size rule gives 7 randomised leaves.
- ``td2004``: LETOR 3.0 TD2004's shape: 75 queries of 800-1,200 documents (about 75,000), split 45/15/15
  by query (its folds' 3:1:1), binary labels at 98/2 %. About 45,000 training documents: 15 randomised
  leaves, four models, and no capacity check (45 training queries).
- ``np2003``: LETOR 3.0 NP2003's and HP2003's shape: 150 queries of 800-1,200 documents (about 150,000),
  split 90/30/30, binary labels at 99.8/0.2 % (about two relevant documents a query, some none). About
  90,000 training documents: 31 leaves, four models, no capacity check (90 training queries).
- ``np2004``: LETOR 3.0 NP2004's and HP2004's shape: 75 queries of 800-1,200 documents (about 75,000),
  split 45/15/15, binary labels at 99.85/0.15 % (about 1.5 relevant documents a query, some none). About
  45,000 training documents: 15 randomised leaves, four models, no capacity check (45 training queries).
- ``td2003``: LETOR 3.0 TD2003's shape: 50 queries of 800-1,200 documents (about 50,000), split 30/10/10,
  binary labels at 99/1 %. 29,000-31,000 training documents, either side of 30,000: 7 randomised leaves and
  one model below it, 15 randomised leaves and four models from it; no capacity check (30 training queries).
- ``mq2008-like``: MQ2008's shape, drawn: 784 queries of 5-34 documents (about 15,200, MQ2008's mean of 19.4 a
  query; its sizes run 5-121 with a median of 8), split 470/157/157, labels 0-2 at 81/13/6 %. About 9,100
  training documents: 7 randomised leaves, one model, no capacity check, as on the real folds. With
  ``--query-effect`` and ``--query-norm`` it is the drawn twin of the real set, to tell how far a drawn shape's
  verdict carries to real data. At ``--noise 1 --query-effect 1.2`` 31 % of its queries hold no relevant
  document (MQ2008: 28 %), and CatBoost's QuerySoftMax scores NDCG@10 0.80-0.85, MAP 0.44-0.46 and MAUC
  0.76-0.79 on draws 1-2 (on the real folds 0.783, 0.477 and 0.763; noise 2 with query effect 1.5 gives MAP
  0.38-0.41, noise 3 with 2.5 gives 0.30-0.32).
- ``mslr``: MSLR-WEB10K's shape scaled down to a tenth: 1,000 queries of 40-200 documents (about 120,000; MSLR's
  mean is 120 a query), split 600/200/200, 136 features of which 30 informative, labels 0-4 at 52/32/13/2/1 %
  (MSLR-WEB10K's grades). About 72,000 training documents: the capacity check runs and the mixed trees grow.
- ``mq2008``: not drawn: LETOR 4.0's MQ2008 folds from ``../shared/data`` (``--seeds`` are fold numbers,
  1-5; ``--noise`` is not used), to run the real data under another ``--learning-rate`` and ``--trees``.
- ``lgb-example``: not drawn either: the suite's three splits of LightGBM's ranking example (``--seeds``
  1-3, one validation split each; the same 50 test queries).
- ``synthetic-noisy-40k``, ``synthetic-50k``, ``synthetic-250k``: the quality suite's drawn sets as the suite
  draws them (``--seeds`` are its splits, 1-3; ``--noise`` is not used), to run a candidate on them and
  compare it with the suite's stored runs (``--compare OUT.json RESULTS.json#synthetic-50k``).

``--learning-rate`` and ``--trees`` (default 0.1 and 300, the suite's) change the protocol for every
system alike, anchors included.

Since stop 27 default ``LambdaMART`` averages several YetiRank models from 30,000 training documents
(``n_models="auto"``: two in stops 27-30, in stop 27 up to 129,999 documents; four since stop 31): the
``mq2007`` and ``gov`` draws. Runs of those shapes before stop 27 are what ``--set n_models=1`` gives now,
those of stops 27-30 ``--set n_models=2``. Since stop 113 it averages four below 30,000 documents too (seven
randomised leaves with the single model's penalty): runs of the smaller shapes and sets (``ohsumed``,
``mq2008-like``, ``mq2008``, ``lgb-example``) before it are ``--set n_models=1``. Since stop 115 those four
averaged models take the penalty 1 from 5,000 training documents (10 below): runs before it on sets of 5,000
documents or more (``mq2008``, the ``ohsumed`` draws, larger ``mq2008-like`` cuts) are ``--set lambda_l2=10``.

Each seed draws a new set (``random_state = 500 + seed`` for gov, ``900 + seed`` for mq2007, ``700 + seed``
for ohsumed, ``1100 + seed`` for td2004, ``1300 + seed`` for np2003, ``1500 + seed`` for np2004, ``1700 + seed``
for td2003, ``1900 + seed`` for mq2008-like) and split. Prints, per judged metric, each system's mean test
value over the test queries of all seeds, its difference to the best anchor and the per-query Wilcoxon p
against it (the queries of all seeds together). XGBoost's anchors run when xgboost is installed.

    .venv/bin/python benchmarks/data_shapes.py --shape gov --noise 2 --seeds 1 4
    .venv/bin/python benchmarks/data_shapes.py --shape ohsumed --noise 3 --seeds 1 6
    .venv/bin/python benchmarks/data_shapes.py --shape gov --noise 2 --seeds 1 4 \\
        --systems "GBRanker(QuerySoftMax)" "CatBoost QuerySoftMax"
    .venv/bin/python benchmarks/data_shapes.py --shape gov --noise 2 --seeds 1 4 \\
        --systems "LambdaMART(NDCG:top=10;type=Exp)" "LambdaMART(MAP)" "CatBoost QuerySoftMax" --set lambda_l2=0
    .venv/bin/python benchmarks/data_shapes.py --shape gov --noise 2 --seeds 1 11 --out base.json
    .venv/bin/python benchmarks/data_shapes.py --shape gov --noise 2 --seeds 1 11 --out l63.json \\
        --systems "LambdaMART(MAP)" --set num_leaves=63 extra_trees=False lambda_l2=1
    .venv/bin/python benchmarks/data_shapes.py --compare l63.json base.json
    .venv/bin/python benchmarks/data_shapes.py --tables seeds1-2.json seeds3-4.json
    .venv/bin/python benchmarks/data_shapes.py --shape mq2008 --seeds 1 6 --learning-rate 0.05 --trees 1000

``--judged`` names the judged metrics (default NDCG@10, MAP and MAUC; ``--judged MRR`` judges by MRR alone,
with a ``LambdaMART(MRR)`` system). ``--set`` values are numbers, True/False or words (``--set
extra_trees=False``); ``lgb.NAME`` is a LightGBM parameter for ``lgb_params`` (``--set
lgb.linear_tree=True``). ``--hessian-rows R`` lets ``lambda_l2="auto"`` be at most R times the mean hessian
per row (default 750; stop 39's ``--hessian-bound``, the mass per leaf, ran at commit de0bc56).
``--query-norm`` scales every feature to 0..1 within each query of every split, as LETOR 4.0's files
are (MQ2008's, and so presumably the held-out collection's); the drawn labels are cut from absolute values,
so the model then sees less than the labels were made from. ``--query-effect SD`` passes ``make_ltr`` its
per-query shift of the latent relevance: queries differ in how many relevant documents they hold by more
than chance, and some hold none, as in LETOR (on the ``mq2007`` shape at noise 5, 3 leaves 18 % of the
queries without a relevant document and a per-query relevant fraction of standard deviation 0.27; MQ2008's
training folds: 28 % and 0.22, where chance alone gives 0.12).
``--drop-one-label`` trains every system without the training queries whose documents all share one label
(validation and test keep theirs). ``--binary-training-labels`` trains every system on 1 where a training label is
above 0.5, else 0 (validation and test keep theirs), with ``--judged`` MAP or MRR only, which read no more of the
labels (BENCHMARKS.md, "Stop 117"). ``--compare`` fits nothing: it pairs two ``--out`` files of the same shape,
noise and seeds system by system. ``--tables`` fits nothing either: it joins ``--out`` files of runs over
different seeds (every system in each run) and prints the tables; ``a.json+m2.json`` reads one run from two
files, the second's systems replacing the first's, and ``--replace`` does the same for the whole join (systems
run again on the same seeds, in runs that split the seeds differently). With ``--draws N``, both average each
query's values over N runs of other ``--random-state`` values first, so that a system is judged beside the
anchors, each over the same draws of its randomness. ``--tables ... --against SYSTEM`` pairs every system with
that one instead of the best anchor (``--against "LambdaMART(MRR)"``: how far PairLogit or YetiRank leads it);
``{M}`` in it stands for each table's metric (``--against "LambdaMART({M}) w=0.5"``, ``mixed_weights.py``'s systems).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json

import numpy as np

from metricrank import LambdaMART, RankingDataset, make_ltr
from metricrank._io import atomic_write
from metricrank.experiments import quality as q
from metricrank.experiments._datasets import load_mq2008_fold
from metricrank.learners import _gbdt
from metricrank.metrics import get_metric

JUDGED = ("NDCG:top=10;type=Exp", "MAP", "MAUC")
SHAPES = {
    "gov": dict(n_queries=150, docs_per_query=(500, 1000), label_probs=[0.97, 0.02, 0.01], cuts=[90, 120],
                offset=500),
    "mq2007": dict(n_queries=1692, docs_per_query=(6, 76), label_probs=[0.74, 0.19, 0.07], cuts=[1015, 1353],
                   offset=900),
    "ohsumed": dict(n_queries=106, docs_per_query=(50, 250), label_probs=[0.70, 0.16, 0.14], cuts=[64, 85],
                    offset=700),
    "td2004": dict(n_queries=75, docs_per_query=(800, 1200), label_probs=[0.98, 0.02], cuts=[45, 60],
                   offset=1100),
    "np2003": dict(n_queries=150, docs_per_query=(800, 1200), label_probs=[0.998, 0.002], cuts=[90, 120],
                   offset=1300),
    "np2004": dict(n_queries=75, docs_per_query=(800, 1200), label_probs=[0.9985, 0.0015], cuts=[45, 60],
                   offset=1500),
    "td2003": dict(n_queries=50, docs_per_query=(800, 1200), label_probs=[0.99, 0.01], cuts=[30, 40],
                   offset=1700),
    "mq2008-like": dict(n_queries=784, docs_per_query=(5, 34), label_probs=[0.81, 0.13, 0.06], cuts=[470, 627],
                        offset=1900),
    "mslr": dict(n_queries=1000, docs_per_query=(40, 200), label_probs=[0.52, 0.32, 0.13, 0.02, 0.01],
                 cuts=[600, 800], offset=2100, n_features=136, n_informative=30),
}

#: Not drawn here (real data, or the quality suite's own draws): the number of splits of each.
REAL = {"mq2008": 5, "lgb-example": 3, "synthetic-noisy-40k": 3, "synthetic-50k": 3, "synthetic-250k": 3}


@functools.lru_cache(maxsize=1)
def _suite_splits(name: str) -> list:
    """The quality suite's splits of ``name`` (LightGBM's example or a drawn suite set), built once per process."""
    return q.load_suite([name])


def split(shape: str, noise: float | None, seed: int, query_effect: float = 0.0) -> q.Split:
    if shape == "mq2008":
        fold = load_mq2008_fold(seed)
        return q.Split(shape, seed, fold.train, fold.vali, fold.test)
    if shape in REAL:
        return _suite_splits(shape)[seed - 1]
    s = SHAPES[shape]
    data = make_ltr(s["n_queries"], docs_per_query=s["docs_per_query"], n_features=s.get("n_features", 46),
                    n_informative=s.get("n_informative", 12),
                    n_labels=len(s["label_probs"]), label_probs=s["label_probs"], noise=noise, relevance="nonlinear",
                    random_state=s["offset"] + seed, query_effect=query_effect)
    return q.Split(shape, seed, *q._split_queries(data, s["cuts"], seed))


def query_minmax(d):
    """``d`` with every feature scaled to 0..1 within each query, ``(x - min) / (max - min)`` and 0 where a
    query's values are all equal: LETOR 4.0's query-level normalisation (MQ2008's files have min 0 on every
    feature of every query, max 1 or, for a constant feature, 0). The model then sees only where a document
    stands within its query, not the absolute values the synthetic labels were cut from."""
    X = np.asarray(d.X.toarray() if hasattr(d.X, "toarray") else d.X, dtype=np.float64)
    starts = d.group_ptr[:-1]
    sizes = np.diff(d.group_ptr)
    lo = np.repeat(np.minimum.reduceat(X, starts, axis=0), sizes, axis=0)
    span = np.repeat(np.maximum.reduceat(X, starts, axis=0), sizes, axis=0) - lo
    scaled = np.divide(X - lo, span, out=np.zeros_like(X), where=span > 0)
    return RankingDataset(scaled, d.y, group_ptr=d.group_ptr, qid=d.qid, doc_ids=d.doc_ids)


def without_one_label_queries(s: q.Split) -> q.Split:
    """``s`` with the training queries whose documents all share one label left out (validation and test
    kept): they give the pairwise and λ gradients nothing, only rows to bin and to count per leaf."""
    train = s.train
    labels = np.split(train.y, train.group_ptr[1:-1])
    keep = [i for i, y in enumerate(labels) if y.size and np.ptp(y) > 0]
    return q.Split(s.dataset, s.fold, train.subset_queries(keep), s.vali, s.test)


def with_train_fraction(s: q.Split, fraction: float, seed) -> q.Split:
    """``s`` with a random ``fraction`` of its training queries (at least one; drawn with ``seed``, kept in their
    order), validation and test kept."""
    n = s.train.n_queries
    keep = np.sort(np.random.default_rng(seed).choice(n, size=max(1, round(fraction * n)), replace=False))
    return q.Split(s.dataset, s.fold, s.train.subset_queries(keep), s.vali, s.test)


#: MAP's and MRR's default border: a label above it is relevant. ``--binary-training-labels`` cuts there.
RELEVANCE_BORDER = 0.5


def with_binary_training_labels(s: q.Split) -> q.Split:
    """``s`` with each training label replaced by 1 where it is above :data:`RELEVANCE_BORDER`, else 0, validation
    and test kept: MAP and MRR at that border read only this relevance, so their validation curves and test values
    read the labels as the training did."""
    binary = (s.train.y > RELEVANCE_BORDER).astype(np.float64)
    return q.Split(s.dataset, s.fold, s.train.replace(y=binary), s.vali, s.test)


def prepared(data: q.Split, args, seed: int) -> q.Split:
    """``data`` as the options ``args`` ask, in this order: features scaled within queries, training labels made
    binary (before ``--drop-one-label`` reads them: a query of labels 1 and 2 then holds one), queries of one
    label dropped, a fraction of the training queries kept."""
    if args.query_norm:
        data = q.Split(data.dataset, data.fold, *(query_minmax(d) for d in (data.train, data.vali, data.test)))
    if args.binary_training_labels:
        data = with_binary_training_labels(data)
    if args.drop_one_label:
        data = without_one_label_queries(data)
        print(f"{seed}: {data.train.n_queries} training queries of more than one label kept", flush=True)
    if args.train_fraction is not None:
        data = with_train_fraction(data, args.train_fraction, (seed, args.random_state))
        print(f"{seed}: {data.train.n_queries} training queries ({data.train.n_docs} documents) kept", flush=True)
    return data


def _reads_binary_relevance(metric: str) -> bool:
    """Whether ``metric`` is MAP or MRR at :data:`RELEVANCE_BORDER`, which binary training labels keep."""
    judged = get_metric(metric)
    return judged.definition.name in ("MAP", "MRR") and judged.params.get("border") == RELEVANCE_BORDER


def systems(judged=JUDGED, cb_params=None, **params) -> dict:
    """``{name: (judged metrics, fit)}``: LambdaMART(M) for each M and GBRanker QuerySoftMax, PairLogit and
    YetiRank, with ``params`` (default: none, every default), then the anchors; CatBoost's with ``cb_params``
    changed, if given."""
    out = {f"LambdaMART({m})": ((m,), q.lambdamart(m, **params)) for m in judged}
    for objective in ("QuerySoftMax", "PairLogit", "YetiRank"):
        out[f"GBRanker({objective})"] = (judged, q.gbranker(objective, **params))
    for name, fit in q.ANCHORS.items():
        if name.startswith("CatBoost ") and cb_params:
            fit = q._catboost(name.removeprefix("CatBoost "), **cb_params)
        if not name.startswith("XGBoost") or importlib.util.find_spec("xgboost"):
            out[name] = (judged, fit)
    return out


def table(per_query: dict, metric: str, against: str | None = None) -> list[str]:
    """Lines of the table for ``metric`` from ``{system: {metric: per-query test values of all seeds}}``: each
    system against the best anchor, or against the system ``against`` names."""
    values = {name: np.asarray(v[metric]) for name, v in per_query.items() if metric in v}
    anchors = [n for n in values if n in q.ANCHORS]
    if against is not None:
        if against not in values:
            raise ValueError(f"--against {against!r}: no such system judged by {metric}; have {sorted(values)}")
        best, title = against, f"{metric}: against {against}"
    elif not anchors:
        return [f"{metric}: no anchor ran", *(f"| {n} | {np.nanmean(v):.4f} |" for n, v in values.items())]
    else:
        best = max(anchors, key=lambda n: np.nanmean(values[n]))
        title = f"{metric}: best anchor {best}"
    lines = [title, f"| system | test | Δ {'best anchor' if against is None else against} | W/L, p |",
             "|---|---|---|---|"]
    for name in sorted(values, key=lambda n: -np.nanmean(values[n])):
        a, b = values[name], values[best]
        test = "" if name == best else q._compare(a, b)  # the suite's paired test, unscorable queries left out
        lines.append(f"| {name} | {np.nanmean(a):.4f} | {np.nanmean(a) - np.nanmean(b):+.4f} | {test} |")
    return lines


def write_and_print(per_query: dict, out: str | None, judged) -> None:
    """Write ``per_query`` to ``out`` (JSON, if given), then print each judged metric's table."""
    if out:
        with atomic_write(out) as f:
            f.write(json.dumps(per_query).encode())
    for m in judged:
        print("\n".join(["", *table(per_query, m)]))


def _per_query_file(part: str) -> dict:
    """An ``--out`` file, or ``RESULTS.json#DATASET[#seed=N]``: one data set of the quality suite's results
    (``metricrank experiment quality``), every system's per-query test values with its folds joined in order, at
    the suite's first random state or, with ``#seed=N``, at state N (the ``--random-states`` runs)."""
    path, *selector = part.split("#")
    with open(path) as f:
        stored = json.load(f)
    if not selector:
        return stored
    dataset, *state = selector
    out: dict = {}
    # quality._key: system|data set|fold|rate|trees, then data=vN (regenerated data) and seed=N (other states)
    chosen = [k for k in stored if k.split("|")[1] == dataset
              and [t for t in k.split("|")[5:] if t.startswith("seed=")] == state]
    if not chosen:
        raise ValueError(f"{part}: no run of {dataset!r}" + (f" at {state[0]}" if state else ""))
    for key in sorted(chosen, key=lambda k: int(k.split("|")[2])):
        for m, result in stored[key].items():
            if isinstance(result, dict) and "per_query" in result:
                out.setdefault(key.split("|")[0], {}).setdefault(m, []).extend(result["per_query"])
    return out


def joined(paths) -> dict:
    """``{system: {metric: per-query values}}`` of ``--out`` files, their seeds joined in the order given.
    ``A.json+B.json`` is one run's seeds from two files: B's systems replace A's of the same name (a
    system run again, e.g. after a change of defaults, beside the anchors of the first run). A file may also
    be one data set of the quality suite's results, ``RESULTS.json#DATASET[#seed=N]`` (:func:`_per_query_file`)."""
    out: dict = {}
    for path in paths:
        run: dict = {}
        for part in path.split("+"):
            run.update(_per_query_file(part))
        for name, metrics in run.items():
            for m, values in metrics.items():
                out.setdefault(name, {}).setdefault(m, []).extend(values)
    return out


def mean_over_draws(per_query: dict, draws: int, path: str) -> dict:
    """``per_query`` (``joined``'s) whose lists are ``draws`` runs over the same test queries, one after the
    other: each query's mean over the runs."""
    out = {}
    for name, metrics in per_query.items():
        for m, values in metrics.items():
            if len(values) % draws:
                raise ValueError(f"{path}: {name} {m} has {len(values)} queries, not a multiple of --draws {draws}")
            out.setdefault(name, {})[m] = np.mean(np.reshape(values, (draws, -1)), axis=0).tolist()
    return out


def compare(candidate_path: str, reference_path: str, draws: int = 1) -> list[str]:
    """Lines comparing the systems two ``--out`` files share, metric by metric: mean test values and
    the suite's paired per-query test of candidate against reference. Both files must come from the
    same shape, noise and seeds (the per-query lists pair up only then; a length mismatch raises).
    Either may name several files, comma-separated: their seeds are joined in the order given; with
    ``draws`` > 1 the joined values are that many runs over the same test queries (other ``--random-state``
    values), and each query's values are averaged over them before the paired test."""
    candidate, reference = (mean_over_draws(joined(path.split(",")), draws, path)
                            for path in (candidate_path, reference_path))
    lines = ["| system | metric | candidate | reference | Δ | W/L, p |", "|---|---|---|---|---|---|"]
    for name in (n for n in candidate if n in reference):
        for m in (m for m in candidate[name] if m in reference[name]):
            a, b = np.asarray(candidate[name][m]), np.asarray(reference[name][m])
            if a.shape != b.shape:
                raise ValueError(f"{name} {m}: {a.size} queries in {candidate_path}, {b.size} in {reference_path}; "
                                 "the files must come from the same shape, noise and seeds")
            lines.append(f"| {name} | {m} | {np.nanmean(a):.4f} | {np.nanmean(b):.4f} | "
                         f"{np.nanmean(a) - np.nanmean(b):+.4f} | {q._compare(a, b)} |")
    return lines



def parse_set(parser, items) -> dict:
    """``--set NAME=VALUE ...`` as LambdaMART parameters (numbers, True/False or words), checked at once;
    ``lgb.NAME=VALUE`` goes to ``lgb_params``, ``cb.NAME=VALUE`` to the CatBoost anchors (``cb_params``,
    checked by CatBoost when they fit)."""
    params = {}
    for item in items:
        name, _, value = item.partition("=")
        if not name or not value:
            parser.error(f"--set wants PARAM=VALUE, got {item!r}")
        try:
            value = int(value) if value.lstrip("-").isdigit() else float(value)
        except ValueError:
            value = {"True": True, "False": False}.get(value, value)  # e.g. target=RankNet
        if name.startswith("lgb."):  # a LightGBM parameter, passed through lgb_params (lgb.linear_tree=True)
            params.setdefault("lgb_params", {})[name[4:]] = value
        elif name.startswith("cb."):  # a CatBoost parameter of the anchors (cb.grow_policy=Lossguide)
            params.setdefault("cb_params", {})[name[3:]] = value
        else:
            params[name] = value
    try:  # a misspelt parameter or a bad value fails here, not after the first fits
        LambdaMART(JUDGED[0], **{k: v for k, v in params.items() if k != "cb_params"})._check_params()
    except (TypeError, ValueError) as error:
        parser.error(f"--set: {error}")
    return params


def refuse_tabulating(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """Refuse, through the fitting wrapper's ``parser`` (``mixed_weights.py``, ``query_bootstrap.py``), ``--tables``
    and ``--compare`` in the ``argv`` it passes on to :func:`main`: those read ``--out`` files and fit nothing."""
    if any(a in ("--compare", "--tables") for a in argv):
        parser.error(f"{parser.prog} fits; compare or tabulate its --out files with data_shapes.py")


def main(argv: list[str] | None = None, make_systems=systems) -> None:
    """Run the command line ``argv``; ``make_systems(judged, **params)`` gives the systems to fit (default
    :func:`systems`; ``mixed_weights.py`` and ``query_bootstrap.py`` pass their own)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted([*SHAPES, *REAL]))
    parser.add_argument("--noise", type=float, help="make_ltr's noise")
    parser.add_argument("--seeds", type=int, nargs=2, default=(1, 4), metavar=("FIRST", "STOP"))
    parser.add_argument("--learning-rate", type=float, default=0.1, help="every system's (default: the suite's 0.1)")
    parser.add_argument("--trees", type=int, default=300, help="every system's tree budget (default: the suite's 300)")
    parser.add_argument("--systems", nargs="+", help="only these systems (names as printed); default: all")
    parser.add_argument("--judged", nargs="+", default=list(JUDGED), metavar="METRIC",
                        help=f"the judged metrics (default: {' '.join(JUDGED)}); each names a LambdaMART(METRIC) "
                             "system, and every other system is judged by all of them")
    parser.add_argument("--set", nargs="+", default=[], metavar="PARAM=VALUE",
                        help="parameters of the metricrank systems instead of their defaults, e.g. lambda_l2=0; "
                             "lgb.NAME=VALUE for lgb_params, cb.NAME=VALUE for the CatBoost anchors")
    parser.add_argument("--random-state", type=int, default=0,
                        help="every system's seed, >= 0 (default 0); others draw the models' randomness afresh on "
                             "the same splits, e.g. MQ2008's five folds (with --train-fraction, other training "
                             "queries too)")
    parser.add_argument("--drop-one-label", action="store_true",
                        help="train without the training queries whose documents all share one label")
    parser.add_argument("--train-fraction", type=float, default=None, metavar="F",
                        help="train on a random F of each split's training queries (of those kept, with "
                             "--drop-one-label; 0 < F <= 1), drawn from the split's seed and --random-state: runs "
                             "with the same ones keep the same queries (another F draws afresh, not a subset); "
                             "validation and test kept, to tell a data set's size from the set itself")
    parser.add_argument("--binary-training-labels", action="store_true",
                        help="train on labels above 0.5 as 1 and the others as 0 (MAP's and MRR's relevance), "
                             "validation and test labels kept: judge by MAP or MRR only")
    parser.add_argument("--hessian-rows", type=float, default=None, metavar="R",
                        help="lambda_l2=\"auto\" at most R times the mean hessian per row instead of 750 "
                             "(metricrank.learners._gbdt.HESSIAN_ROWS, for this run)")
    parser.add_argument("--query-effect", type=float, default=0.0, metavar="SD",
                        help="make_ltr's query_effect: a per-query shift of the latent relevance (default 0)")
    parser.add_argument("--query-norm", action="store_true",
                        help="scale every feature to 0..1 within each query, as LETOR 4.0's files are")
    parser.add_argument("--out", help="write the per-query test values here (JSON)")
    parser.add_argument("--compare", nargs=2, metavar=("CANDIDATE.json", "REFERENCE.json"),
                        help="fit nothing: compare two --out files system by system (paired per query); "
                             "either may be several files, comma-separated, their seeds joined in order")
    parser.add_argument("--draws", type=int, default=1,
                        help="with --compare or --tables: each side's (each system's) values are this many runs over "
                             "the same test queries, one after the other (e.g. five --random-state values on MQ2008's "
                             "five folds: 5; on lgb-example, whose three splits share the 50 test queries: 15); each "
                             "query's values are averaged over them")
    parser.add_argument("--tables", nargs="+", metavar="OUT.json",
                        help="fit nothing: print the tables of --out files of one shape and noise, "
                             "their seeds joined in the order given")
    parser.add_argument("--replace", nargs="+", metavar="OUT.json",
                        help="with --tables: --out files over the same seeds, joined likewise, whose systems "
                             "replace the tables' (systems run again, e.g. after a change of defaults)")
    parser.add_argument("--against", metavar="SYSTEM",
                        help="with --tables: every system against this one (paired per query), not the best anchor; "
                             "{M} in it stands for each table's metric, e.g. \"LambdaMART({M}) w=0.5\"")
    args = parser.parse_args(argv)
    if (args.replace or args.against) and not args.tables:
        parser.error("--replace and --against go with --tables")
    if (args.drop_one_label or args.query_norm or args.query_effect or args.train_fraction is not None
            or args.binary_training_labels) and (args.compare or args.tables):
        parser.error("--drop-one-label, --query-norm, --query-effect, --train-fraction and --binary-training-labels "
                     "go with fits, not with --compare or --tables")
    if args.random_state < 0:
        parser.error(f"--random-state must be >= 0; got {args.random_state}")
    if args.train_fraction is not None and not 0 < args.train_fraction <= 1:
        parser.error(f"--train-fraction must be > 0 and <= 1; got {args.train_fraction}")
    if args.query_effect and (args.shape in REAL or not (np.isfinite(args.query_effect) and args.query_effect > 0)):
        parser.error(f"--query-effect must be finite and >= 0, with a drawn shape; got {args.query_effect}")
    if args.draws != 1 and not ((args.compare or args.tables) and args.draws > 1):
        parser.error(f"--draws goes with --compare or --tables and must be >= 1; got {args.draws}")
    if args.tables:
        tables = {**joined(args.tables), **joined(args.replace or [])}
        try:
            tables = mean_over_draws(tables, args.draws, "--tables")
        except ValueError as error:
            parser.error(str(error))
        metrics = list(dict.fromkeys(m for v in tables.values() for m in v))  # the files' metrics, in order
        for m in metrics:  # the paired tests need every system on the same queries
            sizes = {name: len(v[m]) for name, v in tables.items() if m in v}
            if len(set(sizes.values())) > 1:
                parser.error(f"--tables: {m} has different query counts per system {sizes}; "
                             "join runs that each ran every system")
        for m in metrics:
            try:
                against = None if args.against is None else args.against.replace("{M}", m)
                print("\n".join(["", *table(tables, m, against)]))
            except ValueError as error:
                parser.error(str(error))
        return
    if args.compare:
        try:
            lines = compare(*args.compare, draws=args.draws)
        except ValueError as error:
            parser.error(str(error))
        print("\n".join(lines))
        return
    if args.shape is None or (args.noise is None) != (args.shape in REAL):
        parser.error(f"--shape is required, and --noise with every shape but {' and '.join(REAL)} "
                     "(except with --compare or --tables)")
    if args.shape in REAL and not 1 <= args.seeds[0] < args.seeds[1] <= REAL[args.shape] + 1:
        parser.error(f"--shape {args.shape}: --seeds are split numbers, FIRST >= 1 and STOP <= "
                     f"{REAL[args.shape] + 1}; got {args.seeds}")
    if not (np.isfinite(args.learning_rate) and args.learning_rate > 0 and args.trees >= 1):
        parser.error(f"--learning-rate must be finite and > 0, and --trees >= 1; "
                     f"got {args.learning_rate}, {args.trees}")
    if args.hessian_rows is not None:
        if not (np.isfinite(args.hessian_rows) and args.hessian_rows > 0):
            parser.error(f"--hessian-rows must be finite and > 0; got {args.hessian_rows}")
        _gbdt.HESSIAN_ROWS = args.hessian_rows
    per_query: dict = {}
    params = parse_set(parser, args.set)
    for m in args.judged:  # a misspelt metric fails here, not after the first fits
        try:
            get_metric(m)
        except ValueError as error:
            parser.error(f"--judged: {error}")
    if args.binary_training_labels and not all(_reads_binary_relevance(m) for m in args.judged):
        parser.error(f"--binary-training-labels: judge by MAP or MRR at their default border 0.5 only (--judged), "
                     f"whose relevance the binary labels keep; got {args.judged}")
    known = make_systems(args.judged, **params)  # chosen once: every system runs on every seed, so the lists pair up
    unknown = sorted(set(args.systems or ()) - set(known))
    if unknown:
        parser.error(f"unknown --systems {unknown}; choose from {sorted(known)}")
    chosen = {n: s for n, s in known.items() if not args.systems or n in args.systems}
    print(f"metricrank systems' parameters: {params or 'their defaults'}; learning rate {args.learning_rate}, "
          f"{args.trees} trees, random state {args.random_state}"
          + (f", lambda_l2=\"auto\" at most {args.hessian_rows:g} mean hessians" if args.hessian_rows is not None
             else "")
          + (", training queries of one label dropped" if args.drop_one_label else "")
          + (f", {args.train_fraction:g} of the training queries" if args.train_fraction is not None else "")
          + (", features scaled to 0..1 within each query" if args.query_norm else "")
          + (", training labels binary (above 0.5)" if args.binary_training_labels else "")
          + (f", query effect {args.query_effect:g}" if args.query_effect else ""), flush=True)
    for seed in range(*args.seeds):
        data = prepared(split(args.shape, args.noise, seed, args.query_effect), args, seed)
        for name, (metrics, fit) in chosen.items():
            result = q.run_system(fit, data, metrics, lr=args.learning_rate, trees=args.trees, threads=1,
                                  seed=args.random_state)
            for m in metrics:
                per_query.setdefault(name, {}).setdefault(m, []).extend(result[m]["per_query"])
            print(seed, name, {m: round(result[m]["test"], 4) for m in metrics},
                  "trees", [result[m]["trees"] for m in metrics], f"{result['seconds']:.0f} s", flush=True)
    write_and_print(per_query, args.out, args.judged)


if __name__ == "__main__":
    main()

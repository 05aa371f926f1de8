"""The quality suite's report and BENCHMARKS.md's tables from its cache, without fitting anything.

Parts of the suite run in separate processes, each with ``quality.run(out_dir=PART, splits=...,
metricrank_systems=..., threads=1)`` on a copy of the cache; ``--merge PART/results.json:DATASETS``
takes from such a part the entries of those data sets (comma-separated; ``DATASET/FOLD`` for one
fold or seed), replacing the cache's. The
report (``report.md`` and plots) is then regenerated for the splits present in the cache, and the
difference of each metricrank system to the best of the seven anchors is printed per data set and
judged metric, with the per-query Wilcoxon p-value (the tables of "Quality suite").

    .venv/bin/python benchmarks/quality_report.py
    .venv/bin/python benchmarks/quality_report.py --merge /tmp/part/results.json:synthetic-250k
    .venv/bin/python benchmarks/quality_report.py --merge /tmp/p1/results.json:synthetic-250k/1 \
        /tmp/p2/results.json:synthetic-250k/2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from metricrank._io import atomic_write
from metricrank.experiments import quality
from metricrank.experiments.quality import JUDGED, Split, _compare, summarise

ROWS = ("LambdaMART({m})", "tuned LambdaMART({m})", "tuned (3-fold CV) LambdaMART({m})",
        "GBRanker(YetiRank)", "GBRanker(QuerySoftMax)", "GBRanker(PairLogit)")
LR, TREES = 0.1, 300


def merge(cache: dict, part: str) -> None:
    """Take from ``PATH:DATASETS`` the entries of those data sets; ``DATASET/FOLD`` takes one fold/seed."""
    path, datasets = part.rsplit(":", 1)
    wanted = set(datasets.split(","))
    for key, value in json.loads(Path(path).read_text()).items():
        dataset, fold = key.split("|")[1:3]
        if dataset in wanted or f"{dataset}/{fold}" in wanted:
            cache[key] = value


def present_splits(cache: dict) -> list[Split]:
    """The (data set, fold) pairs every anchor has an entry for, in the suite's order."""
    anchors = list(quality.ANCHORS)
    folds: dict[str, set] = {}
    for key in cache:
        name, dataset, fold = key.split("|")[:3]
        if name == anchors[0] and all(quality._key(a, Split(dataset, int(fold), None, None, None), LR, TREES)
                                      in cache for a in anchors):
            folds.setdefault(dataset, set()).add(int(fold))
    return [Split(d, f, None, None, None) for d in quality.SUITE if d in folds for f in sorted(folds[d])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="benchmarks/results/quality")
    parser.add_argument("--merge", nargs="*", default=[], metavar="PART/results.json:DATASETS")
    args = parser.parse_args()
    out = Path(args.out)
    cache = json.loads((out / "results.json").read_text())
    for part in args.merge:
        merge(cache, part)
    splits = present_splits(cache)
    # the systems in quality.run's order (it breaks ties in the report's tables)
    names = list(quality.ANCHORS) + list(quality.default_systems()) + list(quality.tuned_systems())
    report = quality._report(cache, splits, [(n, None, None) for n in names], LR, TREES, out)
    if args.merge:
        with atomic_write(out / "results.json") as fh:
            fh.write(json.dumps(cache).encode())
    with atomic_write(out / "report.md") as fh:
        fh.write(report.encode("utf-8"))
    for dataset in dict.fromkeys(s.dataset for s in splits):
        n = sum(s.dataset == dataset for s in splits)
        print(f"\n{dataset} ({n} folds/seeds): system − best anchor (p), " + " | ".join(JUDGED))
        for row in ROWS:
            cells = []
            for metric in JUDGED:
                name = row.format(m=metric)
                rows = summarise(cache, splits, list(quality.ANCHORS) + [name], LR, TREES, dataset, metric)
                anchors = {k: v for k, v in rows.items() if k in quality.ANCHORS}
                if name not in rows or not anchors:
                    cells.append("—")
                    continue
                best = max(anchors, key=lambda k: anchors[k][0])
                pvalue = _compare(rows[name][2], anchors[best][2]).pvalue
                cells.append(f"{rows[name][0] - anchors[best][0]:+.4f} (p {pvalue:.2g})")
            print(f"  {row.format(m='M'):36s}", " | ".join(cells))


if __name__ == "__main__":
    main()

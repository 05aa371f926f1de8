"""Fit again the quality suite's default metricrank systems on some splits, after a change of defaults.

Copies the suite's cache to ``--out``, drops there the entries of the default systems
(``LambdaMART(M)`` for every judged metric, ``GBRanker`` YetiRank, QuerySoftMax and PairLogit) for
the chosen splits, and fits them again with ``quality.run(threads=1)``; anchors and tuned systems
keep their entries. Merge the part back with ``benchmarks/quality_report.py --merge
OUT/results.json:DATASET`` (``DATASET/FOLD`` with ``--folds``: the part holds the other folds'
old entries too). With ``--systems`` the part fits only those (tuned systems too, e.g. ``"tuned
LambdaMART(MAP)"``, which are otherwise kept); the other systems' entries of its splits are left out
of it, so parts of one split merge without overwriting each other. ``OUT/fitted.json`` holds the fitted
entries alone: small enough to keep in ``benchmarks/results/quality-parts/`` until the other seeds of a cell
exist (a cell should not mix searches run from two sets of defaults). With ``--tune-storage`` the
searches are kept in an Optuna database, so that a search stopped part-way (one takes hours on the 250k set)
goes on when the same command runs again. Run one process per part on a 2-core machine:

    .venv/bin/python benchmarks/quality_rerun.py --out /tmp/part1 --dataset synthetic-250k --folds 1
    .venv/bin/python benchmarks/quality_rerun.py --out /tmp/part2 --dataset synthetic-250k --folds 2 \
        --systems "LambdaMART(NDCG:top=10;type=Exp)" "LambdaMART(MAP)"
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from metricrank._io import atomic_write
from metricrank.experiments import quality


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="the part's directory (the suite's cache is copied there)")
    parser.add_argument("--dataset", required=True, choices=quality.SUITE)
    parser.add_argument("--folds", nargs="+", type=int,
                        help="folds/seeds to fit again (default: every split of the data set, anchors included "
                             "where the cache lacks them: synthetic-250k has a third seed the cache does not hold, "
                             "so name --folds 1 2 there)")
    parser.add_argument("--systems", nargs="+", choices=[*quality.default_systems(), *quality.tuned_systems()],
                        metavar="NAME", help="only these systems (e.g. 'LambdaMART(MAP)' or 'tuned LambdaMART(MAP)'; "
                                             "default: the eight default systems), so that one data set's fits can "
                                             "be shared among processes")
    parser.add_argument("--cache", default="benchmarks/results/quality/results.json")
    parser.add_argument("--tune-storage", metavar="URL",
                        help="Optuna database for the tuned systems' searches (e.g. sqlite:///part.db): run the same "
                             "command again after a stop and each search goes on with the trials it lacks")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = json.loads(Path(args.cache).read_text())
    candidates = {**quality.default_systems(), **quality.tuned_systems(args.tune_storage)}
    systems = {name: system for name, system in candidates.items()
               if (name in args.systems if args.systems else name in quality.default_systems())}
    splits = [s for s in quality.load_suite([args.dataset]) if args.folds is None or s.fold in args.folds]
    # every metricrank system's entry of these splits leaves the part, so that merging parts that share a split
    # (each with its own --systems) never puts back an old entry over another part's new one
    for split in splits:
        for name in candidates:
            cache.pop(quality._key(name, split, 0.1, 300), None)
    with atomic_write(out / "results.json") as fh:
        fh.write(json.dumps(cache).encode())
    quality.run(out_dir=out, splits=splits, metricrank_systems=systems, threads=1)
    write_fitted(out, systems, splits)


def write_fitted(out: Path, systems, splits) -> dict:
    """Write ``out/fitted.json``: the part's entries of ``systems`` on ``splits`` alone (a few kB each, where
    ``results.json`` copies the whole cache), which ``quality_report.py --merge`` takes as it takes the part."""
    cache = json.loads((out / "results.json").read_text())
    keys = {quality._key(name, split, 0.1, 300) for name in systems for split in splits}
    fitted = {key: value for key, value in cache.items() if key in keys}
    with atomic_write(out / "fitted.json") as fh:
        fh.write(json.dumps(fitted, indent=1).encode())
    return fitted


if __name__ == "__main__":
    main()

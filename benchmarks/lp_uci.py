"""LP ranker vs RBF SVM on nine UCI sets (Ataman, Street & Zhang, Tables II and IV).

Thin wrapper around :func:`metricrank.experiments.ataman_uci.run`: runs the
10-fold comparison and the chunking table, prints the Markdown and copies it to
``benchmarks/results/lp_uci.md``.

Run: ``python benchmarks/lp_uci.py [--data-dir ../shared/data] [--folds 10] [--jobs 2] [--datasets glass sonar]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from metricrank._io import atomic_write
from metricrank.experiments.ataman_uci import run

HERE = Path(__file__).resolve().parent


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None, help="shared data directory (default ../shared/data)")
    ap.add_argument("--out-dir", default="reports/ataman_uci")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--results", default=str(HERE / "results" / "lp_uci.md"))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    md = run(data_dir=args.data_dir, out_dir=args.out_dir, datasets=args.datasets, n_folds=args.folds,
             n_jobs=args.jobs)
    print(md)
    Path(args.results).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.results) as fh:
        fh.write(md.encode("utf-8"))
    print(f"copied to {args.results}; wall time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

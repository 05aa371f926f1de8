"""SVM-MAP vs SVM-ROCArea and the SVM-acc baselines on MQ2008 (Yue et al. 2007 on Welleck's protocol).

Trains every method on the five MQ2008 folds with C chosen on the validation
fold from {0.1, 1, 10, 100}, prints Yue's table (test MAP / ROCArea / NDCG@10,
W/L and two-tailed Wilcoxon p against SVM-MAP) with per-fold training times and
cutting-plane iterations, and copies the report to
``benchmarks/results/svm_mq2008.md``.

Run: ``python benchmarks/svm_mq2008.py [--data-dir ../shared/data] [--folds 1 2 3 4 5]``
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from metricrank.experiments.yue_mq2008 import run

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[0].parent / "shared" / "data"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(DATA))
    ap.add_argument("--out-dir", default="reports/yue_mq2008")
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--C", type=float, nargs="+", default=[0.1, 1, 10, 100])
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    md = run(data_dir=args.data_dir, out_dir=args.out_dir, folds=tuple(args.folds),
             C_grid=tuple(args.C), progress=not args.quiet)
    print(md)
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    shutil.copyfile(Path(args.out_dir) / "report.md", results / "svm_mq2008.md")


if __name__ == "__main__":
    main()

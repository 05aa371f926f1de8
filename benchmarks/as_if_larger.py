"""Fit ``data_shapes.py``'s systems as if each training set were ``--scale`` times its size.

The defaults change with the training data's size: from 30,000 documents the capacity check runs, the two
kinds of tree grow side by side and judged MRR trains on YetiRank, and the size rule gives more leaves as the
data grow (its four averaged models take the smaller penalty from 5,000 documents, or from 15 leaves). The real
sets here are below 30,000 (an MQ2008 fold trains on about 9,600 documents), so the held-out collection's regime
(MQ2007, about 42,000 training documents) was measured only on drawn data. This probe divides every size threshold
of the defaults by ``--scale`` (and the size rule's documents per leaf with them) for the run, so that with
``--scale 4.4`` an MQ2008 fold is fitted as a 42,000-document set would be: real LETOR 4.0 features in the held-out
collection's regime. Nothing else changes; the anchors are the suite's stored runs (``data_shapes.py --tables ...
--replace``).

Usage: ``as_if_larger.py --scale K`` followed by ``data_shapes.py``'s arguments (BENCHMARKS.md, "Stop 104").
"""

from __future__ import annotations

import argparse
import math
import runpy
import sys
from pathlib import Path

from metricrank.learners import _capacity, _gbdt
from metricrank.objectives import target_choice


def scale_thresholds(scale: float) -> None:
    """Divide the size thresholds the defaults read (and the size rule's documents per leaf) by ``scale``."""
    for module, name in ((_gbdt, "AUTO_DOCS_PER_LEAF"), (_gbdt, "EXTRA_TREES_MAX_DOCS"),
                         (_gbdt, "AVERAGED_PENALTY_MIN_DOCS"), (_capacity, "CHECK_MIN_DOCS"),
                         (target_choice, "STOCHASTIC_MRR_MIN_DOCS")):
        setattr(module, name, getattr(module, name) / scale)


def apply_scale(parser: argparse.ArgumentParser, scale: float | None) -> None:
    """:func:`scale_thresholds` by a ``--scale`` option's value (None: none given), refused through ``parser``
    unless a finite number above 1 (the wrappers that take ``--scale`` too share this)."""
    if scale is None:
        return
    if not (math.isfinite(scale) and scale > 1):
        parser.error(f"--scale must be a finite number above 1; got {scale}")
    scale_thresholds(scale)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, required=True, help="treat each training set as this many times "
                        "its size (> 1)")
    args, rest = parser.parse_known_args()
    apply_scale(parser, args.scale)
    sys.argv = ["data_shapes.py", *rest]
    runpy.run_path(str(Path(__file__).with_name("data_shapes.py")), run_name="__main__")


if __name__ == "__main__":
    main()

"""Symmetric trees that LightGBM completes: does growing the leaves a symmetric level cannot split pay?

``LambdaMART(grow_policy="symmetric")`` stops a tree at the first level where no split leaves
``min_data_in_leaf`` rows in every node (:mod:`metricrank.learners._symmetric`). This probe lets LightGBM
grow the rest of such a tree its own way, leaf-wise, up to the tree's ``2**depth`` leaves, with its own
``min_data_in_leaf``:

* ``--fill depth``: no deeper than the symmetric tree's depth (since stop 55 the product's
  ``grow_policy="symmetric_then_leafwise"``, which gives the same models);
* ``--fill free``: without a depth limit, as stop 53's probe did (BENCHMARKS.md, "Stop 54");
* ``--fill none``: the product as it is.

Every other argument is ``data_shapes.py``'s, with ``--set grow_policy=symmetric`` and the depth
(``max_depth=D``) among its parameters. Stop 53's probe, which binned the features itself, is
``git show f6b3907:benchmarks/symmetric_trees_probe.py``.

    .venv/bin/python benchmarks/symmetric_trees_probe.py --fill depth --shape mq2007 --query-norm --seeds 1 7 \\
        --learning-rate 0.05 --noise 1 --query-effect 1.2 --systems "LambdaMART(MAP)" \\
        --set grow_policy=symmetric max_depth=5 --out filled.json
"""

from __future__ import annotations

import argparse

import data_shapes

from metricrank.learners._symmetric import SymmetricTrees

#: LightGBM parameters over the product's for each fill: its own split search back on (no split penalty),
#: with the fit's ``min_data_in_leaf``, and for ``free`` no depth limit.
FILLS = {"none": None, "depth": {"cegb_penalty_split": 0.0}, "free": {"cegb_penalty_split": 0.0, "max_depth": -1}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     add_help=False)
    parser.add_argument("--fill", choices=sorted(FILLS), required=True)
    args, rest = parser.parse_known_args()
    if "grow_policy=symmetric" not in rest:
        parser.error("pass --set grow_policy=symmetric (and max_depth=D) for data_shapes.py's LambdaMART systems")
    extra = FILLS[args.fill]
    if extra is not None:
        product = SymmetricTrees.lightgbm_params

        def completed(self):
            return {**product(self), "min_data_in_leaf": int(self.min_data), **extra}

        SymmetricTrees.lightgbm_params = completed
    data_shapes.main(rest)


if __name__ == "__main__":
    main()

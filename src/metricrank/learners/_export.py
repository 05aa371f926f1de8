"""Export a fitted GBRanker / LambdaMART as a plain LightGBM model file.

The file is LightGBM's own text format, so ``lightgbm.Booster(model_file=...)``
loads it and ``predict`` returns :meth:`GBRanker.predict`'s scores with no extra
argument: the best iteration is applied (only the trees ``predict`` uses are
written), a warm-start base model that is itself a GBRanker/LambdaMART is folded
in (its trees are prepended: the scores of tree ensembles add), and the header
names the objective ``lambdarank``, which LightGBM and ONNX converters read as
a ranking model whose output is the raw score. A model of ``n_models`` > 1 is
written as one model whose trees are all of theirs, each leaf value (a linear tree's
leaf constants and coefficients too) divided by ``n_models``: the sum of those trees
is the mean of the models' scores.
"""

from __future__ import annotations

import os
import re

from .._io import atomic_write
from ._model_text import renumbered, split_model_text, tree_sizes_line

__all__ = ["lightgbm_model_text", "write_lightgbm_model"]

# the numbers a tree's score is linear in: constant leaves, and a linear tree's constants and coefficients
_VALUES = re.compile(r"(?m)^(leaf_value|internal_value|leaf_const|leaf_coeff)=(.*)$")


def _scaled(block: str, factor: float) -> str:
    """A tree block whose score is ``factor`` times the block's: its leaf and internal values (and a linear
    tree's leaf constants and coefficients) multiplied by ``factor``."""
    return _VALUES.sub(lambda m: m.group(1) + "=" + " ".join(repr(float(v) * factor) for v in m.group(2).split()),
                       block)


def _trees(model) -> tuple[str, list[str]]:
    """Header and tree blocks of the trees ``model.predict`` uses, base models first."""
    k = model.best_iteration_ or model.n_estimators_
    header, blocks, _ = split_model_text(model.booster_.model_to_string(num_iteration=k))
    n_models = model.booster_.num_model_per_iteration()
    if n_models > 1:
        blocks = [_scaled(b, 1.0 / n_models) for b in blocks]
    base = model.init_model_
    if base is None:
        return header, blocks
    if not hasattr(base, "booster_") or not hasattr(base, "init_model_"):
        raise ValueError(f"cannot fold a {type(base).__name__} base model into a LightGBM file; only a "
                         "GBRanker/LambdaMART base model can be exported with it")
    _, base_blocks = _trees(base)
    return header, base_blocks + blocks


def lightgbm_model_text(model) -> str:
    """The LightGBM model text of a fitted GBRanker/LambdaMART (see the module docstring)."""
    header, blocks = _trees(model)
    blocks = renumbered(blocks)
    lines = []
    for line in header.rstrip("\n").split("\n"):
        if line.startswith(("objective=", "tree_sizes=")):
            continue
        if line.startswith(("num_class=", "num_tree_per_iteration=")):  # the models' trees, summed: one score
            line = line.split("=")[0] + "=1"
        lines.append(line)
        if line.startswith("max_feature_idx="):
            lines.append("objective=lambdarank")
    lines.append(tree_sizes_line(blocks))
    return ("\n".join(lines) + "\n\n" + "".join(blocks) + "end of trees\n\n"
            "parameters:\n[objective: lambdarank]\nend of parameters\n\npandas_categorical:null\n")


def write_lightgbm_model(model, path: str | os.PathLike) -> None:
    """Write :func:`lightgbm_model_text` atomically (temporary file, then rename)."""
    text = lightgbm_model_text(model)
    with atomic_write(path) as fh:
        fh.write(text.encode("utf-8"))

"""LightGBM's model text, taken apart and put together: the header, one block per tree, and what follows.

:func:`side_by_side` joins boosters grown side by side (``grow_policy="mixed"``: completed symmetric trees and
leaf-wise trees, each kind its own booster, because LightGBM forces one tree's splits on every model of an
iteration) into one model whose iterations hold every booster's trees of that iteration. It is an ordinary
LightGBM model of ``num_class`` score columns, as ``n_models`` > 1 trains, so ``predict(num_iteration=k)``, SHAP
values, ``save`` and ``to_lightgbm`` read it as they read one booster.
"""

from __future__ import annotations

import re

import lightgbm as lgb

__all__ = ["renumbered", "side_by_side", "split_model_text", "tree_sizes_line"]

_TREE = re.compile(r"(?m)^(?=Tree=\d+\n)")
#: Header lines every joined booster must share: the features their trees split.
_SHARED = ("version=", "max_feature_idx=", "feature_names=")
_INFOS = "feature_infos="
#: A numerical feature's range in ``feature_infos`` (a categorical one lists its categories).
_RANGE = re.compile(r"\[([^:\]]+):([^:\]]+)\]")


def split_model_text(text: str) -> tuple[str, list[str], str]:
    """``(header, tree blocks, rest)`` of a model text: the rest starts at ``end of trees``."""
    start, end = text.find("\nTree="), text.index("end of trees")
    header = text[: start + 1] if start >= 0 else text[:end]
    blocks = [b for b in _TREE.split(text[start + 1:end]) if b] if start >= 0 else []
    return header, blocks, text[end:]


def renumbered(blocks: list[str]) -> list[str]:
    """Tree blocks numbered 0, 1, ... in order."""
    return [re.sub(r"^Tree=\d+\n", f"Tree={i}\n", b, count=1) for i, b in enumerate(blocks)]


def tree_sizes_line(blocks: list[str]) -> str:
    """The header's ``tree_sizes=`` line for ``blocks`` (their bytes; LightGBM reads the trees by them)."""
    return "tree_sizes=" + " ".join(str(len(b.encode("utf-8"))) for b in blocks)


def _joined_feature_infos(lines: list[str]) -> str:
    """One ``feature_infos=`` line for boosters of the same features. A feature that a booster's Dataset left out
    reads "none" there (LightGBM's pre-filter drops features no leaf of ``min_data_in_leaf`` rows can split, and the
    symmetric trees' Dataset keeps every feature), so the joined model takes a feature's range from the boosters
    that kept it: the range ``[min:max]`` that holds theirs (the text is informational; trees split by thresholds)."""
    per_booster = [line[len(_INFOS):].split(" ") for line in lines]
    if len({len(infos) for infos in per_booster}) != 1:
        raise ValueError("boosters side by side must be grown on the same features")
    joined = []
    for infos in zip(*per_booster):
        kept = sorted({info for info in infos if info != "none"})
        if len(kept) > 1:
            ranges = [_RANGE.fullmatch(info) for info in kept]
            if not all(ranges):
                raise ValueError(f"boosters side by side must be grown on the same features; got {kept}")
            low = min((r.group(1) for r in ranges), key=float)
            high = max((r.group(2) for r in ranges), key=float)
            kept = [f"[{low}:{high}]"]
        joined.append(kept[0] if kept else "none")
    return _INFOS + " ".join(joined)


def side_by_side(boosters: list[lgb.Booster]) -> lgb.Booster:
    """One booster whose iteration ``i`` holds the trees of iteration ``i`` of every booster, in order.

    The boosters hold the same number of iterations and split the same features. The joined model has as
    many score columns as all of theirs: the mean of its columns is the mean of the boosters' mean scores
    when each has as many columns. Its parameters are the first booster's (with the joined ``num_class``).

    Examples
    --------
    >>> import numpy as np, lightgbm as lgb
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> def grown(leaves):
    ...     b = lgb.Booster({"objective": "none", "num_leaves": leaves, "verbosity": -1}, lgb.Dataset(X))
    ...     for _ in range(3):
    ...         b.update(fobj=lambda raw, _: (raw - X[:, 0], np.ones(100)))
    ...     return b
    >>> a, b = grown(4), grown(8)
    >>> joined = side_by_side([a, b])
    >>> joined.num_model_per_iteration(), joined.current_iteration()
    (2, 3)
    >>> bool(np.allclose(joined.predict(X, num_iteration=2), np.column_stack([a.predict(X, num_iteration=2),
    ...                                                                         b.predict(X, num_iteration=2)])))
    True
    """
    parts = [split_model_text(b.model_to_string()) for b in boosters]
    per_iteration = [b.num_model_per_iteration() for b in boosters]
    iterations = {b.current_iteration() for b in boosters}
    if len(iterations) != 1:
        raise ValueError(f"boosters side by side must hold as many iterations; got {sorted(iterations)}")
    n_iter = iterations.pop()
    shared = [[line for line in header.split("\n") if line.startswith(_SHARED)] for header, _, _ in parts]
    if any(lines != shared[0] for lines in shared[1:]):
        raise ValueError("boosters side by side must be grown on the same features")
    infos = [[line for line in header.split("\n") if line.startswith(_INFOS)] for header, _, _ in parts]
    if any(len(lines) != 1 for lines in infos):
        raise ValueError("boosters side by side must each hold one feature_infos line")
    joined_infos = _joined_feature_infos([lines[0] for lines in infos])
    blocks = renumbered([block for i in range(n_iter) for (_, trees, _), k in zip(parts, per_iteration)
                         for block in trees[i * k:(i + 1) * k]])
    total = sum(per_iteration)
    lines = []
    for line in parts[0][0].rstrip("\n").split("\n"):
        if line.startswith(("num_class=", "num_tree_per_iteration=")):
            line = f"{line.split('=')[0]}={total}"
        elif line.startswith(_INFOS):
            line = joined_infos
        if not line.startswith("tree_sizes="):
            lines.append(line)
    if blocks:
        lines.append(tree_sizes_line(blocks))
    rest = parts[0][2]
    # feature importances are counted from the trees, not read back: the first booster's alone would mislead
    rest = re.sub(r"(?s)\nfeature_importances:\n.*?\n\n", "\n", rest)
    rest = re.sub(r"(?m)^\[num_class: \d+\]$", f"[num_class: {total}]", rest)
    text = "\n".join(lines) + "\n\n" + "".join(blocks) + rest
    return lgb.Booster(model_str=text)

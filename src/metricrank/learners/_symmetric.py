"""Symmetric (oblivious) trees on LightGBM: one split per level, shared by every node of the level.

CatBoost grows these by default (``grow_policy="SymmetricTree"``); LightGBM grows no such tree, but
it takes a tree's first splits from a forced-splits file, and ``Booster.reset_parameter`` swaps that
file between trees. :class:`SymmetricTrees` picks, before each tree and from that tree's gradients,
one (feature, threshold) per level and hands the whole tree to LightGBM, which then sets the leaves
by its Newton step ``-Σg / (Σh + lambda_l2)``. The result is an ordinary LightGBM model on the raw
features: ``predict``, ``save`` and ``to_lightgbm`` need nothing else.

How, and why so:

* **Bins.** Each feature is cut at most ``max_bin - 3`` times, between distinct training values (at
  every gap when there are few, at count quantiles otherwise), and LightGBM's Dataset is told to cut
  there too (``forcedbins_filename``; it keeps the cuts as given and may add its own at zero and
  elsewhere, which refine these bins and never move a cut). A forced threshold is therefore one of
  LightGBM's bin bounds, and LightGBM splits the rows exactly as the histograms here assumed.
* **A level's split** is the (feature, cut) with the largest score summed over the level's nodes,
  among those that leave every node ``min_data_in_leaf`` rows and ``min_sum_hessian_in_leaf``
  hessian on each side. The score is ``G_L²/n_L + G_R²/n_R - G²/n`` (gradient sums ``G`` over row
  counts ``n``): CatBoost's scores do not weigh rows by their hessians either (BENCHMARKS.md, "Stop 53,
  continued"). Where no split is valid in every node, the tree stops at that level.
* **Forced splits only.** LightGBM refuses a forced split whose Newton gain (with ``lambda_l2``) is not
  positive, and it would then grow the rest of the tree freely. A node whose gain is not clearly
  positive is left a leaf here, with the nodes below it; and LightGBM's own split search is switched
  off (a split penalty of :data:`NO_FREE_SPLITS`, which forced splits do not pay), so a tree has the
  forced splits and nothing else. The minimum rows per leaf is checked here, and LightGBM's is 1:
  LightGBM counts a side's rows from its hessian, and below a node where it finds no valid split of a
  feature it builds no histogram of that feature, which a forced split there would read.
* **Missing histograms.** Where LightGBM's own search finds no cut of a feature in a node that it would
  take (with its row estimate from the hessians, ``lambda_l2`` and the minimums), it builds no histogram of
  that feature below the node (read in its source), and a forced split of it there reads another node's:
  LightGBM then refuses it (the tree stops), or takes it with that node's sums as leaf values, and LightGBM's
  own splits in completed trees can fail its row-count check and stop the fit. With ``lambda_l2`` 0 no
  split's gain is negative, and in the fits checked every leaf was its Newton step (BENCHMARKS.md, "Stop 71").
  With a penalty LightGBM finds no such cut in many nodes where hessians are small (on an NP2004-shaped
  draw, one in five trees was cut short, two leaves of 60 trees held another node's values, and a completed
  fit stopped with LightGBM's error; BENCHMARKS.md, "Stop 71"). There, before a node takes a level's split,
  its feature is checked at every node above, for each model's gradients, with LightGBM's rule and a margin
  (:func:`_lightgbm_splittable`); where the check fails, the level's split is chosen again without that
  feature in that node. A tree LightGBM still grows smaller than forced is counted, and the fit warns
  (:meth:`check_tree`).
* **Histograms** of a level come from its parents': only the rows of each split node's smaller child
  are counted, the sibling's histogram is the parent's less that one (as LightGBM builds its own).
* **Missing values** take the value 0 (LightGBM's ``use_missing=False``), in the bins, in the forced
  splits and at prediction alike.
* With ``n_models`` > 1 one structure serves every model's tree of an iteration, chosen on the
  models' mean gradient; each model's leaves take its own Newton step.

**Completed trees** (``grow_policy="symmetric_then_leafwise"``, ``complete=True``): the same symmetric
levels are forced, and LightGBM's own split search stays on, with the fit's ``min_data_in_leaf``, within the
depth and ``2**depth`` leaves. Where the symmetric levels stop early (no split suits every node) or leave a
node unsplit, LightGBM grows the rest of the tree its own way, leaf-wise (best gain first). In one fit on a
clean MQ2007-shaped draw (depth 5, 0.05 with 300 trees) 91 of 300 symmetric trees stopped early, and on
those draws the completed trees scored higher (BENCHMARKS.md, "Stop 54"), at the right depth ("Stop 55").
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile

import lightgbm as lgb
import numba
import numpy as np
import scipy.sparse as sp

from ._boosting import NO_SPLITTABLE_FEATURE
from .binning import _column

__all__ = ["MAX_DEPTH", "NO_FREE_SPLITS", "SymmetricTrees", "binned", "level_split", "symmetric_depth"]

#: Deepest symmetric tree: 2**8 = 256 leaves (CatBoost's default depth is 6); the histograms of a level
#: hold 2**(depth - 1) nodes.
MAX_DEPTH = 8
#: LightGBM's ``cegb_penalty_split`` (a cost per row of a split, taken from its gain) while growing symmetric
#: trees: no split of LightGBM's own search keeps a positive gain, and forced splits do not pay it. (A
#: ``min_sum_hessian_in_leaf`` no split can meet would block the forced splits below the root too: LightGBM
#: builds no histogram of a feature below a node where it found no valid split of it.)
NO_FREE_SPLITS = 1e30
#: Bounds LightGBM keeps for itself in a feature's ``max_bin`` (below zero, above zero, infinity).
_OWN_BOUNDS = 3


def symmetric_depth(num_leaves: int, max_depth: int) -> int:
    """Levels of a symmetric tree: ``max_depth`` when positive, else ``floor(log2(num_leaves + 1))``
    (the full tree of ``num_leaves + 1`` leaves or fewer: 7 leaves give 3 levels, 15 give 4, 31 give 5).

    Examples
    --------
    >>> symmetric_depth(7, -1), symmetric_depth(31, -1), symmetric_depth(64, -1), symmetric_depth(31, 6)
    (3, 5, 6, 6)
    """
    if max_depth > 0:
        return int(max_depth)
    return max(1, int(np.floor(np.log2(int(num_leaves) + 1))))


def _dense_columns(X):
    """Each column of ``X`` (dense or sparse) as float64, missing values as 0 (LightGBM's ``use_missing=False``)."""
    X = X.tocsc() if sp.issparse(X) else np.asarray(X)  # one conversion, then a cheap slice per column
    for f in range(X.shape[1]):
        yield np.nan_to_num(_column(X, f), nan=0.0)


def _column_cuts(col: np.ndarray, max_cuts: int) -> np.ndarray:
    """One feature's cuts: midpoints of the gaps between its distinct values, every gap when there are at most
    ``max_cuts``, otherwise the gaps where the count of rows at or below first reaches ``k / (max_cuts + 1)``."""
    values, counts = np.unique(col, return_counts=True)
    if values.size - 1 <= max_cuts:
        after = np.arange(values.size - 1)
    else:
        below = np.cumsum(counts)
        targets = below[-1] * np.arange(1, max_cuts + 1) / (max_cuts + 1)
        after = np.unique(np.searchsorted(below, targets, side="left"))
        after = after[after < values.size - 1]
    return np.unique(values[after] + (values[after + 1] - values[after]) / 2)


def binned(X, max_bin: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Each feature's cuts, increasing, at most ``max_bin - 3`` of them (:func:`_column_cuts`), and the bin
    numbers of ``X``'s rows, feature-major: ``codes[f, i]`` is the bin of row ``i`` on feature ``f``, and bin
    ``b`` holds ``cuts[f][b-1] < x <= cuts[f][b]``. One pass over the columns.

    Examples
    --------
    >>> cuts, codes = binned(np.array([[0.0, 5.0], [1.0, 5.0], [1.0, 5.0], [3.0, 5.0]]), 255)
    >>> [c.tolist() for c in cuts], codes.tolist()
    ([[0.5, 2.0], []], [[0, 1, 1, 2], [0, 0, 0, 0]])
    """
    max_cuts = max(1, int(max_bin) - _OWN_BOUNDS)
    codes = np.empty((X.shape[1], X.shape[0]), dtype=np.uint8 if max_cuts < 256 else np.uint16)
    cuts = []
    for f, col in enumerate(_dense_columns(X)):
        cuts.append(_column_cuts(col, max_cuts))
        codes[f] = np.searchsorted(cuts[f], col, side="left")
    return cuts, codes


#: Features one thread counts in one pass over the rows: four independent sums per row, where one feature's
#: sums into the same bin wait on each other (1.5 times as fast as one feature a pass, BENCHMARKS.md "Stop 79").
#: Taken where there are this many features per thread or more; with fewer, one feature a pass keeps the threads busy.
_FEATURES_PER_PASS = 4


@numba.njit(cache=True, inline="always")
def _count(local, block_codes, n_features, rows, row_node, row_grad, row_hess):
    """Adds the rows' (grad, hess, 1) to ``local[q, node, bin]`` for the block's first ``n_features`` features."""
    for j in range(rows.size):
        i = rows[j]
        k = row_node[j]
        for q in range(n_features):
            b = block_codes[q, i]
            local[q, k, b, 0] += row_grad[j]
            local[q, k, b, 1] += row_hess[j]
            local[q, k, b, 2] += 1.0


@numba.njit(parallel=True, cache=True)
def _histograms_kernel(codes, rows, node, n_nodes, n_bins, grad, hess, width):
    """:func:`_histograms`, ``width`` features a pass (1 or :data:`_FEATURES_PER_PASS`)."""
    n_feat = codes.shape[0]
    m = rows.size
    row_node = np.empty(m, dtype=np.int64)  # gathered once, read once per pass
    row_grad = np.empty(m)
    row_hess = np.empty(m)
    for j in range(m):
        row_node[j] = node[rows[j]]
        row_grad[j] = grad[rows[j]]
        row_hess[j] = hess[rows[j]]
    hist = np.empty((n_nodes, n_feat, n_bins, 3))
    for block in numba.prange((n_feat + width - 1) // width):
        first = block * width
        block_codes = codes[first:first + width]
        local = np.zeros((block_codes.shape[0], n_nodes, n_bins, 3))  # this block's histograms, contiguous
        if block_codes.shape[0] == _FEATURES_PER_PASS:  # a constant count unrolls
            _count(local, block_codes, _FEATURES_PER_PASS, rows, row_node, row_grad, row_hess)
        else:
            _count(local, block_codes, block_codes.shape[0], rows, row_node, row_grad, row_hess)
        for q in range(block_codes.shape[0]):  # loops, not a slice assignment: its shape check compiles for seconds
            for k in range(n_nodes):
                for b in range(n_bins):
                    for c in range(3):
                        hist[k, first + q, b, c] = local[q, k, b, c]
    return hist


def _histograms(codes, rows, node, n_nodes, n_bins, grad, hess, width=None):
    """``hist[k, f, b]`` = (Σ grad, Σ hess, rows) of the ``rows`` of node ``k`` in bin ``b`` of feature ``f``,
    each sum taken in the order of ``rows``. ``width``: features a pass, by default :data:`_FEATURES_PER_PASS`
    where each thread gets that many, else 1."""
    if width is None:
        enough = codes.shape[0] >= _FEATURES_PER_PASS * numba.get_num_threads()
        width = _FEATURES_PER_PASS if enough else 1
    return _histograms_kernel(codes, rows, node, n_nodes, n_bins, grad, hess, width)


def _level_histograms(codes, node, parent_hist, split, small, n_bins, grad, hess):
    """The histograms of a level's nodes from its parents' (``parent_hist``), as LightGBM builds them: of the
    rows of the smaller child of each parent that ``split``, the sibling's as the parent's less that one."""
    children = np.flatnonzero(np.repeat(split, 2))
    smaller = children[small[children]]
    rows = np.flatnonzero(small[node])
    hist = _histograms(codes, rows, node, 2 * split.size, n_bins, grad, hess)
    _siblings(hist, parent_hist, smaller)
    return hist


@numba.njit(cache=True)
def _siblings(hist, parent_hist, smaller):
    """``hist[c ^ 1] = parent_hist[c // 2] - hist[c]`` for each built child ``c`` in ``smaller``, in place (numpy's
    fancy indexing would copy each operand)."""
    for c in smaller:
        for f in range(hist.shape[1]):
            for b in range(hist.shape[2]):
                for v in range(3):
                    hist[c ^ 1, f, b, v] = parent_hist[c // 2, f, b, v] - hist[c, f, b, v]


@numba.njit(parallel=True, cache=True)
def _feature_best(hist, usable, n_cuts, min_data, min_hess):
    """For every feature, its best cut's summed score over the nodes where it is usable (``usable[k, f]``) and
    the cut (-1: none valid, or usable in no node)."""
    n_nodes, n_feat = hist.shape[0], hist.shape[1]
    best_score = np.full(n_feat, -np.inf)
    best_cut = np.full(n_feat, -1, dtype=np.int64)
    for f in numba.prange(n_feat):
        m = n_cuts[f]
        score = np.zeros(max(m, 1))
        valid = np.ones(max(m, 1), dtype=np.bool_)
        anywhere = False
        for k in range(n_nodes):
            if not usable[k, f]:
                continue
            anywhere = True
            G = 0.0
            H = 0.0
            C = 0.0
            for b in range(m + 1):
                G += hist[k, f, b, 0]
                H += hist[k, f, b, 1]
                C += hist[k, f, b, 2]
            gl = 0.0
            hl = 0.0
            cl = 0.0
            for c in range(m):  # cut c: bins 0..c go left
                gl += hist[k, f, c, 0]
                hl += hist[k, f, c, 1]
                cl += hist[k, f, c, 2]
                if cl < min_data or C - cl < min_data or hl < min_hess or H - hl < min_hess:
                    valid[c] = False
                elif valid[c]:
                    score[c] += gl * gl / cl + (G - gl) * (G - gl) / (C - cl) - G * G / C
        if not anywhere:
            continue
        for c in range(m):
            if valid[c] and score[c] > best_score[f]:
                best_score[f] = score[c]
                best_cut[f] = c
    return best_score, best_cut


@numba.njit(cache=True)
def _newton_gains(hist, f, cut, lambda_l2):
    """Every node's Newton gain (LightGBM's, with ``lambda_l2``) of splitting feature ``f`` after bin ``cut``."""
    n_nodes, n_bins = hist.shape[0], hist.shape[2]
    out = np.zeros(n_nodes)
    for k in range(n_nodes):
        G = 0.0
        H = 0.0
        gl = 0.0
        hl = 0.0
        for b in range(n_bins):
            G += hist[k, f, b, 0]
            H += hist[k, f, b, 1]
            if b <= cut:
                gl += hist[k, f, b, 0]
                hl += hist[k, f, b, 1]
        if hl + lambda_l2 > 0 and H - hl + lambda_l2 > 0:
            out[k] = gl * gl / (hl + lambda_l2) + (G - gl) ** 2 / (H - hl + lambda_l2) - G * G / (H + lambda_l2)
    return out


#: How far :func:`_lightgbm_splittable` keeps from LightGBM's bounds before it says a node has a split LightGBM
#: would take: rows its count estimate may be off by (LightGBM may cut a bin of ours in two or three, and rounds
#: each part's estimate), and the relative error of its float32 gradients and hessians in sums and gains.
_SPLITTABLE_ROWS_MARGIN = 2.0
_SPLITTABLE_RELATIVE_MARGIN = 1e-5


@numba.njit(cache=True)
def _lightgbm_splittable(hist, min_data, min_hess, lambda_l2):
    """Per node of a one-feature histogram (:func:`_histograms` of one feature): whether LightGBM's own split search
    there surely finds a cut of the feature it would take, and so builds the feature's histogram in the node's
    children. It counts a side's rows from its hessian (each bin's ``round(hess * rows / Σhess)``), needs
    ``min_data`` of them and ``min_hess`` hessian on each side, and a Newton gain with ``lambda_l2`` above the
    node's own; cuts near those bounds are not counted (the margins above)."""
    n_nodes, n_bins = hist.shape[0], hist.shape[2]
    out = np.zeros(n_nodes, dtype=np.bool_)
    rel = _SPLITTABLE_RELATIVE_MARGIN
    for k in range(n_nodes):
        G = 0.0
        H = 0.0
        N = 0.0
        for b in range(n_bins):
            G += hist[k, 0, b, 0]
            H += hist[k, 0, b, 1]
            N += hist[k, 0, b, 2]
        if N == 0.0 or H <= 0.0:
            continue
        per_hess = N / H
        shift = G * G / (H + lambda_l2)
        gr = 0.0
        hr = 0.0
        nr = 0.0
        for b in range(n_bins - 1, 0, -1):  # the cut below bin b: bins b and up go right, as LightGBM scans
            gr += hist[k, 0, b, 0]
            hr += hist[k, 0, b, 1]
            nr += np.floor(hist[k, 0, b, 1] * per_hess + 0.5)
            if nr < min_data + _SPLITTABLE_ROWS_MARGIN or hr < min_hess + rel * H:
                continue
            if N - nr < min_data + _SPLITTABLE_ROWS_MARGIN or H - hr < min_hess + rel * H:
                break
            gl = G - gr
            terms = gl * gl / (H - hr + lambda_l2) + gr * gr / (hr + lambda_l2)
            if terms - shift > rel * terms:
                out[k] = True
                break
    return out


def level_split(hist: np.ndarray, active: np.ndarray, n_cuts: np.ndarray, min_data: float,
                min_hess: float) -> tuple[int, int]:
    """The (feature, cut) with the largest score summed over the ``active`` nodes among those valid in every
    active node (see the module's docstring); ``(-1, -1)`` when none is. Ties go to the lower feature.
    ``active`` is per node, or per node and feature (``active[k, f]``: feature ``f`` may split node ``k``;
    a feature counts the nodes where it may, and must be valid in each of them)."""
    usable = np.asarray(active, dtype=np.bool_)
    if usable.ndim == 1:
        usable = np.repeat(usable[:, None], hist.shape[1], axis=1)
    score, cut = _feature_best(hist, np.ascontiguousarray(usable), n_cuts, float(min_data), float(min_hess))
    if not np.any(cut >= 0):
        return -1, -1
    f = int(np.argmax(np.where(cut >= 0, score, -np.inf)))
    return f, int(cut[f])


class SymmetricTrees:
    """Grows every tree of one fit as a symmetric tree of ``depth`` levels (see the module's docstring).

    Use as a context manager around the fit: it owns a temporary folder for LightGBM's forced-bins and
    forced-splits files. :meth:`lightgbm_params` go into the fit's LightGBM parameters before the
    Dataset is built; :meth:`before_tree` is called with each tree's gradients before LightGBM grows it.
    """

    def __init__(self, X, *, depth: int, lambda_l2: float, min_data_in_leaf: int, min_sum_hessian_in_leaf: float,
                 max_bin: int, complete: bool = False):
        self.depth = int(depth)
        self.complete = bool(complete)
        self.lambda_l2 = float(lambda_l2)
        self.min_data = float(min_data_in_leaf)
        self.min_hess = float(min_sum_hessian_in_leaf)
        self.cuts, self.codes = binned(X, max_bin)
        self.n_cuts = np.array([c.size for c in self.cuts], dtype=np.int64)
        if not self.n_cuts.any():  # LightGBM's own check does not fire: its Dataset keeps every feature's bins
            raise ValueError(NO_SPLITTABLE_FEATURE)
        self.n_bins = int(self.n_cuts.max(initial=0)) + 1
        self.leaves: list[int] = []  # leaves of each tree forced, in order
        self.short_trees = 0  # trees LightGBM grew smaller than forced (check_tree)
        self._folder = None

    def __enter__(self):
        self._folder = tempfile.mkdtemp(prefix="metricrank-symmetric-")
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self._folder, ignore_errors=True)

    def _write(self, name: str, content) -> str:
        """``content`` as JSON in the folder, written whole before it takes ``name``."""
        path = os.path.join(self._folder, name)
        with tempfile.NamedTemporaryFile("w", dir=self._folder, delete=False, suffix=".part") as f:
            json.dump(content, f)
        os.replace(f.name, path)
        return path

    def lightgbm_params(self) -> dict:
        """LightGBM parameters of the fit: LightGBM's bins cut where ours do, room for a full tree, missing
        values as 0, and no split of LightGBM's own (with ``complete``: its own splits, leaf-wise within the
        depth, where the forced ones end)."""
        bounds = [{"feature": f, "bin_upper_bound": c.tolist()} for f, c in enumerate(self.cuts) if c.size]
        # named by content, so that the Dataset cache (keyed by parameters) reuses a Dataset with these bins
        digest = hashlib.sha1(json.dumps(bounds).encode()).hexdigest()[:16]
        return {"forcedbins_filename": self._write(f"bins-{digest}.json", bounds), "use_missing": False,
                "feature_pre_filter": False, "num_leaves": 2 ** self.depth, "max_depth": self.depth,
                "cegb_penalty_split": NO_FREE_SPLITS, "min_data_in_leaf": 1,
                "min_sum_hessian_in_leaf": self.min_hess, "extra_trees": False,
                **({"cegb_penalty_split": 0.0, "min_data_in_leaf": int(self.min_data)} if self.complete else {})}

    def levels(self, grad: np.ndarray, hess: np.ndarray, model_grad: np.ndarray | None = None,
               model_hess: np.ndarray | None = None) -> list[tuple[int, int, np.ndarray]]:
        """The tree for gradients ``grad`` and hessians ``hess``: per level ``(feature, cut, split)``,
        ``split[k]`` whether node ``k`` of the level takes the split (a node that does not stays a leaf).

        A node takes a level's split only where its Newton gain (with ``lambda_l2``) is positive. With a positive
        ``lambda_l2`` also only where LightGBM would take it for each of its trees of the iteration (``model_grad``
        and ``model_hess``: rows by models; default ``grad`` and ``hess`` as one model): where the split's gain is
        positive for that tree's gradients, and where LightGBM has the feature's histogram, which it builds below
        a node only if its own search found a cut of the feature there (:func:`_lightgbm_splittable`, at every
        node above). Where a node lacks it, the level's split is chosen again with that feature left out of the
        node. With ``lambda_l2`` 0 no split's gain is negative, and these checks are left out (see the module's
        docstring)."""
        n = self.codes.shape[1]
        if model_grad is None or not self.lambda_l2 > 0:
            model_grad, model_hess = grad[:, None], hess[:, None]
        penalised = self.lambda_l2 > 0
        models = [(np.ascontiguousarray(model_grad[:, j]), np.ascontiguousarray(model_hess[:, j]))
                  for j in range(model_grad.shape[1])]
        lgb_min_data = self.min_data if self.complete else 1.0  # LightGBM's own minimum (lightgbm_params)
        node = np.zeros(n, dtype=np.int64)
        row_nodes = []  # each level's node of every row, before its split
        built_at = {}  # (level, feature) -> whether each node of the level has a cut LightGBM takes, every model
        active = np.ones(1, dtype=np.bool_)
        levels = []
        small = None  # each level's split sets it; the next level's histograms read it
        hist = _histograms(self.codes, np.arange(n), node, 1, self.n_bins, grad, hess)
        for level in range(self.depth):
            if level:
                split = levels[-1][2]
                hist = _level_histograms(self.codes, node, hist, split, small, self.n_bins, grad, hess)
            row_nodes.append(node)
            usable = np.repeat(active[:, None], self.codes.shape[0], axis=1)
            while True:
                f, cut = level_split(hist, usable, self.n_cuts, self.min_data, self.min_hess)
                if f < 0 or not penalised:
                    break
                has_histogram = active.copy()
                for above in range(level):
                    if (above, f) not in built_at:
                        built_at[above, f] = self._splittable_nodes(f, row_nodes[above], 2 ** above, models,
                                                                    lgb_min_data)
                    has_histogram &= built_at[above, f][np.arange(active.size) >> (level - above)]
                if not np.any(usable[:, f] & ~has_histogram):
                    break
                usable[:, f] &= has_histogram
            if f < 0:
                break
            split = usable[:, f] & self._positive_gains(hist, f, cut, node, models)
            if not split.any():
                break
            levels.append((f, cut, split))
            left_rows = hist[:, f, :cut + 1, 2].sum(axis=1)
            right_is_smaller = left_rows > hist[:, f, :, 2].sum(axis=1) - left_rows
            small = np.zeros(2 * split.size, dtype=np.bool_)  # the child of each split node built from rows
            small[2 * np.flatnonzero(split) + right_is_smaller[split]] = True
            node = 2 * node + (split[node] & (self.codes[f] > cut))
            active = np.repeat(split, 2)
        return levels

    def _splittable_nodes(self, f: int, node: np.ndarray, n_nodes: int, models, min_data: float) -> np.ndarray:
        """Per node (rows' ``node``): whether LightGBM's own search finds a cut of feature ``f`` it takes there,
        for the gradients of every model (:func:`_lightgbm_splittable`)."""
        out = np.ones(n_nodes, dtype=np.bool_)
        for g, h in models:
            hist = _histograms(self.codes[f:f + 1], np.arange(node.size), node, n_nodes, self.n_bins, g, h)
            out &= _lightgbm_splittable(hist, min_data, self.min_hess, self.lambda_l2)
        return out

    def _positive_gains(self, hist, f: int, cut: int, node: np.ndarray, models) -> np.ndarray:
        """Per node of the level: whether splitting feature ``f`` after bin ``cut`` has a positive Newton gain
        (LightGBM's, with ``lambda_l2``) for every model. LightGBM refuses a forced split without one, and its
        gradients are float32: a margin keeps the two from disagreeing."""
        def positive(gains):
            return gains > 1e-9 * max(1.0, float(np.abs(gains).max()))

        if len(models) == 1:  # the level's histograms are the model's
            return positive(_newton_gains(hist, f, cut, self.lambda_l2))
        out = np.ones(hist.shape[0], dtype=np.bool_)
        for g, h in models:
            one = _histograms(self.codes[f:f + 1], np.arange(node.size), node, hist.shape[0], self.n_bins, g, h)
            out &= positive(_newton_gains(one, 0, cut, self.lambda_l2))
        return out

    def forced_splits(self, levels) -> tuple[dict | None, int]:
        """LightGBM's forced-splits JSON of ``levels`` (thresholds are cut values; None, JSON's null, for a
        tree without a split: LightGBM would read an empty object as a split of feature 0) and its leaves."""
        leaves = 0

        def build(level, k):
            nonlocal leaves
            if level == len(levels) or not levels[level][2][k]:
                leaves += 1
                return None
            f, cut, _ = levels[level]
            node = {"feature": int(f), "threshold": float(self.cuts[f][cut])}
            for side, child in (("left", build(level + 1, 2 * k)), ("right", build(level + 1, 2 * k + 1))):
                if child is not None:  # a leaf has no entry (an empty one would read as a split of feature 0)
                    node[side] = child
            return node

        return build(0, 0), leaves

    def before_tree(self, booster: lgb.Booster, grad, hess) -> None:
        """Choose the next tree from its gradients and hand it to ``booster``."""
        g = np.asarray(grad, dtype=np.float64)
        h = np.asarray(hess, dtype=np.float64)
        if g.ndim == 2:  # several models side by side: one structure for all, on their mean gradient
            levels = self.levels(np.ascontiguousarray(g.mean(axis=1)), np.ascontiguousarray(h.mean(axis=1)), g, h)
        else:
            levels = self.levels(np.ascontiguousarray(g), np.ascontiguousarray(h))
        tree, leaves = self.forced_splits(levels)
        # LightGBM reloads the file only when its name changes: two names, taken in turn
        path = self._write(f"splits-{len(self.leaves) % 2}.json", tree)
        booster.reset_parameter({"forcedsplits_filename": path})
        self.leaves.append(leaves)

    def check_tree(self, info) -> None:
        """A ``boost`` callback: counts in :attr:`short_trees` the trees of the last iteration that LightGBM grew
        with fewer leaves than forced (it refused a split, and with it the splits after it)."""
        trees = info.booster.dump_model(start_iteration=info.iteration - 1, num_iteration=1)["tree_info"]
        self.short_trees += sum(int(t["num_leaves"] < self.leaves[-1]) for t in trees)

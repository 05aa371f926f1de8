"""LambdaMART on symmetric (oblivious) trees, grown by LightGBM through forced splits: does the tree shape that
carries CatBoost's lead at the slow rate (BENCHMARKS.md, "Stop 53") carry metricrank's gradients too?

LightGBM grows no symmetric trees, but it takes a tree's splits from a forced-splits file, and
``Booster.reset_parameter`` swaps that file between trees (it reloads the file only when the name changes, so
two names take turns). Before each tree this probe picks, level by level, the one (feature, bin) with the largest
score summed over the nodes of the level, among those that leave every node at least ``min_data_in_leaf`` rows
and 1e-3 hessian on each side: by default the gradients' ``G_L²/n_L + G_R²/n_R - G²/n`` (CatBoost's split scores
do not weigh rows by their hessians; ``--split-score newton`` weighs them, which with ``lambda_l2`` 0 favours
splits that isolate rows of tiny hessian). LightGBM then grows that tree and sets the leaves by its own Newton
step ``-G / (H + lambda_l2)``.

LightGBM refuses a forced split whose Newton gain is not positive, which a penalty ``lambda_l2`` > 0 allows, and
then grows the rest of the tree freely; such nodes are left unsplit here, and LightGBM fills the leaves they leave
over. Hence the probe's default ``lambda_l2=0`` (CatBoost's YetiRank: 1e-20), where every tree is fully symmetric.
On LightGBM's example the probe stops at LightGBM's check that no side of a split is empty (BENCHMARKS.md).
With ``n_models`` > 1 one forced tree serves every model's tree of an iteration, chosen on their mean gradient.
The features are binned here first (at most 255 bins per feature: the distinct training values, or training
quantiles), so that the forced thresholds fall between LightGBM's bins exactly; the validation and test rows are
binned with the training edges. Splits are not randomised. A probe, not a product: each judged metric's
``LambdaMART(M)`` runs as in ``data_shapes.py`` (one thread, seed ``--random-state``, the tree count chosen on
validation).

    .venv/bin/python benchmarks/symmetric_trees_probe.py --shape mq2007 --query-norm --seeds 1 7 \\
        --learning-rate 0.05 --noise 1 --query-effect 1.2 --depth 5 --out sym5.json
    .venv/bin/python benchmarks/data_shapes.py --compare sym5.json lr05_n1_D.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile

import lightgbm as lgb
import numba
import numpy as np
from data_shapes import REAL, SHAPES, parse_set, query_minmax, split, write_and_print

from metricrank import RankingDataset
from metricrank.experiments import quality as q
from metricrank.metrics import get_metric

MAX_BINS = 255
#: Synthetic sets of the quality suite (``quality.load_suite``), three splits each, as ``--shape``.
SUITE_SETS = ("synthetic-noisy-40k", "synthetic-50k", "synthetic-250k")


def bin_codes(train: np.ndarray, others: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each feature as bin numbers 0..B-1 (B <= 255): its distinct training values, or 254 quantile edges."""
    coded_train = np.empty(train.shape, dtype=np.uint8)
    coded_others = [np.empty(o.shape, dtype=np.uint8) for o in others]
    for f in range(train.shape[1]):
        values = np.unique(train[:, f])
        if values.size > MAX_BINS:
            values = np.unique(np.quantile(train[:, f], np.linspace(0, 1, MAX_BINS)))
        edges = (values[:-1] + values[1:]) / 2  # bin b holds x <= edges[b]
        coded_train[:, f] = np.searchsorted(edges, train[:, f], side="left")
        for o, c in zip(others, coded_others):
            c[:, f] = np.searchsorted(edges, o[:, f], side="left")
    return coded_train, coded_others


@numba.njit(cache=True)
def _histogram(codes, node, n_nodes, g, h):
    n, n_feat = codes.shape
    hist = np.zeros((n_nodes, n_feat, MAX_BINS, 3))
    for i in range(n):
        k = node[i]
        for f in range(n_feat):
            b = codes[i, f]
            hist[k, f, b, 0] += g[i]
            hist[k, f, b, 1] += h[i]
            hist[k, f, b, 2] += 1.0
    return hist


@numba.njit(cache=True)
def _node_sums(hist, k, f):
    """Node ``k``'s gradient, hessian and row sums (over feature ``f``'s bins: every row has one)."""
    G = 0.0
    H = 0.0
    C = 0.0
    for c in range(MAX_BINS):
        G += hist[k, f, c, 0]
        H += hist[k, f, c, 1]
        C += hist[k, f, c, 2]
    return G, H, C


@numba.njit(cache=True)
def _node_gains(hist, f, b, lam):
    """Each node's Newton gain (LightGBM's, with ``lam``) of splitting at (f, bin b): 0 where a side has no
    hessian and ``lam`` is 0."""
    out = np.zeros(hist.shape[0])
    for k in range(hist.shape[0]):
        G, H, _ = _node_sums(hist, k, f)
        gl = 0.0
        hl = 0.0
        for c in range(b + 1):
            gl += hist[k, f, c, 0]
            hl += hist[k, f, c, 1]
        if hl + lam > 0 and H - hl + lam > 0:
            out[k] = gl * gl / (hl + lam) + (G - gl) ** 2 / (H - hl + lam) - G * G / (H + lam)
    return out


@numba.njit(cache=True)
def _level_split(hist, active, lam, min_data, min_hess, by_count):
    """The (feature, bin) with the largest summed gain over the active nodes among those that leave every active
    node at least ``min_data`` rows and ``min_hess`` hessian on each side; (-1, -1) if none does."""
    n_nodes, n_feat = hist.shape[0], hist.shape[1]
    best_gain, best_f, best_b = -np.inf, -1, -1
    for f in range(n_feat):
        gain = np.zeros(MAX_BINS)
        valid = np.ones(MAX_BINS, dtype=np.bool_)
        for k in range(n_nodes):
            if not active[k]:
                continue
            G, H, C = _node_sums(hist, k, f)
            W = C if by_count else H + lam
            parent = G * G / W
            gl = 0.0
            hl = 0.0
            cl = 0.0
            for c in range(MAX_BINS - 1):
                gl += hist[k, f, c, 0]
                hl += hist[k, f, c, 1]
                cl += hist[k, f, c, 2]
                if cl < min_data or C - cl < min_data or hl < min_hess or H - hl < min_hess:
                    valid[c] = False
                else:
                    wl = cl if by_count else hl + lam
                    gain[c] += gl * gl / wl + (G - gl) ** 2 / (W - wl) - parent
        for c in range(MAX_BINS - 1):
            if valid[c] and gain[c] > best_gain:
                best_gain, best_f, best_b = gain[c], f, c
    return best_f, best_b


def symmetric_splits(codes, g, h, depth, lam, min_data, min_hess=1e-3, by_count=True):
    """Levels of ``(feature, bin, split)``: one (feature, bin) per level, chosen greedily over the nodes still
    splitting, and ``split[k]`` whether node ``k`` of that level takes it. LightGBM refuses a forced split whose
    gain is not positive (with ``lambda_l2`` > 0 a split can lose) and then grows the rest of the tree freely, so
    such a node stays a leaf, as do all nodes below it."""
    node = np.zeros(codes.shape[0], dtype=np.int64)
    active = np.ones(1, dtype=np.bool_)
    levels = []
    for level in range(depth):
        hist = _histogram(codes, node, active.size, g, h)
        f, b = _level_split(hist, active, lam, min_data, min_hess, by_count)
        if f < 0:
            break
        gains = _node_gains(hist, f, b, lam)
        split = active & (gains > 1e-9 * max(1.0, float(np.abs(gains).max())))
        if not split.any():
            break
        levels.append((int(f), int(b), split))
        goes_right = split[node] & (codes[:, f] > b)
        node = 2 * node + goes_right
        active = np.repeat(split, 2)
    return levels


def forced_tree(levels) -> tuple[dict, int]:
    """LightGBM's forced-splits JSON of ``levels`` and its number of leaves."""
    leaves = 0

    def build(level, k):
        nonlocal leaves
        if level == len(levels) or not levels[level][2][k]:
            leaves += 1
            return None
        f, b, _ = levels[level]
        node = {"feature": f, "threshold": b + 0.5}  # bin b holds codes <= b: LightGBM sends them left
        for side, child in (("left", build(level + 1, 2 * k)), ("right", build(level + 1, 2 * k + 1))):
            if child is not None:  # a leaf has no entry: an empty one would be read as a split of feature 0
                node[side] = child
        return node

    tree = build(0, 0)
    return tree or {}, leaves


class SymmetricTrees:
    """While active, every ``Booster.update(fobj=...)`` on ``codes`` forces a symmetric tree of ``depth`` levels."""

    def __init__(self, codes: np.ndarray, depth: int, lam: float, min_data: int, by_count: bool = True):
        self.codes, self.depth, self.lam, self.min_data, self.by_count = codes, depth, lam, min_data, by_count
        self.folder = tempfile.mkdtemp(prefix="forced-splits-")
        self.paths = [os.path.join(self.folder, f"{i}.json") for i in range(2)]
        self.leaves: list[int] = []

    def __enter__(self):
        self.original = original = lgb.Booster.update
        probe = self

        def update(booster, train_set=None, fobj=None):
            if fobj is None:
                return original(booster, train_set=train_set, fobj=fobj)

            def forced(raw, dataset):
                grad, hess = fobj(raw, dataset)
                g, h = np.asarray(grad, dtype=np.float64), np.asarray(hess, dtype=np.float64)
                if g.shape[0] != probe.codes.shape[0]:
                    raise RuntimeError("the probe sees a training set it did not bin")
                if g.ndim == 2:  # n_models side by side: one forced file serves every model's tree of the iteration
                    g, h = g.mean(axis=1), h.mean(axis=1)
                tree, leaves = forced_tree(symmetric_splits(probe.codes, np.ascontiguousarray(g),
                                                            np.ascontiguousarray(h), probe.depth, probe.lam,
                                                            probe.min_data, by_count=probe.by_count))
                # LightGBM reloads the file only when its name changes: two names, taken in turn
                path = probe.paths[len(probe.leaves) % 2]
                with open(path, "w") as f:
                    json.dump(tree, f)
                booster.reset_parameter({"forcedsplits_filename": path})
                probe.leaves.append(leaves)
                return grad, hess

            return original(booster, train_set=train_set, fobj=forced)

        lgb.Booster.update = update
        return self

    def __exit__(self, *exc):
        lgb.Booster.update = self.original
        shutil.rmtree(self.folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted([*SHAPES, *REAL, *SUITE_SETS]), required=True)
    parser.add_argument("--noise", type=float, help="make_ltr's noise (drawn shapes only)")
    parser.add_argument("--seeds", type=int, nargs=2, default=(1, 4), metavar=("FIRST", "STOP"))
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--query-effect", type=float, default=0.0)
    parser.add_argument("--query-norm", action="store_true")
    parser.add_argument("--depth", type=int, default=6, help="levels of every symmetric tree (default 6)")
    parser.add_argument("--split-score", choices=("gradient", "newton"), default="gradient",
                        help="choose a level's split by the gradients' squared sums over rows (default; CatBoost's "
                             "scores ignore the hessians' sizes) or by the Newton gain with lambda_l2")
    parser.add_argument("--set", nargs="+", default=[], metavar="PARAM=VALUE", help="as data_shapes.py's --set")
    parser.add_argument("--random-state", type=int, default=0, help="every fit's seed (default 0)")
    parser.add_argument("--judged", nargs="+", default=["NDCG:top=10;type=Exp", "MAP", "MAUC"])
    parser.add_argument("--out", help="per-query test values (JSON), as data_shapes.py's --out")
    args = parser.parse_args()
    if not 1 <= args.depth <= 8:
        parser.error(f"--depth must be 1..8; got {args.depth}")
    if (args.noise is None) != (args.shape in REAL or args.shape in SUITE_SETS):
        parser.error(f"--noise goes with the drawn shapes only, not with {', '.join([*REAL, *SUITE_SETS])}")
    n_splits = {**REAL, **dict.fromkeys(SUITE_SETS, 3)}.get(args.shape)
    if n_splits is not None and not 1 <= args.seeds[0] < args.seeds[1] <= n_splits + 1:
        parser.error(f"--shape {args.shape}: --seeds are split numbers, FIRST >= 1 and STOP <= {n_splits + 1}")
    for m in args.judged:  # a misspelt metric fails here, not after the data are binned
        try:
            get_metric(m)
        except ValueError as error:
            parser.error(f"--judged: {error}")
    params = {"min_data_in_leaf": 20, "lambda_l2": 0.0, "n_models": 1, **parse_set(parser, args.set)}
    if "cb_params" in params:
        parser.error("--set cb.NAME=VALUE changes CatBoost's anchors, which this probe does not run")
    params |= {"num_leaves": 2 ** args.depth, "extra_trees": False, "max_bin": MAX_BINS,
               "lgb_params": {**params.get("lgb_params", {}), "min_data_in_bin": 1}}  # a bin per code
    per_query: dict = {}
    suite = q.load_suite([args.shape]) if args.shape in SUITE_SETS else None  # its splits drawn once
    for seed in range(*args.seeds):
        data = suite[seed - 1] if suite else split(args.shape, args.noise, seed, args.query_effect)
        if args.query_norm:
            data = q.Split(data.dataset, data.fold, *(query_minmax(d) for d in (data.train, data.vali, data.test)))
        dense = [np.asarray(d.X.toarray() if hasattr(d.X, "toarray") else d.X, dtype=np.float64)
                 for d in (data.train, data.vali, data.test)]
        codes, (vali_codes, test_codes) = bin_codes(dense[0], dense[1:])
        coded = [RankingDataset(c.astype(np.float64), d.y, group_ptr=d.group_ptr, qid=d.qid)
                 for c, d in zip((codes, vali_codes, test_codes), (data.train, data.vali, data.test))]
        data = q.Split(data.dataset, data.fold, *coded)
        for m in args.judged:
            with SymmetricTrees(codes, args.depth, float(params["lambda_l2"]), int(params["min_data_in_leaf"]),
                                by_count=args.split_score == "gradient"):
                result = q.run_system(q.lambdamart(m, **params), data, (m,), lr=args.learning_rate,
                                      trees=args.trees, threads=1, seed=args.random_state)
            per_query.setdefault(f"LambdaMART({m})", {}).setdefault(m, []).extend(result[m]["per_query"])
            print(seed, m, round(result[m]["test"], 4), "trees", result[m]["trees"], f"{result['seconds']:.0f} s",
                  flush=True)
    write_and_print(per_query, args.out, args.judged)


if __name__ == "__main__":
    main()

"""LP ranker solve times on the nine Ataman UCI sets: full LP, the previous cold chunking, warm chunking.

Each set whole, min-max scaled, RBF kernel at the grid point the LP chose in
``benchmarks/results/lp_uci.md``; the kernel and pairs are built once and only
the solver calls are timed. Methods:

* ``prev full`` / ``prev chunked``: the solver of git revision ``--previous``
  (SciPy ``linprog``, a cold solve per chunk; top-violated took the 500 most
  violated pairs of each 5000-pair chunk), loaded from git history.
* ``full``: this revision's full LP (one cold HiGHS solve, highspy).
* ``cold chunked``: this revision's top-violated rounds (LPRanker's defaults: a random
  seed of 500 pairs, then the 20,000 most violated per round), each solved from scratch.
* ``warm chunked``: the same rounds in one growing HiGHS model (the default).

Methods alternate within each repetition (rotating start) and the median per
method is printed, with ratios and the relative objective gap to ``full``.

Run: ``nice python benchmarks/lp_chunking.py [--data-dir ../shared/data] [--repeats 3] [--datasets liver]``
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import MinMaxScaler

from metricrank.experiments._uci import load_uci
from metricrank.learners._lp_chunking import enumerate_pairs, solve_chunked, solve_pair_lp

HERE = Path(__file__).resolve().parent
#: (gamma multiplier of 1/(d Var X), C) the LP chose per set in benchmarks/results/lp_uci.md
CHOSEN = {"boston": (1.0, 10.0), "ecoli": (0.25, 10.0), "glass": (1.0, 10.0), "heart": (0.25, 1.0),
          "sonar": (4.0, 1.0), "cancer": (0.25, 1.0), "ionosphere": (1.0, 1.0), "haberman": (0.25, 10.0),
          "liver": (0.25, 1.0)}
CHUNK_SIZE = 5000


def load_previous(rev):
    """The previous revision's ``_lp_chunking`` module (it imports only numpy and scipy)."""
    src = subprocess.run(["git", "show", f"{rev}:src/metricrank/learners/_lp_chunking.py"], cwd=HERE,
                         check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "_lp_chunking_previous.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("_lp_chunking_previous", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def problem(name, data_dir):
    d = load_uci(name, data_dir)
    X = MinMaxScaler().fit_transform(d.X)
    mult, C = CHOSEN[name]
    K = rbf_kernel(X, X, gamma=mult / (X.shape[1] * X.var()))
    return K, np.where(d.y, 1.0, -1.0), enumerate_pairs(d.y, [0, d.y.size]), C


def methods(prev, K, y, pairs, C):
    kw = dict(C=C, epsilon=1.0)
    chunk = dict(variant="top-violated", chunk_size=CHUNK_SIZE, tol=1e-6, max_passes=100, **kw)
    out = {
        "full": lambda: solve_pair_lp(K, y, pairs, **kw).objective,
        "cold chunked": lambda: solve_chunked(K, y, pairs, top_k=4 * CHUNK_SIZE, rng=np.random.default_rng(0),
                                              warm_start=False, **chunk).solution.objective,
        "warm chunked": lambda: solve_chunked(K, y, pairs, top_k=4 * CHUNK_SIZE, rng=np.random.default_rng(0),
                                              **chunk).solution.objective,
    }
    if prev is not None:
        out["prev full"] = lambda: prev.solve_pair_lp(K, y, pairs, **kw).objective
        out["prev chunked"] = lambda: prev.solve_chunked(K, y, pairs, top_k=CHUNK_SIZE // 10,
                                                         rng=np.random.default_rng(0), **chunk).solution.objective
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--previous", default="d999d1e", help="git revision of the previous solver ('' to skip)")
    ap.add_argument("--datasets", nargs="*", default=list(CHOSEN))
    args = ap.parse_args(argv)
    prev = load_previous(args.previous) if args.previous else None
    names = ["prev full", "prev chunked", "full", "cold chunked", "warm chunked"]
    names = [n for n in names if prev is not None or not n.startswith("prev")]
    print(f"median of {args.repeats} alternated runs, seconds; ratios against warm chunked; "
          "gap = max relative objective difference to 'full'")
    print("| data set | pairs | " + " | ".join(names) + " | full / warm | prev chunked / warm | "
          "prev full / warm | gap |")
    print("|---" * (len(names) + 6) + "|")
    t_all = time.perf_counter()
    for name in args.datasets:
        K, y, pairs, C = problem(name, args.data_dir)
        run = methods(prev, K, y, pairs, C)
        times = {n: [] for n in names}
        objs = {}
        for r in range(args.repeats):
            for n in names[r % len(names):] + names[:r % len(names)]:
                t0 = time.perf_counter()
                objs[n] = run[n]()
                times[n].append(time.perf_counter() - t0)
        med = {n: float(np.median(v)) for n, v in times.items()}
        gap = max(abs(o - objs["full"]) / abs(objs["full"]) for o in objs.values())
        ratio = lambda a: f"{med[a] / med['warm chunked']:.2f}" if a in med else "-"  # noqa: E731
        print(f"| {name} | {pairs.shape[0]} | " + " | ".join(f"{med[n]:.2f}" for n in names)
              + f" | {ratio('full')} | {ratio('prev chunked')} | {ratio('prev full')} | {gap:.1e} |", flush=True)
    print(f"wall time {time.perf_counter() - t_all:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

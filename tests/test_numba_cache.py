"""numba's on-disk cache of metricrank's kernels follows changes to any file of the package.

The oracle is the changed helper's own result: after ``rank_order`` (in ``_ordering.py``) is changed to
rank worst first, the kernel of ``_positional.py`` that calls it must rank worst first too, not load its
old machine code. One kernel is called, directly: each cold run compiles it, and a parallel kernel takes
seconds to compile.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

from metricrank import _numba_cache

SCRIPT = """
import numpy as np
from metricrank.metrics import _positional
labels = np.array([0.0, 1.0, 2.0, 0.0])
ptr = np.array([0, 4])
ranked = _positional._ranked_labels_kernel(labels, np.array([0.1, 0.2, 0.3, 0.4]), labels, ptr, 0)
print(ranked.tolist(), sum(_positional._ranked_labels_kernel.stats.cache_hits.values()))
"""
LABELS = [0.0, 1.0, 2.0, 0.0]  # scores 0.1, 0.2, 0.3, 0.4: ascending, all distinct


def _run(root: Path) -> tuple[list, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env["PYTHONPATH"] = str(root)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True).stdout
    ranked, hits = out.rsplit(" ", 1)
    return ast.literal_eval(ranked), int(hits)


def test_a_changed_helper_in_another_file_recompiles_the_cached_kernels_that_call_it(tmp_path):
    package = tmp_path / "metricrank"
    shutil.copytree(_numba_cache.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    best_first, hits = _run(tmp_path)
    assert hits == 0 and best_first == LABELS[::-1]  # descending scores: the input reversed
    again, hits = _run(tmp_path)
    assert again == best_first and hits > 0  # the unchanged package loads its kernel from the cache
    # rank_order lives in _ordering.py and is compiled into _positional.py's kernels: rank worst first
    ordering = package / "metrics" / "_ordering.py"
    source = ordering.read_text()
    line = "    n = score.shape[0]\n"
    assert source.count(line) == 1
    ordering.write_text(source.replace(line, line + "    score = -score\n"))
    worst_first, hits = _run(tmp_path)
    assert hits == 0 and worst_first == LABELS  # recompiled: ascending scores, the input order


def test_the_digest_covers_every_source_file_and_its_path(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    (tmp_path / "notes.txt").write_text("not source\n")
    before = _numba_cache.source_digest(tmp_path)
    (tmp_path / "notes.txt").write_text("changed\n")
    assert _numba_cache.source_digest(tmp_path) == before
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    assert _numba_cache.source_digest(tmp_path) != before
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    assert _numba_cache.source_digest(tmp_path) == before
    (tmp_path / "sub" / "b.py").rename(tmp_path / "b.py")
    assert _numba_cache.source_digest(tmp_path) != before


def test_kernels_outside_the_package_keep_numbas_own_locator(tmp_path, monkeypatch):
    (tmp_path / "outside_kernel.py").write_text("from numba import njit\n\n\n@njit(cache=True)\ndef one():\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import outside_kernel

    locator = outside_kernel.one._cache._impl.locator
    assert not getattr(type(locator), "_metricrank_stamped", False)
    assert outside_kernel.one() == 1
    from metricrank.metrics import _positional

    assert getattr(type(_positional._dcg_kernel._cache._impl.locator), "_metricrank_stamped", False)

"""Every benchmark script loads: what it reads from the library at import exists.

The scripts are run by hand, often sessions after their last edit, and several patch the library for a run
(``hessian_probe.py`` wraps the engine's ``boost_lanes``): a probe still reading a function the library has since
moved failed before it fitted anything. Loading each script catches that without running it. (Names read only
inside functions are pyflakes' to check: tests/test_static_names.py.)
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def test_the_scripts_are_found():
    assert len(SCRIPTS) >= 40


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_script_loads(path, monkeypatch):
    # checked first: a script without the guard would run its whole benchmark on load
    assert 'if __name__ == "__main__":' in path.read_text(), f"{path.name} runs on import: give it a main() guard"
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # as when run: the scripts import each other (data_shapes)
    runpy.run_path(str(path), run_name="loaded_by_test")  # the bench extra's packages are imported inside functions

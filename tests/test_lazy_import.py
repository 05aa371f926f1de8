"""``import metricrank`` loads its public names on first use, so the command line's ``--help`` and ``--version``
do not wait for scikit-learn, LightGBM and SciPy's statistics to import (``metricrank --version``: median 2.08 s
before, 0.39 s after; BENCHMARKS.md, "Stop 90")."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import metricrank


def test_importing_the_package_leaves_the_heavy_libraries_unloaded():
    code = ("import sys, metricrank; "
            "print(sorted(m for m in ('lightgbm', 'sklearn', 'torch', 'optuna', 'dask') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_help_loads_no_learner():
    code = ("import sys, contextlib, io\n"
            "from metricrank.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    main(['--help'])\n"
            "print('lightgbm' in sys.modules, 'sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize("name", [n for n in metricrank.__all__ if n != "__version__"])
def test_every_public_name_is_its_modules_object(name):
    module = importlib.import_module(f"metricrank.{metricrank._EXPORTS[name]}")
    assert getattr(metricrank, name) is getattr(module, name)
    assert name in dir(metricrank)


def test_subpackages_and_unknown_names():
    assert metricrank.learners is importlib.import_module("metricrank.learners")
    with pytest.raises(AttributeError, match="module 'metricrank' has no attribute 'LambdaMARTT'"):
        metricrank.LambdaMARTT  # noqa: B018


@pytest.mark.parametrize("module", sorted({*metricrank._EXPORTS.values(), *metricrank._SUBPACKAGES,
                                           "learners.nets", "cli"}))
def test_each_module_imports_first_in_a_fresh_interpreter(module):
    # (with the lazy package, `from metricrank import tune` imported model_selection before the learners, which
    # import its RankerScoreMixin: a circular ImportError that an in-process test, learners loaded, cannot see)
    subprocess.run([sys.executable, "-c", f"import metricrank.{module}"], check=True, capture_output=True)

"""Every public module's docstring examples run (numpydoc ``Examples`` sections)."""

import doctest
import importlib
import pkgutil

import pytest

import metricrank

MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(metricrank.__path__, "metricrank.")
    if not name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    if name.startswith("metricrank.dask"):
        pytest.importorskip("distributed", reason="metricrank.dask examples need the dask extra")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"

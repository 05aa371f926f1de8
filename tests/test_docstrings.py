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


PUBLIC_MODULES = ["metricrank", "metricrank.metrics", "metricrank.data", "metricrank.learners", "metricrank.analysis",
                  "metricrank.objectives", "metricrank.model_selection"] + [
    f"metricrank.experiments.{name}" for name in ("ataman_uci", "burges_mq2008", "quality", "welleck_mq2008",
                                                  "yue_mq2008")]


def _public_callables():
    import inspect

    seen = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            is_estimator = inspect.isclass(obj) and callable(getattr(obj, "fit", None))
            if (inspect.isfunction(obj) or is_estimator) and id(obj) not in seen:
                seen[id(obj)] = (f"{module_name}.{name}", obj)
    return sorted(seen.values())


@pytest.mark.parametrize("qualname, obj", _public_callables(), ids=lambda v: v if isinstance(v, str) else "")
def test_public_functions_and_estimators_have_numpydoc_sections(qualname, obj):
    """numpydoc's Parameters (for anything that takes arguments) and a runnable Examples section."""
    import inspect

    doc = inspect.getdoc(obj) or ""
    signature = inspect.signature(obj)
    wanted = ["Examples"] + (["Parameters"] if any(p != "self" for p in signature.parameters) else [])
    missing = [s for s in wanted if f"{s}\n{'-' * len(s)}" not in doc]
    assert not missing, f"{qualname}'s docstring lacks {', '.join(missing)}"

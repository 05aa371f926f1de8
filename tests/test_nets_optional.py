"""PyTorch is optional: metricrank imports without it, and the nets name the extra to install."""

import subprocess
import sys

# A child interpreter where ``import torch`` fails as on an install without the extra.
_BLOCK_TORCH = """
import importlib.abc, sys
class _NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "torch":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoTorch())
"""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _BLOCK_TORCH + code], capture_output=True, text=True,
                          timeout=300)


def test_import_metricrank_does_not_import_torch():
    proc = subprocess.run([sys.executable, "-c", "import sys, metricrank, metricrank.learners, "
                           "metricrank.learners.nets; from metricrank import *; metricrank.RankNet; "
                           "print('torch' in sys.modules)"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_without_torch_everything_else_works_and_nets_name_the_extra():
    code = """
import metricrank
from metricrank import LambdaMART, make_ltr, evaluate
ds = make_ltr(10, n_features=6, random_state=0)
LambdaMART(n_estimators=2, num_leaves=3, min_data_in_leaf=2).fit(ds)
from metricrank import RankNet, LambdaRank
from metricrank import *
for cls in (RankNet, LambdaRank):
    try:
        cls()
    except ImportError as err:
        assert "pip install 'metricrank[nets]'" in str(err), err
    else:
        raise SystemExit(f"{cls.__name__}() did not raise ImportError")
print("ok")
"""
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"

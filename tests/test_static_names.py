"""Every name the code reads is defined: pyflakes' undefined-name check over the package, the benchmarks and the tests.

A benchmark script is run by hand, often sessions after its last edit, so a name left behind by a rename there
fails only at its end (``saturated_selection.py`` printed its table from a name a review had removed). Unused
imports are not checked here: several are deliberate (an optional extra's availability check).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyflakes import api, messages

ROOT = Path(__file__).resolve().parents[1]
UNDEFINED = (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport)


class _Collect:
    """A pyflakes reporter that keeps the messages and the errors."""

    def __init__(self):
        self.found = []

    def flake(self, message):
        if isinstance(message, UNDEFINED):
            self.found.append(str(message))

    def unexpectedError(self, filename, msg):  # noqa: N802 (pyflakes' reporter interface)
        self.found.append(f"{filename}: {msg}")

    def syntaxError(self, filename, msg, lineno, offset, text):  # noqa: N802
        self.found.append(f"{filename}:{lineno}: {msg}")


@pytest.mark.parametrize("folder", ["src", "benchmarks", "tests"])
def test_no_undefined_names(folder):
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"no Python files under {folder}/"
    reporter = _Collect()
    for path in files:
        api.checkPath(str(path), reporter)
    assert reporter.found == []

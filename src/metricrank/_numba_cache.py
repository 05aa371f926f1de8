"""Keys numba's on-disk cache of metricrank's kernels on the whole package's source.

numba's ``cache=True`` checks only the file that defines a kernel. Many kernels call njit helpers
from other files (``rank_order``, ``pair_terms``, ``one_label``...), whose machine code is compiled
into the caller's. When an upgrade or an edit changes only such a helper, numba would load the
caller's old machine code and silently run the old helper. So every cached kernel of this package is
stamped with a digest of all the package's ``.py`` files as well: any change to any of them
recompiles the kernels on their next call.

numba offers no public hook for this. The locator classes it tries in turn are a class attribute
(``numba.core.caching.CacheImpl._locator_classes``, in every numba from 0.59 on); each one is wrapped,
for this package's files only, in a subclass whose stamp adds the digest. ``NUMBA_CACHE_LOCATOR_CLASSES``
replaces that list, so with it set the stamps are numba's own.
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def source_digest(package_dir: Path = PACKAGE_DIR) -> str:
    """SHA-256 of every ``.py`` file under ``package_dir``, with its relative path, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stamped(locator: type, digest: str) -> type:
    class PackageStampedLocator(locator):
        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                Path(py_file).resolve().relative_to(PACKAGE_DIR)
            except (ValueError, OSError):
                return None  # not one of this package's kernels: numba's own locators take it
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return super().get_source_stamp(), digest

    PackageStampedLocator.__name__ = PackageStampedLocator.__qualname__ = f"PackageStamped{locator.__name__}"
    return PackageStampedLocator


def install() -> None:
    """Put the stamped locators in front of numba's own (once per process)."""
    from numba.core import caching

    locators = getattr(getattr(caching, "CacheImpl", None), "_locator_classes", None)
    if not isinstance(locators, list):  # pragma: no cover - a numba without the list
        warnings.warn(
            "this numba version has no CacheImpl._locator_classes: metricrank's cached kernels are checked "
            "against their own file only; after changing metricrank, delete its __pycache__ *.nbi/*.nbc files",
            RuntimeWarning, stacklevel=2,
        )
        return
    if any(getattr(cls, "_metricrank_stamped", False) for cls in locators):
        return
    digest = source_digest()
    stamped = [_stamped(cls, digest) for cls in locators]
    for cls in stamped:
        cls._metricrank_stamped = True
    locators[:0] = stamped

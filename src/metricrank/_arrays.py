"""Arrays in the form metricrank's numba kernels take them."""

from __future__ import annotations

import numpy as np

__all__ = ["float64_array"]


def float64_array(values) -> np.ndarray:
    """``values`` as a C-contiguous, writable float64 array (a copy only where needed).

    numba compiles a kernel once per argument type, and a read-only array is a type of its own.
    pandas 3 hands out read-only arrays (copy-on-write), so without the copy every kernel that a
    DataFrame's labels or scores reach would compile a second time on first use: tens of seconds for
    the λ kernel.

    Examples
    --------
    >>> import numpy as np
    >>> frozen = np.arange(3.0)
    >>> frozen.flags.writeable = False
    >>> float64_array(frozen).flags.writeable
    True
    >>> float64_array([1, 2]).dtype
    dtype('float64')
    """
    arr = np.ascontiguousarray(values, dtype=np.float64)
    return arr if arr.flags.writeable else arr.copy()

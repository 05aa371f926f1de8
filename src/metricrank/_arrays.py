"""Arrays in the form metricrank's numba kernels take them."""

from __future__ import annotations

import numpy as np

__all__ = ["float64_array", "numeric_array"]


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


def numeric_array(values, name: str) -> np.ndarray:
    """``values`` as a NumPy array of numbers: objects holding numbers (a pandas object column) are converted.

    Text is refused, naming ``name``, even where it spells a number: labels, scores and weights
    are numbers, and a column read as text usually means a file was read with the wrong separator.

    Examples
    --------
    >>> import numpy as np
    >>> numeric_array(np.array([2, 0, 1], dtype=object), "y").dtype
    dtype('float64')
    >>> numeric_array(["2", "0"], "y")
    Traceback (most recent call last):
    ...
    ValueError: y must be numeric, got dtype <U1
    >>> numeric_array(np.array([2, "1"], dtype=object), "y")
    Traceback (most recent call last):
    ...
    ValueError: y must be numeric; got dtype object holding '1' (row 1)
    """
    arr = np.asarray(values)
    if arr.dtype.kind == "O":
        flat = arr.ravel().tolist()
        row = next((i for i, v in enumerate(flat) if not _is_number(v)), None)
        if row is not None:
            raise ValueError(f"{name} must be numeric; got dtype object holding {flat[row]!r} (row {row})")
        return arr.astype(np.float64)
    if arr.dtype.kind == "c":  # scikit-learn's wording, which its estimator checks look for
        raise ValueError(f"Complex data not supported in {name} (dtype {arr.dtype}); it must be real numbers")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {arr.dtype}")
    return arr


def _is_number(value) -> bool:
    if value is None or isinstance(value, (str, bytes)):  # None: NaN to NumPy, but no number was given
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True

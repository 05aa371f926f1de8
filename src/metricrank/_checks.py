"""Type tests shared by the public boundaries' parameter checks.

A bool is an ``int`` to Python and a string compares with nothing, so ``value >= 0`` alone lets ``True`` through
and raises a ``TypeError`` that names no parameter for ``"a"``: test the type first, then the range.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["is_integer", "is_real"]


def is_integer(value) -> bool:
    """An integer (numpy's included), not a bool.

    >>> is_integer(3), is_integer(np.int64(3)), is_integer(True), is_integer(3.0)
    (True, True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def is_real(value) -> bool:
    """A real number (numpy's included, NaN and infinities too), not a bool or a string.

    >>> is_real(0.5), is_real(np.float32(2)), is_real(2), is_real(False), is_real("1")
    (True, True, True, False, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))

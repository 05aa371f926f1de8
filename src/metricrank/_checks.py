"""Type tests shared by the public boundaries' parameter checks.

A bool is an ``int`` to Python and a string compares with nothing, so ``value >= 0`` alone lets ``True`` through
and raises a ``TypeError`` that names no parameter for ``"a"``: test the type first, then the range.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "check_early_stopping_rounds", "check_flag", "check_generator_seed", "check_lightgbm_seed",
    "check_positive_finite", "check_verbose", "is_integer", "is_real",
]


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


def check_early_stopping_rounds(value) -> None:
    """A ValueError unless ``early_stopping_rounds`` is None or an integer >= 1 (checked before any fitting).

    >>> check_early_stopping_rounds(None)
    >>> check_early_stopping_rounds(2.0)
    Traceback (most recent call last):
    ...
    ValueError: early_stopping_rounds must be None or an integer >= 1; got 2.0
    """
    if not (value is None or (is_integer(value) and value >= 1)):
        raise ValueError(f"early_stopping_rounds must be None or an integer >= 1; got {value!r}")


def check_flag(value, name: str) -> None:
    """A ValueError naming ``name`` unless ``value`` is True or False (numpy's bools too): the string ``"False"``
    is true to ``if``, so a flag taken by its truth value can silently mean the opposite.

    >>> check_flag(np.bool_(True), "dense")
    >>> check_flag("False", "higher_is_better")
    Traceback (most recent call last):
    ...
    ValueError: higher_is_better must be True or False; got 'False'
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")


def check_generator_seed(value, name: str = "random_state") -> None:
    """A ValueError naming ``name`` unless ``value`` seeds a numpy Generator: None, an integer >= 0, a numpy
    Generator, BitGenerator or SeedSequence (what ``numpy.random.default_rng`` takes), or a numpy RandomState
    (drawn from: :func:`metricrank._seeds.as_generator`).

    >>> check_generator_seed(np.random.default_rng(0))
    >>> check_generator_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: random_state must be None, an integer >= 0, a numpy RandomState or a numpy Generator; got -1
    """
    seeds = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence, np.random.RandomState)
    if not (value is None or isinstance(value, seeds) or (is_integer(value) and value >= 0)):
        raise ValueError(f"{name} must be None, an integer >= 0, a numpy RandomState or a numpy Generator; "
                         f"got {value!r}")


def check_lightgbm_seed(value, name: str) -> None:
    """A ValueError naming ``name`` unless ``value`` is a seed LightGBM takes: an integer in [0, 2**31) (the
    command line's ``--seed``; the estimators' ``random_state`` also takes generators:
    :func:`metricrank._seeds.check_lightgbm_random_state`).

    >>> check_lightgbm_seed(2**31 - 1, "seed")
    >>> check_lightgbm_seed(-1, "--seed")
    Traceback (most recent call last):
    ...
    ValueError: --seed must be an integer in [0, 2**31); got -1
    """
    if not (is_integer(value) and 0 <= value < 2 ** 31):
        raise ValueError(f"{name} must be an integer in [0, 2**31); got {value!r}")


def check_positive_finite(value, name: str) -> None:
    """A ValueError naming ``name`` unless ``value`` is a finite real number > 0 (not a bool or a string).

    >>> check_positive_finite(0.5, "sigma")
    >>> check_positive_finite(True, "sigma")
    Traceback (most recent call last):
    ...
    ValueError: sigma must be a positive finite number; got True
    """
    if not (is_real(value) and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")


def check_verbose(value, meaning: str) -> None:
    """A ValueError unless ``verbose`` is a bool or an integer >= 0; ``meaning`` says what a number does.

    >>> check_verbose(2, "print every verbose trees")
    >>> check_verbose(-1, "0: silent, anything else: one line per iteration")
    Traceback (most recent call last):
    ...
    ValueError: verbose must be a bool or an integer >= 0 (0: silent, anything else: one line per iteration); got -1
    """
    if not (isinstance(value, (bool, np.bool_)) or (is_integer(value) and value >= 0)):
        raise ValueError(f"verbose must be a bool or an integer >= 0 ({meaning}); got {value!r}")

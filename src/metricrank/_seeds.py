"""Seeds: what a ``random_state`` parameter takes, and what one fit or call draws from it.

Every estimator's ``random_state`` (and ``make_ltr``'s, ``tune``'s and ``local_optimality``'s) takes None, an
integer, a numpy ``RandomState`` or a numpy ``Generator``, as scikit-learn's and LightGBM's estimators do. An
integer (or None) fixes the result; a ``RandomState`` or ``Generator`` is drawn from, once per fit or call, so it
advances and the next fit differs, as in scikit-learn. The integer's range is the engine's: LightGBM's seeds are
below 2**31, a RandomState's (the nets') below 2**32, a Generator's unbounded.
"""

from __future__ import annotations

import numpy as np

from ._checks import is_integer

__all__ = ["GENERATORS", "as_generator", "check_lightgbm_random_state", "draw_seed"]

#: what is drawn from rather than read as a fixed seed
GENERATORS = (np.random.RandomState, np.random.Generator)
#: LightGBM's seeds are C ints
_LIGHTGBM_SEEDS = 2 ** 31


def as_generator(random_state) -> np.random.Generator:
    """A numpy Generator from a seed, a Generator (used as is) or a legacy RandomState (drawn from).

    >>> int(as_generator(0).integers(10)) == int(np.random.default_rng(0).integers(10))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(draw_seed(random_state))  # one draw, as a fit takes its seed
    return np.random.default_rng(random_state)


def check_lightgbm_random_state(value, name: str = "random_state") -> None:
    """A ValueError naming ``name`` unless ``value`` is None, an integer in [0, 2**31) (LightGBM's seeds), a
    numpy RandomState or a numpy Generator.

    >>> check_lightgbm_random_state(np.random.RandomState(0))
    >>> check_lightgbm_random_state(-1)
    Traceback (most recent call last):
    ...
    ValueError: random_state must be None, an integer in [0, 2**31), a numpy RandomState or a numpy Generator; got -1
    """
    if not (value is None or isinstance(value, GENERATORS) or (is_integer(value) and 0 <= value < _LIGHTGBM_SEEDS)):
        raise ValueError(f"{name} must be None, an integer in [0, 2**31), a numpy RandomState or a numpy "
                         f"Generator; got {value!r}")


def draw_seed(random_state) -> int | None:
    """The seed one fit uses: ``random_state`` itself when None or an integer; else an integer in [0, 2**31)
    drawn from the RandomState or Generator (which advances it), as LightGBM's scikit-learn estimators draw theirs.

    >>> draw_seed(None), draw_seed(7)
    (None, 7)
    >>> draw_seed(np.random.RandomState(0)) == int(np.random.RandomState(0).randint(0, 2**31))
    True
    """
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, _LIGHTGBM_SEEDS))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, _LIGHTGBM_SEEDS))
    return None if random_state is None else int(random_state)

"""The raw scores of the first k iterations, kept from one ``predict(X, num_iteration=k)`` to the next on the same rows.

Choosing the tree count on validation data the LightGBM way, ``predict(X, num_iteration=k)`` for k = 1, 2, ...,
reads k iterations' trees at each call: about half the square of the trees in all, eight times that for the
default's eight trees an iteration. Kept here, the previous call's raw scores on the same rows grow by the
iterations between the two counts, one ``predict(start_iteration=i, num_iteration=1)`` each, so such a loop reads
each tree once, as ``staged_predict`` does. LightGBM adds a row's trees one after another from zero, so adding
one iteration's output at a time to the kept sum gives its own scores bit for bit. A warm start's base scores,
which no iteration count changes, are kept beside them.

The scores of the last :data:`MAX_KEPT` sets of rows asked for are kept (a loop may score the validation and the
test rows at each count), each recognised by a digest of its values (not by the array object, which a caller may
change in place), and only for a prefix of the iterations: a call that scores with every tree, as serving does,
neither reads nor keeps anything.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["MAX_KEPT", "PrefixScores"]

#: Sets of rows whose scores are kept, the most recently asked for.
MAX_KEPT = 4


def _digest(X) -> bytes:
    """A digest of ``X``'s type, shape and values (a dense array or a CSR matrix, as ``check_features`` returns)."""
    h = hashlib.sha256()  # hardware-accelerated on x86 and ARM: three times blake2b's speed here
    h.update(repr((type(X).__name__, X.shape, str(X.dtype))).encode())
    parts = (X.indptr, X.indices, X.data) if sp.issparse(X) else (X,)
    for part in parts:
        h.update(np.ascontiguousarray(part).data)
    return h.digest()


@dataclass(frozen=True)
class _Entry:
    booster: object
    iterations: int
    raw: np.ndarray
    base: np.ndarray | None  # a warm start's base scores on the rows, which no iteration count changes


class PrefixScores:
    """Raw scores of the latest prefix of iterations asked for, for :meth:`GBRanker.predict`.

    Pickles and copies empty: what it keeps is a cache of the model's own output.

    Examples
    --------
    >>> import lightgbm as lgb, numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> booster = lgb.train({"objective": "regression", "verbose": -1}, lgb.Dataset(X, X[:, 0]), 20)
    >>> kept = PrefixScores()
    >>> curve = [kept.raw(booster, X, k)[0] for k in range(1, 20)]
    >>> all(np.array_equal(s, booster.predict(X, num_iteration=k, raw_score=True)) for k, s in enumerate(curve, 1))
    True
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()  # by the rows' digest, the latest last

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self.__init__()

    def raw(self, booster, X, iterations: int, base=None) -> tuple[np.ndarray, np.ndarray | None]:
        """``(booster.predict(X, num_iteration=iterations, raw_score=True), base(X))``, from the kept scores where
        they are of the same rows and of no more iterations. ``base``: a warm start's base model's ``predict``, or
        None (then None is returned for it)."""
        rows = _digest(X)
        with self._lock:
            entry = self._entries.get(rows)
        if entry is not None and entry.booster is booster and entry.iterations <= iterations:
            raw, base_scores = entry.raw, entry.base
            for it in range(entry.iterations, iterations):  # a new array each time, as the kept one is read
                raw = raw + np.asarray(booster.predict(X, start_iteration=it, num_iteration=1, raw_score=True),
                                       dtype=np.float64)
        else:
            raw = np.asarray(booster.predict(X, num_iteration=iterations, raw_score=True), dtype=np.float64)
            base_scores = None if base is None else np.asarray(base(X), dtype=np.float64)
        with self._lock:
            self._entries.pop(rows, None)
            self._entries[rows] = _Entry(booster, iterations, raw, base_scores)
            while len(self._entries) > MAX_KEPT:
                self._entries.popitem(last=False)
        # the caller's to change: a kept entry is never changed
        return raw.copy(), None if base_scores is None else base_scores.copy()

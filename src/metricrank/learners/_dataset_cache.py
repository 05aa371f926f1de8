"""Reuse of built LightGBM Datasets across fits on the same data.

Building a LightGBM Dataset (finding the bins of every feature, then binning every row) is a
fixed cost of each fit: 7.7 s for 243,011 documents × 136 features (benchmarks/dataset_reuse.py),
more than the trees of a short fit. Learning-rate grids, tuning trials and experiments refit on the very same
matrix, so the built Dataset is kept and handed to the next fit whose matrix and binning parameters
are identical.

"Identical" is decided by content, not identity: the key is a SHA-1 digest of the matrix's bytes
(with the labels set, 0.26 s for the matrix above), its shape, dtype and sparse structure, every Dataset
parameter, the feature names and the categorical features. A matrix changed in place, or a new
array at a recycled ``id``, therefore never meets a stale Dataset. Labels and initial scores are not
part of the key: they are set on the Dataset at every checkout.

A Dataset is checked out for the length of one fit. A fit that finds its entry in use (another
thread fitting the same data) builds a private Dataset instead of sharing one whose labels it would
overwrite. The cache holds a few recent entries (:data:`MAX_ENTRIES`) and is cleared by
:func:`clear_dataset_cache`.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from contextlib import contextmanager

import lightgbm as lgb
import numpy as np
import scipy.sparse as sp

__all__ = ["MAX_ENTRIES", "TRAINING_ONLY_PARAMS", "checkout_datasets", "clear_dataset_cache", "data_digest"]

#: Training sets kept, and evaluation sets kept per training set.
MAX_ENTRIES = 2
MAX_EVALS = 4

#: LightGBM parameters that do not change a Dataset (they shape trees, not bins); any other
#: parameter is part of the key, so a change of e.g. ``max_bin`` or ``min_data_in_leaf`` (which
#: feature pre-filtering reads) builds a new Dataset.
TRAINING_ONLY_PARAMS = frozenset({
    "objective", "metric", "verbosity", "num_threads", "learning_rate", "num_leaves", "lambda_l1", "lambda_l2",
    "max_depth", "min_sum_hessian_in_leaf", "feature_fraction", "feature_fraction_seed", "bagging_fraction",
    "bagging_freq", "bagging_seed", "boost_from_average", "min_gain_to_split", "extra_trees", "path_smooth",
})

_lock = threading.Lock()
_entries: "OrderedDict[str, _Entry]" = OrderedDict()


class _Entry:
    def __init__(self, train: lgb.Dataset):
        self.train = train
        self.evals: dict[str, lgb.Dataset] = {}
        self.in_use = False


def data_digest(X) -> str:
    """A digest of a feature matrix's content (values, shape, dtype, sparse structure)."""
    h = hashlib.sha1()
    if sp.issparse(X):
        X = X.tocsr()
        h.update(f"csr{X.shape}{X.dtype}".encode())
        for part in (X.indptr, X.indices, X.data):
            h.update(np.ascontiguousarray(part).view(np.uint8))
    else:
        X = np.asarray(X)
        h.update(f"dense{X.shape}{X.dtype}".encode())
        h.update(np.ascontiguousarray(X).view(np.uint8))
    return h.hexdigest()


def _dataset_key(digest: str, params: dict, feature_name, categorical_feature) -> str:
    # a forced-bins file is named by its content (_symmetric.SymmetricTrees), in a folder of its fit
    relevant = sorted((k, repr(os.path.basename(v) if k == "forcedbins_filename" else v))
                      for k, v in params.items() if k not in TRAINING_ONLY_PARAMS)
    return repr((digest, relevant, list(feature_name) if feature_name is not None else None,
                 categorical_feature if isinstance(categorical_feature, str) else list(categorical_feature)))


def _build(X, params, feature_name, categorical_feature, reference=None) -> lgb.Dataset:
    # free_raw_data: a kept Dataset must not pin the caller's matrix; eval sets are binned from
    # the built training Dataset's bin mappers, not from its raw data.
    return lgb.Dataset(X, params=dict(params), free_raw_data=True, reference=reference,
                       feature_name=feature_name if feature_name is not None else "auto",
                       categorical_feature=categorical_feature).construct()


@contextmanager
def checkout_datasets(X, label, init_score, params: dict, *, feature_name=None, categorical_feature="auto",
                      evals=()):
    """Built Datasets for one fit: ``(train, [eval Dataset, ...])``.

    Parameters
    ----------
    X, label, init_score
        The training matrix, labels and initial scores (``None``: zeros).
    params : dict
        LightGBM parameters of the fit (the Dataset-relevant ones form the key).
    feature_name, categorical_feature
        As for :class:`lightgbm.Dataset`.
    evals : sequence of (X, label, init_score)
        Evaluation sets, binned with the training set's bins.

    Yields
    ------
    (lightgbm.Dataset, list of lightgbm.Dataset)
        Valid until the block ends; labels and initial scores are those given.
    """
    key = _dataset_key(data_digest(X), params, feature_name, categorical_feature)
    borrowed = False
    with _lock:
        entry = _entries.get(key)
        if entry is not None and entry.in_use:
            entry, key = None, None  # another fit holds it: build privately, share nothing
        elif entry is not None:
            entry.in_use = borrowed = True
            _entries.move_to_end(key)
    try:
        if entry is None:
            entry = _Entry(_build(X, params, feature_name, categorical_feature))
            if key is not None:
                with _lock:
                    if key in _entries:  # built meanwhile by a concurrent fit: keep this one private
                        key = None
                    else:
                        _entries[key] = entry
                        entry.in_use = borrowed = True
                        while len(_entries) > MAX_ENTRIES:
                            _entries.popitem(last=False)
        eval_sets = []
        for eX, _, _ in evals:
            ekey = data_digest(eX) if key is not None else None
            # one Dataset per eval set of this fit: the same matrix twice may carry other labels
            cached = entry.evals.get(ekey)
            lds = None if any(cached is e for e in eval_sets) else cached
            if lds is None:
                # the reference's own Dataset parameters: a reused entry was built with another fit's forced-bins
                # path (same content), which LightGBM would otherwise override with a warning
                eparams = {**params, **entry.train.get_params()}
                lds = _build(eX, eparams, feature_name, categorical_feature, reference=entry.train)
                if ekey is not None and len(entry.evals) < MAX_EVALS:
                    entry.evals[ekey] = lds
            eval_sets.append(lds)
        for lds, (_, elabel, escore) in zip([entry.train, *eval_sets], [(X, label, init_score), *evals]):
            lds.set_label(elabel)
            # explicit zeros: LightGBM's set_init_score(None) keeps the previous fit's scores
            lds.set_init_score(np.zeros(lds.num_data()) if escore is None else escore)
        yield entry.train, eval_sets
    finally:
        if borrowed:
            with _lock:
                entry.in_use = False


def clear_dataset_cache() -> None:
    """Forget every kept Dataset (frees their memory).

    Examples
    --------
    >>> from metricrank import LambdaMART, make_ltr
    >>> ds = make_ltr(20, n_features=5, n_informative=3, random_state=0)
    >>> model = LambdaMART(n_estimators=2).fit(ds)   # keeps the Dataset LightGBM built
    >>> clear_dataset_cache()
    >>> len(_entries)
    0
    """
    with _lock:
        _entries.clear()

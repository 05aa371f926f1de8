"""Synthetic learning-to-rank data."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._checks import check_flag, check_generator_seed, is_integer, is_real
from .._seeds import as_generator
from .dataset import RankingDataset

__all__ = ["make_ltr", "default_label_probs"]


def default_label_probs(n_labels: int) -> np.ndarray:
    """Skewed label distribution: ``P(label = k)`` proportional to ``2 ** -k``.

    For 5 labels this is about 52% / 26% / 13% / 6% / 3%, close to web-search
    judgement data, where most documents are irrelevant.

    Examples
    --------
    >>> default_label_probs(3).round(3).tolist()
    [0.571, 0.286, 0.143]
    """
    if n_labels < 1:
        raise ValueError(f"n_labels must be >= 1, got {n_labels}")
    p = 0.5 ** np.arange(n_labels, dtype=np.float64)
    return p / p.sum()


def make_ltr(
    n_queries=100,
    *,
    docs_per_query=(5, 50),
    n_features=20,
    n_informative=5,
    n_labels=5,
    label_probs=None,
    noise=1.0,
    random_state=0,
    sparse=False,
    relevance="linear",
    query_effect=0.0,
) -> RankingDataset:
    """Generate a synthetic ranking data set with graded labels.

    ``relevance="linear"`` (the default, unchanged): labels are drawn
    independently from ``label_probs``. The first ``n_informative`` features
    are ``w_j * label + noise * N(0, 1)``; the others are pure noise. Every
    query then gets its own offset and scale for every feature
    (``x = offset_q + scale_q * (...)``), so absolute feature values differ
    between queries and per-query normalisation helps, as with real
    retrieval features. A linear scorer is close to optimal here.

    ``relevance="nonlinear"``: as in web-search data, where boosted trees beat
    linear models, relevance is a nonlinear function of the features. The
    informative features ``z_1..z_m`` are N(0, 1); the latent relevance is

        ``f = sum_j a_j 1[z_j > t_j] + sum_j b_j z_j z_(j+1 mod m)``

    (thresholds ``t_j`` in -0.5..0.5, steps ``|a_j|`` in 1..2, interactions
    ``|b_j|`` in 0.5..1.5; with ``m = 1``, ``b z^2``), standardised, plus
    ``0.5 * noise * N(0, 1)``. Labels cut this latent value at the quantiles
    of ``label_probs``, so the label distribution is as requested. The noise
    features get the per-query offset and scale; the informative ones are
    already comparable across queries (like normalised BM25 or PageRank).
    ``query_effect`` adds ``query_effect * N(0, 1)``, one draw per query, to
    the latent value before the cut: queries then differ in how many relevant
    documents they hold, by more than chance, and some hold none, as in LETOR
    (in MQ2008's training folds 28 % of the queries have no relevant
    document). The shift is in no feature.

    Parameters
    ----------
    n_queries : int, default=100
    docs_per_query : int or (int, int), default=(5, 50)
        Query sizes are drawn uniformly from ``lo..hi`` inclusive (a single
        int fixes the size).
    n_features : int, default=20
    n_informative : int, default=5
        Number of leading features that depend on the label.
    n_labels : int, default=5
        Labels are ``0 .. n_labels - 1``.
    label_probs : array-like of shape (n_labels,), optional
        Label distribution; default :func:`default_label_probs` (about
        52/26/13/6/3 % for 5 labels).
    noise : float, default=1.0
        Standard deviation of the noise added to the informative features
        (in label units: the signal moves by ``|w_j|`` in 0.5..1.5 per grade).
    random_state : int, numpy Generator or RandomState, default=0
        Same seed, same data.
    sparse : bool, default=False
        If True, ``X`` is CSR and about 80% of the noise-feature entries are 0.
    relevance : {"linear", "nonlinear"}, default="linear"
        How labels depend on the features (see above). Same seed, same data,
        for either.
    query_effect : float, default=0.0
        Standard deviation of the per-query shift of the latent relevance
        (``relevance="nonlinear"`` only; in units of its standardised signal).
        0 draws nothing extra: the data are those of earlier versions.

    Returns
    -------
    RankingDataset
        ``qid`` is the query index, ``doc_ids`` are ``"q{query}-d{i}"``.

    Examples
    --------
    >>> ds = make_ltr(3, docs_per_query=(2, 4), n_features=4, n_informative=2, random_state=1)
    >>> ds.n_queries, ds.n_features, bool(ds.y.max() <= 4)
    (3, 4, True)
    >>> ds.doc_ids[:2].tolist()
    ['q0-d0', 'q0-d1']
    >>> bool((make_ltr(3, random_state=1).X == make_ltr(3, random_state=1).X).all())
    True
    """
    try:
        bounds = (docs_per_query, docs_per_query) if is_integer(docs_per_query) else tuple(docs_per_query)
    except TypeError:  # neither an integer nor a pair
        bounds = ()
    if len(bounds) != 2 or not all(is_integer(v) for v in bounds) or not 1 <= bounds[0] <= bounds[1]:
        raise ValueError(f"docs_per_query must be an integer >= 1 or integers (lo, hi) with 1 <= lo <= hi, "
                         f"got {docs_per_query!r}")
    lo, hi = (int(v) for v in bounds)
    for name, value, minimum in (("n_queries", n_queries, 0), ("n_features", n_features, 1),
                                 ("n_labels", n_labels, 1)):
        if not is_integer(value) or value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if not is_integer(n_informative) or not 0 <= n_informative <= n_features:
        raise ValueError(f"n_informative must be an integer in 0..n_features ({n_features}), got {n_informative!r}")
    if not (is_real(noise) and np.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be finite and >= 0, got {noise!r}")
    if relevance not in ("linear", "nonlinear"):
        raise ValueError(f"relevance must be 'linear' or 'nonlinear', got {relevance!r}")
    if not (is_real(query_effect) and np.isfinite(query_effect) and query_effect >= 0):
        raise ValueError(f"query_effect must be finite and >= 0, got {query_effect!r}")
    if query_effect and relevance != "nonlinear":
        raise ValueError(f"query_effect shifts the latent relevance of relevance='nonlinear'; "
                         f"with relevance={relevance!r} it must be 0, got {query_effect!r}")
    check_flag(sparse, "sparse")
    if label_probs is None:
        probs = default_label_probs(n_labels)
    else:
        try:
            probs = np.asarray(label_probs, dtype=np.float64)
        except (TypeError, ValueError):
            probs = np.full(n_labels, np.nan)  # not numbers: refused just below
        if probs.shape != (n_labels,) or np.any(probs < 0) or not np.isfinite(probs).all() or probs.sum() <= 0:
            raise ValueError(f"label_probs must be {n_labels} non-negative numbers with a positive sum")
        probs = probs / probs.sum()

    check_generator_seed(random_state)
    rng = as_generator(random_state)
    sizes = rng.integers(lo, hi + 1, size=n_queries, dtype=np.int64)
    group_ptr = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=group_ptr[1:])
    n = int(group_ptr[-1])
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)

    if relevance == "nonlinear":
        X, y = _nonlinear(rng, qid, n, n_queries, n_features, n_informative, probs, noise, sparse,
                          query_effect)
        return _finish(X, y, sparse, group_ptr, qid, sizes, n)

    y = rng.choice(n_labels, size=n, p=probs).astype(np.float64)
    w = rng.uniform(0.5, 1.5, size=n_informative) * rng.choice([-1.0, 1.0], size=n_informative)
    offsets = rng.normal(0.0, 2.0, size=(n_queries, n_features))
    scales = rng.uniform(0.5, 2.0, size=n_queries)

    # Generate and finish X in row blocks of ~4 MB: cache-friendly, and no
    # full-size temporaries (1e6 x 136 float64 is ~1 GB). The block size only
    # depends on n_features, so the stream of random numbers is reproducible.
    X = np.empty((n, n_features), dtype=np.float64)
    n_noise = n_features - n_informative
    step = max(1, (1 << 19) // n_features)
    for a in range(0, n, step):
        b = min(n, a + step)
        block = X[a:b]
        rng.standard_normal(out=block)
        if n_informative:
            block[:, :n_informative] *= noise
            block[:, :n_informative] += y[a:b, None] * w
        q = qid[a:b]
        block *= scales[q, None]
        block += offsets[q]
        if sparse and n_noise:
            noise_part = block[:, n_informative:]
            noise_part[rng.random(noise_part.shape) < 0.8] = 0.0

    return _finish(X, y, sparse, group_ptr, qid, sizes, n)


def _nonlinear(rng, qid, n, n_queries, n_features, n_informative, probs, noise, sparse, query_effect):
    """Features first, then labels from a nonlinear latent relevance (see :func:`make_ltr`)."""
    m = n_informative
    X = rng.standard_normal((n, n_features))
    if m:
        Z = X[:, :m]
        t = rng.uniform(-0.5, 0.5, size=m)
        a = rng.uniform(1.0, 2.0, size=m) * rng.choice([-1.0, 1.0], size=m)
        b = rng.uniform(0.5, 1.5, size=m) * rng.choice([-1.0, 1.0], size=m)
        f = ((Z > t) * a).sum(axis=1)
        if m == 1:
            f += b[0] * Z[:, 0] ** 2
        else:
            f += (Z * np.roll(Z, -1, axis=1) * b).sum(axis=1)
        sd = f.std()
        f = (f - f.mean()) / (sd if sd > 0 else 1.0)
    else:
        f = np.zeros(n)
    latent = f + 0.5 * noise * rng.standard_normal(n)
    if query_effect:  # drawn only when asked for, so that 0 leaves the random stream, and the data, as before
        latent += query_effect * rng.standard_normal(n_queries)[qid]
    y = _labels_at_quantiles(latent, probs)
    if n_features > m:
        offsets = rng.normal(0.0, 2.0, size=(n_queries, n_features - m))
        scales = rng.uniform(0.5, 2.0, size=n_queries)
        noise_part = X[:, m:]
        noise_part *= scales[qid, None]
        noise_part += offsets[qid]
        if sparse:
            noise_part[rng.random(noise_part.shape) < 0.8] = 0.0
    return X, y


def _finish(X, y, sparse, group_ptr, qid, sizes, n) -> RankingDataset:
    if sparse:
        X = sp.csr_matrix(X)

    within = np.arange(n, dtype=np.int64) - np.repeat(group_ptr[:-1], sizes)
    doc_ids = np.array([f"q{a}-d{b}" for a, b in zip(qid.tolist(), within.tolist())], dtype=object)
    return RankingDataset(X, y, group_ptr=group_ptr, qid=qid, doc_ids=doc_ids)


def _labels_at_quantiles(latent: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Label ``k`` for the values between the latent's quantiles at ``probs``' cumulative sums ``k - 1`` and ``k``.

    A value on a cut goes above it. Values tied on a cut are split, in row order, so the cut keeps its share (a
    constant latent would otherwise give every row the top label), and a label of probability 0 is given to no
    row (the cut at quantile 1, the maximum, would otherwise put the maximum above it). Elsewhere this is
    ``searchsorted(quantile(latent, q), latent, side="right")``, the data of earlier versions.
    """
    n = latent.shape[0]
    q = np.cumsum(probs)[:-1]
    if n == 0:
        return np.zeros(0)
    order = np.argsort(latent, kind="stable")
    ranked = latent[order]
    cuts = np.quantile(latent, q)
    below = np.searchsorted(ranked, cuts, side="left")  # rows under each cut: the labels up to k
    upto = np.searchsorted(ranked, cuts, side="right")
    below = np.where(upto - below > 1, np.clip(np.round(q * n), below, upto), below)  # ties: the cut's share
    below[np.cumsum(probs[::-1])[::-1][1:] == 0] = n  # no probability above the cut: no row above it
    below[np.cumsum(probs)[:-1] == 0] = 0  # none below it: no row below it
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return np.searchsorted(np.maximum.accumulate(below), rank, side="right").astype(np.float64)

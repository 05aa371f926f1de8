"""λ-gradients of the AUC targets in O(n log n) per query (Welleck's Theorem 1).

For ROCArea/QueryAUC and MAUC the swap delta of positions ``i < j`` is
``|ΔZ_ij| = (j - i) f_ab`` with ``f_ab = |t_a - t_b|`` depending only on the
classes ``a, b`` of the two documents (AUC: two classes, ``t = (0, 1/(m n))``;
MAUC: ``t_c = 1/(T (N - n_c))`` for each summed class, see
:mod:`._swap_deltas`). With ``x_ij = exp(-σ (s_i - s_j)) ∈ (0, 1]`` for the
documents at positions ``i < j`` (scores sorted, so ``s_i >= s_j``), the
logistic of the exact kernel is

* ``ρ = x / (1 + x)`` when the upper document is the more relevant one,
* ``ρ = 1 / (1 + x)`` when it is the less relevant one (a misordered pair),
* ``ρ (1 - ρ) = x / (1 + x)²`` in both cases.

``1/(1+x)`` and ``1/(1+x)²`` are analytic on a Bernstein ellipse around
``[0, 1]`` (pole at ``x = -1``), so their degree-24 Chebyshev interpolants
``P`` and ``Q``, written as polynomials in ``x`` (coefficients ``_P``, ``_Q``),
have relative errors

    ε_P = sup_{x∈[0,1]} |P(x)(1+x) - 1|    <= 5e-15,
    ε_Q = sup_{x∈[0,1]} |Q(x)(1+x)² - 1|   <= 1e-13

(Chebyshev interpolation on the ellipse of parameter 5: ``|f - p| <= 4 M 5^-24 / 4``
with ``M = 5`` resp. ``25``, i.e. 1.7e-16 resp. 1.7e-15 relative, plus the
float64 rounding of the coefficients, ``u Σ|a_k| / min f``; the sup measured
on a fine grid is 1.3e-16 resp. 7.4e-16, see ``tests/test_objectives_auc_fast.py``).
A power of ``x`` factorises, ``x_ij^k = Π_{i<=t<j} r_t^k`` with
``r_t = exp(-σ (s_t - s_{t+1}))``, so for every class ``c`` and power ``k``
the sums

    U_k(i) = Σ_{j>i, c_j=c} x_ij^k,      W_k(i) = Σ_{j>i, c_j=c} (j - i) x_ij^k

obey ``U_k(i-1) = r^k (U_k(i) + [c_i=c])`` and ``W_k(i-1) = r^k (W_k(i) + U_k(i) + [c_i=c])``
(all terms positive: no cancellation), and symmetrically for ``j < i`` in a
forward pass. λ_i and w_i are then short dot products of these sums with
``_P``/``_Q``: O(n C K) per query after the O(n log n) ranking, with C classes
and K = 26 powers.

Error bound (``norm=False``): every sum above has positive terms, so per document

    |λ̃_i - λ_i| <= (ε_P + δ) Σ_j |λ_ij|,      |w̃_i - w_i| <= (ε_Q + δ) w_i,

where δ is floating-point rounding: about ``70 u`` for the dot products
(``u = 2^-53``) plus the rounding of the chained factors ``r_t``, at most
``k (j - i) 2u`` relative on ``x_ij^k`` (``<= 6e-9`` for a 1,000,000-document
group in the worst case, ~1e-13 measured). For AUC a document's pair terms
share one sign, so ``Σ_j |λ_ij| = |λ_i|``; for MAUC a document is above the lower
classes and below the higher ones, its terms differ in sign, and ``λ_i`` can
cancel to rounding noise, where no bound relative to ``|λ_i|`` holds.

Tied scores give ``r = 1`` exactly and the positions come from the same
``rank_order`` (the metric's tie policy), so ties are handled exactly as by the
O(n²) kernel. Row and group weights scale λ_i, w_i per document and are applied
exactly. ``norm=True`` (LightGBM's ``|ΔZ| / (0.01 + |s_i - s_j|)``) does not
factorise: it always uses the exact kernel.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: Monomial coefficients (in x) of the Chebyshev interpolant of 1/(1+x) on [0, 1], degree 24.
_P = np.array([
    1.0, -0.9999999999999998, 0.999999999999962,
    -0.9999999999968342, 0.9999999998592076, -0.9999999961341168,
    0.999999928405193, -0.9999990516505526, 0.9999906348060044,
    -0.9999289112793174, 0.999575462873868, -0.9979688792127341,
    0.9921013562764192, -0.9747334883849269, 0.9328300610911677,
    -0.8501791631186497, 0.7168712631629756, -0.5415036514565805,
    0.3544448656364259, -0.19426081291418826, 0.08582853107144277,
    -0.029156606763387626, 0.007110868766173785, -0.0011042039205561018,
    8.17928830041557e-05,
])
#: The same for 1/(1+x)², degree 24.
_Q = np.array([
    1.0, -1.9999999999999967, 2.999999999999291,
    -3.9999999999408313, 4.999999997367123, -5.9999999276503155,
    6.999998658765976, -7.999982211437736, 8.999824056047334,
    -9.998661839219674, 10.99198915798622, -11.961557382165672,
    12.849934607016195, -13.517644666380464, 13.709719787612269,
    -13.098823690042794, 11.459121952095892, -8.900534917600442,
    5.948216384888034, -3.3107964498562796, 1.4797949361643152,
    -0.5071239933997895, 0.1245175913136673, -0.01943795911794563,
    0.00144590755562591,
])

#: Proven relative error bounds of P and Q (see the module docstring).
EPS_P = 5e-15
EPS_Q = 1e-13


@njit(cache=True, nogil=True)
def _pass(cls, n_cls, wt, s, sigma, truncation, lam, w, below):
    """Add the contributions of the pairs below (``below``) or above each position to lam, w.

    Returns the sum of ``|ΔZ|`` over the pairs seen (only counted in the ``below`` pass).
    """
    n = s.shape[0]
    nk = _P.shape[0]
    n_pow = nk + 1
    u_sum = np.zeros((n_cls, n_pow))
    w_sum = np.zeros((n_cls, n_pow))
    rp = np.ones(n_pow)
    used = 0.0
    for step in range(n):
        i = n - 1 - step if below else step
        a = cls[i]
        counted = i < truncation if below else True
        if counted:
            li = 0.0
            wi = 0.0
            for b in range(n_cls):
                if b == a:
                    continue
                f = abs(wt[a] - wt[b])
                if f == 0.0:
                    continue
                # i more relevant and above j (below pass) → correct pair, ρ = x P(x);
                # above pass: i more relevant but below j → misordered, ρ = P(x)
                correct = (a > b) == below
                off = 1 if correct else 0
                sp = 0.0
                sq = 0.0
                for k in range(nk):
                    sp += _P[k] * w_sum[b, k + off]
                    sq += _Q[k] * w_sum[b, k + 1]
                if a > b:
                    li += f * sp
                else:
                    li -= f * sp
                wi += f * sq
                if below:
                    used += f * w_sum[b, 0]
            lam[i] += sigma * li
            w[i] += sigma * sigma * wi
        # move to the next position: i-1 (below pass) or i+1 (above pass)
        if below:
            if i == 0:
                break
            r = math.exp(-sigma * (s[i - 1] - s[i]))
            add = True
        else:
            if i == n - 1:
                break
            r = math.exp(-sigma * (s[i] - s[i + 1]))
            add = i < truncation
        if r != 1.0:
            for k in range(1, n_pow):
                rp[k] = rp[k - 1] * r
        else:
            for k in range(1, n_pow):
                rp[k] = 1.0
        for c in range(n_cls):
            d = 1.0 if (c == a and add) else 0.0
            for k in range(n_pow):
                uk = u_sum[c, k]
                w_sum[c, k] = rp[k] * (w_sum[c, k] + uk + d)
                u_sum[c, k] = rp[k] * (uk + d)
    return used


@njit(cache=True, nogil=True)
def fast_query(cls, n_cls, wt, s, sigma, truncation, lam, w):
    """λ (``lam``) and Newton weights (``w``) of one ranked query; returns Σ|ΔZ| over the pairs.

    ``cls``: class id per ranked position (larger = more relevant), ``wt``: the
    per-class term ``t_c`` (pair delta ``(j - i) |t_a - t_b|``), ``s``: scores in
    ranked order (non-increasing). Pairs whose upper position is ``>= truncation``
    are skipped, as in the exact kernel.
    """
    for r in range(s.shape[0]):
        lam[r] = 0.0
        w[r] = 0.0
    used = _pass(cls, n_cls, wt, s, sigma, truncation, lam, w, True)
    _pass(cls, n_cls, wt, s, sigma, truncation, lam, w, False)
    return used

"""Exact balls-into-bins probabilities: ``m`` equal flows hashed uniformly onto ``n`` equal-cost uplinks.

``P(max >= k)``, the chance that some uplink receives at least ``k`` flows, comes from the
Poissonisation identity: multinomial occupancy equals independent Poisson(m/n) bins conditioned
on their sum being ``m``, so

    P(all bins < k) = [y^m] (sum_{j<k} pois(j; m/n) y^j)^n / pois(m; m)

computed by repeated squaring of the truncated polynomial (pure Python, no overflow: every
coefficient is a probability). For ``k = 2`` this is the birthday problem,
``1 - n! / ((n - m)! n^m)``.

>>> round(p_max_at_least(4, 16, 2), 4)       # 4 flows on 16 uplinks: some uplink gets two
0.3335
>>> p_max_at_least(17, 16, 2)                # pigeonhole
1.0
>>> round(p_max_at_least(2, 2, 2), 3)
0.5
"""

from __future__ import annotations

import math

_EXACT_LIMIT = 2_048  # balls; above it independent Poisson bins approximate (relative error ~1/sqrt(m))


def _pois_pmf(j: int, lam: float) -> float:
    return math.exp(j * math.log(lam) - lam - math.lgamma(j + 1)) if lam > 0 else float(j == 0)


def _mul(a: list[float], b: list[float], cap: int) -> list[float]:
    """Product of two polynomials (coefficient lists), truncated above degree ``cap``."""
    out = [0.0] * min(len(a) + len(b) - 1, cap + 1)
    for i, ai in enumerate(a):
        if ai == 0.0:
            continue
        for j in range(min(len(b), cap + 1 - i)):
            out[i + j] += ai * b[j]
    return out


def _power(base: list[float], exponent: int, cap: int) -> list[float]:
    result = [1.0]
    while exponent:
        if exponent & 1:
            result = _mul(result, base, cap)
        exponent >>= 1
        if exponent:
            base = _mul(base, base, cap)
    return result


def p_max_at_least(balls: int, bins: int, k: int) -> float:
    """Probability that, with ``balls`` hashed uniformly into ``bins``, some bin holds ``>= k`` balls."""
    if balls < 0 or bins < 1 or k < 1:
        raise ValueError("balls >= 0, bins >= 1 and k >= 1 are required")
    if k > balls:
        return 0.0
    if balls > (k - 1) * bins:
        return 1.0  # pigeonhole
    lam = balls / bins
    if balls > _EXACT_LIMIT:
        below = sum(_pois_pmf(j, lam) for j in range(k))
        return min(1.0, max(0.0, 1.0 - below**bins))
    truncated = [_pois_pmf(j, lam) for j in range(k)]
    coefficient = _power(truncated, bins, balls)
    p_all_below = coefficient[balls] / _pois_pmf(balls, float(balls)) if len(coefficient) > balls else 0.0
    return min(1.0, max(0.0, 1.0 - p_all_below))


def quantile_max(balls: int, bins: int, probability: float) -> int:
    """Smallest ``k`` such that ``P(max >= k + 1) <= probability``: the fullest bin at that confidence.

    Galloping search up from the mean: the answer sits a few standard deviations above it, and
    large ``k`` are the expensive ones.
    """
    low = high = max(1, math.ceil(balls / bins))
    step = 1
    while p_max_at_least(balls, bins, high + 1) > probability:
        low, high, step = high + 1, high + step, step * 2
    while low < high:  # P(max >= k) falls as k grows
        mid = (low + high) // 2
        if p_max_at_least(balls, bins, mid + 1) <= probability:
            high = mid
        else:
            low = mid + 1
    return low

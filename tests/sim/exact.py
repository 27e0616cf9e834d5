"""Exact distributions of the seed's casualty calculation, for the tests' yardstick.

Uniform-then-random-rounding: P(c = k) = (1/(H−L)) ∫_L^H tent(x − k) dx,
with tent(t) = max(0, 1 − |t|), because a value x rounds to k with
probability 1 − |x − k| for |x − k| < 1.
"""

from __future__ import annotations

import math


def _tent_cdf(t: float) -> float:
    if t <= -1:
        return 0.0
    if t <= 0:
        return (t + 1) ** 2 / 2
    if t <= 1:
        return 1 - (1 - t) ** 2 / 2
    return 1.0


def casualty_pmf(low: float, high: float) -> dict[int, float]:
    """Exact P(casualties = k) for x ~ Uniform(low, high) randomly rounded."""
    if high == low:
        k = math.floor(low)
        f = low - k
        return {k: 1 - f, k + 1: f} if f else {k: 1.0}
    pmf = {}
    for k in range(math.floor(low), math.floor(high) + 2):
        p = (_tent_cdf(high - k) - _tent_cdf(low - k)) / (high - low)
        if p > 0:
            pmf[k] = p
    return pmf

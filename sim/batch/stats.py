"""Binomial confidence intervals for win probabilities (Wilson score interval)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

__all__ = ["Z95", "Interval", "wilson"]

Z95: Final = 1.959963984540054
"""The 97.5 % quantile of the standard normal: a two-sided 95 % interval."""


@dataclass(frozen=True)
class Interval:
    """An estimated proportion ``p = k / n`` and its interval ``[low, high]``."""

    k: int
    n: int
    p: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        """Half the interval's width (the ``--until-ci`` criterion)."""
        return (self.high - self.low) / 2


def wilson(k: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval of ``k`` successes in ``n`` trials.

    centre = (p̂ + z²/2n) / (1 + z²/n);
    half-width = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²).
    With no trials the proportion is unknown: ``p`` is NaN and the interval [0, 1].

    Raises:
        ValueError: ``k`` is negative or more than ``n``.
    """
    if not 0 <= k <= n:
        raise ValueError(f"wilson: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Interval(0, 0, math.nan, 0.0, 1.0)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # low <= p <= high holds exactly; clamp away the last bit of rounding (e.g. k = 0).
    return Interval(k, n, p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))

"""Exact odds of one musket combat results calculation (seed 003).

The casualty value x is Uniform(L, H) — or, with the Alternative
Calculation, the mean of two such draws, triangular on [L, H] — and is then
randomly rounded, so P(c = k) = ∫ density(x) · tent(x − k) dx, computed here
in exact rationals.  From it follow the morale-check probability
Σ P(k)·k/(k+25), the fatigue range and mean, and the guns lost by a battery.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from sim.odds.exact import integrate_product, tent, triangular, uniform

__all__ = ["CasualtyOdds", "casualty_odds", "guns_lost_odds"]


@dataclass(frozen=True)
class CasualtyOdds:
    """The exact distribution of casualties of one calculation, and what follows."""

    effective: Fraction
    low: Fraction
    high: Fraction
    distribution: dict[int, Fraction]
    mean: Fraction
    morale_check_p: Fraction
    fatigue_min: int
    fatigue_max: int
    fatigue_mean: Fraction
    alternative: bool = False


MAX_OUTCOMES = 2_000
"""Widest casualty range enumerated exactly (each outcome is one exact integral)."""


def casualty_odds(
    v: Fraction,
    m: Fraction,
    lcv: Fraction,
    hcv: Fraction,
    alternative: bool = False,
    fatigue_factor: Fraction = Fraction(1),
) -> CasualtyOdds:
    """Exact odds for combat value ``v``, modifier ``m`` (percent), LCV and HCV.

    Args:
        fatigue_factor: 1 for fire; 3/2 in melee, 2 for the melee's loser.

    Raises:
        ValueError: LCV below 0 or above HCV, V below 0, or more than
            :data:`MAX_OUTCOMES` outcomes.
    """
    if v < 0 or lcv < 0 or hcv < lcv:
        raise ValueError(f"need V >= 0 and 0 <= LCV <= HCV, not V {v}, LCV {lcv}, HCV {hcv}")
    e = max(Fraction(0), v * (1 + m / 100))
    low, high = lcv * e / 1000, hcv * e / 1000
    if high - low > MAX_OUTCOMES:
        raise ValueError(
            f"the casualty value spans [{float(low):.6g}, {float(high):.6g}]: more than "
            f"{MAX_OUTCOMES:,} outcomes to enumerate exactly (lower V or HCV)"
        )
    if high == low:
        k, f = math.floor(low), low - math.floor(low)
        dist = {k: 1 - f, k + 1: f} if f else {k: Fraction(1)}
    else:
        density = triangular(low, high) if alternative else uniform(low, high)
        dist = {}
        for k in range(math.floor(low), math.floor(high) + 2):
            p = integrate_product(density, tent(k))
            if p:
                dist[k] = p
    mean = sum((k * p for k, p in dist.items()), Fraction(0))
    check = sum((p * Fraction(k, k + 25) for k, p in dist.items() if k > 0), Fraction(0))
    present = [k for k, p in dist.items() if p]
    # fatigue is Uniform(c, 3c) × factor, randomly rounded: its extremes and its mean 2c·factor
    fmin = math.floor(min(present) * fatigue_factor)
    fmax = math.ceil(3 * max(present) * fatigue_factor)
    return CasualtyOdds(
        e, low, high, dist, mean, check, fmin, fmax, 2 * mean * fatigue_factor, alternative
    )


def guns_lost_odds(dist: dict[int, Fraction], men_per_gun: int = 25) -> dict[int, Fraction]:
    """Guns lost by a battery: floor(c/25) plus one with probability (c mod 25)/25."""
    out: dict[int, Fraction] = {}
    for c, p in dist.items():
        whole, rest = divmod(c, men_per_gun)
        extra = Fraction(rest, men_per_gun)
        out[whole] = out.get(whole, Fraction(0)) + p * (1 - extra)
        if extra:
            out[whole + 1] = out.get(whole + 1, Fraction(0)) + p * extra
    return {g: p for g, p in sorted(out.items()) if p}

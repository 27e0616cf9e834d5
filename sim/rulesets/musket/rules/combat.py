"""The seed's combat results calculation, as pure arithmetic.

Every function here implements a sentence of
``shared/seeds/003_c0b278e369ae6739.txt`` (cited as *seed 003 Ln*, the
file's line number) and uses its symbols: combat value V, modifier m (percent),
Low and High Combat Value LCV/HCV per 1000, effective value E, low and high
casualties L and H.  Random inputs arrive as uniforms ``u`` in [0, 1), so
each function is a plain function of its arguments.
"""

from __future__ import annotations

import math
from typing import NamedTuple

__all__ = [
    "BASELINE",
    "CasualtyRange",
    "casualty_range",
    "effective_value",
    "fatigue_value",
    "guns_lost",
    "morale_check_probability",
    "random_round",
    "uniform_between",
]

BASELINE = 1000.0
"""Base-line combat value to which LCV and HCV refer (seed 003 L3)."""


class CasualtyRange(NamedTuple):
    """Effective value E and the casualty interval [low, high] it scales to.

    A named tuple: built once per resolution, it costs half a frozen dataclass.
    """

    effective: float
    low: float
    high: float


def effective_value(v: float, m: float) -> float:
    """E = V × (1 + m/100): the modifier applied to the combat value (seed 003 L3, L5)."""
    return v * (1.0 + m / 100.0)


def casualty_range(v: float, m: float, lcv: float, hcv: float) -> CasualtyRange:
    """Scale LCV and HCV by E/1000 (seed 003 L3; worked example L5).

    >>> casualty_range(400, 25, 5, 25)
    CasualtyRange(effective=500.0, low=2.5, high=12.5)
    """
    e = max(0.0, effective_value(v, m))
    return CasualtyRange(e, lcv * e / BASELINE, hcv * e / BASELINE)


def uniform_between(low: float, high: float, u: float) -> float:
    """A value uniform on [low, high] from one uniform ``u`` (seed 003 L3, last sentence)."""
    return low + (high - low) * u


def random_round(x: float, u: float) -> int:
    """Round ``x`` up with probability frac(x), else down (seed 003 L5).

    3.7 rounds down 30 % of the time and up 70 %: up when ``u < 0.7``.
    """
    n = math.floor(x)
    return n + 1 if u < x - n else n


def guns_lost(loss: int, men_per_gun: int, u: float) -> int:
    """Guns lost for a loss in men, 1 gun = ``men_per_gun`` men (seed 003 L7).

    Below one gun's worth the chance of losing a gun is loss/25 (seed).  For
    larger losses (rules-notes §1 [ours], option ``gun_loss_rule``):
    ``floor(loss/25)`` guns plus one more with probability ``(loss mod 25)/25``.
    """
    whole, rest = divmod(loss, men_per_gun)
    return whole + (1 if u < rest / men_per_gun else 0)


def fatigue_value(c: float, u: float) -> float:
    """Fatigue uniform between c and 3c, c the casualty value (seed 003 L9)."""
    return uniform_between(c, 3.0 * c, u)


def morale_check_probability(loss: float) -> float:
    """Probability that a loss requires a morale check: loss/(loss+25) (seed 003 L11-L15)."""
    return loss / (loss + 25.0) if loss > 0 else 0.0

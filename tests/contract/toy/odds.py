"""The toy ``pips`` ruleset's exact odds: pips taken by N rolls of a d6 that hit on 5+.

One :class:`~sim.contract.OddsResolution`, ``battlesim odds pips-rolls``, as
a plugin author writes it: the number of hits is Binomial(N, p) with
p = (7 - hit_on)/6, in exact :class:`~fractions.Fraction` s.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb
from typing import Any

from sim.contract import (
    OddsParam,
    OddsResolution,
    OddsResult,
    distribution_json,
    distribution_table,
)

__all__ = ["ROLLS", "pips_taken"]


def pips_taken(rolls: int, hit_on: int = 5) -> dict[int, Fraction]:
    """P(k pips taken) for k = 0..rolls: each roll of a d6 takes one on ``hit_on`` or more."""
    p = Fraction(7 - hit_on, 6)
    return {k: comb(rolls, k) * p**k * (1 - p) ** (rolls - k) for k in range(rolls + 1)}


def _compute(values: Mapping[str, Any]) -> OddsResult:
    rolls, hit_on = values["rolls"], values["hit_on"]
    dist = pips_taken(rolls, hit_on)
    mean = rolls * Fraction(7 - hit_on, 6)
    lines = (*distribution_table(dist, "pips"), f"mean {float(mean):.6g} (exactly {mean})")
    return OddsResult(lines, {**distribution_json(dist), "rolls": rolls, "hit_on": hit_on})


ROLLS = OddsResolution(
    name="pips-rolls",
    summary="Exact pips taken by N rolls of a d6.",
    params=(
        OddsParam("rolls", "integer", "Rolls of the d6.", required=True, low=1, high=60),
        OddsParam("hit_on", "integer", "The face a roll hits on.", default=5, low=2, high=6),
    ),
    compute=_compute,
    examples=("--rolls 3",),
)
"""``battlesim odds pips-rolls``."""

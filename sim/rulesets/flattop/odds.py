"""Exact odds of one flattop attack: enumerate both d10s (seed 000, "HOW TO USE")."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sim.rulesets.flattop import tables
from sim.rulesets.flattop.resolve import modified_table

__all__ = ["HitOdds", "hit_odds"]


@dataclass(frozen=True)
class HitOdds:
    """Distribution of hits of one attack and the cell it was read from."""

    hit_table: str | None
    """The row after modifiers (``*``, 1..15), or None when there is no attack."""
    column: str
    cell: Fraction | None
    """Expected hits as printed in the matrix; None for ``--`` or no attack."""
    distribution: dict[int, Fraction]
    mean: Fraction


def hit_odds(basic: int, factors: int, modifier: int = 0) -> HitOdds:
    """Exact hits of ``factors`` attacking on hit table ``basic`` (0 = ``*``) + ``modifier``.

    Every pair of d10 rolls (0..9 on the fraction column, 0..9 on the integer
    column) is equally likely; n = 0 rolls only the fraction die.
    """
    row = modified_table(basic, {"modifier": modifier} if modifier else {})
    col = tables.column_index(factors)
    label = tables.COLUMN_LABELS[col]
    if row is None:
        return HitOdds(None, label, None, {0: Fraction(1)}, Fraction(0))
    tenths = tables.MATRIX[row][col]
    if tenths is None:
        return HitOdds(tables.ROWS[row], label, None, {0: Fraction(1)}, Fraction(0))
    n, f = tables.split(tenths)
    dist: dict[int, Fraction] = {}
    for fraction_roll in range(10):
        for integer_roll in range(10):
            a, b = tables.crt_hits(n, f, fraction_roll, integer_roll if n else None)
            dist[a + b] = dist.get(a + b, Fraction(0)) + Fraction(1, 100)
    dist = dict(sorted(dist.items()))
    mean = sum((k * p for k, p in dist.items()), Fraction(0))
    return HitOdds(tables.ROWS[row], label, Fraction(tenths, 10), dist, mean)

"""Resolving one attack on the Hit Table Matrix and the CRT (seed 000, "HOW TO USE").

1. The attacker's basic hit table plus the modifiers, clamped to the matrix
   (rules-notes §2 [src]: above 15 → 15; 0 → ``*``; [ours] below ``*`` → no
   attack, option ``below_star``).
2. Cross-index the table with the attacking factors: the cell, expected hits.
3. Split the cell into integer part n and fraction f; roll one d10 on column
   ``.f`` when f > 0, then one on ``1`` (n = 1) or ``n>1`` (n ≥ 2) when n ≥ 1.
   Hits are the sum.

A d10 numbered 0..9 is ``Stream.roll(10) - 1``, i.e. ⌊10u⌋ of one uniform u.
The fraction die is drawn first, then the integer die, on the one stream the
caller names for this resolution.
"""

from __future__ import annotations

from typing import Literal

from engine.events import Draw
from engine.rng import Stream
from sim.rulesets.flattop.model import tables
from sim.rulesets.flattop.model.events import Resolution

__all__ = ["d10", "modified_table", "resolve"]


def modified_table(
    basic: int, modifiers: dict[str, int], below_star: Literal["no_attack", "star"] = "no_attack"
) -> int | None:
    """Row of the matrix after modifiers: 0 (``*``) .. 15, or None for no attack.

    >>> modified_table(9, {"night": -4}), modified_table(4, {"night": -4, "clouds": -2})
    (5, None)
    """
    row = basic + sum(modifiers.values())
    if row > 15:
        return 15
    if row >= 0:
        return row
    return 0 if below_star == "star" else None


def d10(stream: Stream) -> tuple[int, Draw]:
    """Roll a ten-sided die numbered 0..9 (the seed's d10): ``roll(10) - 1``."""
    roll, draw = stream.roll(10)
    return roll - 1, draw


def resolve(
    stream: Stream,
    basic: int,
    modifiers: dict[str, int],
    factors: int,
    below_star: Literal["no_attack", "star"] = "no_attack",
) -> Resolution:
    """Resolve ``factors`` attacking on ``basic`` + ``modifiers``, drawing from ``stream``."""
    row = modified_table(basic, modifiers, below_star)
    col = tables.column_index(factors)
    tenths = tables.MATRIX[row][col] if row is not None else None
    common = {
        "basic_table": basic,
        "modifiers": modifiers,
        "hit_table": tables.ROWS[row] if row is not None else None,
        "factors": factors,
        "column": tables.COLUMN_LABELS[col],
    }
    if tenths is None:
        return Resolution(
            **common,
            cell=None,
            n=0,
            f=0,
            fraction_roll=None,
            integer_roll=None,
            fraction_hits=0,
            integer_hits=0,
            hits=0,
            draws=[],
        )
    n, f = tables.split(tenths)
    draws: list[Draw] = []
    fraction_roll = integer_roll = None
    if f:
        fraction_roll, draw = d10(stream)
        draws.append(draw)
    if n:
        integer_roll, draw = d10(stream)
        draws.append(draw)
    fraction_hits, integer_hits = tables.crt_hits(n, f, fraction_roll, integer_roll)
    return Resolution(
        **common,
        cell=tenths / 10,
        n=n,
        f=f,
        fraction_roll=fraction_roll,
        integer_roll=integer_roll,
        fraction_hits=fraction_hits,
        integer_hits=integer_hits,
        hits=fraction_hits + integer_hits,
        draws=draws,
    )

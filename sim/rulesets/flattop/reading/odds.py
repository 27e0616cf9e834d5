"""Exact odds of one flattop attack: enumerate both d10s (seed 000, "HOW TO USE").

:data:`ATTACK` offers them as ``battlesim odds flattop`` (docs/odds.md),
through the ruleset's ``odds`` hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral
from typing import Any

from sim.contract import (
    OddsParam,
    OddsResolution,
    OddsResult,
    distribution_json,
    distribution_table,
)
from sim.rulesets.flattop.model import tables
from sim.rulesets.flattop.rules.resolve import modified_table
from sim.text.grammar import count

__all__ = ["ATTACK", "RESOLUTIONS", "HitOdds", "hit_odds", "render"]


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

    Raises:
        ValueError: ``basic`` is not a basic table (0..15: ``--hit-table`` refuses it too),
            or ``factors`` is below 1.
    """
    if isinstance(basic, bool) or not isinstance(basic, Integral) or not 0 <= basic <= 15:
        raise ValueError(f"{basic!r} is not a hit table (0 = * or 1..15)")
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


def render(o: HitOdds, factors: int, basic: int | None = None, modifier: int = 0) -> OddsResult:
    """The text and JSON of one attack's odds (``factors`` as given, for the first line).

    With a ``modifier``, the first line reads the row as the narrative does, the basic
    table (``basic``, 0 = ``*``) and the modifier to the row read: ``hit table 7 -2 → 5``.
    """
    asked = ""
    if modifier and basic is not None:
        asked = f"{tables.ROWS[basic]} {modifier:+d}"
    data = {
        **distribution_json(o.distribution),
        "hit_table": o.hit_table,
        "column": o.column,
        "cell": float(o.cell) if o.cell is not None else None,
    }
    if o.hit_table is None:
        first = (
            f"hit table {asked}: below the * row: no attack"
            if asked
            else "below the * row: no attack"
        )
    else:
        cell = f"{float(o.cell):.1f}" if o.cell is not None else "-- (no effect)"
        row = f"{asked} → {o.hit_table}" if asked else o.hit_table
        first = f"hit table {row}, {count(factors, 'factor')} (column {o.column}): cell {cell}"
    lines = (
        first,
        *distribution_table(o.distribution, "hits"),
        f"mean {float(o.mean):.6g} (exactly {o.mean})",
    )
    return OddsResult(lines, data)


def hit_table(text: str) -> int:
    """A basic hit table as given: ``*`` (or ``0``, as an event's ``basic_table`` says it) is 0,
    else 1..15.

    Raises:
        ValueError: anything else, with the one-line message.
    """
    given = text.strip()  # as click reads a whole number: " 7" is 7
    if given in ("*", "0"):
        return 0
    if given.isdigit() and 1 <= int(given) <= 15:
        return int(given)
    raise ValueError(f"{text!r} is not a hit table (* or 1..15)")


def _attack(values: Mapping[str, Any]) -> OddsResult:
    o = hit_odds(values["hit_table"], values["factors"], values["modifier"])
    return render(o, values["factors"], values["hit_table"], values["modifier"])


ATTACK = OddsResolution(
    name="flattop",
    summary="Exact hits of one attack (revised Hit Table Matrix and CRT).",
    params=(
        OddsParam(
            "hit_table",
            "text",
            "The attacker's basic hit table: * (or 0, as an event's basic_table) or 1..15.",
            required=True,
            parse=hit_table,
            metavar="TABLE",
        ),
        OddsParam(
            "factors",
            "integer",
            "Attacking factors (an event's result.factors): an attack's AF x 2 "
            "(attack_factor_scale), the AF firing in air combat, or the AA factor.",
            required=True,
            low=1,
        ),
        OddsParam(
            "modifier",
            "integer",
            "Hit-table modifier (crippled +2, anchored +2, clouds -2, night -4, small target -4; "
            "the AA table's dive bombers +0).",
            default=0,
        ),
    ),
    compute=_attack,
    examples=("--hit-table 7 --factors 12 --modifier -2",),
)
"""``battlesim odds flattop``: one attack on the revised Hit Table Matrix and CRT."""

RESOLUTIONS = (ATTACK,)
"""The flattop ruleset's ``odds``."""

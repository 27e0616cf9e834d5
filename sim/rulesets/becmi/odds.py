"""Exact odds of one becmi attack roll: enumerate the d20 (seed 001 L8–L14, L70–L85)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sim.rulesets.becmi.data import COVER, LONG_RANGE_MODIFIER
from sim.rulesets.becmi.dice import hits
from sim.rulesets.becmi.options import BecmiOptions
from sim.rulesets.becmi.tohit import needed

__all__ = ["ToHitOdds", "to_hit_odds"]


@dataclass(frozen=True)
class ToHitOdds:
    """The roll needed, the damage bonus, the modifiers and the chance to hit."""

    h: int
    needed: int
    """The d20 total needed after the plateau adjustments."""
    modifiers: dict[str, int]
    die_needed: int | None
    """The face the die itself must show (before naturals); None if cover makes it impossible."""
    damage_bonus: int
    p_hit: Fraction


def to_hit_odds(
    thac0: int,
    ac: int,
    range_band: str | None = None,
    cover: str | None = None,
    options: BecmiOptions | None = None,
) -> ToHitOdds:
    """Exact chance to hit with one d20, under the natural-roll options.

    Args:
        range_band: ``short``, ``medium`` or ``long`` for missiles.
        cover: ``<amount>-<soft|hard>``, e.g. ``half-hard``.
    """
    o = options or BecmiOptions()
    need = needed(thac0, ac, o.low_plateaus == "every_10")
    mods: dict[str, int] = {}
    if range_band is not None:
        mods["range"] = {
            "short": o.short_range_modifier,
            "medium": o.medium_range_modifier,
            "long": LONG_RANGE_MODIFIER,
        }[range_band]
    if cover is not None:
        amount, _, kind = cover.rpartition("-")
        soft, hard = COVER[amount]
        value = soft if kind == "soft" else hard
        if value is None:  # full hard cover: it cannot be hit (L85)
            shown = {k: v for k, v in mods.items() if v}
            return ToHitOdds(need.h, need.needed, shown, None, need.damage_bonus, Fraction(0))
        mods["cover"] = value
    total_mod = sum(mods.values())
    p = sum(
        (
            Fraction(1, 20)
            for roll in range(1, 21)
            if hits(roll, roll + total_mod, need.needed, o)[0]
        ),
        Fraction(0),
    )
    mods = {k: v for k, v in mods.items() if v}
    return ToHitOdds(need.h, need.needed, mods, need.needed - total_mod, need.damage_bonus, p)

"""Exact odds of one becmi attack roll: enumerate the d20 (seed 001 L8–L14, L70–L85).

:data:`ATTACK` offers them as ``battlesim odds becmi`` (docs/odds.md),
through the ruleset's ``odds`` hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sim.contract import OddsParam, OddsResolution, OddsResult
from sim.rulesets.becmi.model.data import COVER, LONG_RANGE_MODIFIER
from sim.rulesets.becmi.model.options import BecmiOptions
from sim.rulesets.becmi.model.tohit import needed
from sim.rulesets.becmi.rules.dice import hits

__all__ = ["ATTACK", "RESOLUTIONS", "ToHitOdds", "render", "to_hit_odds"]


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
    other: int = 0,
) -> ToHitOdds:
    """Exact chance to hit with one d20, under the natural-roll options.

    Args:
        range_band: ``short``, ``medium`` or ``long`` for missiles.
        cover: ``<amount>-<soft|hard>``, e.g. ``half-hard``.
        other: the attack's other roll modifiers, summed: the Str adjustment hand to
            hand, the Dex adjustment with missiles, a haymaker's −5.

    Raises:
        ValueError: ``range_band`` or ``cover`` is not one of those words (``--range``
            and ``--cover`` refuse them too).
    """
    if range_band not in (None, "short", "medium", "long"):
        raise ValueError(f"range_band {range_band!r} is not one of short, medium, long")
    amount, _, kind = (cover or "").rpartition("-")
    if cover is not None and (amount not in COVER or kind not in ("soft", "hard")):
        raise ValueError(f"cover {cover!r} is not one of {', '.join(COVERS)}")
    o = options or BecmiOptions()
    need = needed(thac0, ac, o.low_plateaus == "every_10")
    mods: dict[str, int] = {"other": other}
    if range_band is not None:
        mods["range"] = {
            "short": o.short_range_modifier,
            "medium": o.medium_range_modifier,
            "long": LONG_RANGE_MODIFIER,
        }[range_band]
    if cover is not None:
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


def _face(die_needed: int) -> str:
    if die_needed > 20:
        return "no face reaches it by its total"
    if die_needed <= 1:
        return "every face reaches it"
    return f"the d20 must show {die_needed} or more"


def render(o: ToHitOdds, thac0: int, ac: int) -> OddsResult:
    """The text and JSON of one attack roll's odds (THAC0 and AC as given)."""
    data = {
        "distribution": {"hit": float(o.p_hit), "miss": float(1 - o.p_hit)},
        "exact": {"hit": str(o.p_hit), "miss": str(1 - o.p_hit)},
        "mean": float(o.p_hit),
        "mean_exact": str(o.p_hit),  # as every odds command with a mean gives it
        "needed": o.needed,
        "die_needed": o.die_needed,
        "damage_bonus": o.damage_bonus,
        "p_hit": float(o.p_hit),
        "h": o.h,
        "modifiers": o.modifiers,
    }
    mods = ", ".join(f"{k} {v:+d}" for k, v in o.modifiers.items()) or "none"
    bonus = f", +{o.damage_bonus} damage" if o.damage_bonus else ""
    # written as the narrative writes it (reading/report.py:to_hit_text): the minus sign for
    # the subtraction, the hyphen-minus for a signed number, and flattop's odds' arrow
    first = f"THAC0 {thac0} − AC {ac} = H {o.h} → needs {o.needed}{bonus}; modifiers: {mods}"
    if o.die_needed is None:
        second = "full hard cover: it cannot be hit"
    else:
        second = (
            f"{_face(o.die_needed)} (naturals as set); "
            f"p(hit) = {float(o.p_hit):.4f} (exactly {o.p_hit})"
        )
    return OddsResult((first, second), data)


def _attack(values: Mapping[str, Any]) -> OddsResult:
    options = BecmiOptions(
        natural_1_misses=values["natural_1_misses"], natural_20_hits=values["natural_20_hits"]
    )
    thac0, ac = values["thac0"], values["ac"]
    odds = to_hit_odds(thac0, ac, values["range"], values["cover"], options, values["modifier"])
    return render(odds, thac0, ac)


COVERS = tuple(
    f"{a}-{k}" for a in ("quarter", "half", "three_quarters", "full") for k in ("soft", "hard")
)
"""The ``--cover`` words: ``<amount>-<soft|hard>``."""

ATTACK = OddsResolution(
    name="becmi",
    summary="Roll needed, damage bonus and chance to hit of one attack.",
    params=(
        OddsParam("thac0", "integer", "Attacker's THAC0.", required=True, low=-20, high=40),
        OddsParam("ac", "integer", "Target's armour class.", required=True, low=-40, high=20),
        OddsParam(
            "modifier",
            "integer",
            "Other roll modifiers, summed: Str adjustment (hand to hand), Dex adjustment "
            "(missiles), haymaker -5.",
            default=0,
            low=-40,
            high=40,
        ),
        OddsParam("range", "choice", "Missile range band.", choices=("short", "medium", "long")),
        OddsParam("cover", "choice", "Target's cover.", choices=COVERS),
        OddsParam(
            "natural_1_misses",
            "flag",
            "A natural 1 always misses.",
            default=True,
            negatable=True,
        ),
        OddsParam(
            "natural_20_hits",
            "flag",
            "A natural 20 always hits.",
            default=False,
            negatable=True,
        ),
    ),
    compute=_attack,
    examples=("--thac0 19 --ac 9 --range long --cover half-soft",),
)
"""``battlesim odds becmi``: one d20 attack roll against an armour class."""

RESOLUTIONS = (ATTACK,)
"""The becmi ruleset's ``odds``."""

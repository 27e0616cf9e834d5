"""Rules data of the ``musket`` ruleset: weapons, terrain, quality, phases.

Sources are tagged as in ``shared/rules-notes.md`` §1: [src] the game
family's documentation, [fan] a public fan implementation, [ours] our
choice.  The whole module's tables are digested into every replay header
(``rules_digest``), so a changed table is visible in old replays.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "ARTILLERY_VALUE_SCALE",
    "COUNTER_PHASES",
    "KINDS",
    "MORALE_STATES",
    "PHASES",
    "QUALITY_FIRE_MODIFIER",
    "QUALITY_MORALE",
    "TERRAIN",
    "WEAPONS",
    "Ammo",
    "Formation",
    "Kind",
    "Quality",
    "Terrain",
    "rules_data",
]

RULES_VERSION: Final = "1"
"""The version of the tables below (``rules_data``, digested into every header)."""

RULESET_VERSION: Final = "8"
"""The version of the rules: 2 changed the defaults of four options of ours around the
seed (``options.RULES_V1``), 3 added and changed the options of ``options.RULES_V2``
(melee odds, closing, rout on heavy loss, getting out, assault exhaustion, facing), 4
changed the defaults of the two of ``options.RULES_V3`` the fitting cases chose
(spent_out_loss 0.2, column_fire_share 0.5), 5 those of ``options.RULES_V4`` (a charge
in depth and the head of a column: closing_depth true, column_closing_share 0.25), 6 that
of ``options.RULES_V5`` (prisoners taken in a rout: rout_prisoners_share 0.25), 7 those of
``options.RULES_V6`` (cavalry's charge: cavalry_closing_loss_step 0.06, cavalry_ride_past
all), 8 that of ``options.RULES_V7`` (a battalion caught in line: cavalry_vs_line 3); a
version-1 to -7 replay is still fought again under the rules it names."""

PHASES: Final = ("movement", "defensive_fire", "offensive_fire", "melee", "rally")
"""The phases of a turn, in order [ours]; rules-notes §1 [src] names defensive fire."""

COUNTER_PHASES: Final = (
    "movement",
    "defensive_fire",
    "offensive_fire",
    "melee",
    "counterstroke",
    "rally",
)
"""The phases of a turn under option ``counter_charge`` [ours]: units on hold strike back
in a phase of their own, after every charge of the melee phase, so that who strikes does
not depend on which side a scenario lists first."""

KINDS: Final = ("infantry", "cavalry", "artillery")
MORALE_STATES: Final = ("good", "spent", "disrupted", "routed", "eliminated")

# Fire value per man (infantry, cavalry) or per gun (artillery) at 1, 2, 3 ...
# hexes; past the end of a tuple the weapon cannot reach.  rules-notes §1 [fan].
WEAPONS: Final[dict[str, dict[str, object]]] = {
    "rifle_musket": {"kind": "small_arms", "values": (4, 3, 2, 1), "source": "fan"},
    "smoothbore": {"kind": "small_arms", "values": (4, 1), "source": "fan"},
    # [ours] cavalry carbines: short, light fire.
    "carbine": {"kind": "small_arms", "values": (3, 1), "source": "ours"},
    "napoleon_12pdr": {"kind": "gun", "values": (11, 9, 7), "source": "fan"},
    # [fan] "about 7 at 1, 6 at 3, 2 at 10"; [ours] the hexes between, interpolated.
    "rifled_3in": {"kind": "gun", "values": (7, 7, 6, 5, 5, 4, 4, 3, 3, 2), "source": "fan"},
    # [ours] Napoleonic foot artillery, in the same scale as the Napoleon 12-pdr.
    "french_12pdr": {"kind": "gun", "values": (12, 9, 6, 3), "source": "ours"},
    "foot_6pdr": {"kind": "gun", "values": (8, 6, 4), "source": "ours"},
}

ARTILLERY_VALUE_SCALE: Final = 50
"""Artillery fire value = value per gun × guns × 50 (rules-notes §1 [fan])."""

Terrain = Literal["clear", "woods", "stone_wall", "breastworks", "fence"]

Kind = Literal["infantry", "cavalry", "artillery"]
Quality = Literal["A", "B", "C", "D", "E", "F"]
Formation = Literal["line", "column"]
Ammo = Literal["full", "low"]
"""A unit's kind, quality, formation and ammunition: what a scenario may give, and all a
unit's state may hold (a fork's ``--set state.…`` is held to them too)."""

# cover: modifier (percent) to fire at (and melee against) a unit in the hex,
# rules-notes §1 [fan]; move_cost: movement points to enter [ours].
TERRAIN: Final[dict[str, dict[str, int]]] = {
    "clear": {"cover": 0, "move_cost": 1},
    "woods": {"cover": -40, "move_cost": 2},
    "stone_wall": {"cover": -40, "move_cost": 1},
    "breastworks": {"cover": -30, "move_cost": 1},
    "fence": {"cover": -20, "move_cost": 1},
}

QUALITY_MORALE: Final = {"A": 6, "B": 5, "C": 4, "D": 3, "E": 2, "F": 1}
"""Morale value by quality A–F (rules-notes §1 [src])."""

QUALITY_FIRE_MODIFIER: Final = {"A": 10, "B": 10, "C": 0, "D": 0, "E": -10, "F": -10}
"""Firer's quality modifier in percent (rules-notes §1 [fan])."""


def rules_data() -> dict[str, object]:
    """Return the ruleset's tables as plain data, for the header's digest."""
    return {
        "rules_version": RULES_VERSION,
        "phases": list(PHASES),
        "weapons": {
            k: {**v, "values": list(v["values"])}  # type: ignore[call-overload]
            for k, v in WEAPONS.items()
        },
        "artillery_value_scale": ARTILLERY_VALUE_SCALE,
        "terrain": TERRAIN,
        "quality_morale": QUALITY_MORALE,
        "quality_fire_modifier": QUALITY_FIRE_MODIFIER,
    }

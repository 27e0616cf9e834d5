"""Rules data of the ``flattop`` ruleset: aircraft, weapons, ship classes, the tables.

Sources are tagged as in ``shared/rules-notes.md`` §2: [seed] seed 000,
[src] the game's public documentation, [fan] a public fan implementation,
[ours] our choice.  Numbers that are guesses are options
(:mod:`sim.rulesets.flattop.model.options`) or per-ship scenario fields, not constants here.
:func:`rules_data` is digested into every replay header (``rules_digest``).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from sim.rulesets.flattop.model import tables

__all__ = [
    "ABOARD_LOSS_ORDERS",
    "AIRCRAFT",
    "BOMBERS",
    "CARRIER_KINDS",
    "DEFAULT_WEAPON",
    "LOSS_ORDER",
    "MINUTES_PER_TURN",
    "RULESET_VERSION",
    "RULES_VERSION",
    "SHIP_CLASSES",
    "SMALL_TARGETS",
    "WEAPONS",
    "AircraftType",
    "ShipKind",
    "Weapon",
    "rules_data",
]

RULES_VERSION: Final = "1"
"""The version of the tables below (``rules_data``, digested into every header)."""

RULESET_VERSION: Final = "3"
"""The version of the rules: 2 changed the defaults of two options of ours (the AA table
and the CAP's engagement, ``options.RULES_V1``), chosen against the historical suite; 3
took the hits per strike and the ships' damage factors from the record of 1942's strikes,
and has a wave whose target has sunk make no attack (``options.RULES_V2``).  Replays of
versions 1 and 2 are still fought again under the version they name."""

MINUTES_PER_TURN: Final = 60
"""One turn is one hour (rules-notes §2 [src])."""

AircraftType = Literal["fighter", "dive_bomber", "torpedo_bomber", "level_bomber"]
AIRCRAFT: Final[tuple[AircraftType, ...]] = (
    "fighter",
    "dive_bomber",
    "torpedo_bomber",
    "level_bomber",
)
"""Aircraft types, in the order every listing of them uses."""

BOMBERS: Final[tuple[AircraftType, ...]] = ("dive_bomber", "torpedo_bomber", "level_bomber")
"""Types that make attacks on ships (and are the only ones anti-aircraft fire hits)."""

Weapon = Literal["ap_bomb", "gp_bomb", "torpedo"]
WEAPONS: Final[dict[str, tuple[Weapon, ...]]] = {
    "dive_bomber": ("ap_bomb", "gp_bomb"),
    "torpedo_bomber": ("torpedo", "gp_bomb"),
    "level_bomber": ("gp_bomb",),
}
"""The attack kinds each bomber type may make; each has a basic hit table (options)."""

DEFAULT_WEAPON: Final[dict[str, Weapon]] = {
    "dive_bomber": "ap_bomb",
    "torpedo_bomber": "torpedo",
    "level_bomber": "gp_bomb",
}
"""The attack kind of an attack that names none."""

LOSS_ORDER: Final[tuple[AircraftType, ...]] = (
    "dive_bomber",
    "torpedo_bomber",
    "level_bomber",
    "fighter",
)
"""[ours] Order in which air factors aboard a hit carrier are lost, within each box:
armed bombers first, then fighters (option ``aboard_loss_order``'s default,
``bombers_first``; digested in every header as the tables' order)."""

ABOARD_LOSS_ORDERS: Final[dict[str, tuple[AircraftType, ...]]] = {
    "bombers_first": LOSS_ORDER,
    "fighters_first": AIRCRAFT,
}
"""The orders option ``aboard_loss_order`` [ours] names: ``bombers_first`` (:data:`LOSS_ORDER`)
or ``fighters_first`` (fighters, then dive, torpedo and level bombers: :data:`AIRCRAFT`'s
order).  Not digested: the option is in a header that sets it."""

ShipKind = Literal[
    "carrier",
    "light_carrier",
    "battleship",
    "heavy_cruiser",
    "light_cruiser",
    "destroyer",
    "auxiliary",
]
CARRIER_KINDS: Final = ("carrier", "light_carrier")
SMALL_TARGETS: Final = ("heavy_cruiser", "light_cruiser", "destroyer")
"""Ship classes an attack takes ``modifier_small_target`` [ours] against."""

SHIP_CLASSES: Final[dict[str, dict[str, Any]]] = {
    # aa: AA factor; damage: damage factor (hits to sink).  A ship may override both.
    "carrier": {"aa": 3, "damage": 8, "source": "rules-notes §2 sketch [ours]"},
    "light_carrier": {"aa": 2, "damage": 5, "source": "ours"},
    "battleship": {"aa": 4, "damage": 12, "source": "ours"},
    "heavy_cruiser": {"aa": 2, "damage": 6, "source": "rules-notes §2 sketch [ours]"},
    "light_cruiser": {"aa": 2, "damage": 4, "source": "ours"},
    "destroyer": {"aa": 1, "damage": 2, "source": "rules-notes §2 sketch [ours]"},
    "auxiliary": {"aa": 0, "damage": 3, "source": "ours"},
}
"""Default AA and damage factors by ship class.  The damage factors are rules versions 1
and 2's (and stay here, in the digested tables, so that those versions' headers keep
their ``rules_digest``); version 3's defaults are the options ``damage_<class>``."""


def rules_data() -> dict[str, Any]:
    """Return the ruleset's tables as plain data, for the header's digest."""
    return {
        "rules_version": RULES_VERSION,
        "minutes_per_turn": MINUTES_PER_TURN,
        "matrix": {
            "rows": list(tables.ROWS),
            "columns": list(tables.COLUMN_LABELS),
            "tenths": [list(row) for row in tables.MATRIX],
        },
        "crt": {
            "fraction": {f".{k}": list(v) for k, v in tables.CRT_FRACTION.items()},
            "one": list(tables.CRT_ONE),
            "n_offset": list(tables.CRT_N_OFFSET),
        },
        "aircraft": list(AIRCRAFT),
        "weapons": {k: list(v) for k, v in WEAPONS.items()},
        "default_weapon": DEFAULT_WEAPON,
        "loss_order": list(LOSS_ORDER),
        "ship_classes": SHIP_CLASSES,
    }

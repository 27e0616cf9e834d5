"""Rules data of the ``becmi`` ruleset: the seed's tables and the standard ones.

Sources are tagged as in ``shared/rules-notes.md`` §3: **seed 001 Ln** is
line n of ``shared/seeds/001_4ea57de6ea391d56.txt`` (the original sheet's
numbering), [src] the Rules Cyclopedia, [fan] a public fan reading, [ours]
our choice.  The whole module's tables are digested into every replay header
(``rules_digest``), so a changed table is visible in old replays.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "ABILITY_ADJUSTMENTS",
    "CHARACTER_CLASSES",
    "CLASS_MAX_LEVEL",
    "COLUMN_OF_CLASS",
    "COVER",
    "DEATH_RAY",
    "DEMIHUMAN_MAX_LEVEL",
    "DEMIHUMAN_RANKS",
    "LONG_RANGE_MODIFIER",
    "NORMAL_MAN_THAC0",
    "PHASES",
    "RULES_VERSION",
    "SAVE_AS_CODES",
    "STUNNED",
    "THAC0_ROWS",
    "WEAPONS",
    "CoverAmount",
    "HdRow",
    "LevelRange",
    "rules_data",
]

RULES_VERSION: Final = "1"

PHASES: Final = ("initiative", "movement", "missile", "melee", "morale")
"""The phases of a 10-second round, in order [ours; the order is the RC's round sequence]."""

LevelRange = tuple[int, int]
HdRow = tuple[int | None, int | None]
"""Monster Hit Dice of a THAC0 row: ``(None, 1)`` "up to 1", ``(1, 2)`` "1+ to 2",
``(35, None)`` "35+ up"."""

NORMAL_MAN_THAC0: Final = 20
"""Seed 001 L21: a normal man attacks with THAC0 20."""

THAC0_ROWS: Final[
    tuple[
        tuple[int, int, LevelRange | None, LevelRange | None, LevelRange | None, str | None, HdRow],
        ...,
    ]
] = (
    # (seed line, THAC0, M-U levels, C/T levels, F levels, D-H rank, monster HD)
    (22, 19, (1, 5), (1, 4), (1, 3), None, (None, 1)),
    (23, 18, None, None, None, None, (1, 2)),
    (24, 17, (6, 10), (5, 8), (4, 6), None, (2, 3)),
    (25, 16, None, None, None, None, (3, 4)),
    (26, 15, (11, 15), (9, 12), (7, 9), "A", (4, 5)),
    (27, 14, None, None, None, "B", (5, 6)),
    (28, 13, (16, 20), (13, 16), (10, 12), "C", (6, 7)),
    (29, 12, None, None, None, "D", (7, 8)),
    (30, 11, (21, 25), (17, 20), (13, 15), "E", (8, 9)),
    (31, 10, None, None, None, "F", (9, 11)),
    (32, 9, (26, 30), (21, 24), (16, 18), "G", (11, 13)),
    (33, 8, None, None, None, "H", (13, 15)),
    (34, 7, (31, 35), (25, 28), (19, 21), "I", (15, 17)),
    (35, 6, None, None, None, "J", (17, 19)),
    (36, 5, (36, 36), (29, 32), (22, 24), "K", (19, 21)),
    (37, 4, None, None, None, "L", (21, 23)),
    (38, 3, None, (33, 36), (25, 27), "M", (23, 25)),
    (39, 2, None, None, None, None, (25, 27)),
    (40, 1, None, None, (28, 30), None, (27, 29)),
    (41, 0, None, None, None, None, (29, 31)),
    (42, -1, None, None, (31, 33), None, (31, 33)),
    (43, -2, None, None, None, None, (33, 35)),
    (44, -3, None, None, (34, 36), None, (35, None)),
)
"""The THAC0 table, seed 001 L19–L44, transcribed row by row."""

DEMIHUMAN_RANKS: Final = tuple("ABCDEFGHIJKLM")
"""Demi-human attack ranks, seed 001 L26–L38 (the D-H column)."""

CHARACTER_CLASSES: Final = (
    "normal_man",
    "fighter",
    "cleric",
    "thief",
    "magic_user",
    "dwarf",
    "elf",
    "halfling",
)

COLUMN_OF_CLASS: Final = {
    "fighter": "F",
    "cleric": "C/T",
    "thief": "C/T",
    "magic_user": "M-U",
    # [src] demi-humans attack as fighters of their level; past their
    # maximum level by attack rank (the D-H column).
    "dwarf": "F",
    "elf": "F",
    "halfling": "F",
}

DEMIHUMAN_MAX_LEVEL: Final = {"dwarf": 12, "elf": 10, "halfling": 8}
"""[src] Maximum levels of the demi-human classes."""

CLASS_MAX_LEVEL: Final = {
    "normal_man": 0,
    "fighter": 36,
    "cleric": 36,
    "thief": 36,
    "magic_user": 36,
    **DEMIHUMAN_MAX_LEVEL,
}

ABILITY_ADJUSTMENTS: Final = (
    (3, 3, -3),
    (4, 5, -2),
    (6, 8, -1),
    (9, 12, 0),
    (13, 15, 1),
    (16, 17, 2),
    (18, 18, 3),
)
"""Ability score → adjustment, (low, high, adjustment) [src] (rules-notes §3)."""

CoverAmount = Literal["none", "quarter", "half", "three_quarters", "full"]

COVER: Final[dict[str, tuple[int, int | None]]] = {
    "none": (0, 0),
    "quarter": (-1, -2),
    "half": (-2, -4),
    "three_quarters": (-3, -6),
    "full": (-4, None),
}
"""Cover adjustments (soft, hard), seed 001 L79–L85; ``None``: cannot be hit."""

LONG_RANGE_MODIFIER: Final = -1
"""Seed 001 L75: long range −1 (short and medium are options: their lines are lost)."""

STUNNED: Final = {"ac": 4, "saves": -4, "move_divisor": 3}
"""[src] A stunned combatant: AC 4 worse, −4 on saves, ⅓ move, no attack, no spells."""

# Saving throw vs Death Ray (or Poison) by class and level [src: Rules
# Cyclopedia, character saving throw tables, Death Ray/Poison column].
# (first level, last level, number needed on d20).
DEATH_RAY: Final[dict[str, tuple[tuple[int, int, int], ...]]] = {
    "normal_man": ((0, 0, 14),),
    "fighter": (
        (1, 3, 12),
        (4, 6, 10),
        (7, 9, 8),
        (10, 12, 6),
        (13, 15, 6),
        (16, 18, 5),
        (19, 21, 5),
        (22, 24, 4),
        (25, 27, 4),
        (28, 30, 3),
        (31, 33, 3),
        (34, 36, 2),
    ),
    "cleric": (
        (1, 4, 11),
        (5, 8, 9),
        (9, 12, 7),
        (13, 16, 5),
        (17, 20, 3),
        (21, 36, 2),
    ),
    "thief": (
        (1, 4, 13),
        (5, 8, 11),
        (9, 12, 9),
        (13, 16, 7),
        (17, 20, 5),
        (21, 24, 4),
        (25, 28, 3),
        (29, 36, 2),
    ),
    "magic_user": (
        (1, 5, 13),
        (6, 10, 11),
        (11, 15, 9),
        (16, 20, 7),
        (21, 24, 5),
        (25, 28, 4),
        (29, 32, 3),
        (33, 36, 2),
    ),
    "dwarf": ((1, 3, 8), (4, 6, 6), (7, 9, 4), (10, 12, 2)),
    "halfling": ((1, 3, 8), (4, 6, 6), (7, 8, 4)),
    "elf": ((1, 3, 12), (4, 6, 10), (7, 9, 8), (10, 10, 6)),
}

SAVE_AS_CODES: Final = {
    "NM": "normal_man",
    "F": "fighter",
    "C": "cleric",
    "T": "thief",
    "M": "magic_user",
    "D": "dwarf",
    "E": "elf",
    "H": "halfling",
}
"""Monster "Save As" codes [src]: ``NM``, or a class letter and a level (``F1``)."""

# Weapons [src: Rules Cyclopedia weapon table, variable damage]: damage die
# (count, sides); ``melee``: usable hand to hand; ``ranges``: short, medium
# and long range in feet for missile or thrown use.
WEAPONS: Final[dict[str, dict[str, object]]] = {
    "battle_axe": {"damage": (1, 8), "melee": True, "ranges": None},
    "club": {"damage": (1, 4), "melee": True, "ranges": None},
    "dagger": {"damage": (1, 4), "melee": True, "ranges": (10, 20, 30)},
    "hand_axe": {"damage": (1, 6), "melee": True, "ranges": (10, 20, 30)},
    "mace": {"damage": (1, 6), "melee": True, "ranges": None},
    "spear": {"damage": (1, 6), "melee": True, "ranges": (20, 40, 60)},
    "staff": {"damage": (1, 6), "melee": True, "ranges": None},
    "short_sword": {"damage": (1, 6), "melee": True, "ranges": None},
    "sword": {"damage": (1, 8), "melee": True, "ranges": None},
    "two_handed_sword": {"damage": (1, 10), "melee": True, "ranges": None},
    "war_hammer": {"damage": (1, 6), "melee": True, "ranges": None},
    "short_bow": {"damage": (1, 6), "melee": False, "ranges": (50, 100, 150)},
    "long_bow": {"damage": (1, 8), "melee": False, "ranges": (70, 140, 210)},
    "light_crossbow": {"damage": (1, 6), "melee": False, "ranges": (60, 120, 180)},
    "sling": {"damage": (1, 4), "melee": False, "ranges": (40, 80, 160)},
}


def rules_data() -> dict[str, object]:
    """Return the ruleset's tables as plain data, for the header's digest."""
    return {
        "rules_version": RULES_VERSION,
        "phases": list(PHASES),
        "normal_man_thac0": NORMAL_MAN_THAC0,
        "thac0_rows": [list(r) for r in THAC0_ROWS],
        "column_of_class": COLUMN_OF_CLASS,
        "class_max_level": CLASS_MAX_LEVEL,
        "ability_adjustments": [list(r) for r in ABILITY_ADJUSTMENTS],
        "cover": {k: list(v) for k, v in COVER.items()},
        "long_range_modifier": LONG_RANGE_MODIFIER,
        "stunned": STUNNED,
        "death_ray": {k: [list(r) for r in v] for k, v in DEATH_RAY.items()},
        "weapons": WEAPONS,
    }

"""Schema of a ``becmi`` scenario file, and the checks across its fields.

Pydantic validates each field; :func:`cross_check` then checks what spans
fields (unique ids, targets that are enemies, weapons that exist, levels
the THAC0 table covers) and returns every problem with its field path.
Positions are ``[x, y]`` in feet.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, field_validator

from sim.contract.bases import Ident, Name, ScenarioBase, SideBase
from sim.contract.bases import Model as _Model
from sim.contract.ids import UniqueIds
from sim.rulesets.becmi.model.data import (
    CLASS_MAX_LEVEL,
    DEMIHUMAN_MAX_LEVEL,
    SAVE_AS_CODES,
    WEAPONS,
    CoverAmount,
)
from sim.rulesets.becmi.model.options import BecmiOptions
from sim.rulesets.becmi.model.tohit import parse_hd
from sim.text.suggest import did_you_mean

__all__ = [
    "Abilities",
    "BecmiScenario",
    "CharacterSpec",
    "CombatantSpec",
    "CoverSpec",
    "MonsterSpec",
    "Point",
    "SideSpec",
    "cross_check",
]

Coord = Annotated[int, Field(ge=0, le=100_000)]
Point = tuple[Coord, Coord]
"""A position ``[x, y]`` in feet."""
Score = Annotated[int, Field(ge=3, le=18)]
Rank = Literal["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M"]
CharacterClass = Literal[
    "normal_man", "fighter", "cleric", "thief", "magic_user", "dwarf", "elf", "halfling"
]


class Abilities(_Model):
    """The ability scores the combat rules use (3–18)."""

    strength: Score = 10
    dexterity: Score = 10
    constitution: Score = 10


class CoverSpec(_Model):
    """Cover against missiles at the combatant's starting position (seed 001 L79–L85)."""

    amount: CoverAmount = "none"
    kind: Literal["soft", "hard"] = "soft"


class _Combatant(_Model):
    id: Ident
    name: Name
    hp: int = Field(ge=1, le=1000, description="Hit points.")
    size: int = Field(
        6, ge=1, le=100, description="Height in feet (striking: at least half the defender's)."
    )
    at: Point = Field(description="Position [x, y] in feet.")
    move: int = Field(
        40, ge=0, le=1000, description="Encounter movement, feet per 10-second round."
    )
    weapon: str | None = Field(None, description="Hand-to-hand weapon (docs/rules/becmi.md).")
    missile: str | None = Field(None, description="Missile or thrown weapon.")
    attack: Literal["weapon", "strike", "wrestle"] = Field(
        "weapon", description="How it fights hand to hand."
    )
    pull: bool = Field(False, description="Strikes are pulled: no damage, stun only.")
    haymaker: bool = Field(False, description="Strikes are haymakers (seed 001 L53).")
    tactics: Literal["advance", "hold", "skirmish"] = Field(
        "advance",
        description="advance: close to hand-to-hand; hold: never move; skirmish: shoot "
        "while a target is in range, else advance.",
    )
    target: Ident | None = Field(None, description="Preferred enemy while it can fight.")
    cover: CoverSpec = Field(default_factory=CoverSpec)


class CharacterSpec(_Combatant):
    """A character (or a normal man): class, level, abilities and armour."""

    model_config = ConfigDict(frozen=True, extra="forbid", serialize_by_alias=True)

    class_: CharacterClass = Field(alias="class")
    level: int = Field(ge=0, le=36, description="Experience level (normal man: 0).")
    attack_rank: Rank | None = Field(
        None, description="Demi-human attack rank A–M past maximum level (seed D-H column)."
    )
    abilities: Abilities = Field(default_factory=Abilities)
    armour_ac: int = Field(
        9, ge=-20, le=9, description="Basic AC of the armour alone (unarmoured 9)."
    )
    shield: bool = Field(False, description="Carries a shield (AC 1 better).")


class MonsterSpec(_Combatant):
    """A monster: Hit Dice, armour class, morale and saving throws."""

    hd: str = Field(
        description="Hit Dice: 1/2, n, n+k or n-k.",
        # the form for a schema-aware editor; the validator below says what is wrong
        json_schema_extra={"pattern": r"^(1/2|[0-9]+([+-][0-9]+)?)$"},
    )
    ac: int = Field(ge=-20, le=10, description="Armour class.")
    morale: int | None = Field(None, ge=2, le=12, description="Morale ML (2d6 above it flees).")
    save_as: (
        Annotated[str, StringConstraints(pattern=r"^(NM|[FCTMDEH]([1-9]|[1-2][0-9]|3[0-6]))$")]
        | None
    ) = Field(None, description="Saves as, e.g. F1 or NM (default: fighter of its HD).")
    strength: Score | None = Field(None, description="Strength score, if known (else adj. 0).")

    @field_validator("hd")
    @classmethod
    def _hd_readable(cls, value: str) -> str:
        parse_hd(value)
        return value


CombatantSpec = CharacterSpec | MonsterSpec


class RoundSpec(_Model):
    """The round clock: 10-second rounds [src]."""

    limit: int = Field(20, ge=1, le=1000, description="Round limit; a draw if it is reached.")


class SideSpec(SideBase):
    """One side of the fight: its characters, then its monsters (their order of action)."""

    characters: list[CharacterSpec] = Field(default_factory=list, max_length=500)
    monsters: list[MonsterSpec] = Field(default_factory=list, max_length=500)

    @property
    def combatants(self) -> list[CombatantSpec]:
        """Characters then monsters: the side's scenario order."""
        return [*self.characters, *self.monsters]

    def entries(self) -> list[tuple[tuple[str, int], CombatantSpec]]:
        """Each combatant with its place in the file (``("monsters", 2)``)."""
        return [
            *((("characters", j), c) for j, c in enumerate(self.characters)),
            *((("monsters", j), c) for j, c in enumerate(self.monsters)),
        ]


class BecmiScenario(ScenarioBase):
    """A ``becmi`` scenario file."""

    ruleset: Literal["becmi"]
    rounds: RoundSpec = Field(default_factory=RoundSpec)
    options: BecmiOptions = Field(default_factory=BecmiOptions)
    sides: list[SideSpec] = Field(min_length=2, max_length=8)


Problem = tuple[tuple[str | int, ...], str]


def cross_check(sc: BecmiScenario) -> list[Problem]:
    """Return every problem that spans fields, each with its field path."""
    problems: list[Problem] = []
    sides, ids = UniqueIds(problems), UniqueIds(problems)  # a combatant may share a side's id
    for i, s in enumerate(sc.sides):
        sides.add(s.id, ("sides", i, "id"), "side")
    side_of: dict[str, int] = {}  # by the side's place: two sides of one id are still two
    for i, side in enumerate(sc.sides):
        if not side.combatants:
            problems.append((("sides", i), "a side needs at least one character or monster"))
        for place, c in side.entries():
            ids.add(c.id, ("sides", i, *place, "id"))
            side_of.setdefault(c.id, i)
    for i, side in enumerate(sc.sides):
        for place, c in side.entries():
            path = ("sides", i, *place)
            problems.extend(_check_combatant(sc, c, i, side_of, path))
    return problems


def _check_combatant(
    sc: BecmiScenario,
    c: CharacterSpec | MonsterSpec,
    side: int,
    side_of: dict[str, int],
    path: tuple[str | int, ...],
) -> list[Problem]:
    problems: list[Problem] = []
    known = ", ".join(sorted(WEAPONS))
    if c.weapon is not None and c.weapon not in WEAPONS:
        problems.append(((*path, "weapon"), f"unknown weapon {c.weapon!r}; known: {known}"))
    elif c.weapon is not None and not WEAPONS[c.weapon]["melee"]:
        problems.append(((*path, "weapon"), f"{c.weapon!r} is not a hand-to-hand weapon"))
    if c.missile is not None and c.missile not in WEAPONS:
        problems.append(((*path, "missile"), f"unknown weapon {c.missile!r}; known: {known}"))
    elif c.missile is not None and WEAPONS[c.missile]["ranges"] is None:
        problems.append(((*path, "missile"), f"{c.missile!r} cannot be shot or thrown"))
    if c.attack == "weapon" and c.weapon is None:
        problems.append(((*path, "weapon"), "attack 'weapon' needs a hand-to-hand weapon"))
    if c.attack != "strike" and (c.pull or c.haymaker):
        which = "pull" if c.pull else "haymaker"
        problems.append(((*path, which), f"{which} needs attack 'strike'"))
    if c.pull and c.haymaker and not sc.options.haymaker_may_pull:
        problems.append(((*path, "pull"), "a haymaker cannot be pulled (haymaker_may_pull)"))
    if c.target is not None and c.target not in side_of:
        hint = did_you_mean(c.target, [cid for cid, s in side_of.items() if s != side])
        problems.append(((*path, "target"), f"no combatant {c.target!r}{hint}"))
    elif c.target is not None and side_of[c.target] == side:
        problems.append(((*path, "target"), f"{c.target!r} is not an enemy"))
    if isinstance(c, CharacterSpec):
        problems.extend(_check_character(c, path))
    elif c.save_as is not None:
        problems.extend(_check_save_as(c.save_as, path))
    return problems


def _check_save_as(code: str, path: tuple[str | int, ...]) -> list[Problem]:
    """A demi-human "Save As" past the class's maximum level has no saving throw [src]."""
    cls = SAVE_AS_CODES.get(code[0], "")
    top = DEMIHUMAN_MAX_LEVEL.get(cls)
    if top is None or int(code[1:]) <= top:
        return []
    hint = f"{code!r}: a {cls} saves as level 1-{top}, e.g. '{code[0]}{top}'"
    return [((*path, "save_as"), hint)]


def _check_character(c: CharacterSpec, path: tuple[str | int, ...]) -> list[Problem]:
    problems: list[Problem] = []
    top = CLASS_MAX_LEVEL[c.class_]
    low = 0 if c.class_ == "normal_man" else 1
    if not low <= c.level <= top:
        problems.append(((*path, "level"), f"a {c.class_} has level {low}-{top}"))
    if c.attack_rank is not None and c.class_ not in DEMIHUMAN_MAX_LEVEL:
        problems.append(((*path, "attack_rank"), "only dwarves, elves and halflings have ranks"))
    elif c.attack_rank is not None and c.level != top:
        problems.append(
            ((*path, "attack_rank"), f"attack ranks come after the maximum level, {top}")
        )
    return problems

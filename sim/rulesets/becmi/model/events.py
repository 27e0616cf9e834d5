"""Events of the ``becmi`` ruleset.

Each resolution is one event carrying its inputs, the to-hit arithmetic
(THAC0, AC and its adjustments, H, the plateau steps, the roll's modifiers),
the dice rolled with their draws, and the result, so a reader can redo it
from the log alone.  Positions are ``[x, y]`` in feet; ``time`` is seconds.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict

from engine.events import D6, D20, Draw, Event, Upcaster
from sim.contract.bases import BattleEndedBase
from sim.contract.emit import RecordsCause, cause_upcasters

__all__ = [
    "UPCASTERS",
    "Attacked",
    "BattleEnded",
    "Damage",
    "Initiative",
    "Joined",
    "MoraleChecked",
    "Moved",
    "Pin",
    "PlateauStep",
    "Recovered",
    "Save",
    "Struck",
    "Team",
    "ToHit",
    "Wound",
    "Wrestled",
    "Wrestler",
    "wound",
]

Point = tuple[int, int]
Side = Literal["aggressors", "defenders"]


class Wound(TypedDict):
    """The hit points a hit leaves: before, after, and whether they kill (0 or fewer)."""

    hp_before: int
    hp_after: int
    killed: bool


def wound(hp: int, damage: int) -> Wound:
    """``hp`` less ``damage``: a combatant left with 0 hit points or fewer is killed.

    The fields of :class:`Attacked`, :class:`Struck` and :class:`Pin` that say
    what a hit did (``Attacked(**wound(target.hp, lost), ...)``).
    """
    after = hp - damage
    return {"hp_before": hp, "hp_after": after, "killed": after <= 0}


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlateauStep(_Payload):
    """One plateau adjustment of H (seed 001 L10–L13): ``before`` → ``after`` at ``threshold``."""

    threshold: int
    before: int
    after: int


class ToHit(_Payload):
    """One to-hit roll and its arithmetic (seed 001 L9–L14)."""

    thac0: int
    ac_base: int
    ac_modifiers: dict[str, int]
    """Adjustments to the defender's AC (Dex, shield, stunned)."""
    ac: int
    h: int
    """THAC0 − AC, before the plateaus."""
    steps: list[PlateauStep]
    needed: int
    """The total that hits."""
    damage_bonus: int
    """−H when H is negative after the plateaus (seed 001 L14)."""
    modifiers: dict[str, int]
    """Modifiers to the roll: Str, Dex, range, cover, haymaker."""
    roll: D20
    total: int
    natural: Literal["1 misses", "20 hits"] | None
    """Set when a natural-roll option decided the result."""
    hit: bool


class Damage(_Payload):
    """Damage dealt by a hit: dice (or the striking base), modifiers, floor, total."""

    dice: str
    rolls: list[int]
    modifiers: dict[str, int]
    minimum: int
    total: int


class Save(_Payload):
    """A saving throw vs Death Ray: d20 + modifiers against the class table's number."""

    kind: Literal["death_ray"] = "death_ray"
    save_as: str
    number: int
    modifiers: dict[str, int]
    roll: D20
    total: int
    saved: bool


class Initiative(Event):
    """Each side's initiative d6 for the round and the resulting order."""

    type: Literal["becmi.initiative"] = "becmi.initiative"
    phase: str = "initiative"
    rolls: dict[str, D6]
    order: list[str]
    """Side ids, first to act first (higher roll; ties in scenario order)."""
    draws: list[Draw]


class Recovered(RecordsCause):
    """A knocked-out combatant comes to; its ``cause`` (v2): the blow that knocked it out."""

    type: Literal["becmi.recovered"] = "becmi.recovered"
    phase: str = "initiative"
    combatant: str
    knocked_out_round: int


class Moved(Event):
    """A combatant moved toward an enemy."""

    type: Literal["becmi.moved"] = "becmi.moved"
    phase: str = "movement"
    combatant: str
    start: Point
    to: Point
    feet: int
    allowance: int
    toward: str
    left_cover: bool


class Attacked(Event):
    """A weapon attack, hand to hand or missile, resolved."""

    type: Literal["becmi.attacked"] = "becmi.attacked"
    phase: str
    attacker: str
    target: str
    weapon: str
    distance: int
    range_band: Literal["short", "medium", "long"] | None
    cover: str | None
    to_hit: ToHit
    damage: Damage | None
    hp_before: int
    hp_after: int
    killed: bool
    draws: list[Draw]


class Struck(Event):
    """An unarmed blow (seed 001 L47–L55): hit, damage, stun, knock-out save."""

    type: Literal["becmi.struck"] = "becmi.struck"
    phase: str = "melee"
    attacker: str
    target: str
    attacker_size: int
    target_size: int
    size_ok: bool
    haymaker: bool
    pulled: bool
    to_hit: ToHit | None
    damage: Damage | None
    con: int
    """C in t = d20 − C: Constitution, or the monster option × HD."""
    con_source: str
    stun_roll: int | None
    t: int | None
    stunned: bool
    stun_rounds: int
    """Rounds the stun lasts after this one (option ``stun_rounds``)."""
    save: Save | None
    knocked_out_rounds: int
    hp_before: int
    hp_after: int
    killed: bool
    draws: list[Draw]


class Wrestler(_Payload):
    """One wrestler's rating and its parts (seed 001 L58–L60)."""

    id: str
    wr: int
    parts: dict[str, int]
    twice_hd: int
    """2 × HD (characters: 2 × level), for the several-wrestlers rule."""


class Team(_Payload):
    """One side of a bout: its wrestlers, leader, helpers' bonuses and roll."""

    members: list[Wrestler]
    leader: str
    helpers: dict[str, int]
    pinned_penalty: int
    wr: int
    roll: D20
    total: int


class Pin(_Payload):
    """A pinned wrestler's round: save vs Death Ray or take 1 + Str bonus (seed 001 L65)."""

    combatant: str
    save: Save
    str_bonus: int
    damage: int
    hp_before: int
    hp_after: int
    killed: bool


class Wrestled(RecordsCause):
    """One round of a wrestling bout: d20 + WR each, the hold moved, pins; its ``cause``
    (v2): the bout's previous round (none for the first)."""

    type: Literal["becmi.wrestled"] = "becmi.wrestled"
    phase: str = "melee"
    bout: str
    started: bool
    aggressors: Team
    defenders: Team
    hold_before: int
    """−3 … 3: 1 grab, 2 takedown, 3 pin by the aggressors; negative by the defenders."""
    hold_after: int
    winner: Side | None
    pins: list[Pin]
    ended: bool
    draws: list[Draw]


class Joined(Event):
    """A wrestler joined a bout already under way, on the side against its target."""

    type: Literal["becmi.joined"] = "becmi.joined"
    phase: str = "melee"
    bout: str
    combatant: str
    team: Side


class MoraleChecked(RecordsCause):
    """A side's monsters check morale: 2d6 against each one's ML; above it flees.  Its
    ``cause`` (v2): the fall that reached the trigger."""

    type: Literal["becmi.morale_checked"] = "becmi.morale_checked"
    phase: str = "morale"
    side: str
    trigger: Literal["first_fallen", "half_out"]
    rolls: list[D6]
    total: int
    morale: dict[str, int]
    fled: list[str]
    draws: list[Draw]


class BattleEnded(RecordsCause, BattleEndedBase):
    """The outcome: the side left standing, or None for a draw, and why; its ``cause``
    (v2): the last fall of the sides no longer standing."""

    type: Literal["becmi.battle_ended"] = "becmi.battle_ended"
    standing: list[str]


UPCASTERS: dict[tuple[str, int], Upcaster] = cause_upcasters(
    [Recovered, Wrestled, MoraleChecked, BattleEnded]  # v1 recorded no cause and keeps none
)
"""Upcasters of stored becmi events, by (type, from version)."""

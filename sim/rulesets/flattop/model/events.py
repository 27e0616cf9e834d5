"""Events of the ``flattop`` ruleset.

Every resolution on the Hit Table Matrix is one event carrying a
:class:`Resolution`: the basic hit table, its modifiers, the table used, the
attacking factors, the cell value, both d10 rolls with their draws, and the
hits — so a reader can redo it from the log alone.  Aircraft are counted in
air factors (AF); ``dict[str, int]`` fields map aircraft type to AF.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from engine.events import Draw, Event, Upcaster
from sim.contract.bases import BattleEndedBase
from sim.contract.emit import RecordsCause, cause_upcasters

__all__ = [
    "UPCASTERS",
    "AfterAttackKills",
    "AirCombat",
    "AntiAircraft",
    "Attacked",
    "BattleEnded",
    "CapRearming",
    "Launched",
    "Rearmed",
    "Recovered",
    "Resolution",
    "Spotted",
    "StrikeCancelled",
    "TargetSunk",
]

Status = Literal["afloat", "crippled", "sunk"]


class Resolution(BaseModel):
    """One attack resolved on the Hit Table Matrix and the CRT (seed 000)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    basic_table: int
    """The attacker's basic hit table (0 stands for ``*``)."""
    modifiers: dict[str, int]
    """Modifiers to the hit table that applied (crippled, anchored, clouds, night)."""
    hit_table: str | None
    """The row used after modifiers and clamping: ``*``, ``1``..``15``; None: no attack."""
    factors: int
    """Attacking factors."""
    column: str
    """The matrix column of the factors, e.g. ``13-15``."""
    cell: float | None
    """The cell: expected hits; None for ``--`` (no effect) or no attack."""
    n: int
    """Integer part of the cell."""
    f: int
    """Fraction of the cell in tenths (0..9)."""
    fraction_roll: int | None
    """d10 (0..9) on column ``.f``; None when f = 0."""
    integer_roll: int | None
    """d10 (0..9) on column ``1`` (n = 1) or ``n>1``; None when n = 0."""
    fraction_hits: int
    integer_hits: int
    hits: NonNegativeInt
    """fraction_hits + integer_hits."""
    draws: list[Draw]
    """The draws behind the rolls: fraction die first, then integer die."""


class Spotted(Event):
    """A strike's aircraft were brought up to the Ready box of its carrier or base."""

    type: Literal["flattop.spotted"] = "flattop.spotted"
    strike: str
    deck: str
    requested: dict[str, int]
    aircraft: dict[str, int]
    """What the hangar could give, by type."""


class StrikeCancelled(RecordsCause):
    """A strike did not launch: its carrier was sunk or crippled, or it had no aircraft.

    Its ``cause`` (v2): for a strike grounded by its carrier's damage, the attack that did it.
    """

    type: Literal["flattop.strike_cancelled"] = "flattop.strike_cancelled"
    strike: str
    reason: str
    returned: dict[str, int]
    """Air factors sent back from the Ready box to the hangar."""


class Launched(Event):
    """A strike took off towards its target task force."""

    type: Literal["flattop.launched"] = "flattop.launched"
    strike: str
    deck: str
    target: str
    escort: int
    attacks: list[int]
    """Air factors of each declared attack, in declared order."""
    distance: int
    """Hexes to the target."""
    speed: int
    """Hexes an hour: the slowest type's."""
    flight_minutes: int
    arrives: float


class AirCombat(Event):
    """One side of the air-to-air combat over a task force, resolved on the matrix."""

    type: Literal["flattop.air_combat"] = "flattop.air_combat"
    strike: str
    task_force: str
    firer: Literal["cap", "escort"]
    target: Literal["cap", "escort", "bombers", "strike"]
    """What the firer shoots at; ``strike``: escorts first, then bombers."""
    result: Resolution
    cap_lost: int
    escort_lost: int
    attack_losses: list[int]
    """Air factors lost by each declared attack (before the attack)."""
    attack_losses_after: list[int] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Air factors of each declared attack the CAP's hits will shoot down once the attack is
    made (``cap_kills_after_attack`` [ours]): they stay in the attack, face the AA and attack,
    and are lost in :class:`AfterAttackKills`.  Empty (and left out of the line) when there
    are none, as always with the option at 0."""


class AfterAttackKills(Event):
    """The bombers the CAP hit before their attack, shot down once it is made or their wave
    turns home (``cap_kills_after_attack`` [ours]); its ``cause`` is the air combat that hit
    them."""

    type: Literal["flattop.after_attack_kills"] = "flattop.after_attack_kills"
    strike: str
    task_force: str
    """The task force whose CAP shoots them down."""
    attack_losses: list[int]
    """Air factors of each declared attack shot down: the air combat's
    ``attack_losses_after``, each at most what the attack has left (the AA may have shot
    some down meanwhile; no air factor is lost twice)."""


class AntiAircraft(Event):
    """A task force's AA fire at a strike's bombers, resolved on the matrix."""

    type: Literal["flattop.anti_aircraft"] = "flattop.anti_aircraft"
    strike: str
    task_force: str
    aa: dict[str, int]
    """AA factor each ship contributed."""
    result: Resolution
    attack_losses: list[int]
    """Air factors of each attack shot down."""
    attack_spoiled: list[int] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Air factors of each attack whose attack the fire spoiled (``aa_spoiled_per_kill``
    [ours]): they make no attack and fly home.  Empty (and left out of the line) when none
    is spoiled, as always before rules version 3."""


class Attacked(Event):
    """One declared attack on a ship, resolved on the matrix, and its damage."""

    type: Literal["flattop.attacked"] = "flattop.attacked"
    strike: str
    attack: int
    """Index of the attack in the strike's declared list."""
    aircraft: str
    weapon: str
    declared: str
    """The declared target."""
    ship: str
    """The ship attacked (the declared one unless it was already sunk)."""
    result: Resolution
    ready_box: bool
    """The ship is a carrier with aircraft in its Ready box: hits doubled."""
    hits_taken: NonNegativeInt
    hits_before: NonNegativeInt
    hits_after: NonNegativeInt
    status_before: Status
    status_after: Status
    lost_ready: dict[str, dict[str, int]]
    """Air factors lost aboard from the Ready box, by the strike spotted there and type."""
    lost_rearming: dict[str, int]
    lost_hangar: dict[str, int]


class TargetSunk(Event):
    """An attack finds its declared target sunk and makes no attack (``retarget_sunk`` off,
    or nothing of the task force afloat): in 1942 a wave over a sinking ship went on
    attacking it or went home ([ours], ``log_target_sunk``)."""

    type: Literal["flattop.target_sunk"] = "flattop.target_sunk"
    strike: str
    attack: int
    """Index of the attack in the strike's declared list."""
    aircraft: str
    factors: int
    """The attack's air factors, which make no attack."""
    declared: str
    """The declared target, sunk."""


class CapRearming(Event):
    """A raid meets no fighters: the task force's CAP fought another raid this turn and is
    rearming (``cap_engagement: once_per_turn`` [ours])."""

    type: Literal["flattop.cap_rearming"] = "flattop.cap_rearming"
    strike: str
    """The raid that meets no CAP."""
    task_force: str
    cap: int
    """The CAP's air factors, none of which fight this raid."""
    fought: str
    """The strike the CAP fought earlier this turn."""


class Recovered(Event):
    """A strike came back and landed, or ditched for want of a deck."""

    type: Literal["flattop.recovered"] = "flattop.recovered"
    strike: str
    deck: str | None
    """Where it landed; None: it ditched."""
    diverted: bool
    aircraft: dict[str, int]
    """Air factors landed (or ditched), by type."""


class Rearmed(Event):
    """Aircraft recovered from a strike are refuelled, rearmed and back in the hangar."""

    type: Literal["flattop.rearmed"] = "flattop.rearmed"
    strike: str
    deck: str
    aircraft: dict[str, int]


class BattleEnded(RecordsCause, BattleEndedBase):
    """The outcome: the winner (None for a draw), why, and each side's points; its
    ``cause`` (v2): the attack that last crippled or sank a ship."""

    type: Literal["flattop.battle_ended"] = "flattop.battle_ended"
    points: dict[str, int]


UPCASTERS: dict[tuple[str, int], Upcaster] = cause_upcasters(
    [StrikeCancelled, BattleEnded]  # v1 recorded the cause it had (none, or the spotting)
)
"""Upcasters of stored flattop events, by (type, from version)."""

"""Events of the ``musket`` ruleset.

Each resolution is one event carrying its inputs, intermediate values,
the draws it used and its results, so a reader can redo the arithmetic
from the log alone.  Hexes are ``[column, row]``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from engine.events import D6, Draw, Event, Upcaster
from sim.contract.bases import BattleEndedBase
from sim.contract.emit import RecordsCause, cause_upcasters

__all__ = [
    "UPCASTERS",
    "BattleEnded",
    "Casualties",
    "Fired",
    "LeftField",
    "MEvent",
    "MeleeOdds",
    "Meleed",
    "MoraleTested",
    "Moved",
    "Rallied",
    "Rested",
    "SideBroken",
    "StandTest",
]

Hex = tuple[int, int]
MoraleState = Literal["good", "spent", "disrupted", "routed", "eliminated"]
"""``spent``: an attacker repulsed, in order but done attacking until it rallies out of
fire (option ``assault_exhaustion``, rules version 3)."""


class Casualties(BaseModel):
    """One combat results calculation (seed 003) against one unit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: float
    """Combat value V (after the firer's multiplying factors)."""
    modifier: float
    """Total modifier m in percent; ``modifiers`` itemises it."""
    modifiers: dict[str, float]
    lcv: float
    hcv: float
    alternative: bool
    effective: float
    low: float
    high: float
    value: float
    """The casualty value x drawn between low and high."""
    casualties: NonNegativeInt
    """x randomly rounded: men lost (or men-equivalent for a battery)."""
    guns_lost: NonNegativeInt
    fatigue_value: float
    """Uniform(c, 3c) drawn for the casualties c, before rounding and the cap."""
    fatigue_added: NonNegativeInt
    morale_check_p: float
    morale_check: bool
    morale_check_reason: Literal["loss", "max_fatigue", "heavy_losses"] | None
    """Why a check is required: the loss draw, a hit at maximum fatigue, or a loss that
    leaves the unit at ``rout_loss`` or more lost (option ``heavy_loss_check``)."""
    draws: list[Draw]


class Moved(Event):
    """A unit moved along a path of hexes."""

    type: Literal["musket.moved"] = "musket.moved"
    phase: str = "movement"
    unit: str
    reason: Literal["order", "rout", "break_off", "fall_back", "withdraw"]
    """``break_off``: an attack given up, falling back (option ``break_off_loss``);
    ``fall_back``: a disrupted attacker falling back (``disrupted_attackers_fall_back``);
    ``withdraw``: a spent attacker leaving the enemy's fire (``assault_exhaustion``)."""
    path: list[Hex]
    """The hexes entered, in order; the last is where the unit ends."""
    start: Hex


class LeftField(Event):
    """A routed unit left the map and is out of the battle."""

    type: Literal["musket.left_field"] = "musket.left_field"
    phase: str = "movement"
    unit: str
    at: Hex


class Fired(Event):
    """One unit's fire at another, resolved."""

    type: Literal["musket.fired"] = "musket.fired"
    schema_version: int = 2
    """v2 added ``result.morale_check_reason``."""
    phase: str
    unit: str
    target: str
    range: int
    base_value: float
    """Men × value per man, or guns × value per gun × 50."""
    factors: dict[str, float]
    """Multiplying factors on the base value (disrupted, moved)."""
    result: Casualties


class MeleeOdds(BaseModel):
    """Who wins a melee under the ``odds`` rule (rules version 3): each side's weight, the
    odds, the attacker's chance and the draw against it.

    A side's weight is its melee strength × (1 + its modifiers/100) × its factors.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    attacker_strength: float
    attacker_modifiers: dict[str, float]
    """Percent: quality, fatigue, column."""
    attacker_factors: dict[str, float]
    attacker_weight: float
    defender_strength: float
    defender_modifiers: dict[str, float]
    """Percent: quality, fatigue."""
    defender_factors: dict[str, float]
    """Multipliers: disorder, flank, and its cover as 1 ÷ (1 + cover/100)."""
    defender_weight: float
    ratio: float
    """r = attacker_weight / defender_weight (a very large number for a weightless defender)."""
    exponent: float
    p_attacker: float
    """r^k / (r^k + 1): the attacker's chance of winning."""
    draws: list[Draw]
    attacker_wins: bool
    """The draw fell below ``p_attacker``."""


class StandTest(BaseModel):
    """A defender's test before a cavalry charge (option ``cavalry_stand_test``): the
    ordinary morale check (d6 against the modified morale value), taken before the melee
    by infantry charged in line, in disorder, spent, or from its flank or rear."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: int
    """The morale value of its quality."""
    modifiers: dict[str, int]
    """The ordinary check's modifiers, and ``cavalry_stand_test`` (the option, when not 0)."""
    morale_value: int
    """``base`` + ``modifiers``: the roll passes at or under it."""
    roll: D6
    draws: list[Draw]
    """One draw, on the melee's stream, before its losses' draws."""
    passed: bool
    """Failing, the defender is routed before the melee and fought as routed."""


class Meleed(Event):
    """A charge resolved: both sides' losses, the winner and the retreat."""

    type: Literal["musket.meleed"] = "musket.meleed"
    schema_version: int = 2
    """v2 added ``morale_check_reason`` to both losses."""
    phase: str = "melee"
    unit: str
    """The attacker."""
    target: str
    """The defender."""
    attacker_losses: Casualties
    """Calculated from the defender's strength."""
    defender_losses: Casualties
    """Calculated from the attacker's strength."""
    attacker_share: float
    defender_share: float
    winner: str
    loser_retreats_to: Hex | None
    loser_state: MoraleState
    winner_advances_to: Hex | None
    odds: MeleeOdds | None = Field(None, exclude_if=lambda value: value is None)
    """How the winner was drawn under the ``odds`` rule; left out of the line under
    ``lower_loss_share`` (rules versions 1-2), whose lines it leaves as they were."""
    flank: Literal["front", "flank", "rear"] | None = Field(
        None, exclude_if=lambda value: value is None
    )
    """The arc of the defender the charge came from, with option ``enfilade``."""
    pursuit_losses: int = Field(0, exclude_if=lambda value: value == 0)
    """Men (guns, for a battery) the loser lost besides its ``*_losses``: infantry or
    artillery beaten by cavalry, cut down in flight or taken (option
    ``cavalry_pursuit_share``; with ``cavalry_pursuit_prisoners`` the men taken are in
    ``prisoners`` instead, and these are the men cut down); left out of the line at 0, as
    every line before it was."""
    prisoners: int = Field(0, exclude_if=lambda value: value == 0)
    """Men (guns, for a battery) the loser lost as prisoners when this melee routed it
    next to an enemy in good order or spent (option ``rout_prisoners_share``), taken from
    what it has left after its losses and the pursuit, and those the cavalry's pursuit took
    prisoner (option ``cavalry_pursuit_prisoners``); left out of the line at 0."""
    stand_test: StandTest | None = Field(None, exclude_if=lambda value: value is None)
    """The defender's test before the charge (option ``cavalry_stand_test``), when it took
    one; left out of the line when it took none, as every line before it was."""


class MoraleTested(Event):
    """A morale check: d6 against the modified morale value."""

    type: Literal["musket.morale_tested"] = "musket.morale_tested"
    phase: str
    unit: str
    reason: Literal["loss", "max_fatigue", "heavy_losses", "charge", "friend_routed"]
    """``charge``: the test before a charge closes (option ``charge_test``);
    ``friend_routed``: a unit of its side routed within ``rout_contagion`` hexes (option),
    the ``cause`` the event that routed it."""
    quality: str
    base: int
    modifiers: dict[str, int]
    morale_value: int
    roll: D6
    draws: list[Draw]
    passed: bool
    before: MoraleState
    after: MoraleState
    prisoners: int = Field(0, exclude_if=lambda value: value == 0)
    """Men (guns, for a battery) the unit lost as prisoners when this check routed it next
    to an enemy in good order or spent (option ``rout_prisoners_share``); left out of the
    line at 0, as every line before it was."""
    friend: str | None = Field(None, exclude_if=lambda value: value is None)
    """The unit of its side whose rout required this check (reason ``friend_routed``,
    option ``rout_contagion``); left out of the line for every other reason, as every
    line before it was."""


class Rallied(Event):
    """A disrupted or routed unit tried to rally."""

    type: Literal["musket.rallied"] = "musket.rallied"
    phase: str = "rally"
    unit: str
    morale_value: int
    modifiers: dict[str, int]
    roll: D6
    draws: list[Draw]
    success: bool
    before: MoraleState
    after: MoraleState


class Rested(Event):
    """A unit that neither moved, fired nor fought tried to recover fatigue."""

    type: Literal["musket.rested"] = "musket.rested"
    phase: str = "rally"
    unit: str
    p: float
    draws: list[Draw]
    recovered: int


class SideBroken(RecordsCause):
    """An army reached a break threshold; its ``cause`` (v2): the army's last blow before
    it broke."""

    type: Literal["musket.side_broken"] = "musket.side_broken"
    side: str
    reason: str
    units_out_share: float
    losses_share: float


class BattleEnded(RecordsCause, BattleEndedBase):
    """The outcome: the winner (None for a draw) and why; its ``cause`` (v2): the last army
    to break (none at the turn limit)."""

    type: Literal["musket.battle_ended"] = "musket.battle_ended"
    objective_points: dict[str, int]


MEvent = (
    Moved | LeftField | Fired | Meleed | MoraleTested | Rallied | Rested | SideBroken | BattleEnded
)


def _reason_v1(result: dict[str, Any]) -> dict[str, Any]:
    """Recover the reason of a version-1 check from its recorded draws.

    Version 1 drew the loss check last whenever casualties were taken; a
    check required without that draw succeeding was forced by maximum fatigue.
    Version 1 had no such field: a record that names one is not version 1.
    """
    if "morale_check_reason" in result:
        raise ValueError("a schema-1 result has no morale_check_reason")
    reason = None
    if result.get("morale_check"):
        by_loss = result["casualties"] > 0 and result["draws"][-1]["u"] < result["morale_check_p"]
        reason = "loss" if by_loss else "max_fatigue"
    return {**result, "morale_check_reason": reason}


def _fired_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "result": _reason_v1(data["result"])}


def _meleed_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    return {
        **data,
        "attacker_losses": _reason_v1(data["attacker_losses"]),
        "defender_losses": _reason_v1(data["defender_losses"]),
    }


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("musket.fired", 1): _fired_v1_v2,
    ("musket.meleed", 1): _meleed_v1_v2,
    # v1 recorded no cause; it keeps none (the log alone cannot say which
    # blow the live battle saw last), so ``why`` calls it a decision of its own.
    **cause_upcasters([SideBroken, BattleEnded]),
}
"""Upcasters of stored musket events, by (type, from version)."""

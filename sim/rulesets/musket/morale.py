"""Morale: the test after a loss, rallying, and rest (rules-notes §1 [src])."""

from __future__ import annotations

from typing import Literal

from engine.events import trusted
from sim.rulesets.musket.context import Battle
from sim.rulesets.musket.events import MoraleTested, Rallied, Rested
from sim.rulesets.musket.state import UnitState

__all__ = ["decide_charge_test", "decide_morale", "decide_rally", "decide_rest", "failure_state"]

_STEP_UP = {"routed": "disrupted", "disrupted": "good"}


def failure_state(current: str, phase: str) -> str:
    """State after a failed check: Disrupted in defensive fire, else Routed.

    A unit already routed stays routed; one already disrupted that fails in
    defensive fire stays disrupted (the rule names only the result state).
    """
    if current == "routed":
        return "routed"
    return "disrupted" if phase == "defensive_fire" else "routed"


def decide_morale(
    b: Battle,
    unit: UnitState,
    phase: str,
    reason: Literal["loss", "max_fatigue"],
    cause: int,
    source: str,
) -> MoraleTested:
    """A morale check: fails when a d6 rolls above the modified morale value.

    Args:
        cause: the seq of the resolution that requires the check.
        source: the unit that acted in that resolution (the firer, or the
            charging unit); it names the stream, so the draw does not move
            when a counterfactual shifts later seqs.
    """
    mods = b.morale_modifiers(unit)
    base = b.morale_base(unit)
    value = base + sum(mods.values())
    roll, draw = b.stream("morale", phase, unit.id, source).roll(6)
    passed = roll <= value
    after = unit.morale if passed else failure_state(unit.morale, phase)
    return trusted(  # every value of its field's exact type (check_line in the tests)
        MoraleTested,
        {
            "turn": b.turn,
            "time": b.now,
            "cause": cause,
            "phase": phase,
            "unit": unit.id,
            "reason": reason,
            "quality": unit.quality,
            "base": base,
            "modifiers": mods,
            "morale_value": value,
            "roll": roll,
            "draws": [draw],
            "passed": passed,
            "before": unit.morale,
            "after": after,
        },
    )


def decide_charge_test(b: Battle, unit: UnitState, target: UnitState) -> MoraleTested:
    """The test before a charge closes [ours, option ``charge_test``].

    The seed's morale test (d6 ≤ morale value with the usual modifiers), with
    ``target_in_cover`` −1 for each whole 20 % of cover the target's hex gives
    (a fence or breastworks −1, a stone wall or woods −2); a unit that fails
    does not close this turn: it stays where it is, in good order, and fires
    from there. One draw on ``<turn>/morale/charge/<unit>``.
    """
    mods = b.morale_modifiers(unit)
    cover = b.cover(target.hex)[1]
    if cover <= -20:
        mods["target_in_cover"] = -(-cover // 20)
    base = b.morale_base(unit)
    value = base + sum(mods.values())
    roll, draw = b.stream("morale", "charge", unit.id).roll(6)
    passed = roll <= value
    return MoraleTested(
        turn=b.turn,
        time=b.now,
        phase="melee",
        unit=unit.id,
        reason="charge",
        quality=unit.quality,
        base=base,
        modifiers=mods,
        morale_value=value,
        roll=roll,
        draws=[draw],
        passed=passed,
        before=unit.morale,
        after=unit.morale,
    )


def decide_rally(b: Battle, unit: UnitState) -> Rallied | None:
    """A disrupted or routed unit with no enemy next to it rallies one step on d6 ≤ morale."""
    if unit.morale not in _STEP_UP or unit.hex is None or b.adjacent_enemy(unit):
        return None
    mods = b.morale_modifiers(unit, rally=True)
    value = b.morale_base(unit) + sum(mods.values())
    roll, draw = b.stream("rally", unit.id).roll(6)
    success = roll <= value
    after = _STEP_UP[unit.morale] if success else unit.morale
    return Rallied(
        turn=b.turn,
        time=b.now,
        unit=unit.id,
        morale_value=value,
        modifiers=mods,
        roll=roll,
        draws=[draw],
        success=success,
        before=unit.morale,
        after=after,
    )


def decide_rest(b: Battle, unit: UnitState) -> Rested | None:
    """A unit that neither moved, fired nor fought this turn may recover fatigue [ours]."""
    t = b.turn
    if (
        unit.fatigue <= 0
        or unit.hex is None
        or unit.morale == "routed"
        or t in (unit.moved_turn, unit.fired_turn, unit.fought_turn)
    ):
        return None
    p = b.options.rest_recovery_chance
    draw = b.stream("rest", unit.id).draw()
    recovered = min(unit.fatigue, b.options.rest_recovery_amount) if draw.u < p else 0
    return Rested(turn=b.turn, time=b.now, unit=unit.id, p=p, draws=[draw], recovered=recovered)

"""Campaign carry-over for ``musket``: survivors of one battle march into the next.

``carry_over(scenario, final_state, next_data, settings)`` takes the next
battle's scenario data (plain, as from its YAML file) and returns it with
every unit that fought in this battle carried over by unit id [ours]:

* **strength**: the men (guns for a battery) it had at the end; a unit at
  strength 0 is gone and is left out of the next battle;
* **fatigue**: its fatigue at the end less ``fatigue_recovery`` (default
  300, one level of the seed's 0–900 scale), never below 0;
* **morale**: its state at the end, stepped up ``morale_recovery`` times
  (default 1) on routed → disrupted → good; a unit that fled the field
  (routed off its edge, men left) counts as routed when ``fled_return`` is
  true (the default), else it is left out;
* everything else — hex, formation, order, quality — is the next
  scenario's.

A unit of the next battle that did not fight in this one is fresh: a
reinforcement, or a unit of the campaign's ``reinforcements`` for that battle
(``settings["reinforcements"]``: side id → unit specs, appended to the side).
An order aimed at a unit that is gone loses its target; an ``engage`` or
``charge`` order becomes an ``advance`` on the hex that unit was to hold.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sim.contract.carry import CarryOver, CarrySettings, NextBattle, Spec
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.model.state import BattleState, UnitState

__all__ = ["CarryOverSettings", "carry_over"]

Morale = Literal["good", "disrupted", "routed"]
_LADDER: tuple[Morale, ...] = ("routed", "disrupted", "good")


class CarryOverSettings(CarrySettings):
    """A campaign's ``carry_over:`` settings for musket battles."""

    fatigue_recovery: int = Field(
        300, ge=0, le=100_000, description="Fatigue recovered between battles."
    )
    morale_recovery: int = Field(
        1, ge=0, le=2, description="Steps up routed → disrupted → good between battles."
    )
    fled_return: bool = Field(
        True, description="Units that fled the field rejoin (as routed, before recovery)."
    )


def _morale(unit: UnitState, steps: int) -> Morale:
    """The unit's morale after ``steps`` of recovery; one that fled starts as routed."""
    start = {"eliminated": "routed", "spent": "good"}.get(unit.morale, unit.morale)
    return _LADDER[min(_LADDER.index(start) + steps, len(_LADDER) - 1)]


def _carried(spec: Spec, unit: UnitState, s: CarryOverSettings) -> Spec | None:
    """The next battle's unit spec with ``unit``'s end state, or None when it is gone."""
    fled = unit.morale == "eliminated" and unit.strength > 0
    if unit.strength == 0 or (fled and not s.fled_return):
        return None
    return {
        **spec,
        "strength": unit.strength,
        "fatigue": max(0, unit.fatigue - s.fatigue_recovery),
        "morale": _morale(unit, s.morale_recovery),
    }


def _aimed_elsewhere(order: Any, gone: dict[str, Spec]) -> Any:
    """``order`` (a spec's order or later order) no longer aimed at a unit that is gone."""
    if not isinstance(order, dict) or order.get("target") not in gone:
        return order
    kind = order.get("kind", "hold")
    if kind in ("engage", "charge"):
        again = {"kind": "advance", "to": gone[order["target"]].get("at")}
        return {**again, "turn": order["turn"]} if "turn" in order else again
    return {k: v for k, v in order.items() if k != "target"}


def _retarget(spec: Spec, gone: dict[str, Spec]) -> Spec:
    """``spec`` with its order, and each of its later orders (ours), no longer aimed at a unit
    that is gone."""
    out = spec
    order = spec.get("order")
    again = _aimed_elsewhere(order, gone)
    if again is not order:
        out = {**out, "order": again}
    later = spec.get("later_orders")
    if isinstance(later, list):
        redone = [_aimed_elsewhere(o, gone) for o in later]
        if any(a is not b for a, b in zip(redone, later, strict=True)):
            out = {**out, "later_orders": redone}
    return out


def _carry(
    scenario: MusketScenario, final: BattleState, battle: NextBattle, s: CarryOverSettings
) -> None:
    """Reinforcements join; survivors carry their strength, fatigue and morale; an order
    aimed at a unit that is gone loses its target."""
    del scenario  # the final state holds all that is carried
    battle.reinforce(s.reinforcements, "units")
    gone = battle.carry("units", final.units, lambda spec, unit: _carried(spec, unit, s))
    battle.each("units", lambda spec: _retarget(spec, gone))


carry_over = CarryOver(CarryOverSettings, _carry)
"""The next battle's scenario data with this battle's survivors carried into it."""

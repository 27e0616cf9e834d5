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

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sim.contract.bases import validate_plain
from sim.rulesets.musket.scenario import MusketScenario
from sim.rulesets.musket.state import BattleState, UnitState

__all__ = ["CarryOverSettings", "carry_over"]

Morale = Literal["good", "disrupted", "routed"]
_LADDER: tuple[Morale, ...] = ("routed", "disrupted", "good")


class CarryOverSettings(BaseModel):
    """A campaign's ``carry_over:`` settings for musket battles."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fatigue_recovery: int = Field(
        300, ge=0, le=100_000, description="Fatigue recovered between battles."
    )
    morale_recovery: int = Field(
        1, ge=0, le=2, description="Steps up routed → disrupted → good between battles."
    )
    fled_return: bool = Field(
        True, description="Units that fled the field rejoin (as routed, before recovery)."
    )
    reinforcements: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="Side id → unit specs joining this battle."
    )


def _morale(unit: UnitState, steps: int) -> Morale:
    """The unit's morale after ``steps`` of recovery; one that fled starts as routed."""
    start = {"eliminated": "routed", "spent": "good"}.get(unit.morale, unit.morale)
    return _LADDER[min(_LADDER.index(start) + steps, len(_LADDER) - 1)]


def _carried(spec: dict[str, Any], unit: UnitState, s: CarryOverSettings) -> dict[str, Any] | None:
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


def _retarget(spec: dict[str, Any], gone: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with its order no longer aimed at a unit that is gone."""
    order = spec.get("order")
    if not isinstance(order, dict) or order.get("target") not in gone:
        return spec
    kind = order.get("kind", "hold")
    if kind in ("engage", "charge"):
        new_order = {"kind": "advance", "to": gone[order["target"]]}
    else:
        new_order = {k: v for k, v in order.items() if k != "target"}
    return {**spec, "order": new_order}


def carry_over(
    scenario: MusketScenario,
    final_state: BattleState,
    next_data: dict[str, Any],
    settings: dict[str, Any],
) -> dict[str, Any]:
    """The next battle's scenario data with this battle's survivors carried into it.

    Raises:
        pydantic.ValidationError: ``settings`` are not valid carry-over settings.
        ValueError: a reinforcement names a side the next battle does not have.
    """
    s = validate_plain(CarryOverSettings, settings)
    out = copy.deepcopy(next_data)
    sides = out.get("sides", [])
    by_id = {side.get("id"): side for side in sides if isinstance(side, dict)}
    for side_id, specs in s.reinforcements.items():
        if side_id not in by_id:
            raise ValueError(f"reinforcements: the next battle has no side {side_id!r}")
        by_id[side_id]["units"] = [*by_id[side_id].get("units", []), *copy.deepcopy(specs)]
    gone: dict[str, Any] = {}
    for side in by_id.values():
        kept = []
        for spec in side.get("units", []):
            unit = final_state.units.get(spec.get("id", ""))
            new = spec if unit is None else _carried(spec, unit, s)
            if new is None:
                gone[spec["id"]] = spec.get("at")
            else:
                kept.append(new)
        side["units"] = kept
    for side in by_id.values():
        side["units"] = [_retarget(spec, gone) for spec in side["units"]]
    return out

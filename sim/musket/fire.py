"""Fire: who fires in which phase, at whom, and the resolution (rules-notes §1)."""

from __future__ import annotations

import math

from engine.events import trusted
from sim.musket.context import Battle
from sim.musket.data import ARTILLERY_VALUE_SCALE, QUALITY_FIRE_MODIFIER, WEAPONS
from sim.musket.events import Fired
from sim.musket.hexmap import distance
from sim.musket.results import casualty_roll, finish
from sim.musket.state import UnitState

__all__ = ["decide_fire", "may_fire", "weapon_range"]


def _reach(values: tuple[int, ...]) -> int:
    reach = [i + 1 for i, v in enumerate(values) if v > 0]
    return reach[-1] if reach else 0


_RANGE: dict[str, int] = {name: _reach(w["values"]) for name, w in WEAPONS.items()}  # type: ignore[arg-type]


def weapon_range(unit: UnitState) -> int:
    """Farthest hex at which the unit's weapon has a non-zero value."""
    return _RANGE[unit.weapon]


def may_fire(b: Battle, unit: UnitState, phase: str) -> bool:
    """Defensive fire: units that did not move this turn; offensive: units that did.

    Routed units never fire; a unit fires at most once a turn; a charging
    unit fights in the melee phase instead of firing offensively; a battery
    that moved does not fire (option ``artillery_moved_cannot_fire``).
    """
    if not unit.active or unit.hex is None or unit.morale == "routed":
        return False
    if unit.fired_turn == b.turn:
        return False
    moved = unit.moved_turn == b.turn
    if phase == "defensive_fire":
        return not moved
    if unit.kind == "artillery" and b.options.artillery_moved_cannot_fire:
        return False
    return moved and b.orders[unit.id].kind != "charge"


def _target(b: Battle, unit: UnitState, reach: int) -> UnitState | None:
    """The ordered target if active and in range, else the nearest enemy in range."""
    assert unit.hex is not None
    spec_target = b.orders[unit.id].target
    if spec_target is not None:
        t = b.state.units[spec_target]
        if t.active and t.hex is not None and distance(unit.hex, t.hex) <= reach:
            return t
    return b.nearest_enemy(unit, within=reach)


def decide_fire(b: Battle, unit: UnitState, phase: str) -> Fired | None:
    """Resolve the unit's fire this phase, or None when it does not fire."""
    if not may_fire(b, unit, phase):
        return None
    reach = weapon_range(unit)
    target = _target(b, unit, reach)
    if target is None or unit.hex is None or target.hex is None:
        return None
    rng_hexes = distance(unit.hex, target.hex)
    values: tuple[int, ...] = WEAPONS[unit.weapon]["values"]  # type: ignore[assignment]
    per = values[rng_hexes - 1]
    scale = ARTILLERY_VALUE_SCALE if unit.kind == "artillery" else 1
    base = float(per * unit.strength * scale)
    factors: dict[str, float] = {}
    o = b.options
    if unit.morale == "disrupted":
        factors["disrupted"] = o.disrupted_fire_factor
    if unit.moved_turn == b.turn:
        factors["moved"] = o.moved_fire_factor
    v = base * math.prod(factors.values())
    mods: dict[str, float] = {}
    if QUALITY_FIRE_MODIFIER[unit.quality]:
        mods[f"quality_{unit.quality}"] = QUALITY_FIRE_MODIFIER[unit.quality]
    penalty = b.fatigue_penalty(unit)
    if penalty:
        mods[f"fatigue_{b.fatigue_level(unit)}"] = -penalty
    terrain, cover = b.cover(target.hex)
    if cover:
        mods[terrain] = cover
    if target.formation == "column":
        mods["column"] = o.column_target_modifier
    rng = b.stream("fire", phase, unit.id)
    roll = casualty_roll(rng, v, mods, o.fire_lcv, o.fire_hcv, o.alternative_fire)
    return trusted(  # every value of its field's exact type (check_line in the tests)
        Fired,
        {
            "turn": b.turn,
            "time": b.now,
            "phase": phase,
            "unit": unit.id,
            "target": target.id,
            "range": rng_hexes,
            "base_value": base,
            "factors": factors,
            "result": finish(roll, target, o, source=unit.kind),
        },
    )

"""Fire: who fires in which phase, at whom, and the resolution (rules-notes §1)."""

from __future__ import annotations

import math

from engine.events import assemble
from sim.rulesets.musket.model.data import ARTILLERY_VALUE_SCALE, QUALITY_FIRE_MODIFIER, WEAPONS
from sim.rulesets.musket.model.events import Fired
from sim.rulesets.musket.model.hexmap import distance, neighbours
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.melee import can_charge
from sim.rulesets.musket.rules.results import fire_result
from sim.rulesets.musket.rules.targeting import aim_at

__all__ = ["closing_fire_target", "decide_fire", "may_fire", "weapon_range"]


def _reach(values: tuple[int, ...]) -> int:
    reach = [i + 1 for i, v in enumerate(values) if v > 0]
    return reach[-1] if reach else 0


_VALUES: dict[str, tuple[int, ...]] = {name: w["values"] for name, w in WEAPONS.items()}  # type: ignore[misc]
_RANGE: dict[str, int] = {name: _reach(values) for name, values in _VALUES.items()}
_QUALITY: dict[str, tuple[str, float]] = {
    q: (f"quality_{q}", float(m)) for q, m in QUALITY_FIRE_MODIFIER.items() if m
}
"""The firer's quality modifier, as its name and percent, for the qualities that have one."""
_CANNOT_FIRE = ("routed", "eliminated")  # eliminated: not ``active``
_FIRED_TAG: str = Fired.model_fields["type"].default
_FIRED_VERSION: int = Fired.model_fields["schema_version"].default
_FIRED_GIVEN = frozenset(
    ("turn", "time", "phase", "unit", "target", "range", "base_value", "factors", "result")
)
"""The fields a fire resolution decides (pydantic's fields set, as ``trusted`` made it)."""


def weapon_range(unit: UnitState) -> int:
    """Farthest hex at which the unit's weapon has a non-zero value."""
    return _RANGE[unit.weapon]


def may_fire(b: Battle, unit: UnitState, phase: str) -> bool:
    """Defensive fire: units that did not move this turn; offensive: units that did.

    Routed units never fire; a unit fires at most once a turn; a charging
    unit fights in the melee phase instead of firing offensively (with option
    ``charging_fire``, it fires offensively too, then charges); a battery
    that moved does not fire (option ``artillery_moved_cannot_fire``).
    """
    if unit.morale in _CANNOT_FIRE or unit.hex is None:
        return False
    turn = b.kernel.turn  # b.turn without the property: asked of every unit twice a turn
    if unit.fired_turn == turn:
        return False
    moved = unit.moved_turn == turn
    if phase == "defensive_fire":
        return not moved
    if unit.kind == "artillery" and b.options.artillery_moved_cannot_fire:
        return False
    return moved and (b.orders[unit.id].kind != "charge" or b.options.charging_fire)


def _target(b: Battle, unit: UnitState, reach: int) -> tuple[UnitState, int] | None:
    """The ordered target if active and in range, else the nearest enemy in range (with
    option ``enfilade``, among equally near ones the most nearly straight ahead), read
    from the spatial index (:func:`~sim.rulesets.musket.rules.targeting.aim_at`). With
    ``spare_routed``, a routed enemy only when no other is in reach.  With its distance."""
    assert unit.hex is not None
    spec_target = b.orders[unit.id].target
    if spec_target is not None:
        t = b.state.units[spec_target]
        if t.active and t.hex is not None:
            away = distance(unit.hex, t.hex)
            if away <= reach and not (b.options.spare_routed and t.morale == "routed"):
                return t, away
    return aim_at(b, unit, reach)


def _charging_home(b: Battle, cavalry: UnitState) -> UnitState | None:
    """The unit a cavalry unit is charging home this turn: the enemy it charges, next to it
    (its charge target, or with option ``charge_in_the_way`` the enemy in its way), when it
    is cavalry that moved this turn by its ``charge`` order and may charge
    (:func:`~sim.rulesets.musket.rules.melee.can_charge`); else None."""
    if cavalry.kind != "cavalry" or cavalry.moved_turn != b.kernel.turn:
        return None
    return can_charge(b, cavalry)


def closing_fire_target(b: Battle, unit: UnitState, target: UnitState | None) -> UnitState | None:
    """The target under option ``cavalry_charge_home`` [ours]: cavalry charging home
    (:func:`_charging_home`) is fired on only by the unit it charges, one volley (a unit
    fires once a turn), and only from that unit's front; that unit fires at it before any
    other target. Any other firer whose target it is holds its fire."""
    if unit.hex is None:
        return target
    for h in neighbours(unit.hex):
        uid = b.state.occupant.get(h)
        if uid is None:
            continue
        other = b.state.units[uid]
        charged = other.side != unit.side and _charging_home(b, other) is unit
        if charged and b.arc(unit, h) == "front":
            return other
    if target is not None and _charging_home(b, target) is not None:
        return None  # in the charge, not halted: only its target fires, from the front
    return target


def _modifiers(b: Battle, unit: UnitState, target: UnitState) -> dict[str, float]:
    """The firer's quality and fatigue, the target's cover, column, (option
    ``spent_cover``) a spent target gone to ground and (``cavalry_target_modifier``) a
    mounted one, and enfilade
    (percent, as floats: the record keeps this dict, :func:`~sim.rulesets.musket.rules.results.
    fire_result`): a wall, breastworks or fence covers only against fire from the front,
    and fire from the flank or rear gets ``enfilade_fire_modifier`` (option ``enfilade``)."""
    mods: dict[str, float] = {}
    quality = _QUALITY.get(unit.quality)
    if quality is not None:
        mods[quality[0]] = quality[1]
    o, f = b.options, unit.fatigue
    if f >= o.fatigue_medium or f >= o.fatigue_high or f >= o.fatigue_max:  # else no penalty
        penalty = b.fatigue_penalty(unit)
        if penalty:
            mods[f"fatigue_{b.fatigue_level(unit)}"] = float(-penalty)
    terrain, cover, arc = b.cover_against(target, unit.hex)
    if cover:
        mods[terrain] = float(cover)
    if target.formation == "column":
        mods["column"] = float(b.options.column_target_modifier)
    if target.morale == "spent" and o.spent_cover:  # thrown back, gone to ground
        mods["to_ground"] = float(o.spent_cover)
    if target.kind == "cavalry" and o.cavalry_target_modifier:  # horsemen at speed
        mods["cavalry"] = float(o.cavalry_target_modifier)
    if arc != "front":  # only with option enfilade: fire from the target's flank or rear
        mods["enfilade"] = float(b.options.enfilade_fire_modifier)
    return mods


def decide_fire(b: Battle, unit: UnitState, phase: str) -> Fired | None:
    """Resolve the unit's fire this phase, or None when it does not fire."""
    if not may_fire(b, unit, phase):
        return None
    reach = _RANGE[unit.weapon]
    # _target's first question asked here: with no ordered target it is aim_at's answer
    ordered = b.orders[unit.id].target is not None
    found = _target(b, unit, reach) if ordered else aim_at(b, unit, reach)
    target = None if found is None else found[0]
    if b.options.cavalry_charge_home:
        closing = closing_fire_target(b, unit, target)
        if closing is not target:
            target, found = closing, None
    if target is None or unit.hex is None or target.hex is None:
        return None
    rng_hexes = distance(unit.hex, target.hex) if found is None else found[1]
    per = _VALUES[unit.weapon][rng_hexes - 1]
    scale = ARTILLERY_VALUE_SCALE if unit.kind == "artillery" else 1
    base = float(per * unit.strength * scale)
    factors: dict[str, float] = {}
    o = b.options
    if unit.morale == "disrupted":
        factors["disrupted"] = o.disrupted_fire_factor
    turn = b.kernel.turn
    if unit.moved_turn == turn:
        factors["moved"] = o.moved_fire_factor
    share = o.column_fire_share
    if share is not None and unit.formation == "column" and unit.kind != "artillery":
        factors["column_fire"] = share  # only the column's leading ranks fire
    if rng_hexes == 1 and o.close_fire_factor != 1:
        factors["close"] = o.close_fire_factor  # point-blank musketry and canister
    v = base * math.prod(factors.values()) if factors else base
    rng = b.streams.named(f"{turn}/fire/{phase}/{unit.id}")  # b.stream's name, in one piece
    lcv, hcv, s = o.fire_lcv, o.fire_hcv, o.fire_scale
    if s != 1:  # fire_scale: both ends of the casualty range scaled, the seed's arithmetic as is
        lcv, hcv = s * lcv, s * hcv
    result = fire_result(
        rng, v, _modifiers(b, unit, target), lcv, hcv, o.alternative_fire, target, o, unit.kind
    )
    # every field in declaration order, each of its exact type (check_line in the tests): what
    # trusted(Fired, ...) would fill in and copy, built once (the defaults written out)
    return assemble(
        Fired,
        {
            "type": _FIRED_TAG,
            "schema_version": _FIRED_VERSION,
            "seq": -1,
            "turn": turn,  # stamp(b)'s fields written out: the hot path saves its call
            "time": float(b.kernel.env.now),  # b.now without its property
            "cause": None,
            "phase": phase,
            "unit": unit.id,
            "target": target.id,
            "range": rng_hexes,
            "base_value": base,
            "factors": factors,
            "result": result,
        },
        set(_FIRED_GIVEN),
    )

"""Melee: a charge resolved by two combat results calculations (rules-notes §1).

Each side's losses come from the *other* side's adjusted strength (seed 003
L3).  Who wins and what follows is not in any source [ours], option
``melee_winner_rule = lower_loss_share``: the side that lost the smaller
share of its strength wins, a tie goes to the defender; the loser falls
back one hex toward its army's retreat edge, Disrupted (Routed if it was
already Disrupted; a battery is captured when ``guns_captured``); a winning
attacker takes the vacated hex when ``winner_advances``.
"""

from __future__ import annotations

from sim.rulesets.musket.context import Battle, Hex
from sim.rulesets.musket.data import QUALITY_FIRE_MODIFIER
from sim.rulesets.musket.events import Meleed
from sim.rulesets.musket.hexmap import distance, neighbours
from sim.rulesets.musket.results import casualty_roll, finish
from sim.rulesets.musket.state import UnitState

__all__ = ["decide_melee", "melee_strength", "retreat_hex"]


def melee_strength(
    b: Battle, unit: UnitState, *, defending: bool
) -> tuple[float, dict[str, float]]:
    """Adjusted strength as a melee combat value, with its factors.

    A defending gun counts as ``defending_gun_men`` men; a routed defender
    counts ÷ ``routed_defender_divisor`` [src].
    """
    o = b.options
    factors: dict[str, float] = {}
    men = float(unit.strength)
    if unit.kind == "artillery":
        factors["men_per_gun"] = float(o.defending_gun_men)
        men *= o.defending_gun_men
    if defending and unit.morale == "routed":
        factors["routed"] = 1.0 / o.routed_defender_divisor
        men /= o.routed_defender_divisor
    return men, factors


def _modifiers(b: Battle, striker: UnitState, struck: UnitState) -> dict[str, float]:
    mods: dict[str, float] = {}
    if b.options.melee_quality and QUALITY_FIRE_MODIFIER[striker.quality]:
        mods[f"quality_{striker.quality}"] = QUALITY_FIRE_MODIFIER[striker.quality]
    if b.fatigue_penalty(striker):
        mods[f"fatigue_{b.fatigue_level(striker)}"] = -b.fatigue_penalty(striker)
    if b.options.melee_cover:
        terrain, cover = b.cover(struck.hex)
        if cover:
            mods[terrain] = cover
    return mods


def retreat_hex(b: Battle, unit: UnitState, away_from: Hex) -> Hex | None:
    """The free hex next to the unit nearest its retreat edge, not toward ``away_from``."""
    if unit.hex is None:
        return None
    edge = b.sides[unit.side].retreat
    best: tuple[int, int, int] | None = None
    found: Hex | None = None
    for i, h in enumerate(neighbours(unit.hex)):
        if not b.on_map(h) or h in b.state.occupant:
            continue
        if distance(h, away_from) <= distance(unit.hex, away_from):
            continue
        key = (b.edge_distance(h, edge), -distance(h, away_from), i)
        if best is None or key < best:
            best, found = key, h
    return found


def can_charge(b: Battle, unit: UnitState) -> UnitState | None:
    """The charge target next to the unit, if it may attack now [src: disrupted,
    routed units and artillery cannot attack; ours: nor a unit that has broken off]."""
    order = b.orders[unit.id]
    if (
        order.kind != "charge"
        or unit.kind == "artillery"
        or unit.morale != "good"
        or unit.hex is None
        or unit.fought_turn == b.turn
        or b.broken_off(unit)
    ):
        return None
    target = b.charge_target(unit)
    if target is None or target.hex is None or distance(unit.hex, target.hex) != 1:
        return None
    return target


def decide_melee(b: Battle, unit: UnitState) -> Meleed | None:
    """Resolve the unit's charge this turn, or None when it cannot charge."""
    defender = can_charge(b, unit)
    if defender is None or unit.hex is None or defender.hex is None:
        return None
    o = b.options
    rng = b.stream("melee", unit.id)
    v_att, _ = melee_strength(b, unit, defending=False)
    v_def, _ = melee_strength(b, defender, defending=True)
    hit_def = casualty_roll(
        rng, v_att, _modifiers(b, unit, defender), o.melee_lcv, o.melee_hcv, o.alternative_melee
    )
    hit_att = casualty_roll(
        rng, v_def, _modifiers(b, defender, unit), o.melee_lcv, o.melee_hcv, o.alternative_melee
    )
    share_att = min(1.0, hit_att.casualties / max(v_att, 1.0))
    share_def = min(1.0, hit_def.casualties / max(v_def, 1.0))
    attacker_wins = share_att < share_def
    winner, loser = (unit, defender) if attacker_wins else (defender, unit)
    base, lose = o.melee_fatigue_factor, o.melee_loser_fatigue_factor
    defender_losses = finish(hit_def, defender, o, lose if loser is defender else base)
    attacker_losses = finish(hit_att, unit, o, lose if loser is unit else base)
    other = winner.hex
    assert other is not None
    if loser.kind == "artillery" and o.guns_captured:
        loser_state, retreat = "eliminated", None
    else:
        loser_state = "routed" if loser.morale != "good" else "disrupted"
        retreat = retreat_hex(b, loser, other)
    advance = None
    if attacker_wins and o.winner_advances and (retreat is not None or loser_state == "eliminated"):
        advance = defender.hex
    return Meleed(
        turn=b.turn,
        time=b.now,
        unit=unit.id,
        target=defender.id,
        attacker_losses=attacker_losses,
        defender_losses=defender_losses,
        attacker_share=share_att,
        defender_share=share_def,
        winner=winner.id,
        loser_retreats_to=retreat,
        loser_state=loser_state,
        winner_advances_to=advance,
    )

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

import copy
import math

from engine.events import Draw
from engine.rng import Stream
from sim.contract.emit import stamp
from sim.rulesets.musket.model.data import QUALITY_FIRE_MODIFIER
from sim.rulesets.musket.model.events import Meleed, MeleeOdds, StandTest
from sim.rulesets.musket.model.hexmap import distance, neighbours
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules.context import Battle, Hex
from sim.rulesets.musket.rules.morale import decide_stand_test, rout_prisoners, takes_stand_test
from sim.rulesets.musket.rules.results import casualty_roll, finish

__all__ = [
    "attacker_chance",
    "cavalry_factors",
    "counter_target",
    "decide_melee",
    "in_the_way",
    "melee_odds",
    "melee_strength",
    "pursuit_loss",
    "retreat_hex",
]


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


def _own(b: Battle, unit: UnitState) -> dict[str, float]:
    """A side's own percent modifiers in melee: quality (``melee_quality``) and fatigue."""
    mods: dict[str, float] = {}
    if b.options.melee_quality and QUALITY_FIRE_MODIFIER[unit.quality]:
        mods[f"quality_{unit.quality}"] = QUALITY_FIRE_MODIFIER[unit.quality]
    if b.fatigue_penalty(unit):
        mods[f"fatigue_{b.fatigue_level(unit)}"] = -b.fatigue_penalty(unit)
    return mods


def _modifiers(b: Battle, striker: UnitState, struck: UnitState) -> dict[str, float]:
    mods = _own(b, striker)
    if b.options.melee_cover:
        terrain, cover, _ = b.cover_against(struck, striker.hex)
        if cover:
            mods[terrain] = cover
    return mods


EXPONENT_CAP = 1e12
"""A ratio past which the odds rule's chance is 1 (or 0): r^k would overflow a float."""


def attacker_chance(ratio: float, exponent: float) -> float:
    """r^k / (r^k + 1): the attacker's chance of winning at odds r [ours, ``odds`` rule]."""
    if ratio <= 0:
        return 0.0 if exponent > 0 else 0.5
    log = exponent * math.log(ratio)
    if log > 700:
        return 1.0
    if log < -700:
        return 0.0
    power = math.exp(log)
    return power / (power + 1.0)


def _weight(strength: float, mods: dict[str, float], factors: dict[str, float]) -> float:
    return max(
        0.0, strength * (1.0 + sum(mods.values(), 0.0) / 100.0) * math.prod(factors.values())
    )


def cavalry_factors(
    b: Battle, attacker: UnitState, defender: UnitState, arc: str
) -> dict[str, float]:
    """A cavalry attacker's factors in the ``odds`` rule [ours]: ``cavalry_vs_broken``
    against infantry or artillery that is disrupted, routed or charged from its flank or
    rear; ``cavalry_vs_line``, when set, against other infantry in line (in good order or
    spent, from its front); ``cavalry_vs_formed`` against any other infantry (in column,
    or in line with ``cavalry_vs_line`` null, the default). A factor of 1 (the defaults)
    is not written."""
    if attacker.kind != "cavalry" or defender.kind not in ("infantry", "artillery"):
        return {}
    o = b.options
    if defender.morale in ("disrupted", "routed") or arc != "front":
        name, factor = "cavalry_vs_broken", o.cavalry_vs_broken
    elif (
        defender.kind == "infantry"
        and defender.formation == "line"
        and o.cavalry_vs_line is not None
    ):
        name, factor = "cavalry_vs_line", o.cavalry_vs_line
    elif defender.kind == "infantry":
        name, factor = "cavalry_vs_formed", o.cavalry_vs_formed
    else:
        return {}
    return {name: factor} if factor != 1.0 else {}


def pursuit_loss(b: Battle, winner: UnitState, loser: UnitState, left: int) -> int:
    """Men (guns) a loser with ``left`` of its strength after the melee's casualties loses
    to a cavalry winner's pursuit: floor(``cavalry_pursuit_share`` × left), for infantry
    or artillery [ours]; 0 at the default share 0."""
    share = b.options.cavalry_pursuit_share
    if not share or winner.kind != "cavalry" or loser.kind not in ("infantry", "artillery"):
        return 0
    return min(left, math.floor(share * left))


def pursuit_prisoners(b: Battle, pursuit: int) -> int:
    """Of the ``pursuit`` men (guns) a cavalry winner's pursuit takes, those taken prisoner
    [ours, option ``cavalry_pursuit_prisoners``]: floor(share × pursuit), exact at whole
    numbers (0.5 × 30 is 15); 0 at the default share 0. The rest are cut down."""
    share = b.options.cavalry_pursuit_prisoners
    if not share or pursuit <= 0:
        return 0
    return min(pursuit, math.floor(share * pursuit + 1e-9))


def melee_odds(b: Battle, attacker: UnitState, defender: UnitState, arc: str, u: Draw) -> MeleeOdds:
    """The ``odds`` rule [ours, rules version 3]: each side's weight, the odds and the draw.

    Attacker: melee strength × (1 + (quality + fatigue + ``melee_column_bonus`` in
    column)/100). Defender: melee strength × (1 + (quality + fatigue)/100) ×
    ``melee_disorder_factor`` if disrupted × ``melee_flank_factor`` if charged from
    its flank or rear ÷ (1 + cover/100) of its hex (``melee_cover``; a wall,
    breastworks or fence only from the front). A cavalry attacker's weight is × its
    :func:`cavalry_factors` (``cavalry_vs_formed``, ``cavalry_vs_line``,
    ``cavalry_vs_broken``). The attacker
    wins when the draw falls below r^k / (r^k + 1), r the ratio of weights, k
    ``melee_odds_exponent``.
    """
    o = b.options
    s_att, _ = melee_strength(b, attacker, defending=False)
    s_def, _ = melee_strength(b, defender, defending=True)
    m_att = _own(b, attacker)
    if attacker.formation == "column" and o.melee_column_bonus:
        m_att["column"] = float(o.melee_column_bonus)
    f_att = cavalry_factors(b, attacker, defender, arc)
    m_def = _own(b, defender)
    f_def: dict[str, float] = {}
    if defender.morale == "disrupted":
        f_def["disorder"] = o.melee_disorder_factor
    if arc != "front":
        f_def[arc] = o.melee_flank_factor
    if o.melee_cover:
        terrain, cover, _ = b.cover_against(defender, attacker.hex)
        if cover:
            f_def[terrain] = 1.0 / max(1e-9, 1.0 + cover / 100.0)
    w_att, w_def = _weight(s_att, m_att, f_att), _weight(s_def, m_def, f_def)
    ratio = w_att / w_def if w_def > 0 else EXPONENT_CAP
    p = attacker_chance(ratio, o.melee_odds_exponent)
    return MeleeOdds(
        attacker_strength=s_att,
        attacker_modifiers=m_att,
        attacker_factors=f_att,
        attacker_weight=w_att,
        defender_strength=s_def,
        defender_modifiers=m_def,
        defender_factors=f_def,
        defender_weight=w_def,
        ratio=ratio,
        exponent=float(o.melee_odds_exponent),
        p_attacker=p,
        draws=[u],
        attacker_wins=u.u < p,
    )


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


def counter_target(b: Battle, unit: UnitState) -> UnitState | None:
    """The enemy a unit on hold counter-charges now [ours, option ``counter_charge``]: the
    first, in neighbour order, next to it that is spent or disrupted — with ``open``, one
    its hex gives it no cover against; with ``counter_charge_own``, one whose attack names
    it. None when it may not (not infantry or cavalry, not in good order, fought this
    turn) or there is none."""
    mode = b.options.counter_charge
    if (
        mode is None
        or unit.kind == "artillery"
        or unit.morale != "good"
        or unit.hex is None
        or unit.fought_turn == b.turn
    ):
        return None
    units, occupant = b.state.units, b.state.occupant
    for h in neighbours(unit.hex):
        uid = occupant.get(h)
        if uid is None:
            continue
        enemy = units[uid]
        if enemy.side == unit.side or enemy.morale not in ("spent", "disrupted"):
            continue
        if b.options.counter_charge_own and not (
            b.attacking(enemy) and b.orders[enemy.id].target == unit.id  # it came at it
        ):
            continue
        if mode == "open" and b.cover_against(unit, h)[1]:
            continue
        return enemy
    return None


def in_the_way(b: Battle, unit: UnitState, target: UnitState) -> UnitState | None:
    """The enemy in the unit's way to its charge target ``target`` [ours, option
    ``charge_in_the_way``]: of the active enemy units next to it, the one nearest
    ``target`` (hex distance), ties to the lower ``Battle.rank`` (scenario
    order); None when no enemy stands next to it."""
    assert unit.hex is not None and target.hex is not None
    units, occupant, rank = b.state.units, b.state.occupant, b.rank
    best: tuple[int, int] | None = None
    found: UnitState | None = None
    for h in neighbours(unit.hex):
        uid = occupant.get(h)
        if uid is None:
            continue
        enemy = units[uid]
        if enemy.side == unit.side or not enemy.active:
            continue
        key = (distance(h, target.hex), rank[uid])
        if best is None or key < best:
            best, found = key, enemy
    return found


def can_charge(b: Battle, unit: UnitState) -> UnitState | None:
    """The enemy the unit charges now, if it may attack now [src: disrupted, routed units
    and artillery cannot attack; ours: nor a unit that has broken off]: its charge target
    when that is next to it; with option ``charge_in_the_way`` [ours], when it is not, the
    enemy next to it in its way (:func:`in_the_way`). For a unit on hold, its
    counterstroke's target (:func:`counter_target`)."""
    order = b.orders[unit.id]
    if order.kind == "hold":
        return counter_target(b, unit)
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
    if target is None or target.hex is None:
        return None
    if distance(unit.hex, target.hex) == 1:
        return target
    return in_the_way(b, unit, target) if b.options.charge_in_the_way else None


def _as_charged(
    b: Battle, unit: UnitState, defender: UnitState, rng: Stream
) -> tuple[UnitState, StandTest | None, str]:
    """The defender as ``unit``'s charge meets it: itself as the melee weighs it, its stand
    test (option ``cavalry_stand_test``, None when it takes none) and the arc the charge
    comes from. A defender that fails the test is weighed routed: a copy, as state
    changes only when the event is applied."""
    arc = b.arc(defender, unit.hex)
    if not takes_stand_test(b.options, unit, defender, arc):
        return defender, None, arc
    test = decide_stand_test(b, defender, arc, rng)
    if test.passed:
        return defender, test, arc
    routed = copy.copy(defender)
    routed.morale = "routed"
    return routed, test, arc


def decide_melee(b: Battle, unit: UnitState) -> Meleed | None:
    """Resolve the unit's charge this turn, or None when it cannot charge.

    With option ``cavalry_stand_test`` [ours], infantry charged by cavalry in line,
    disrupted or spent, or from its flank or rear first takes its stand test
    (:func:`~sim.rulesets.musket.rules.morale.decide_stand_test`, the first draw on the
    melee's stream); failing, it is routed and the melee is fought against it as a
    routed defender (÷ ``routed_defender_divisor``, a loser routed), recorded as the
    event's ``stand_test``."""
    defender = can_charge(b, unit)
    if defender is None or unit.hex is None or defender.hex is None:
        return None
    o = b.options
    rng = b.stream("melee", unit.id)
    defender, stand, arc = _as_charged(b, unit, defender, rng)
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
    odds = None
    if o.melee_winner_rule == "odds":
        odds = melee_odds(b, unit, defender, arc, rng.draw())
        attacker_wins = odds.attacker_wins
    else:
        attacker_wins = share_att < share_def
    winner, loser = (unit, defender) if attacker_wins else (defender, unit)
    base, lose = o.melee_fatigue_factor, o.melee_loser_fatigue_factor
    defender_losses = finish(hit_def, defender, o, lose if loser is defender else base)
    attacker_losses = finish(hit_att, unit, o, lose if loser is unit else base)
    other = winner.hex
    assert other is not None
    pursuit = prisoners = 0
    if loser.kind == "artillery" and o.guns_captured:
        loser_state, retreat = "eliminated", None
    else:
        broken = loser.morale in ("disrupted", "routed") or (
            o.cavalry_routs_infantry and winner.kind == "cavalry" and loser.kind == "infantry"
        )
        loser_state = "routed" if broken else "disrupted"
        retreat = retreat_hex(b, loser, other)
        losses = defender_losses if loser is defender else attacker_losses
        lost = losses.guns_lost if loser.kind == "artillery" else losses.casualties
        left = max(0, loser.strength - lost)
        pursuit = pursuit_loss(b, winner, loser, left)
        if left > 0 and pursuit == left:  # the pursuit took every man left
            loser_state, retreat = "eliminated", None
        elif loser_state == "routed" and (
            loser.morale != "routed"
            or (loser is defender and stand is not None and not stand.passed)
        ):  # it routs in this event (a failed stand test's rout too): prisoners?
            won = defender_losses if winner is defender else attacker_losses
            spent = won.guns_lost if winner.kind == "artillery" else won.casualties
            gone = winner.id if spent >= winner.strength else None
            prisoners = rout_prisoners(b, loser, left - pursuit, gone)
            if prisoners and prisoners == left - pursuit:  # all it had left
                loser_state, retreat = "eliminated", None
    advance = None
    counter = b.orders[unit.id].kind == "hold"  # a counterstroke (option counter_charge)
    holds = counter and o.counter_charge_holds
    if (
        attacker_wins
        and o.winner_advances
        and not holds
        and (retreat is not None or loser_state == "eliminated")
    ):
        advance = defender.hex
    # a counterstroke answers what broke its target: `why` leads back to it
    cause = defender.morale_cause if counter else None
    return Meleed(
        **stamp(b, cause),
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
        odds=odds,
        flank=arc if o.enfilade else None,
        # of the pursuit's men, those taken prisoner are counted with the rout's
        pursuit_losses=pursuit - (taken := pursuit_prisoners(b, pursuit)),
        prisoners=prisoners + taken,
        stand_test=stand,
    )

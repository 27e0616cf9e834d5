"""Morale: the test after a loss, rallying, and rest (rules-notes §1 [src])."""

from __future__ import annotations

import math
from typing import Any, Literal

from engine.events import Draw, trusted
from engine.rng import Stream
from sim.contract.emit import stamp
from sim.rulesets.musket.model.events import MoraleTested, Rallied, Rested, StandTest
from sim.rulesets.musket.model.hexmap import Hex, neighbours
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules.context import Battle, arc_of

__all__ = [
    "assault_mass",
    "charge_failure",
    "check_value",
    "closing_loss_steps",
    "closing_share",
    "decide_charge_test",
    "decide_morale",
    "decide_rally",
    "decide_rest",
    "decide_stand_test",
    "failure_state",
    "heavy_losses",
    "out_of_fire",
    "rally_to",
    "rout_prisoners",
    "takes_stand_test",
]

_STEP_UP = {"routed": "disrupted", "disrupted": "good", "spent": "good"}


def failure_state(current: str, phase: str, heavy: bool = False) -> str:
    """State after a failed check: Disrupted in defensive fire, else Routed.

    A unit already routed stays routed; one already disrupted that fails in
    defensive fire stays disrupted (the rule names only the result state).
    ``heavy``: the unit has lost ``rout_loss`` of its strength [ours, rules version 3],
    and a failed check routs it in any phase.
    """
    if current == "routed" or heavy:
        return "routed"
    return "disrupted" if phase == "defensive_fire" else "routed"


def heavy_losses(b: Battle, unit: UnitState) -> bool:
    """True when the unit has lost ``rout_loss`` of its starting strength (option)."""
    limit = b.options.rout_loss
    return limit is not None and b.loss_share(unit) >= limit


def rout_prisoners(b: Battle, unit: UnitState, left: int, gone: str | None = None) -> int:
    """Men (guns, for a battery) a unit that routs with ``left`` of its strength loses as
    prisoners [ours, option ``rout_prisoners_share``]: floor(share × left) when an enemy
    unit in good order or spent stands next to it, else 0 (and 0 at the default share 0).
    ``gone``: an enemy that does not count, as the event that routs the unit also
    eliminates it (a melee's winner with no men left). Exact at whole numbers: 0.1 × 30
    is 3."""
    share = b.options.rout_prisoners_share
    if not share or left <= 0 or unit.hex is None:
        return 0
    units, occupant = b.state.units, b.state.occupant
    for h in neighbours(unit.hex):
        uid = occupant.get(h)
        if uid is None or uid == gone:
            continue
        enemy = units[uid]
        if enemy.side != unit.side and enemy.morale in ("good", "spent"):
            return min(left, math.floor(share * left + 1e-9))
    return 0


def rally_to(o: MusketOptions, morale: str, attacking: bool) -> str:
    """The state a successful rally steps up to from ``morale``: a disrupted attacker
    (a charge or engage order) only to ``spent`` under option ``assault_exhaustion``,
    every other unit one step up."""
    if morale == "disrupted" and attacking and o.assault_exhaustion is not None:
        return "spent"
    return _STEP_UP[morale]


def out_of_fire(b: Battle, unit: UnitState) -> bool:
    """True when a spent unit may rally to good order: no enemy within
    ``spent_rally_distance`` hexes, not fired on this turn, and rested (its fatigue below
    ``fatigue_medium``). Spent cavalry, under option ``cavalry_rally_distance``: no enemy
    within that many hexes, fired on or not, rested or not."""
    reform = b.options.cavalry_rally_distance
    if reform is not None and unit.kind == "cavalry":
        return b.nearest_enemy(unit, within=reform) is None
    if b.fired_on(unit) or unit.fatigue >= b.options.fatigue_medium:
        return False
    return b.nearest_enemy(unit, within=b.options.spent_rally_distance) is None


def check_value(b: Battle, unit: UnitState, flanked: bool) -> tuple[int, dict[str, int], int]:
    """An ordinary morale check's base, modifiers and value (d6 at or under it passes):
    the quality's value, :meth:`Battle.morale_modifiers` and, ``flanked`` (the fire or
    charge came from its flank or rear, option ``enfilade``), ``enfilade_morale``."""
    mods = b.morale_modifiers(unit)
    if flanked:
        mods["enfilade"] = b.options.enfilade_morale
    base = b.morale_base(unit)
    return base, mods, base + sum(mods.values())


def takes_stand_test(o: MusketOptions, attacker: UnitState, defender: UnitState, arc: str) -> bool:
    """True when ``defender`` tests before ``attacker``'s charge closes [ours, option
    ``cavalry_stand_test``]: cavalry charging infantry, not routed, that is in line,
    disrupted or spent, or charged from ``arc`` its flank or rear. A column in good
    order charged from its front (the rules' square) stands without a test."""
    return (
        o.cavalry_stand_test is not None
        and attacker.kind == "cavalry"
        and defender.kind == "infantry"
        and defender.morale != "routed"
        and (
            defender.formation == "line"
            or defender.morale in ("disrupted", "spent")
            or arc != "front"
        )
    )


def decide_stand_test(b: Battle, defender: UnitState, arc: str, rng: Stream) -> StandTest:
    """The defender's test before a cavalry charge [ours, option ``cavalry_stand_test``]:
    the ordinary check (:func:`check_value`, ``enfilade`` from its flank or rear) with the
    option as one more modifier; one d6 on ``rng``, the melee's stream. Failing, the
    defender is routed before the melee (:func:`~sim.rulesets.musket.rules.melee.decide_melee`
    fights it as routed)."""
    shift = b.options.cavalry_stand_test
    assert shift is not None
    base, mods, value = check_value(b, defender, arc != "front")
    if shift:
        mods["cavalry_stand_test"] = shift
        value += shift
    roll, draw = rng.roll(6)
    return StandTest(
        base=base, modifiers=mods, morale_value=value, roll=roll, draws=[draw], passed=roll <= value
    )


def decide_morale(
    b: Battle,
    unit: UnitState,
    phase: str,
    reason: Literal["loss", "max_fatigue", "heavy_losses", "friend_routed"],
    cause: int,
    source: str,
    flanked: bool = False,
) -> MoraleTested:
    """A morale check: fails when a d6 rolls above the modified morale value.

    Args:
        cause: the seq of the resolution that requires the check.
        source: the unit that acted in that resolution (the firer, or the
            charging unit; for ``friend_routed``, option ``rout_contagion``, the friend
            that routed); it names the stream, so the draw does not move
            when a counterfactual shifts later seqs.
        flanked: the fire or charge came from the unit's flank or rear (option
            ``enfilade``): ``enfilade_morale`` is added.

    With option ``rout_loss``, a unit that fails having lost that share of its
    strength routs whatever the phase. With option ``rout_prisoners_share``, a unit the
    check routs next to an enemy in good order or spent loses that share of what it has
    left as the check's ``prisoners`` (:func:`rout_prisoners`).
    """
    base, mods, value = check_value(b, unit, flanked)
    roll, draw = b.stream("morale", phase, unit.id, source).roll(6)
    passed = roll <= value
    after = unit.morale if passed else failure_state(unit.morale, phase, heavy_losses(b, unit))
    taken = 0
    if after == "routed" and unit.morale != "routed":  # it routs: prisoners, if any
        taken = rout_prisoners(b, unit, unit.strength)
    friend = source if reason == "friend_routed" else None
    return _tested(
        b, cause, phase, unit, reason, base, mods, value, roll, draw, after, taken, friend
    )


def _tested(
    b: Battle,
    cause: int | None,
    phase: str,
    unit: UnitState,
    reason: Literal["loss", "max_fatigue", "heavy_losses", "charge", "friend_routed"],
    base: int,
    mods: dict[str, int],
    value: int,
    roll: int,
    draw: Draw,
    after: str,
    taken: int,
    friend: str | None = None,
) -> MoraleTested:
    """The check's event, built trusted: every value of its field's exact type (the test
    suite's line check reads each back); ``prisoners`` left out at 0."""
    fields: dict[str, Any] = {
        "turn": b.turn,  # stamp(b, cause)'s fields written out: the hot path saves its call
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
        "passed": roll <= value,
        "before": unit.morale,
        "after": after,
    }
    if taken:
        fields["prisoners"] = taken
    if friend is not None:
        fields["friend"] = friend
    return trusted(MoraleTested, fields)


def decide_charge_test(b: Battle, unit: UnitState, target: UnitState) -> MoraleTested:
    """The test before a charge closes [ours, option ``charge_test``].

    The seed's morale test (d6 ≤ morale value with the usual modifiers), with
    ``target_in_cover`` −1 for each whole 20 % of cover the target's hex gives
    (a fence or breastworks −1, a stone wall or woods −2); a unit that fails
    does not close this turn: it stays where it is, in good order, and fires
    from there. One draw on ``<turn>/morale/charge/<unit>``.

    Rules version 3 adds ``under_fire`` −1 for each whole ``closing_loss_step`` of its
    strength the unit lost to fire this turn (for cavalry ``cavalry_closing_loss_step``
    instead, when that is set), ``support`` + ``closing_support`` with a
    friend behind it (:func:`supported`), and ``odds`` ± ``closing_odds`` when its
    men are at least twice the target's in melee, or fewer than the target's; failing
    by ``closing_recoil_margin`` or more throws it back (:func:`charge_failure`).
    """
    mods = b.morale_modifiers(unit)
    cover = b.cover_against(target, unit.hex)[1]
    if cover <= -20:
        mods["target_in_cover"] = -(-cover // 20)
    o = b.options
    mass = assault_mass(b, unit)
    step = o.closing_loss_step
    if unit.kind == "cavalry" and o.cavalry_closing_loss_step is not None:
        step = o.cavalry_closing_loss_step  # cavalry's own step [ours]
    if step is not None:
        lost = closing_loss_steps(closing_share(b, mass), step)
        if lost:
            mods["under_fire"] = -lost
    support = o.closing_support
    if support and supported(b, unit):
        mods["support"] = support
    odds = o.closing_odds
    if odds:
        mine = sum(melee_men(b, u, defending=False) for u in mass)
        theirs = melee_men(b, target, defending=True)
        if mine >= 2 * theirs:
            mods["odds"] = odds
        elif mine < theirs:
            mods["odds"] = -odds
    base = b.morale_base(unit)
    value = base + sum(mods.values())
    roll, draw = b.stream("morale", "charge", unit.id).roll(6)
    passed = roll <= value
    after = (
        unit.morale
        if passed
        else charge_failure(o, unit.morale, roll, value, unit.kind == "cavalry")
    )
    taken = 0
    if after == "routed" and unit.morale != "routed":  # broken by the volley: prisoners, if any
        taken = rout_prisoners(b, unit, unit.strength)
    return _tested(b, None, "melee", unit, "charge", base, mods, value, roll, draw, after, taken)


def supported(b: Battle, unit: UnitState) -> bool:
    """True when a unit of its own side, in good order or spent, stands next to the unit
    in its rear arc (behind it, facing away from its retreat edge): a supported attack
    [ours, option ``closing_support``]."""
    if unit.hex is None:
        return False
    retreat = b.sides[unit.side].retreat
    return _carrier(b, unit, unit.hex, retreat, None, same_kind=False) is not None


def assault_mass(b: Battle, unit: UnitState) -> list[UnitState]:
    """The charging unit and, under option ``closing_depth``, the units that carry it in
    [ours]: the column of lines behind it, front to rear — the first unit of its own side
    and kind, in good order or spent, next to it in its rear arc (as :func:`supported` finds
    a friend; the first in :func:`~sim.rulesets.musket.model.hexmap.neighbours`' order where the
    arc has two hexes, as it has for an army retreating east or west), then the one next to
    that in the same direction, and so on: one straight column, never a wedge."""
    if not b.options.closing_depth or unit.hex is None:
        return [unit]
    retreat = b.sides[unit.side].retreat
    mass = [unit]
    here, step = unit.hex, None
    while True:  # a straight line of hexes never comes back to one it has left
        found = _carrier(b, unit, here, retreat, step, same_kind=True)
        if found is None:
            return mass
        step, here, friend = found
        mass.append(friend)


def _carrier(
    b: Battle, unit: UnitState, here: Hex, retreat: str, step: int | None, *, same_kind: bool
) -> tuple[int, Hex, UnitState] | None:
    """The next friend of ``unit`` (of its kind too, with ``same_kind``), in good order or
    spent, behind the hex ``here``: the first in the rear arc of ``here`` (``step`` None),
    else the one next to ``here`` in direction ``step``; with its direction and hex. The
    friend :func:`supported` finds, and each next line of :func:`assault_mass`'s column."""
    around = neighbours(here)
    for way in range(6) if step is None else (step,):
        h = around[way]
        uid = b.state.occupant.get(h)
        if uid is None:
            continue
        friend = b.state.units[uid]
        ours = friend.side == unit.side and (not same_kind or friend.kind == unit.kind)
        behind = step is not None or arc_of(here, retreat, h) == "rear"
        if ours and behind and friend.morale in ("good", "spent"):
            return way, h, friend
    return None


def closing_share(b: Battle, mass: list[UnitState]) -> float:
    """The share of its men the charging mass (:func:`assault_mass`) has lost to fire this
    turn, for ``closing_loss_step``: the men lost this turn over the men at the turn's
    start, a column's men counted at option ``column_closing_share`` (its head, which
    takes the volley) [ours]. A unit alone with the option off: :meth:`Battle.fire_share`,
    exactly as rules version 4 has it."""
    head = b.options.column_closing_share
    if len(mass) == 1 and head is None:
        return b.fire_share(mass[0])
    lost = men = 0.0
    for u in mass:
        taken = b.fire_loss(u)
        start = float(u.strength + taken)
        if head is not None and u.formation == "column" and u.kind != "artillery":
            start *= head
        lost += taken
        men += start
    return min(1.0, lost / men) if men > 0 else 0.0


def melee_men(b: Battle, unit: UnitState, *, defending: bool) -> float:
    """Men in melee: a gun counts ``defending_gun_men``, a routed defender ÷
    ``routed_defender_divisor`` (as :func:`~sim.rulesets.musket.rules.melee.melee_strength`)."""
    o = b.options
    men = float(unit.strength)
    if unit.kind == "artillery":
        men *= o.defending_gun_men
    if defending and unit.morale == "routed":
        men /= o.routed_defender_divisor
    return men


def closing_loss_steps(share: float, step: float) -> int:
    """Whole steps of ``step`` in the share lost (``closing_loss_step``), exact at the
    steps' edges: 0.3 lost in steps of 0.15 is 2."""
    return math.floor(share / step + 1e-9)


def charge_failure(
    o: MusketOptions, before: str, roll: int, value: int, cavalry: bool = False
) -> str:
    """The state after a failed charge test: unchanged (the unit stays in the firefight),
    or, failing by ``closing_recoil_margin`` or more, thrown back: ``spent`` under
    ``assault_exhaustion`` (``disrupted`` without it, so it falls back). Cavalry under
    option ``cavalry_charge_home`` is thrown back whatever the margin. Failing by option
    ``closing_rout_margin`` or more, it is ``routed``, whatever it is [ours]."""
    broken = o.closing_rout_margin
    if broken is not None and roll - value >= broken:
        return "routed"
    margin = o.closing_recoil_margin
    home = cavalry and o.cavalry_charge_home
    if not home and (margin is None or roll - value < margin):
        return before
    return "spent" if o.assault_exhaustion is not None else "disrupted"


def decide_rally(b: Battle, unit: UnitState) -> Rallied | None:
    """A disrupted or routed unit with no enemy next to it rallies one step on d6 ≤ morale.

    Under option ``assault_exhaustion`` a disrupted attacker rallies only to
    ``spent``, and a spent unit rallies to good order only out of fire
    (:func:`out_of_fire`); under ``routed_rally_out_of_fire`` a routed unit does not
    try in a turn it was fired on.
    """
    if unit.morale not in _STEP_UP or unit.hex is None or b.adjacent_enemy(unit):
        return None
    if unit.morale == "spent" and not out_of_fire(b, unit):
        return None
    if unit.morale == "routed" and b.options.routed_rally_out_of_fire and b.fired_on(unit):
        return None
    mods = b.morale_modifiers(unit, rally=True)
    value = b.morale_base(unit) + sum(mods.values())
    roll, draw = b.stream("rally", unit.id).roll(6)
    success = roll <= value
    after = rally_to(b.options, unit.morale, b.attacking(unit)) if success else unit.morale
    fields = {
        **stamp(b),
        "unit": unit.id,
        "morale_value": value,
        "modifiers": mods,
        "roll": roll,
        "draws": [draw],
        "success": success,
        "before": unit.morale,
        "after": after,
    }
    return trusted(Rallied, fields)  # every value of its field's exact type (check_line)


def decide_rest(b: Battle, unit: UnitState) -> Rested | None:
    """A unit that neither moved, fired nor fought this turn may recover fatigue [ours]."""
    t = b.kernel.turn  # b.turn without the property: asked of every unit every turn
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
    fields = {**stamp(b), "unit": unit.id, "p": p, "draws": [draw], "recovered": recovered}
    return trusted(Rested, fields)  # every value of its field's exact type (check_line)

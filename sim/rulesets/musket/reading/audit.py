"""Invariants of a musket log, checked event by event by ``battlesim verify``.

:func:`audit` receives each event with the state *before* it and returns a
message when the event could not have been produced by the rules from that
state: illegal morale transitions, arithmetic that does not add up, fire
from a routed unit, a path that jumps, losses that do not add up.
:func:`audit_change` is the part of it that holds whatever the dice: who may fire or
charge on whom, a defender's stand test and what its verdict makes of the melee, no
fatigue from a loss that draws none and no morale check from a loss of 0, and a winner the
battle's state gives; ``fork``
holds a changed event to it.
"""

from __future__ import annotations

import json
import math
from itertools import pairwise

from engine.events import Event, TurnEnded
from sim.rulesets.musket.model.data import QUALITY_MORALE
from sim.rulesets.musket.model.events import (
    BattleEnded,
    Casualties,
    Fired,
    Meleed,
    MoraleTested,
    Moved,
    Rallied,
)
from sim.rulesets.musket.model.hexmap import distance
from sim.rulesets.musket.model.scenario import MusketScenario, order_at
from sim.rulesets.musket.model.state import BattleState, UnitState
from sim.rulesets.musket.rules import combat
from sim.rulesets.musket.rules.melee import EXPONENT_CAP, attacker_chance
from sim.rulesets.musket.rules.morale import (
    charge_failure,
    failure_state,
    rally_to,
    takes_stand_test,
)
from sim.text.grammar import count

__all__ = ["audit", "audit_change"]

_UP = {"routed": "disrupted", "disrupted": "good", "spent": "good"}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _arithmetic(c: Casualties) -> str | None:
    if not _close(c.modifier, sum(c.modifiers.values())):
        return f"modifier {c.modifier} is not the sum of its parts {c.modifiers}"
    r = combat.casualty_range(c.v, c.modifier, c.lcv, c.hcv)
    if not (_close(r.effective, c.effective) and _close(r.low, c.low) and _close(r.high, c.high)):
        return f"effective value / range {c.effective}, {c.low}..{c.high} do not follow from V, m"
    if not c.low - 1e-9 <= c.value <= c.high + 1e-9:
        return f"casualty value {c.value} lies outside {c.low}..{c.high}"
    if c.casualties not in (math.floor(c.value), math.floor(c.value) + 1):
        return f"{count(c.casualties, 'casualty')} is not {c.value} rounded"
    if c.casualties < 0 or c.guns_lost < 0 or c.fatigue_added < 0:
        return "negative loss or fatigue"
    return None


def _fatigue_drawn(
    sc: MusketScenario, unit: UnitState, c: Casualties, factor: float, field: str
) -> str | None:
    """Fatigue from a loss with its two draws, the last before the check's (drawn when
    c > 0): F = (b + (3b - b)·u) × factor from b, the rounded casualties (``fatigue_from:
    rounded``) or the casualty value (``unrounded``); ``fatigue_added`` is F randomly
    rounded by the second draw and capped at ``fatigue_max`` less the unit's fatigue before
    the loss (docs/rules/musket.md, *Fatigue*; ``rules/results.py:_after``). A loss with b
    at 0 draws none (:func:`_fatigue`). ``unit`` takes the loss; ``field`` names it."""
    o = sc.options
    b = c.casualties if o.fatigue_from == "rounded" else c.value
    end = len(c.draws) - (1 if c.casualties > 0 else 0)
    if b <= 0 or end < 2:
        return None if b <= 0 else f"{field} has no fatigue draws for its loss"
    value = (b + (3.0 * b - b) * c.draws[end - 2].u) * factor
    if not _close(value, c.fatigue_value):
        return (
            f"{field}.fatigue_value {c.fatigue_value} is not (b + 2b·u) × {factor} from "
            f"b = {b} and its draw: it is {value}"
        )
    n = math.floor(c.fatigue_value)
    rounded = n + 1 if c.draws[end - 1].u < c.fatigue_value - n else n
    added = max(0, min(rounded, o.fatigue_max - unit.fatigue))
    if c.fatigue_added != added:
        return (
            f"{field}.fatigue_added {c.fatigue_added} is not fatigue_value {c.fatigue_value} "
            f"rounded by its draw ({rounded}) and capped at fatigue_max {o.fatigue_max} less "
            f"{unit.id}'s fatigue {unit.fatigue}: it is {added}"
        )
    return None


def _losses_add_up(u: UnitState) -> str | None:
    lost = u.guns_lost if u.kind == "artillery" else u.men_lost
    if u.strength < 0:
        return f"{u.id} has negative strength {u.strength}"
    if lost + u.strength != u.initial:
        return f"{u.id}: lost {lost} + strength {u.strength} != initial {u.initial}"
    return None


def _heavy(sc: MusketScenario, unit: UnitState) -> bool:
    limit = sc.options.rout_loss
    lost = (unit.initial - unit.strength) / unit.initial if unit.initial > 0 else 0.0
    return limit is not None and lost >= limit


def _attacking(sc: MusketScenario, uid: str, turn: int) -> bool:
    """The unit's order in ``turn`` (its later orders too, ours) is an attack."""
    return any(
        order_at(u, turn).kind in ("charge", "engage")
        for s in sc.sides
        for u in s.units
        if u.id == uid
    )


def _morale(sc: MusketScenario, state: BattleState, e: MoraleTested) -> str | None:
    unit = state.units[e.unit]
    if e.before != unit.morale:
        return f"{e.unit} tested as {e.before} but was {unit.morale}"
    if e.morale_value != e.base + sum(e.modifiers.values()):
        return "morale value is not base + modifiers"
    if e.roll != 1 + math.floor(e.draws[0].u * 6) or e.passed != (e.roll <= e.morale_value):
        return f"roll {e.roll} / pass {e.passed} do not follow from the draw and value"
    if e.reason == "charge":
        cavalry = unit.kind == "cavalry"
        failed = charge_failure(sc.options, e.before, e.roll, e.morale_value, cavalry)
    else:
        failed = failure_state(e.before, e.phase, _heavy(sc, unit))
    expected = e.before if e.passed else failed
    if e.after != expected:
        return f"illegal morale transition {e.before} -> {e.after} in {e.phase}"
    return _contagion(sc, state, e)


def _prisoners(state: BattleState, e: MoraleTested) -> str | None:
    """A check's prisoners are taken only when it routs the unit, and never more than it has
    (``rules/morale.py:rout_prisoners``), whatever its dice: a fork that makes a routing
    check hold gives them back (``prisoners=0``)."""
    if not e.prisoners:
        return None
    if e.prisoners < 0:
        return _negative("prisoners", e.prisoners)
    unit = state.units[e.unit]
    if not e.after == "routed" != e.before:
        return (
            f"{e.unit} does not rout in this check ({e.before} -> {e.after}), so it gives up "
            f"no prisoners: prisoners must be 0, not {e.prisoners}"
        )
    if e.prisoners > unit.strength:
        men = "guns" if unit.kind == "artillery" else "men"
        return (
            f"{e.unit} gives up {count(e.prisoners, 'prisoner')}, more than the "
            f"{unit.strength} {men} it has"
        )
    return None


def _negative(field: str, value: int) -> str:
    """A count of men (guns) an event says a unit lost that is below 0: the state would take
    a negative loss, giving the unit men it never had (``state.py:_pursued``)."""
    return f"{field} cannot be negative ({value}): it counts men (guns, for a battery) lost"


def _melee_counts(state: BattleState, e: Meleed) -> str | None:
    """A melee's ``pursuit_losses`` and ``prisoners`` are counts: 0 or more, and together
    never more than the loser has left after its melee casualties, whatever the dice: the
    pursuit takes at most what is left, the rout's prisoners at most what the pursuit
    leaves (``rules/melee.py:decide_melee``, ``pursuit_loss``, ``rout_prisoners``), and of
    the pursuit's men those taken prisoner are counted with the rout's."""
    for field, value in (("pursuit_losses", e.pursuit_losses), ("prisoners", e.prisoners)):
        if value < 0:
            return _negative(field, value)
    loser = state.units[e.target if e.winner == e.unit else e.unit]
    losses = e.defender_losses if loser.id == e.target else e.attacker_losses
    guns = loser.kind == "artillery"
    lost = losses.guns_lost if guns else losses.casualties
    left = max(0, loser.strength - lost)
    if e.pursuit_losses + e.prisoners <= left:
        return None
    unit = "gun" if guns else "man"
    taken = [
        *([f"{count(e.pursuit_losses, unit, 'men')} to the pursuit"] if e.pursuit_losses else []),
        *([count(e.prisoners, "prisoner")] if e.prisoners else []),
    ]
    return (
        f"{loser.id} gives up {' and '.join(taken)}, more than the {count(left, unit, 'men')} "
        f"it has after losing {lost} in the melee"
    )


def _melee_taken(sc: MusketScenario, state: BattleState, e: Meleed) -> str | None:
    """A melee takes men (guns) from its loser besides its casualties only where the rules
    do, whatever the dice (``rules/melee.py:decide_melee``): a cavalry winner's pursuit of
    infantry or artillery (``pursuit_loss``: its ``pursuit_losses``, and with
    ``cavalry_pursuit_prisoners`` some of its ``prisoners``), and the prisoners of a rout
    when the melee routs its loser (``rout_prisoners``: the loser not routed before it, and
    routed by it, or eliminated as its prisoners take all it has left). A battery the melee
    captures (``guns_captured``) is eliminated whole and gives up neither. How many is
    :func:`_melee_counts`' to bound."""
    loser = state.units[e.target if e.winner == e.unit else e.unit]
    winner = state.units[e.winner]
    if loser.kind == "artillery" and sc.options.guns_captured:
        captured = f"{loser.id} is a battery the melee captures (guns_captured), so"
        if e.pursuit_losses > 0:
            return (
                f"{captured} no pursuit follows: pursuit_losses must be 0, not {e.pursuit_losses}"
            )
        if e.prisoners > 0:
            return f"{captured} it gives up no prisoners: prisoners must be 0, not {e.prisoners}"
        return None
    pursued = winner.kind == "cavalry" and loser.kind in ("infantry", "artillery")
    if e.pursuit_losses > 0 and not pursued:
        why = (
            f"{winner.id}, the melee's winner, is {winner.kind}, and only cavalry pursues"
            if winner.kind != "cavalry"
            else f"{loser.id}, the melee's loser, is {loser.kind}, and cavalry pursues only "
            "infantry or artillery"
        )
        return f"{why}: pursuit_losses must be 0, not {e.pursuit_losses}"
    # a defender whose stand test fails routs before the melee: it was not routed before it
    routs = e.loser_state in ("routed", "eliminated") and loser.morale != "routed"
    if e.prisoners > 0 and not routs and not pursued:
        return (
            f"{loser.id} does not rout in this melee ({loser.morale} -> {e.loser_state}), so it "
            f"gives up no prisoners: prisoners must be 0, not {e.prisoners}"
        )
    return None


def _contagion(sc: MusketScenario, state: BattleState, e: MoraleTested) -> str | None:
    """A ``friend_routed`` check (option ``rout_contagion``) names a routed friend within
    the option's reach, its draw on the stream that friend names; no other check names one."""
    if (e.reason == "friend_routed") != (e.friend is not None):
        return f"{e.unit}'s {e.reason} check names the friend {e.friend}"
    if e.friend is None:
        return None
    radius, unit = sc.options.rout_contagion, state.units[e.unit]
    friend = state.units.get(e.friend)
    if radius is None:
        return f"{e.unit} checked for {e.friend}'s rout with rout_contagion off"
    if friend is None or friend.side != unit.side or friend.morale != "routed":
        return f"{e.unit} checked for {e.friend}'s rout, but {e.friend} is no routed friend"
    if unit.hex is None or friend.hex is None or distance(unit.hex, friend.hex) > radius:
        return f"{e.unit} checked for {e.friend}'s rout beyond {count(radius, 'hex')}"
    if not e.draws[0].stream.endswith(f"/morale/{e.phase}/{e.unit}/{e.friend}"):
        return f"{e.unit}'s check for {e.friend}'s rout drew on {e.draws[0].stream}"
    return None


def _rally(sc: MusketScenario, state: BattleState, e: Rallied) -> str | None:
    unit = state.units[e.unit]
    if e.before != unit.morale or e.before not in _UP:
        return f"{e.unit} rallied from {e.before} but was {unit.morale}"
    if e.success != (e.roll <= e.morale_value):
        return "rally success does not follow from the roll"
    up = rally_to(sc.options, e.before, _attacking(sc, e.unit, e.turn))
    expected = up if e.success else e.before
    return None if e.after == expected else f"illegal rally {e.before} -> {e.after}"


def _moved(state: BattleState, e: Moved) -> str | None:
    unit = state.units[e.unit]
    if not unit.active or unit.hex is None or tuple(e.start) != unit.hex:
        return f"{e.unit} moved from {e.start} but stood at {unit.hex}"
    steps: list[tuple[int, int]] = [(e.start[0], e.start[1]), *((h[0], h[1]) for h in e.path)]
    if any(distance(a, b) != 1 for a, b in pairwise(steps)):
        return f"{e.unit}'s path is not a chain of neighbouring hexes"
    if e.reason in ("order", "break_off") and unit.morale != "good":
        return f"{e.unit} moved on its order while {unit.morale}"
    if e.reason == "fall_back" and unit.morale != "disrupted":
        return f"{e.unit} fell back disrupted while {unit.morale}"
    if e.reason == "withdraw" and unit.morale != "spent":
        return f"{e.unit} withdrew spent while {unit.morale}"
    end = state.occupant.get((e.path[-1][0], e.path[-1][1]))
    if end is not None and end != e.unit:
        return f"{e.unit} ended its move on {end}'s hex"
    return None


def _odds(e: Meleed) -> str | None:
    """The ``odds`` rule's winner follows from its weights, ratio and draw."""
    o = e.odds
    if o is None:
        return None
    ratio = o.attacker_weight / o.defender_weight if o.defender_weight > 0 else EXPONENT_CAP
    if not _close(ratio, o.ratio) or not _close(attacker_chance(o.ratio, o.exponent), o.p_attacker):
        return f"odds {o.ratio} / chance {o.p_attacker} do not follow from the weights"
    if o.attacker_wins != (o.draws[0].u < o.p_attacker):
        return "the melee's winner does not follow from the draw"
    if (e.winner == e.unit) != o.attacker_wins:
        return f"{e.winner} is named the winner against the odds draw"
    return None


def _stand_lawful(sc: MusketScenario, state: BattleState, e: Meleed) -> str | None:
    """What the defender's stand test (option ``cavalry_stand_test``) must be whatever its
    die: taken exactly when due, its value from its quality and the option, and, failed,
    the melee fought against a routed defender (weighed as routed, a loser routed)."""
    o, t = sc.options, e.stand_test
    attacker, defender = state.units[e.unit], state.units[e.target]
    due = takes_stand_test(o, attacker, defender, e.flank or "front")
    if due != (t is not None):
        return f"{e.target} {'took no' if t is None else 'took a'} stand test, against the rules"
    if t is None:
        return None
    shift = o.cavalry_stand_test or 0
    if (
        t.base != QUALITY_MORALE[defender.quality]
        or t.modifiers.get("cavalry_stand_test", 0) != shift
    ):
        return f"{e.target}'s stand test is not its quality's value with the option"
    if t.morale_value != t.base + sum(t.modifiers.values()):
        return "stand test value is not base + modifiers"
    if t.passed:
        return None
    routed = defender.strength / o.routed_defender_divisor
    if e.odds is not None and not _close(e.odds.defender_strength, routed):
        return f"{e.target} failed its stand test but was not weighed as routed"
    if e.winner == e.unit and e.loser_state not in ("routed", "eliminated"):
        return f"{e.target} failed its stand test but lost the melee {e.loser_state}"
    return None


def _stand(e: Meleed) -> str | None:
    """The stand test's dice: its roll follows from its draw and its verdict from the roll
    and value (the rest is :func:`_stand_lawful`'s, in :func:`audit_change`)."""
    t = e.stand_test
    if t is None:
        return None
    if t.roll != 1 + math.floor(t.draws[0].u * 6) or t.passed != (t.roll <= t.morale_value):
        return f"stand test roll {t.roll} / pass {t.passed} do not follow from the draw and value"
    return None


def _melee(sc: MusketScenario, state: BattleState, e: Meleed) -> str | None:
    for c in (e.attacker_losses, e.defender_losses):
        if (problem := _arithmetic(c)) is not None:
            return problem
    if (problem := _odds(e)) is not None:
        return problem
    won, lost = sc.options.melee_fatigue_factor, sc.options.melee_loser_fatigue_factor
    for uid, c, field in (
        (e.unit, e.attacker_losses, "attacker_losses"),
        (e.target, e.defender_losses, "defender_losses"),
    ):
        factor = won if e.winner == uid else lost
        if (problem := _fatigue_drawn(sc, state.units[uid], c, factor, field)) is not None:
            return problem
    return _losses_add_up(state.units[e.unit]) or _losses_add_up(state.units[e.target])


def _verdict(state: BattleState, e: BattleEnded) -> str | None:
    """The winner follows from the armies that broke and the objective points it records:
    the one army left standing; none when every army broke; else the most points, or a
    draw when they are even."""
    standing = [s for s, side in state.sides.items() if not side.broken]
    if e.winner is not None and e.winner not in state.sides:
        return f"the winner {e.winner} is no side of the battle"
    if e.winner is not None and e.winner not in standing:
        return f"{e.winner} is named the winner, but its army broke"
    if len(standing) == 1:
        expected: str | None = standing[0]
    elif not standing:
        expected = None
    else:
        points = sorted(((e.objective_points.get(s, 0), s) for s in standing), reverse=True)
        expected = points[0][1] if points[0][0] > points[1][0] else None
    if e.winner != expected:
        named, given = e.winner or "a draw", expected or "a draw"
        return f"{named} is named the winner, but the battle gives {given}"
    return None


def _fatigue(sc: MusketScenario, c: Casualties, field: str) -> str | None:
    """A loss adds fatigue only from what fatigue is drawn from: the rounded casualties
    (``fatigue_from: rounded``) or the casualty value (``unrounded``). Where that is 0, no
    fatigue draw is taken, and ``fatigue_value`` is 0.0 and ``fatigue_added`` 0 whatever the
    dice (docs/rules/musket.md, *Fatigue*; ``rules/results.py:_after``): a fork that takes a
    loss to 0 takes its fatigue with it. ``field`` names the result in the event."""
    reading = sc.options.fatigue_from
    if reading == "rounded":
        base: float = c.casualties
        what = f"{count(c.casualties, 'casualty')} add"  # none or fewer: the plural
    else:
        base, what = c.value, f"a casualty value of {c.value} adds"
    if not base <= 0 or (c.fatigue_value == 0 and c.fatigue_added == 0):
        return None
    drawn = (("fatigue_value", "0.0", c.fatigue_value), ("fatigue_added", "0", c.fatigue_added))
    wrong = [(name, zero, was) for name, zero, was in drawn if was != 0]
    said = ", and ".join(
        f"{field}.{name} {'must be ' if not i else ''}{zero}, not {was}"
        for i, (name, zero, was) in enumerate(wrong)
    )
    return f"{what} no fatigue (fatigue_from: {reading}, no fatigue draw): {said}"


def _shown(value: object) -> str:
    """A field's value as ``fork --set`` takes it (``null``, ``false``, ``0.0``, ``loss``)."""
    return value if isinstance(value, str) else json.dumps(value)


def _no_check(sc: MusketScenario, unit: UnitState, c: Casualties, field: str) -> str | None:
    """A loss of 0 casualties takes no morale-check draw: its p = c/(c + 25) is 0, so no
    check for the loss (``loss``) and none for heavy losses (``heavy_losses``, a loss of
    men); the one check it may require is a unit's at maximum fatigue that takes fatigue
    (``max_fatigue``: a fatigue value above 0, which only ``fatigue_from: unrounded`` draws
    from a loss of 0), and then it must (docs/rules/musket.md, *Morale checks* and
    *Fatigue*; ``rules/results.py:_after``). A fork that takes a loss to 0 takes the check
    it caused with it. ``unit`` is the unit that takes the loss, before it."""
    if c.casualties > 0:
        return None
    base = c.casualties if sc.options.fatigue_from == "rounded" else c.value
    tired = unit.fatigue >= sc.options.fatigue_max and not base <= 0 and c.fatigue_value > 0
    reason = "max_fatigue" if tired else None
    fields = (
        ("morale_check_p", 0.0, c.morale_check_p),
        ("morale_check", reason is not None, c.morale_check),
        ("morale_check_reason", reason, c.morale_check_reason),
    )
    wrong = [(name, want, was) for name, want, was in fields if was != want]
    if not wrong:
        return None
    said = ", and ".join(
        f"{field}.{name} {'must be ' if not i else ''}{_shown(want)}, not {_shown(was)}"
        for i, (name, want, was) in enumerate(wrong)
    )
    why = "p = c/(c + 25) = 0, no check draw"
    if tired:
        why += f"; {unit.id} is at maximum fatigue and takes fatigue: max_fatigue"
    casualties = count(c.casualties, "casualty")  # none or fewer: the plural
    return f"{casualties} require no morale check for the loss ({why}): {said}"


def _zero_loss(sc: MusketScenario, unit: UnitState, c: Casualties, field: str) -> str | None:
    """What a loss of 0 cannot cause: fatigue where none is drawn (:func:`_fatigue`) and a
    morale check (:func:`_no_check`), each named with the fields to set."""
    said = [p for p in (_fatigue(sc, c, field), _no_check(sc, unit, c, field)) if p is not None]
    return "; ".join(said) or None


def _foes(state: BattleState, e: Fired | Meleed, did: str) -> str | None:
    """The unit acts on a unit of another side."""
    side = state.units[e.unit].side
    if state.units[e.target].side == side:
        return f"{e.unit} {did} {e.target}, a unit of its own side ({side})"
    return None


def audit_change(sc: MusketScenario, state: BattleState, event: Event) -> str | None:
    """What ``event`` breaks whatever its dice, else None: fire from a unit out of the
    battle or routed, or on a unit out of it or of its own side; a charge on its own side;
    a defender's stand test not due, not of its value, or failed with the melee not fought
    against it routed (:func:`_stand_lawful`: its roll and verdict are dice); fatigue from a
    loss that draws none, or a morale check from a loss of 0 (:func:`_zero_loss`); a negative
    count of men taken (a melee's ``pursuit_losses`` or ``prisoners``, a check's
    ``prisoners``), or more than the unit has (a melee's loser, after its casualties); a
    melee's pursuit where no cavalry pursues, or prisoners where it neither routs its loser
    nor is pursued, or either from a battery it captures (:func:`_melee_taken`); a winner
    the battle does not give."""
    match event:
        case Fired():
            firer, target = state.units[event.unit], state.units[event.target]
            if not firer.active or firer.morale == "routed":
                return f"{event.unit} fired while {firer.morale}"
            if not target.active:
                return f"{event.unit} fired on {event.target}, which is out of the battle"
            return _foes(state, event, "fired on") or _zero_loss(sc, target, event.result, "result")
        case Meleed():
            if event.winner not in (event.unit, event.target):
                return f"{event.winner} is named the melee's winner, but did not fight in it"
            return (
                _foes(state, event, "charged")
                or _melee_taken(sc, state, event)
                or _melee_counts(state, event)
                or _stand_lawful(sc, state, event)
                or _zero_loss(sc, state.units[event.unit], event.attacker_losses, "attacker_losses")
                or _zero_loss(
                    sc, state.units[event.target], event.defender_losses, "defender_losses"
                )
            )
        case MoraleTested():
            return _prisoners(state, event)
        case BattleEnded():
            return _verdict(state, event)
    return None


def audit(sc: MusketScenario, state: BattleState, event: Event) -> str | None:
    """The broken invariant if ``event`` cannot follow ``state``, else None."""
    if (problem := audit_change(sc, state, event)) is not None:
        return problem
    match event:
        case Fired():
            target = state.units[event.target]
            return (
                _arithmetic(event.result)
                or _fatigue_drawn(sc, target, event.result, 1.0, "result")
                or _losses_add_up(target)
            )
        case Meleed():
            return _melee(sc, state, event) or _stand(event)
        case MoraleTested():
            return _morale(sc, state, event)
        case Rallied():
            return _rally(sc, state, event)
        case Moved():
            return _moved(state, event)
        case TurnEnded():
            for unit in state.units.values():
                if (problem := _losses_add_up(unit)) is not None:
                    return problem
    return None

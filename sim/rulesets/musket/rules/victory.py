"""Victory: armies break at thresholds; objectives decide at the turn limit.

At the end of every turn each unbroken army is measured: the share of its
units out — routed or eliminated, or spent having lost ``spent_out_loss`` of
their strength (option ``spent_counts_out``) — (``break_units``; the event's
``reason`` says "routed or eliminated" for all of them, as rules versions 1–5
wrote it: its words are part of every replay's bytes) and the share of its men lost,
a gun counting as ``men_per_gun`` men (``break_losses``).  Reaching either
breaks it.  When every army but one is broken, that one wins; when all are,
the battle is a draw.  At the turn limit — or, with option
``assault_over_ends`` [ours], at the end of a turn in which the whole attack has
been thrown back (:func:`assault_over`) — the side with the most objective
points wins, else it is a draw.  An objective belongs to the side of the
unrouted unit standing on it, else to the side that held it at the start [ours].

Causes: a ``musket.side_broken`` names the last blow the army took before it
broke (the latest event that cost it men or guns or routed one of its
units, see :func:`blows`); a ``musket.battle_ended`` that follows breaks
names the last army to break.  An end at the turn limit is a decision of its
own and names none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.events import Event
from sim.contract.emit import stamp
from sim.rulesets.musket.model.events import (
    BattleEnded,
    Casualties,
    Fired,
    Meleed,
    MoraleTested,
    SideBroken,
)
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.scenario import order_at
from sim.rulesets.musket.model.state import BattleState, UnitState
from sim.rulesets.musket.rules.context import Battle
from sim.text.grammar import agree

__all__ = [
    "assault_over",
    "blows",
    "decide_breaks",
    "decide_end",
    "side_shares",
    "spent_out_limit",
]

_OUT = ("routed", "eliminated")


def spent_out_limit(b: Battle) -> float | None:
    """The loss share at which a spent unit counts out for its army's break:
    ``spent_out_loss``, or ``rout_loss`` when that is null; None: never."""
    return _limit(b.options)


def _limit(o: MusketOptions) -> float | None:
    return o.spent_out_loss if o.spent_out_loss is not None else o.rout_loss


def _spent_out(b: Battle, u: UnitState) -> bool:
    """A spent unit that has lost ``spent_out_loss`` (null: ``rout_loss``) of its
    strength, with option ``spent_counts_out``: an assault thrown back and cut up is over."""
    return spent_and_out(b.options, u)


def spent_and_out(o: MusketOptions, u: UnitState) -> bool:
    """:func:`_spent_out` from the options alone (for the narrative of a break)."""
    if u.morale != "spent":
        return False
    return _lost_enough(o, u)


def disrupted_and_out(o: MusketOptions, u: UnitState) -> bool:
    """A disrupted unit that counts out as a spent one would, with option
    ``disrupted_counts_out`` (and ``spent_counts_out``): a rally to spent never turns it
    from in to out."""
    if u.morale != "disrupted" or not o.disrupted_counts_out:
        return False
    return _lost_enough(o, u)


def _lost_enough(o: MusketOptions, u: UnitState) -> bool:
    """With ``spent_counts_out``: ``u`` has lost ``spent_out_loss`` (null: ``rout_loss``)."""
    limit = _limit(o)
    if not o.spent_counts_out or limit is None:
        return False
    share = 0.0 if u.initial <= 0 else (u.initial - u.strength) / u.initial  # Battle.loss_share
    return share >= limit


def _lost(unit: UnitState, c: Casualties) -> bool:
    return (c.guns_lost if unit.kind == "artillery" else c.casualties) > 0


def side_shares(b: Battle, side: str) -> tuple[float, float]:
    """(share of units routed or eliminated — or spent, with option ``spent_counts_out``, or
    disrupted, with ``disrupted_counts_out`` —, share of men lost) of one army."""
    # one pass over the units (at every turn's end): _spent_out asked only of a spent unit
    # (False for any other); a gun counts men_per_gun men
    per_gun = b.options.men_per_gun
    count = out = initial = lost = 0
    for u in b.state.units.values():
        if u.side != side:
            continue
        count += 1
        morale = u.morale
        if (
            morale in _OUT
            or (morale == "spent" and _spent_out(b, u))
            or (morale == "disrupted" and disrupted_and_out(b.options, u))
        ):
            out += 1
        weight = per_gun if u.kind == "artillery" else 1
        initial += u.initial * weight
        lost += (u.initial - u.strength) * weight
    return out / count, lost / initial


def blows(event: Event, state: BattleState) -> tuple[str, ...]:
    """The armies an event struck: it cost them men or guns, or routed one of their units.

    These are the events that move an army toward its break thresholds; the
    battle keeps the latest of each army's to name as its break's cause.
    """
    units = state.units
    if isinstance(event, Fired):  # _lost, its fields read from __dict__ (the commonest event)
        data = event.__dict__
        target, c = units[data["target"]], data["result"].__dict__
        lost = c["guns_lost"] if target.kind == "artillery" else c["casualties"]
        return (target.side,) if lost > 0 else ()
    if isinstance(event, Meleed):
        attacker, defender = units[event.unit], units[event.target]
        loser = defender if event.winner == attacker.id else attacker
        struck = [
            _lost(attacker, event.attacker_losses)
            or (loser is attacker and (event.loser_state in _OUT or event.pursuit_losses > 0)),
            _lost(defender, event.defender_losses)
            or (loser is defender and (event.loser_state in _OUT or event.pursuit_losses > 0))
            or (event.stand_test is not None and not event.stand_test.passed),
        ]
        sides = [u.side for u, hit in zip((attacker, defender), struck, strict=True) if hit]
        return tuple(dict.fromkeys(sides))
    if isinstance(event, MoraleTested) and event.after in _OUT and event.before not in _OUT:
        return (units[event.unit].side,)
    return ()


def decide_breaks(b: Battle, last_blow: Mapping[str, int]) -> list[SideBroken]:
    """Armies that reach a break threshold this turn, in scenario order.

    Args:
        last_blow: the seq of the latest blow (:func:`blows`) each army took;
            it is the break's cause.
    """
    broken = []
    for side in b.scenario.sides:
        if b.state.sides[side.id].broken:
            continue
        units_out, losses = side_shares(b, side.id)
        reasons = []
        if units_out >= side.break_units:
            reasons.append(
                f"{units_out:.0%} of its units routed or eliminated "
                f"(breaks at {side.break_units:.0%})"
            )
        if losses >= side.break_losses:
            reasons.append(f"{losses:.0%} of its men lost (breaks at {side.break_losses:.0%})")
        if reasons:
            broken.append(
                SideBroken(
                    **stamp(b, last_blow.get(side.id)),
                    side=side.id,
                    reason="; ".join(reasons),
                    units_out_share=units_out,
                    losses_share=losses,
                )
            )
    return broken


def objective_points(b: Battle) -> dict[str, int]:
    """Objective points held by each side now."""
    points = {s.id: 0 for s in b.scenario.sides}
    for obj in b.scenario.victory.objectives:
        uid = b.state.occupant.get((obj.hex[0], obj.hex[1]))
        holder = obj.held_by
        if uid is not None and b.state.units[uid].morale != "routed":
            holder = b.state.units[uid].side
        if holder is not None:
            points[holder] += obj.points
    return points


def assault_over(b: Battle) -> bool:
    """True when the battle's attack is over [ours, option ``assault_over_ends``]: some
    unit with an attack order (``charge`` or ``engage``) started the battle in good order,
    so the attack was made, and no unit with an attack order is still in the attack — on
    the field, in good order and not broken off (``break_off_loss``). Every attacker is
    disrupted, spent, routed, eliminated, gone or has broken off; a spent or disrupted
    one could rally and come on again, but the whole attack has been thrown back at once.
    When every attacker starts out of good order (a campaign carries a routed unit into
    its next battle disrupted), no attack was made at the start to be thrown back, and
    the rule does not apply in that battle.  A unit in good order whose later order (ours)
    sends it into the attack after this turn is still to go in: the attack is not over.
    """
    for u in b.state.units.values():
        if u.morale != "good" or u.hex is None:
            continue
        if (b.attacking(u) and not b.broken_off(u)) or b.attack_to_come(u):
            return False  # still in the attack, or (a later order, ours) still to go in
    return any(
        spec.morale == "good" and order_at(spec, b.kernel.turn).kind in ("charge", "engage")
        for side in b.scenario.sides
        for spec in side.units
    )


def _decided(
    b: Battle, standing: list[str], points: dict[str, int], why: str
) -> tuple[str | None, str]:
    """Winner and reason when no army broke: the most objective points, or a draw."""
    ranked = sorted(standing, key=lambda s: -points[s])
    if points[ranked[0]] > points[ranked[1]]:
        name = b.sides[ranked[0]].name
        return ranked[
            0
        ], f"{why}: {agree(name, 'holds')} the most objective points ({points[ranked[0]]})"
    return None, f"{why}: no army broke and objectives are even"


def decide_end(b: Battle, last_turn: bool, broke: Sequence[SideBroken] = ()) -> BattleEnded | None:
    """The end of the battle after this turn's breaks, or None while it goes on.

    Args:
        broke: this turn's breaks, as logged; an end they bring names the last.
    """
    standing = [s.id for s in b.scenario.sides if not b.state.sides[s.id].broken]
    points = objective_points(b)
    cause = broke[-1].seq if broke else None
    if len(standing) == 1:
        winner: str | None = standing[0]
        reason = f"every other army broke; {agree(b.sides[standing[0]].name, 'holds the field')}"
    elif not standing:
        winner, reason = None, "every army broke"
    elif last_turn:
        (winner, reason), cause = _decided(b, standing, points, "turn limit"), None
    elif b.options.assault_over_ends and assault_over(b):
        (winner, reason), cause = _decided(b, standing, points, "the attack is over"), None
    else:
        return None
    return BattleEnded(
        **stamp(b, cause),
        winner=winner,
        objective_points=points,
        reason=reason,
    )

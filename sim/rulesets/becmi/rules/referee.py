"""What belongs to the round, not to one combatant: initiative, coming to, morale, the end.

Causes: a combatant coming to names the blow that knocked it out; a morale
check names the fall that reached its trigger (the side's first fall, or the
one that put half of it out); an end names the last fall of the sides no
longer standing.  A fall is a kill, a knock-out or a flight
(``CombatantState.fallen_by``).

Draws: ``<round>/initiative/<side>`` (one d6 per side) and
``<round>/morale/<side>`` (2d6).
"""

from __future__ import annotations

from typing import Literal

from engine.events import Draw
from sim.contract.emit import Rolls, stamp
from sim.rulesets.becmi.model.events import BattleEnded, Initiative, MoraleChecked, Recovered
from sim.rulesets.becmi.model.scenario import SideSpec
from sim.rulesets.becmi.rules.context import Battle
from sim.text.grammar import agree

__all__ = ["decide_end", "decide_initiative", "decide_morale", "decide_recoveries", "standing"]

Trigger = Literal["first_fallen", "half_out"]


def decide_recoveries(b: Battle) -> list[Recovered]:
    """Knocked-out combatants whose t rounds are over come to (scenario order)."""
    return [
        Recovered(
            **stamp(b, c.fallen_by),
            combatant=c.id,
            knocked_out_round=c.wakes_round - 1,
        )
        for c in b.state.combatants.values()
        if c.present and c.unconscious and c.wakes_round <= b.turn
    ]


def decide_initiative(b: Battle) -> Initiative:
    """Each side rolls d6 [src]; higher acts first, ties in scenario order."""
    rolls: dict[str, int] = {}
    draws: list[Draw] = []
    for side in b.scenario.sides:
        rolls[side.id] = Rolls(b.stream("initiative", side.id), draws).roll(6)
    index = {s.id: i for i, s in enumerate(b.scenario.sides)}
    order = sorted(rolls, key=lambda sid: (-rolls[sid], index[sid]))
    return Initiative(**stamp(b), rolls=rolls, order=order, draws=draws)


def _trigger(b: Battle, side: SideSpec) -> Trigger | None:
    """Which morale trigger the side has reached and not yet spent, if any."""
    s = b.state.sides[side.id]
    out = sum(1 for c in side.combatants if not b.state.combatants[c.id].conscious)
    if 2 * out >= len(side.combatants) and not s.half_out_checked:
        return "half_out"
    if out >= 1 and not s.first_fallen_checked:
        return "first_fallen"
    return None


def _trigger_cause(b: Battle, side: SideSpec, trigger: Trigger) -> int | None:
    """The fall that reached ``trigger``: the first, or the one that put half the side out."""
    falls = sorted(
        f
        for c in side.combatants
        if not b.state.combatants[c.id].conscious
        and (f := b.state.combatants[c.id].fallen_by) is not None
    )
    k = 1 if trigger == "first_fallen" else -(-len(side.combatants) // 2)
    return falls[min(k, len(falls)) - 1] if falls else None


def _morale_of(b: Battle, side: SideSpec) -> dict[str, int]:
    """ML of each of the side's monsters able to check: conscious, not wrestling."""
    return {
        m.id: m.morale
        for m in side.monsters
        if m.morale is not None
        and b.state.combatants[m.id].conscious
        and b.state.combatants[m.id].bout is None
    }


def decide_morale(b: Battle) -> list[MoraleChecked]:
    """Monster morale [src], an option: 2d6 against each monster's ML.

    A side checks when its first combatant falls (killed, knocked out or
    fled) and again when half are out; both at once make one check.  Only
    monsters with an ML that are conscious and not wrestling take part;
    each whose ML is below the total flees.
    """
    if not b.options.monster_morale:
        return []
    events = []
    for side in b.scenario.sides:
        trigger, morale = _trigger(b, side), _morale_of(b, side)
        if trigger is None or not morale:
            continue
        dice = Rolls(b.stream("morale", side.id))
        r1, r2 = dice.roll(6), dice.roll(6)
        events.append(
            MoraleChecked(
                **stamp(b, _trigger_cause(b, side, trigger)),
                side=side.id,
                trigger=trigger,
                rolls=[r1, r2],
                total=r1 + r2,
                morale=morale,
                fled=[cid for cid, ml in morale.items() if r1 + r2 > ml],
                draws=dice.draws,
            )
        )
    return events


def standing(b: Battle) -> list[str]:
    """Sides with at least one conscious combatant, in scenario order."""
    return [
        s.id
        for s in b.scenario.sides
        if any(b.state.combatants[c.id].conscious for c in s.combatants)
    ]


def _last_fall(b: Battle, up: list[str]) -> int | None:
    """The latest fall among the sides no longer standing: the one that ended the fight."""
    falls = [
        c.fallen_by
        for c in b.state.combatants.values()
        if c.side not in up and c.fallen_by is not None
    ]
    return max(falls, default=None)


def decide_end(b: Battle, last_round: bool) -> BattleEnded | None:
    """The fight ends when one side or none is left standing, or at the round limit."""
    up = standing(b)
    names = {s.id: s.name for s in b.scenario.sides}
    if len(up) == 1:
        reason = agree(names[up[0]], "is the only side left standing")
        return BattleEnded(
            **stamp(b, _last_fall(b, up)),
            winner=up[0],
            reason=reason,
            standing=up,
        )
    if not up:
        return BattleEnded(
            **stamp(b, _last_fall(b, up)),
            winner=None,
            reason="no side is left standing",
            standing=[],
        )
    if last_round:
        reason = f"round limit reached with {len(up)} sides standing"
        return BattleEnded(**stamp(b), winner=None, reason=reason, standing=up)
    return None

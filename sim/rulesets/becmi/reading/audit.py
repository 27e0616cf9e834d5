"""What a changed ``becmi`` event must still be, whatever its dice: ``fork`` holds it here.

:func:`audit_change` holds an attack or an unarmed blow to its parties — a combatant
able to fight, on a foe still in the fight, whose hit points are as logged — and a
morale check to the side's monsters that took it (each flees once, and only one that
checked) — and the end to the sides left standing (the one side standing wins; none
when no side or several are).
"""

from __future__ import annotations

from engine.events import Event
from sim.rulesets.becmi.model.events import Attacked, BattleEnded, MoraleChecked, Struck
from sim.rulesets.becmi.model.scenario import BecmiScenario
from sim.rulesets.becmi.model.state import BattleState

__all__ = ["audit_change"]


def _blow(state: BattleState, e: Attacked | Struck) -> str | None:
    """The attacker can fight, the target is a foe in the fight with the hp logged.

    What the blow leaves (``hp_after``, ``killed``) is the consequence a fork changes,
    one field at a time if it likes (the contract's ``fork-changes-an-event``): not held.
    """
    attacker, target = state.combatants[e.attacker], state.combatants[e.target]
    if not attacker.conscious:
        return f"{e.attacker} attacks, but is {_out(attacker.status)}"
    if target.side == attacker.side:
        return f"{e.attacker} attacks {e.target}, a combatant of its own side ({target.side})"
    if target.status != "ok":
        return f"{e.attacker} attacks {e.target}, which is {target.status}"
    if e.hp_before != target.hp:
        return f"{e.target} had {target.hp} hp, not {e.hp_before} as logged"
    return None


def _out(status: str) -> str:
    return "knocked out" if status == "ok" else status


def _morale(state: BattleState, e: MoraleChecked) -> str | None:
    """Those who checked are the side's; each who flees checked, and flees once."""
    if e.side not in state.sides:
        return f"{e.side} is no side of the battle"
    for cid in e.morale:
        c = state.combatants.get(cid)
        if c is None or c.side != e.side or not c.conscious:
            return f"{cid} checks morale for {e.side}, but is not one of its combatants able to"
    checked = ", ".join(e.morale)
    for i, cid in enumerate(e.fled):
        if cid not in e.morale:
            return f"{cid} flees, but only {checked} of {e.side} checked"
        if cid in e.fled[:i]:
            return f"{cid} flees twice"
    return None


def _verdict(sc: BecmiScenario, state: BattleState, e: BattleEnded) -> str | None:
    """The sides standing are those with a combatant able to fight, and the winner the one
    side standing: none when no side or several are (the round limit)."""
    if e.winner is not None and e.winner not in state.sides:
        return f"the winner {e.winner} is no side of the battle"
    up = [s.id for s in sc.sides if any(state.combatants[c.id].conscious for c in s.combatants)]
    if e.standing != up:
        said = ", ".join(up) or "none"
        return f"the sides standing are {said}, not {', '.join(e.standing) or 'none'}"
    expected = up[0] if len(up) == 1 else None
    if e.winner != expected:
        named, given = e.winner or "a draw", expected or "a draw"
        return f"{named} is named the winner, but the battle gives {given}"
    return None


def audit_change(sc: BecmiScenario, state: BattleState, event: Event) -> str | None:
    """What ``event`` breaks whatever its dice, else None: a blow by a combatant out of the
    fight, or on its own side or on one out of it; a morale check of monsters not the
    side's, or a flight of one that did not check; a winner or sides standing the fight
    does not give."""
    match event:
        case Attacked() | Struck():
            return _blow(state, event)
        case MoraleChecked():
            return _morale(state, event)
        case BattleEnded():
            return _verdict(sc, state, event)
    return None

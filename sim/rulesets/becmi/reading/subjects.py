"""Who a becmi event is about, in the ruleset's words: the ``subjects`` hook."""

from __future__ import annotations

from engine.events import Event
from sim.rulesets.becmi.model.events import (
    Attacked,
    Joined,
    MoraleChecked,
    Moved,
    Recovered,
    Struck,
    Wrestled,
)
from sim.rulesets.becmi.model.scenario import BecmiScenario

__all__ = ["subjects"]


def _team(word: str, ids: list[str]) -> dict[str, list[str]]:
    """A bout's team by its role, in the singular for one wrestler: ``aggressor``."""
    return {word if len(ids) == 1 else f"{word}s": ids} if ids else {}


def subjects(sc: BecmiScenario, event: Event) -> dict[str, list[str]]:
    """The combatants ``event`` is about, by role, each role's ids in the event's order.

    A bout's wrestlers by their team (``aggressor snaga, defender thorgrim``), a morale
    check's by who fled (its side is named apart), everything else by its own fields
    (``attacker``, ``target``, ``combatant``, ``toward``); an initiative roll or the
    battle's end is about the sides, and names no combatant.
    """
    del sc
    if isinstance(event, Wrestled):
        return {
            **_team("aggressor", [m.id for m in event.aggressors.members]),
            **_team("defender", [m.id for m in event.defenders.members]),
        }
    if isinstance(event, MoraleChecked):
        return {"fled": list(event.fled)} if event.fled else {}
    if isinstance(event, Attacked | Struck):
        return {"attacker": [event.attacker], "target": [event.target]}
    if isinstance(event, Moved):
        return {"combatant": [event.combatant], "toward": [event.toward]}
    if isinstance(event, Recovered | Joined):
        return {"combatant": [event.combatant]}
    return {}

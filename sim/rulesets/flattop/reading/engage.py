"""What the report page draws for a flattop event: a strike's attack on a ship."""

from __future__ import annotations

from engine.events import Event
from sim.contract import Engagement
from sim.rulesets.flattop.model.events import Attacked
from sim.rulesets.flattop.model.scenario import FlattopScenario

__all__ = ["engagements"]


def engagements(sc: FlattopScenario, event: Event) -> list[Engagement]:
    """One declared attack: the strike against the ship it attacked, with the hits taken."""
    del sc
    if isinstance(event, Attacked):
        n = event.hits_taken
        result = f"{n} hit{'s' if n != 1 else ''}" if n else "no hits"
        if event.status_after != event.status_before:
            result += f", {event.status_after}"
        return [Engagement(kind="strike", actor=event.strike, target=event.ship, result=result)]
    return []

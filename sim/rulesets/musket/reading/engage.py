"""What the report page draws for a musket event: a volley or a charge, from actor to target."""

from __future__ import annotations

from engine.events import Event
from sim.contract import Engagement
from sim.rulesets.musket.model.events import Fired, Meleed
from sim.rulesets.musket.model.scenario import MusketScenario

__all__ = ["engagements"]


def engagements(sc: MusketScenario, event: Event) -> list[Engagement]:
    """A volley (casualties, guns lost) or a charge (each side's losses and the winner)."""
    del sc
    if isinstance(event, Fired):
        r = event.result
        guns = f", {r.guns_lost} gun{'s' if r.guns_lost != 1 else ''}" if r.guns_lost else ""
        casualties = f"{r.casualties} casualt{'ies' if r.casualties != 1 else 'y'}{guns}"
        return [Engagement(kind="fire", actor=event.unit, target=event.target, result=casualties)]
    if isinstance(event, Meleed):
        a, d = event.attacker_losses.casualties, event.defender_losses.casualties
        won = "attacker wins" if event.winner == event.unit else "defender wins"
        result = f"{won}; losses {a} and {d}"
        if event.stand_test is not None and not event.stand_test.passed:
            result = f"defender routed before the charge; {result}"
        if event.pursuit_losses:
            result += f", {event.pursuit_losses} more in the pursuit"
        if event.prisoners:
            result += f", {event.prisoners} taken prisoner"
        return [Engagement(kind="melee", actor=event.unit, target=event.target, result=result)]
    return []

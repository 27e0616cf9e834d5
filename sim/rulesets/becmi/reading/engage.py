"""What the report page draws for a becmi event: an attack or a blow, from attacker to target."""

from __future__ import annotations

from engine.events import Event
from sim.contract import Engagement
from sim.rulesets.becmi.model.events import Attacked, Struck
from sim.rulesets.becmi.model.scenario import BecmiScenario

__all__ = ["engagements"]


def _result(hit: bool, lost: int, killed: bool) -> str:
    if not hit:
        return "miss"
    return f"hit for {lost} hp" + (", killed" if killed else "")


def engagements(sc: BecmiScenario, event: Event) -> list[Engagement]:
    """A weapon attack (missile: fire, else melee) or an unarmed blow, hit or miss."""
    del sc
    if isinstance(event, Attacked):
        kind = "fire" if event.range_band is not None else "melee"
        lost = event.hp_before - event.hp_after
        result = _result(event.to_hit.hit, lost, event.killed)
        return [Engagement(kind=kind, actor=event.attacker, target=event.target, result=result)]
    if isinstance(event, Struck):
        hit = event.damage is not None
        result = _result(hit, event.hp_before - event.hp_after, event.killed)
        if event.stunned:
            result += ", stunned"
        return [Engagement(kind="melee", actor=event.attacker, target=event.target, result=result)]
    return []

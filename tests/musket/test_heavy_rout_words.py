"""A failed check in defensive fire disrupts (seed 003), but routs a unit that has lost
``rout_loss`` (0.3) of its strength (rules version 3, ours): the narrative says which, so a
designer checking the line by hand against docs/rules/musket.md, *Morale checks*, sees why
the unit routed rather than disrupted.

The check always fails: quality F (morale 1) with ``ammo: low`` (-1) gives 0.
"""

from __future__ import annotations

from sim.rulesets.musket.model.events import MoraleTested
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.morale import decide_morale
from tests.sim.test_rules import _inf, _scenario, battle_of

DOOMED = {"quality": "F", "ammo": "low", "order": {"kind": "hold"}}


def _battle(lost: int, **unit: object) -> Battle:
    """b1 (400 men, or what ``unit`` says) having lost ``lost``; a1 four hexes off."""
    a = [_inf("a1", [4, 8], order={"kind": "hold"})]
    b = [_inf("b1", [4, 4]) | DOOMED | unit]
    b_ = battle_of(_scenario(a, b, limit=1))
    state = b_.state.units["b1"]
    state.strength -= lost
    if state.kind == "artillery":
        state.guns_lost += lost
    else:
        state.men_lost += lost
    return b_


def _line(b: Battle, phase: str) -> tuple[MoraleTested, str | None]:
    event = decide_morale(b, b.state.units["b1"], phase, "loss", 1, "a1")
    event = event.model_copy(update={"seq": 2})
    return event, narrate(b.scenario, b.state, event)


def test_a_heavy_rout_in_defensive_fire_says_why() -> None:
    """150 of 400 lost (37.5 %): the failure in defensive fire routs, and the line says so."""
    event, line = _line(_battle(150), "defensive_fire")
    assert (event.passed, event.after) == (False, "routed")
    assert line is not None and line.endswith(
        "rolled 3; cannot pass (needs -1 or less)): routed (it has lost 150 of its 400 men, 38%: "
        "from 30% a failed check routs in any phase, not only disrupts)"
    ), line


def test_a_battery_counts_its_guns() -> None:
    """A battery of 6 guns that has lost 2 (33 %) routs in defensive fire."""
    battery = {"kind": "artillery", "weapon": "foot_6pdr", "strength": 6}
    event, line = _line(_battle(2, **battery), "defensive_fire")
    assert event.after == "routed"
    assert line is not None and line.endswith(
        "routed (it has lost 2 of its 6 guns, 33%: "
        "from 30% a failed check routs in any phase, not only disrupts)"
    ), line


def test_no_reason_where_the_rule_of_the_phase_routs_or_disrupts() -> None:
    """Under 30 % lost, a failure in defensive fire disrupts; in the melee phase any failure
    routs: neither line adds a reason."""
    event, line = _line(_battle(100), "defensive_fire")
    assert event.after == "disrupted"
    assert line is not None and line.endswith("): disrupted"), line
    event, line = _line(_battle(150), "melee")
    assert event.after == "routed"
    assert line is not None and line.endswith("): routed"), line

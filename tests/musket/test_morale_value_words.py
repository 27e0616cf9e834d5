"""A morale check or rally passes on a d6 at or under its morale value (docs/rules/musket.md,
*Morale checks*: "fails when the roll is above the morale value"; "a morale value of 6 or more
always passes; 0 or less always fails"). The narrative says "passes at or under N" only where
a roll can pass or fail, N from 1 to 5: below 1 no roll can pass, and it says so ("rolled 5;
cannot pass (needs -13 or less)", not "passes at or under -13"); at 6 or more every roll
passes ("always passes (at or under 7)").
"""

from __future__ import annotations

from typing import Any

from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.morale import decide_morale, decide_rally
from tests.sim.test_rules import _inf, _scenario, battle_of


def _battle(**unit: Any) -> Battle:
    """b1 (400 men, what ``unit`` says); a1 four hexes off, so b1 may rally."""
    a = [_inf("a1", [4, 8], order={"kind": "hold"})]
    b = [_inf("b1", [4, 4], order={"kind": "hold"}) | unit]
    return battle_of(_scenario(a, b, limit=1))


def _check(**unit: Any) -> tuple[int, int, bool, str]:
    """b1's morale check in defensive fire: its value, roll, pass and narrative line."""
    b = _battle(**unit)
    event = decide_morale(b, b.state.units["b1"], "defensive_fire", "loss", 1, "a1")
    line = narrate(b.scenario, b.state, event.model_copy(update={"seq": 2}))
    assert line is not None
    return event.morale_value, event.roll, event.passed, line


def test_a_check_below_one_cannot_pass() -> None:
    """Quality F (1) with low ammunition (-1): value 0, no d6 passes, and the line says so."""
    value, roll, passed, line = _check(quality="F", ammo="low")
    assert (value, passed) == (0, False)
    assert line.endswith(f"; rolled {roll}; cannot pass (needs 0 or less)): disrupted"), line
    assert "passes at or under" not in line


def test_a_check_from_one_to_five_passes_at_or_under_its_value() -> None:
    """Quality C (4): the line keeps "rolled R, passes at or under 4"."""
    value, roll, passed, line = _check(quality="C")
    assert (value, passed) == (4, roll <= 4)
    assert f"; rolled {roll}, passes at or under 4): " in line, line


def test_a_check_of_six_or_more_always_passes() -> None:
    """Quality A (6) with a leader (+1): value 7, every d6 passes, a 6 too."""
    value, roll, passed, line = _check(quality="A", leader=True)
    assert (value, passed) == (7, True)
    assert line.endswith(f"; rolled {roll}; always passes (at or under 7)): passes"), line


def _rally(**unit: Any) -> tuple[int, int, bool, str]:
    """b1, disrupted, rallies: its value, roll, success and narrative line."""
    b = _battle(**unit)
    b.state.units["b1"].morale = "disrupted"
    event = decide_rally(b, b.state.units["b1"])
    assert event is not None
    line = narrate(b.scenario, b.state, event.model_copy(update={"seq": 2}))
    assert line is not None
    return event.morale_value, event.roll, event.success, line


def test_a_rally_below_one_cannot_rally() -> None:
    """Quality F (1) with low ammunition (-1): value 0; "cannot rally (needs 0 or less)"."""
    value, roll, success, line = _rally(quality="F", ammo="low")
    assert (value, success) == (0, False)
    assert line.endswith(f"B1 fails to rally (rolled {roll}; cannot rally (needs 0 or less))")


def test_a_rally_from_one_to_five_and_of_six_or_more() -> None:
    """Quality C (4): "rallies at or under 4"; quality A with a leader (7): always rallies."""
    value, roll, success, line = _rally(quality="C")
    assert (value, success) == (4, roll <= 4)
    assert line.endswith(f"(rolled {roll}, rallies at or under 4)"), line
    value, roll, success, line = _rally(quality="A", leader=True)
    assert (value, success) == (7, True)
    assert line.endswith(f"B1 rallies to good (rolled {roll}; always rallies (at or under 7))")

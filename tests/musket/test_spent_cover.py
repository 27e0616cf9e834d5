"""Option ``spent_cover`` (ours): fire at a spent unit gets a cover modifier (it has gone
to ground short of the enemy's line).

Derived from rules-notes §1's worked example (docs/rules/musket.md, *Fire*): 450 men
with rifle muskets at one hex (4 a man): V = 1800. At a target in the open, spent, with
``spent_cover`` −40: m = −40, E = 1080; behind a stone wall as well (−40): m = −80, E = 360.
"""

from __future__ import annotations

from typing import Any

import pytest

from sim.rulesets.musket.model.events import Fired
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.fire import decide_fire
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _inf, _scenario, battle_of


def _data(cover: int | None, wall: bool = False) -> dict[str, Any]:
    """a1 (450 rifle muskets, holding, C) firing at b1 at (4,4)."""
    data = _scenario(
        [_inf("a1", [4, 5], strength=450, order={"kind": "hold"})],
        [_inf("b1", [4, 4], order={"kind": "hold"})],
        limit=1,
    )
    if wall:
        data["map"]["terrain"] = [{"terrain": "stone_wall", "hexes": [[4, 4]]}]
    if cover is not None:
        data["options"] = {"spent_cover": cover}
    return data


def _fire(cover: int | None, morale: str, wall: bool = False) -> Fired:
    b = battle_of(_data(cover, wall))
    b.state.units["b1"].morale = morale
    fired = decide_fire(b, b.state.units["a1"], "defensive_fire")
    assert fired is not None
    return fired


def test_a_spent_target_is_in_cover_and_the_modifier_is_recorded() -> None:
    r = _fire(-40, "spent").result
    assert list(r.modifiers.items()) == [("to_ground", -40.0)]
    assert (r.v, r.modifier, r.effective) == (1800.0, -40.0, 1080.0)
    walled = _fire(-40, "spent", wall=True).result
    assert list(walled.modifiers.items()) == [("stone_wall", -40.0), ("to_ground", -40.0)]
    assert walled.modifier == -80.0
    assert walled.effective == pytest.approx(360.0, rel=1e-12)  # 1800 × (1 - 80/100)


@pytest.mark.parametrize("morale", ["good", "disrupted", "routed"])
def test_only_a_spent_target_goes_to_ground(morale: str) -> None:
    r = _fire(-40, morale).result
    assert (r.modifiers, r.effective) == ({}, 1800.0)


def test_at_its_default_nothing_changes() -> None:
    assert MusketOptions().spent_cover == 0
    assert "spent_cover" not in MusketOptions().model_dump()
    r = _fire(None, "spent").result
    assert (r.modifiers, r.effective) == ({}, 1800.0)
    assert _fire(0, "spent").model_dump() == _fire(None, "spent").model_dump()


@pytest.mark.parametrize("bad", [1, 40, -101])
def test_a_modifier_outside_minus_100_to_0_is_refused_at_its_path(bad: int) -> None:
    with pytest.raises(ScenarioError) as err:
        validate_data(_data(bad), {}, "t.yaml")
    assert "options.spent_cover" in str(err.value)

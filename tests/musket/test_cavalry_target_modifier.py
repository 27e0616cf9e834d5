"""Option ``cavalry_target_modifier`` (ours): fire at a cavalry unit gets a modifier
(horsemen spread out and moving at speed cross the last hundred yards under a volley or
two, where a formed line stands a turn's fire).

Derived from rules-notes §1's worked example (docs/rules/musket.md, *Fire*): 450 men with
rifle muskets at one hex (4 a man): V = 1800. At a cavalry target in the open with the
option −25: m = −25, E = 1350; in woods as well (−40): m = −65, E = 630. At infantry,
nothing is added: E = 1800.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim.rulesets.musket.model.events import Fired
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.fire import decide_fire
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _fight, _inf, _scenario, battle_of

ROOT = Path(__file__).resolve().parents[2]


def _data(modifier: int | None, kind: str = "cavalry", woods: bool = False) -> dict[str, Any]:
    """a1 (450 rifle muskets, holding, C) firing at b1 at (4,4), horse or foot."""
    target = _inf("b1", [4, 4], order={"kind": "hold"})
    if kind == "cavalry":
        target |= {"kind": "cavalry", "weapon": "carbine"}
    data = _scenario([_inf("a1", [4, 5], strength=450, order={"kind": "hold"})], [target], limit=1)
    if woods:
        data["map"]["terrain"] = [{"terrain": "woods", "hexes": [[4, 4]]}]
    if modifier is not None:
        data["options"] = {"cavalry_target_modifier": modifier}
    return data


def _fire(modifier: int | None, kind: str = "cavalry", woods: bool = False) -> Fired:
    b = battle_of(_data(modifier, kind, woods))
    fired = decide_fire(b, b.state.units["a1"], "defensive_fire")
    assert fired is not None
    return fired


def test_a_cavalry_target_gets_the_modifier_and_it_is_recorded() -> None:
    r = _fire(-25).result
    assert list(r.modifiers.items()) == [("cavalry", -25.0)]
    assert (r.v, r.modifier, r.effective) == (1800.0, -25.0, 1350.0)
    wooded = _fire(-25, woods=True).result
    assert list(wooded.modifiers.items()) == [("woods", -40.0), ("cavalry", -25.0)]
    assert wooded.modifier == -65.0
    assert wooded.effective == pytest.approx(630.0, rel=1e-12)  # 1800 × (1 - 65/100)


def test_an_infantry_target_gets_none() -> None:
    r = _fire(-50, kind="infantry").result
    assert (r.modifiers, r.effective) == ({}, 1800.0)


def test_at_its_default_nothing_changes() -> None:
    assert MusketOptions().cavalry_target_modifier == 0
    assert "cavalry_target_modifier" not in MusketOptions().model_dump()
    r = _fire(None).result
    assert (r.modifiers, r.effective) == ({}, 1800.0)
    assert _fire(0).model_dump() == _fire(None).model_dump()


def _salamanca(options: dict[str, Any]) -> list[dict[str, Any]]:
    data = yaml.safe_load((ROOT / "scenarios" / "salamanca_le_marchant.yaml").read_text("utf-8"))
    data.setdefault("options", {}).update(options)
    return _fight(data, seed=1812)


def test_a_battle_with_it_at_0_is_the_battle_without_it_byte_for_byte() -> None:
    without = _salamanca({})
    assert [json.dumps(e) for e in _salamanca({"cavalry_target_modifier": 0})] == [
        json.dumps(e) for e in without
    ]


def test_in_a_battle_every_fire_at_cavalry_and_none_other_carries_it() -> None:
    events = _salamanca({"cavalry_target_modifier": -50})
    data = yaml.safe_load((ROOT / "scenarios" / "salamanca_le_marchant.yaml").read_text("utf-8"))
    horse = {u["id"] for side in data["sides"] for u in side["units"] if u["kind"] == "cavalry"}
    fired = [e for e in events if e.get("type") == "musket.fired"]
    at_horse = [e for e in fired if e["target"] in horse]
    assert at_horse and len(at_horse) < len(fired)  # both kinds of fire are in the battle
    for e in fired:
        mods = e["result"]["modifiers"]
        assert (mods.get("cavalry") == -50.0) is (e["target"] in horse), e


@pytest.mark.parametrize("bad", [1, 25, -91])
def test_a_modifier_outside_minus_90_to_0_is_refused_at_its_path(bad: int) -> None:
    with pytest.raises(ScenarioError) as err:
        validate_data(_data(bad), {}, "t.yaml")
    assert "options.cavalry_target_modifier" in str(err.value)

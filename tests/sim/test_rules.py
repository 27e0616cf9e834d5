"""Musket rules in small, hand-built battles: one behaviour each, exact outcomes."""

from __future__ import annotations

import json
from typing import Any

import simpy

from engine.kernel import TurnKernel
from engine.log import MemorySink
from engine.projection import fold
from engine.rng import Streams
from sim import api
from sim.rulesets.musket import RULESET
from sim.rulesets.musket.model.data import PHASES
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.model.state import initial_state
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.morale import failure_state
from sim.scenario.load import ScenarioError, validate_data


def _scenario(
    units_a: list[dict[str, Any]], units_b: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "ruleset": "musket",
        "name": "t",
        "map": {"width": 10, "height": 10},
        "turns": {"limit": extra.pop("limit", 6)},
        "sides": [
            {"id": "a", "name": "A", "retreat": "south", "units": units_a},
            {"id": "b", "name": "B", "retreat": "north", "units": units_b},
        ],
        **extra,
    }


def _inf(uid: str, at: list[int], **kw: Any) -> dict[str, Any]:
    return {
        "id": uid,
        "name": uid.upper(),
        "kind": "infantry",
        "strength": 400,
        "quality": "C",
        "weapon": "rifle_musket",
        "at": at,
        **kw,
    }


def _fight(data: dict[str, Any], seed: int = 1) -> list[dict[str, Any]]:
    _, sc = validate_data(data, {}, "t.yaml")
    sink = MemorySink()
    RULESET.simulate(sc, api.make_header(RULESET, sc, seed), sink)
    return [json.loads(x) for x in sink.lines]


def test_failed_check_disrupts_in_defensive_fire_and_routs_otherwise() -> None:
    """Defensive-fire failures leave a unit Disrupted; failures in other phases Rout it."""
    assert failure_state("good", "defensive_fire") == "disrupted"
    assert failure_state("disrupted", "defensive_fire") == "disrupted"
    assert failure_state("good", "offensive_fire") == "routed"
    assert failure_state("good", "melee") == "routed"
    assert failure_state("routed", "defensive_fire") == "routed"


def test_target_on_a_hold_order_must_be_an_enemy() -> None:
    """A target naming a friend or nobody is refused even on a hold order."""
    data = _scenario(
        [
            _inf("a1", [1, 8], order={"kind": "hold", "target": "a2"}),
            _inf("a2", [2, 8], order={"kind": "hold", "target": "zz"}),
        ],
        [_inf("b1", [1, 1])],
    )
    try:
        validate_data(data, {}, "t.yaml")
    except ScenarioError as exc:
        assert [(p.field, p.message) for p in exc.problems] == [
            ("sides.0.units.0.order.target", "'a2' is not an enemy unit"),
            ("sides.0.units.1.order.target", "no unit 'zz'"),
        ]
    else:
        raise AssertionError("not refused")


def test_routed_unit_logs_its_run_then_leaves_the_field() -> None:
    """A routed unit's last move is logged before it leaves from the edge hex it reached."""
    data = _scenario(
        [_inf("a1", [4, 7], quality="F", fatigue=850, strength=300), _inf("a2", [0, 0])],
        [_inf("b1", [4, 3], quality="A", strength=900, order={"kind": "charge", "target": "a1"})],
        limit=8,
    )
    data["sides"][0]["break_units"] = 1.0
    data["sides"][0]["break_losses"] = 1.0
    for seed in range(1, 40):
        a1 = [e for e in _fight(data, seed)[1:-1] if e.get("unit") == "a1"]
        left = [e for e in a1 if e["type"] == "musket.left_field"]
        if left:
            break
    routs = [e for e in a1 if e["type"] == "musket.moved" and e["reason"] == "rout"]
    assert routs and len(left) == 1
    assert a1.index(left[0]) == a1.index(routs[-1]) + 1
    assert left[0]["at"] == routs[-1]["path"][-1]
    assert left[0]["at"][1] == 9  # the south edge


def test_turn_end_digest_equals_the_footer_digest_at_the_end() -> None:
    """The last turn's digest is the footer's final-state digest: turn ends apply nothing."""
    events = _fight(_scenario([_inf("a1", [4, 8])], [_inf("b1", [4, 1])], limit=2))
    turn_ends = [e for e in events if e.get("type") == "engine.turn_ended"]
    assert [e["turn"] for e in turn_ends] == [1, 2]
    assert turn_ends[-1]["state_digest"] == events[-1]["final_state_digest"]


def test_captured_battery_counts_its_guns_lost() -> None:
    """A battery that loses a melee is captured: all its guns count as lost."""
    battery = {
        "id": "gun",
        "name": "GUN",
        "kind": "artillery",
        "strength": 4,
        "quality": "F",
        "weapon": "napoleon_12pdr",
        "at": [4, 4],
    }
    data = _scenario(
        [_inf("a1", [4, 6], strength=900, quality="A", order={"kind": "charge", "target": "gun"})],
        [battery],
        limit=3,
    )
    for seed in range(1, 30):
        events = _fight(data, seed)
        melee = [
            e for e in events[1:-1] if e.get("type") == "musket.meleed" and e["winner"] == "a1"
        ]
        if melee:
            break
    assert melee and melee[0]["loser_state"] == "eliminated"
    lines = [{k: v for k, v in e.items() if k != "h"} for e in events[1:-1]]
    parsed = [RULESET.registry.parse(line) for line in lines]
    start = RULESET.initial_state(validate_data(data, {}, "t.yaml")[1])
    loaded_state = fold(start, parsed, RULESET.apply)
    gun = loaded_state.units["gun"]
    assert (gun.strength, gun.guns_lost, gun.morale) == (0, 4, "eliminated")


def test_terrain_patch_cover_overrides_the_terrain_table() -> None:
    """A patch's own cover (-25 on a stone wall) is the modifier fire at its hexes uses."""
    data = _scenario([_inf("a1", [4, 6])], [_inf("b1", [4, 4])], limit=1)
    data["map"]["terrain"] = [{"terrain": "stone_wall", "hexes": [[4, 4]], "cover": -25}]
    fired = [
        e for e in _fight(data)[1:-1] if e.get("type") == "musket.fired" and e["target"] == "b1"
    ]
    assert fired and fired[0]["result"]["modifiers"] == {"stone_wall": -25.0}


def battle_of(data: dict[str, Any], turn: int = 1) -> Battle:
    """A scenario's battle at ``turn``, seed 1, for calling one rule function on it."""
    _, sc = validate_data(data, {}, "t.yaml")
    assert isinstance(sc, MusketScenario)
    kernel = TurnKernel(simpy.Environment(), PHASES, sc.turns.minutes)
    kernel.turn = turn
    return Battle(sc, initial_state(sc), Streams(1), kernel)

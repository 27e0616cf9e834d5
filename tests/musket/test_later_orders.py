"""Later orders (``later_orders``, ours): a unit's order changes at the start of a turn the
scenario names (docs/scenario-format.md, *Units*; docs/rules/musket.md, *Orders*).

Side a retreats south; its line ``h`` holds at (4,7). Side b's ``x`` stands at (4,1), six
hexes off, out of reach of h's rifle muskets (four hexes), on hold until its later order
sends it in.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import simpy
import yaml

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim import api
from sim.replay.verify import verify_replay
from sim.rulesets.musket.battle import plan, waits_for
from sim.rulesets.musket.campaign import _retarget
from sim.rulesets.musket.model.scenario import order_at
from sim.rulesets.musket.model.state import initial_state
from sim.rulesets.musket.reading.reach import reach as musket_reach
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.victory import assault_over
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _fight, _inf, _scenario

ROOT = Path(__file__).resolve().parents[2]


def _data(later: list[dict[str, Any]] | None, limit: int = 6) -> dict[str, Any]:
    holder = _inf("h", [4, 7], order={"kind": "hold"})
    x: dict[str, Any] = _inf("x", [4, 1], order={"kind": "hold"}, strength=600)
    if later is not None:
        x["later_orders"] = later
    return _scenario([holder], [x], limit=limit)


def _moves(events: list[dict[str, Any]], uid: str) -> list[int]:
    return sorted(
        {
            e["turn"]
            for e in events[1:]
            if e.get("type") == "musket.moved" and e["unit"] == uid and e.get("reason") == "order"
        }
    )


def test_a_unit_holds_until_its_later_order_and_then_goes_in() -> None:
    """x holds in turns 1 and 2 (no move of its own), and from turn 3 charges h: its first
    move by order is in turn 3, and it closes."""
    events = _fight(_data([{"turn": 3, "kind": "charge", "target": "h"}]), seed=5)
    moved = _moves(events, "x")
    assert moved and moved[0] == 3
    assert any(
        e.get("type") in ("musket.meleed", "musket.morale_tested")
        and e.get("unit") == "x"
        and e.get("phase") == "melee"
        for e in events[1:]
    )


def test_without_later_orders_it_never_moves() -> None:
    assert _moves(_fight(_data(None), seed=5), "x") == []


def test_a_second_later_order_takes_over_from_the_first() -> None:
    """charge from turn 2, then hold from turn 3: x moves by order in turn 2 only."""
    later = [
        {"turn": 2, "kind": "advance", "to": [4, 3]},
        {"turn": 3, "kind": "hold"},
    ]
    assert _moves(_fight(_data(later), seed=1), "x") == [2]


def test_order_at_gives_the_latest_order_whose_turn_has_come() -> None:
    later = [
        {"turn": 3, "kind": "engage", "target": "h"},
        {"turn": 5, "kind": "retire", "to": [4, 0]},
    ]
    _, sc = validate_data(_data(later), {}, "t.yaml")
    x = sc.sides[1].units[0]
    kinds = [order_at(x, t).kind for t in range(0, 8)]
    assert kinds == ["hold", "hold", "hold", "engage", "engage", "retire", "retire", "retire"]


def test_a_scenario_without_later_orders_dumps_as_before() -> None:
    """The field is left out of a scenario's dump while empty, so every replay header fought
    before it (every golden) reads and is written byte for byte as it was."""
    _, sc = validate_data(_data(None), {}, "t.yaml")
    assert "later_orders" not in json.dumps(sc.model_dump(mode="json"))
    _, sc2 = validate_data(_data([{"turn": 2, "kind": "hold"}]), {}, "t.yaml")
    dumped = sc2.model_dump(mode="json")["sides"][1]["units"][0]
    assert dumped["later_orders"] == [{"kind": "hold", "target": None, "to": None, "turn": 2}]


def _battle(later: list[dict[str, Any]]) -> Battle:
    _, sc = validate_data(_data(later), {}, "t.yaml")
    kernel = TurnKernel(simpy.Environment(), plan(sc).phases, 20)
    return Battle(sc, initial_state(sc), Streams(1), kernel)


def test_the_battle_reads_the_order_of_its_turn() -> None:
    b = _battle([{"turn": 3, "kind": "charge", "target": "h"}])
    for turn, kind in ((1, "hold"), (2, "hold"), (3, "charge"), (6, "charge"), (2, "hold")):
        b.kernel.turn = turn  # a fork or a restore may start at any turn
        assert b.orders["x"].kind == kind
        assert b.orders["h"].kind == "hold"
    assert b.order_kinds("x") == {"hold", "charge"} and b.order_kinds("h") == {"hold"}


def test_a_unit_waits_for_every_phase_any_of_its_orders_needs() -> None:
    """On hold alone x would skip the melee; with a later charge it waits for it too (and,
    holding first, for offensive fire, which a charge alone skips)."""
    b = _battle([{"turn": 3, "kind": "charge", "target": "h"}])
    five = ("movement", "defensive_fire", "offensive_fire", "melee", "rally")
    assert waits_for(b, "x") == five
    assert waits_for(b, "h") == ("movement", "defensive_fire", "offensive_fire", "rally")


@pytest.mark.parametrize(
    ("later", "field", "words"),
    [
        ([{"turn": 3, "kind": "charge"}], "later_orders.0.target", "a charge order needs a target"),
        ([{"turn": 3, "kind": "charge", "target": "hh"}], "later_orders.0.target", "no unit 'hh'"),
        ([{"turn": 3, "kind": "engage", "target": "x"}], "later_orders.0.target", "not an enemy"),
        ([{"turn": 3, "kind": "advance"}], "later_orders.0.to", "needs a hex 'to'"),
        ([{"turn": 3, "kind": "advance", "to": [40, 1]}], "later_orders.0.to", "off the map"),
        (
            [{"turn": 4, "kind": "hold"}, {"turn": 4, "kind": "hold"}],
            "later_orders.1.turn",
            "turn 4 is not after turn 4",
        ),
        (
            [{"turn": 1, "kind": "hold"}],
            "later_orders.0.turn",
            "1 is less than 2, the least it may be",
        ),
    ],
)
def test_a_bad_later_order_is_refused_at_its_field(later: Any, field: str, words: str) -> None:
    with pytest.raises(ScenarioError) as err:
        validate_data(_data(later), {}, "t.yaml")
    text = str(err.value)
    assert f"sides.1.units.0.{field}" in text and words in text


def test_a_campaign_retargets_a_later_order_at_a_unit_that_is_gone() -> None:
    spec = {
        "id": "x",
        "order": {"kind": "hold"},
        "later_orders": [
            {"turn": 2, "kind": "charge", "target": "h"},
            {"turn": 4, "kind": "hold", "target": "h"},
        ],
    }
    again = _retarget(spec, {"h": {"at": [4, 7]}})
    assert again["order"] == {"kind": "hold"}
    assert again["later_orders"] == [
        {"kind": "advance", "to": [4, 7], "turn": 2},
        {"kind": "hold", "turn": 4},
    ]
    assert _retarget(spec, {}) is spec


def test_a_replay_with_later_orders_verifies(tmp_path: Any) -> None:
    """Fought from a file, then verified by re-simulation (which audits every event, the
    rally's attack reading the order of its turn): the orders are the scenario's."""
    path = tmp_path / "later.yaml"
    path.write_text(json.dumps(_data([{"turn": 3, "kind": "charge", "target": "h"}])))
    result = api.run(path, seed=9, out=tmp_path / "r.jsonl")
    assert result.replay is not None and verify_replay(result.replay).ok


def _shipped(name: str, options: dict[str, Any], uid: str, later: dict[str, Any]) -> tuple:
    data = yaml.safe_load((ROOT / "scenarios" / name).read_text())
    data["options"] = {**data.get("options", {}), **options}
    plain = copy.deepcopy(data)
    for side in data["sides"]:
        for u in side["units"]:
            if u["id"] == uid:
                u["later_orders"] = [later]
    return plain, data


def _events_without_chain(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "h"} for e in events[1:-1]]


@pytest.mark.parametrize(
    ("name", "uid", "later", "seed"),
    [
        ("stone_wall.yaml", "18ga", {"turn": 13, "kind": "charge", "target": "116pa"}, 1),
        ("chancellorsville.yaml", "24ga", {"turn": 13, "kind": "hold"}, 2),
    ],
)
def test_with_counterstrokes_a_unit_strikes_only_in_the_phase_of_its_order(
    name: str, uid: str, later: dict[str, Any], seed: int
) -> None:
    """Option counter_charge: a unit whose orders mix hold and charge waits for both the
    melee and the counterstroke phase, and must strike only in the one its order of the turn
    names (a review found a holder's counterstroke in the melee phase, and a charger charging
    again in the counterstroke phase). A later order past the last turn never holds, so the
    battle is the one without it, event for event (the chain differs: the header does)."""
    plain, with_later = _shipped(name, {"counter_charge": "any"}, uid, later)
    assert later["turn"] > plain["turns"]["limit"]
    assert _events_without_chain(_fight(with_later, seed)) == _events_without_chain(
        _fight(plain, seed)
    )


def test_a_unit_that_later_attacks_is_not_warned_it_can_never_reach_an_enemy() -> None:
    """validate's reach warning reads every order: x holds out of reach, then charges."""
    _, sc = validate_data(_data([{"turn": 3, "kind": "charge", "target": "h"}]), {}, "t.yaml")
    found = {r.unit: r.moves for r in musket_reach(sc)}
    assert found == {"h": False, "x": True}
    _, still = validate_data(_data([{"turn": 3, "kind": "hold"}]), {}, "t.yaml")
    assert {r.unit: r.moves for r in musket_reach(still)} == {"h": False, "x": False}


def test_the_attack_is_not_over_while_a_later_wave_is_still_to_go_in() -> None:
    """Option assault_over_ends: the first wave x1 thrown back (spent) in turn 1 does not end
    the battle while x2, on hold until its later charge in turn 3, is still to go in; once x2
    is out of good order too, the attack is over."""
    first = _inf("x1", [3, 2], order={"kind": "charge", "target": "h"})
    second = _inf("x2", [5, 1], order={"kind": "hold"})
    second["later_orders"] = [{"turn": 3, "kind": "charge", "target": "h"}]
    data = _scenario([_inf("h", [4, 7], order={"kind": "hold"})], [first, second], limit=6)
    data["options"] = {"assault_over_ends": True}
    _, sc = validate_data(data, {}, "t.yaml")
    kernel = TurnKernel(simpy.Environment(), plan(sc).phases, 20)
    b = Battle(sc, initial_state(sc), Streams(1), kernel)
    b.state.units["x1"].morale = "spent"
    for turn in (1, 2, 3):
        b.kernel.turn = turn
        assert assault_over(b) is False
    b.state.units["x2"].morale = "disrupted"
    assert assault_over(b) is True
    b.kernel.turn = 2  # before x2's charge: its attack still to come, but it is not in order
    assert assault_over(b) is True

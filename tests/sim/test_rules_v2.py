"""Musket rules version 2's options of ours around the seed, each on a hand-built battle.

``charge_test``, ``break_off_loss``, ``disrupted_attackers_fall_back`` and
``melee_winner_tests`` (docs/rules/musket.md, *Rules versions*); expected values
come from the events' own draws and the rules' arithmetic. Each battle is fought
with version 3's options at their version-2 values (``options.RULES_V2``), so what is
tested is version 2's rules; tests/sim/test_rules_v3.py tests version 3's.
"""

from __future__ import annotations

import math
from typing import Any

import simpy

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.musket.model.data import PHASES
from sim.rulesets.musket.model.options import RULES_V2
from sim.rulesets.musket.model.state import initial_state
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.melee import can_charge
from sim.rulesets.musket.rules.movement import decide_move
from sim.scenario.load import validate_data
from tests.sim.test_rules import _fight as _lines
from tests.sim.test_rules import _inf, _scenario

V1 = {
    "disrupted_attackers_fall_back": False,
    "break_off_loss": None,
    "charge_test": False,
    "melee_winner_tests": True,
}


def _fight(data: dict[str, Any], seed: int = 1) -> list[dict[str, Any]]:
    """The battle's events (the header and footer left out)."""
    return [e for e in _lines(data, seed) if "type" in e]


def _wall(terrain: str | None, **options: Any) -> dict[str, Any]:
    """A regiment charging a regiment next to it, whose hex is ``terrain`` (or clear)."""
    data = _scenario(
        [_inf("att", [4, 5], order={"kind": "charge", "target": "def"})],
        [_inf("def", [4, 4], order={"kind": "hold"})],
        limit=1,
        options={**RULES_V2, **options},
    )
    if terrain is not None:
        data["map"]["terrain"] = [{"terrain": terrain, "hexes": [[4, 4]]}]
    return data


def _charge_tests(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "musket.morale_tested" and e["reason"] == "charge"]


def test_the_charge_test_takes_one_from_the_value_for_each_20_percent_of_cover() -> None:
    """Quality C (4): a stone wall (-40 %) makes it 2, a fence (-20 %) 3, the open 4; the
    roll is 1 + floor(6u) of the test's one draw, and it passes on roll <= value."""
    for terrain, mods, value in (
        ("stone_wall", {"target_in_cover": -2}, 2),
        ("woods", {"target_in_cover": -2}, 2),
        ("breastworks", {"target_in_cover": -1}, 3),
        ("fence", {"target_in_cover": -1}, 3),
        (None, {}, 4),
    ):
        for seed in range(1, 7):
            events = _fight(_wall(terrain), seed)
            (test,) = _charge_tests(events)
            (draw,) = test["draws"]
            assert draw[0] == "1/morale/charge/att"
            assert (test["modifiers"], test["morale_value"], test["cause"]) == (mods, value, None)
            assert test["roll"] == 1 + math.floor(6 * draw[2])
            assert test["passed"] == (test["roll"] <= value)
            assert test["after"] == test["before"] == "good"
            melees = [e for e in events if e["type"] == "musket.meleed"]
            assert len(melees) == (1 if test["passed"] else 0)


def test_a_charge_that_fails_its_test_stays_and_fires_next_turn() -> None:
    """Seeds whose test fails: no melee that turn, the unit in good order where it was."""
    tests = {s: _charge_tests(_fight(_wall("stone_wall"), s)) for s in range(1, 40)}
    failed = [s for s, found in tests.items() if found and not found[0]["passed"]]
    assert failed  # two in three fail at value 2
    data = _wall("stone_wall")
    data["turns"]["limit"] = 2
    events = _fight(data, failed[0])
    turn2 = [e for e in events if e.get("turn") == 2 and e.get("unit") == "att"]
    assert turn2[0]["type"] == "musket.fired"  # it did not move: it fires defensively
    assert turn2[0]["phase"] == "defensive_fire"


def test_version_1_charges_without_a_test() -> None:
    """With version 1's options the charge goes straight in."""
    events = _fight(_wall("stone_wall", **V1), 3)
    assert not _charge_tests(events)
    assert [e["type"] for e in events if e["type"] == "musket.meleed"] == ["musket.meleed"]


def _battle(data: dict[str, Any]) -> Battle:
    data = {**data, "options": {**RULES_V2, **data.get("options", {})}}
    _, sc = validate_data(data, {}, "t.yaml")
    kernel = TurnKernel(simpy.Environment(), PHASES, sc.turns.minutes)
    return Battle(sc, initial_state(sc), Streams(1), kernel)


def test_an_attack_is_broken_off_at_40_percent_lost() -> None:
    """At 159 of 400 lost it attacks on; at 160 (0.4) it has broken off and walks back
    toward its retreat edge (south, row 9) as on a retire order, zone of control or not."""
    b = _battle(
        _scenario(
            [_inf("att", [4, 5], order={"kind": "charge", "target": "def"})],
            [_inf("def", [4, 4], order={"kind": "hold"})],
        )
    )
    att = b.state.units["att"]
    att.strength = 241
    assert not b.broken_off(att)
    assert decide_move(b, att) == []  # next to its target: it stays to charge
    att.strength = 240
    assert b.broken_off(att)
    assert can_charge(b, att) is None
    (moved,) = decide_move(b, att)
    assert (moved.reason, moved.start, moved.path) == (
        "break_off",
        (4, 5),
        [(4, 6), (4, 7), (4, 8), (4, 9)],
    )


def test_version_1_never_breaks_off() -> None:
    """break_off_loss null: a charge goes on whatever it has lost."""
    b = _battle(
        _scenario(
            [_inf("att", [4, 5], order={"kind": "charge", "target": "def"})],
            [_inf("def", [4, 4], order={"kind": "hold"})],
            options={"break_off_loss": None},
        )
    )
    att = b.state.units["att"]
    att.strength = 1
    assert not b.broken_off(att)
    assert decide_move(b, att) == []


def test_a_disrupted_attacker_falls_back_out_of_contact() -> None:
    """Disrupted next to the enemy, it steps back until no enemy is next to it: one hex.
    A disrupted unit holding its ground, or with version 1's option, stays."""
    data = _scenario(
        [_inf("att", [4, 5], order={"kind": "charge", "target": "def"})],
        [_inf("def", [4, 4], order={"kind": "hold"})],
    )
    b = _battle(data)
    att, dfn = b.state.units["att"], b.state.units["def"]
    att.morale = dfn.morale = "disrupted"
    (moved,) = decide_move(b, att)
    assert (moved.reason, moved.path) == ("fall_back", [(4, 6)])
    assert decide_move(b, dfn) == []
    b1 = _battle({**data, "options": {"disrupted_attackers_fall_back": False}})
    b1.state.units["att"].morale = "disrupted"
    assert decide_move(b1, b1.state.units["att"]) == []


def test_the_winner_of_a_melee_takes_no_morale_check() -> None:
    """Version 2: after each melee only the loser may check; version 1: either may."""

    def winners_checked(options: dict[str, Any]) -> int:
        found = 0
        for seed in range(1, 30):
            events = _fight(_wall(None, charge_test=False, **options), seed)
            melees = {e["seq"]: e for e in events if e["type"] == "musket.meleed"}
            found += sum(
                1
                for e in events
                if e["type"] == "musket.morale_tested"
                and e["cause"] in melees
                and e["unit"] == melees[e["cause"]]["winner"]
            )
        return found

    assert winners_checked({}) == 0
    assert winners_checked({"melee_winner_tests": True}) > 0

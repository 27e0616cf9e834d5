"""Option ``charging_fire``: a unit on a charge order that moved this turn fires in the
offensive fire phase, then charges (docs/rules/musket.md, *Options*, and its protocol
under *Rules version 5*).

Side a retreats south; the holder ``h`` of side a stands at (4,6), the attacker ``x`` of
side b comes from (4,2), four hexes off, and reaches the hex next to ``h`` in its first
movement step (``infantry_move`` 4).
"""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.musket.battle import plan, waits_for
from sim.rulesets.musket.model.state import initial_state
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.fire import may_fire
from sim.scenario.load import validate_data
from tests.sim.test_rules import _fight, _inf, _scenario


def _data(limit: int = 1, **options: Any) -> dict[str, Any]:
    holder = _inf("h", [4, 6], order={"kind": "hold"})
    attacker = _inf("x", [4, 2], order={"kind": "charge", "target": "h"}, strength=600)
    data = _scenario([holder], [attacker], limit=limit)
    if options:
        data["options"] = options
    return data


def _battle(**options: Any) -> Battle:
    _, sc = validate_data(_data(**options), {}, "t.yaml")
    kernel = TurnKernel(simpy.Environment(), plan(sc).phases, 20)
    b = Battle(sc, initial_state(sc), Streams(1), kernel)
    b.kernel.turn = 1
    return b


def _first_turn(events: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [
        (e["type"], e.get("phase", ""), e.get("unit"))
        for e in events[1:]
        if e.get("turn") == 1 and e["type"] in ("musket.moved", "musket.fired", "musket.meleed")
    ]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_off_a_charging_unit_that_moved_holds_its_fire(seed: int) -> None:
    """Rules version 5 as shipped: x moves next to h and fires in neither fire phase."""
    turn1 = _first_turn(_fight(_data(), seed=seed))
    assert ("musket.moved", "movement", "x") in turn1
    assert [t for t in turn1 if t[0] == "musket.fired" and t[2] == "x"] == []


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_on_it_fires_offensively_at_its_target_at_half_for_moving(seed: int) -> None:
    """x moves next to h, then fires in offensive fire at h at one hex: its men (600 less
    what h's defensive fire took) with rifle muskets at 4 a man, halved for moving
    (``moved_fire_factor`` 0.5), the table's arithmetic after that (C quality: no modifier;
    h in the open): L = 5 E/1000, H = 25 E/1000."""
    events = _fight(_data(charging_fire=True), seed=seed)
    fired = [
        e
        for e in events[1:]
        if e.get("type") == "musket.fired" and e["unit"] == "x" and e["turn"] == 1
    ]
    assert len(fired) == 1
    (e,) = fired
    assert (e["phase"], e["target"], e["range"]) == ("offensive_fire", "h", 1)
    lost = sum(  # what h's defensive fire took from x before it fired
        d["result"]["casualties"]
        for d in events[1:]
        if d.get("type") == "musket.fired" and d["unit"] == "h" and d["turn"] == 1
    )
    men = 600 - lost
    assert e["base_value"] == 4.0 * men and e["factors"]["moved"] == 0.5
    # disrupted by h's volley (seed 4), x fires at half again (disrupted_fire_factor 0.5)
    assert set(e["factors"]) <= {"moved", "disrupted"}
    v = 4.0 * men * 0.5 ** len(e["factors"])
    assert e["result"]["v"] == v
    assert (e["result"]["low"], e["result"]["high"]) == pytest.approx((0.005 * v, 0.025 * v))


def test_on_it_still_charges_after_it_has_fired() -> None:
    """Firing does not take the charge's place: over seeds where h stands its fire, x's
    charge test (or its melee) follows its volley in the same turn."""
    charged = 0
    for seed in range(1, 21):
        events = _fight(_data(charging_fire=True), seed=seed)
        order = [
            (e["type"], e.get("phase"), e.get("reason"))
            for e in events[1:]
            if e.get("turn") == 1 and (e.get("unit") == "x")
        ]
        if ("musket.fired", "offensive_fire", None) in order and any(
            t == ("musket.morale_tested", "melee", "charge") or t[0] == "musket.meleed"
            for t in order
        ):
            charged += 1
            fired_at = order.index(("musket.fired", "offensive_fire", None))
            assert all(i > fired_at for i, t in enumerate(order) if t[1] == "melee")
    assert charged > 0


def test_a_charging_unit_fires_at_most_once_a_turn_and_only_after_moving() -> None:
    """may_fire: with the option, a charging unit that moved may fire offensively, one that did
    not may not (it fired, or could have, in defensive fire); off, never offensively."""
    on, off = _battle(charging_fire=True), _battle()
    for b, allowed in ((on, True), (off, False)):
        x = b.state.units["x"]
        assert may_fire(b, x, "offensive_fire") is False  # it has not moved
        x.moved_turn = 1
        assert may_fire(b, x, "offensive_fire") is allowed
        assert may_fire(b, x, "defensive_fire") is False
        x.fired_turn = 1
        assert may_fire(b, x, "offensive_fire") is False


def test_on_a_charging_unit_waits_for_offensive_fire_as_well_as_the_melee() -> None:
    five = ("movement", "defensive_fire", "offensive_fire", "melee", "rally")
    assert waits_for(_battle(), "x") == ("movement", "defensive_fire", "melee", "rally")
    assert waits_for(_battle(charging_fire=True), "x") == five
    assert waits_for(_battle(charging_fire=True), "h") == (
        "movement",
        "defensive_fire",
        "offensive_fire",
        "rally",
    )

"""Option ``counter_charge``: a unit on hold charges a spent or disrupted enemy next to it
(docs/rules/musket.md, *Options*, and its protocol under *Rules version 5*).

Side a retreats south (its units face north); the holder ``h`` of side a stands at (4,5),
the broken attacker ``x`` of side b at (4,4), straight in front of it.
"""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.musket.battle import plan, waits_for
from sim.rulesets.musket.model.state import initial_state
from sim.rulesets.musket.reading import audit
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.melee import can_charge, counter_target, decide_melee
from sim.scenario.load import validate_data
from tests.sim.test_rules import _fight, _inf, _scenario


def _battle(
    mode: str | None,
    morale: str = "spent",
    terrain: list[dict[str, Any]] | None = None,
    seed: int = 1,
    **options: Any,
) -> Battle:
    holder = _inf("h", [4, 5], order={"kind": "hold"})
    attacker = _inf("x", [4, 4], order={"kind": "charge", "target": "h"}, strength=600)
    data = _scenario([holder], [attacker], limit=1)
    data["options"] = {"counter_charge": mode, **options}
    if terrain:
        data["map"]["terrain"] = terrain
    _, sc = validate_data(data, {}, "t.yaml")
    kernel = TurnKernel(simpy.Environment(), plan(sc).phases, 20)  # the battle's own phases
    b = Battle(sc, initial_state(sc), Streams(seed), kernel)
    b.kernel.turn = 1
    b.state.units["x"].morale = morale
    return b


@pytest.mark.parametrize("morale", ["spent", "disrupted"])
def test_a_holder_counter_charges_a_broken_attacker_next_to_it(morale: str) -> None:
    b = _battle("open", morale)
    h, x = b.state.units["h"], b.state.units["x"]
    assert counter_target(b, h) is x and can_charge(b, h) is x
    event = decide_melee(b, h)
    assert event is not None and (event.unit, event.target) == ("h", "x")
    assert audit._melee(b.scenario, b.state, event) is None  # lawful, as the audit reads it
    assert event.cause is None  # what broke x is not in this hand-made state (set below)


@pytest.mark.parametrize("morale", ["good", "routed"])
def test_an_enemy_in_good_order_or_routed_is_not_counter_charged(morale: str) -> None:
    b = _battle("any", morale)
    assert counter_target(b, b.state.units["h"]) is None


def test_off_a_holder_never_charges_and_the_turn_has_its_five_phases() -> None:
    """Off: the five phases, a holder waits for neither melee nor a counterstroke. On: a
    sixth phase after the melee, which holders wait for instead of the melee, and
    charging units do not."""
    b = _battle(None)
    h = b.state.units["h"]
    assert counter_target(b, h) is None and can_charge(b, h) is None
    five = ("movement", "defensive_fire", "offensive_fire", "melee", "rally")
    assert b.kernel.phases == five
    assert waits_for(b, "h") == ("movement", "defensive_fire", "offensive_fire", "rally")
    assert waits_for(b, "x") == ("movement", "defensive_fire", "melee", "rally")
    on = _battle("open")
    assert on.kernel.phases == (*five[:4], "counterstroke", "rally")
    assert waits_for(on, "h") == ("movement", "defensive_fire", "offensive_fire",
                                  "counterstroke", "rally")  # fmt: skip
    assert waits_for(on, "x") == ("movement", "defensive_fire", "melee", "rally")


def test_open_stays_behind_cover_that_faces_the_enemy_any_does_not() -> None:
    wall = [{"hexes": [[4, 5]], "terrain": "stone_wall"}]
    covered = _battle("open", terrain=wall)
    assert counter_target(covered, covered.state.units["h"]) is None
    anywhere = _battle("any", terrain=wall)
    assert counter_target(anywhere, anywhere.state.units["h"]) is anywhere.state.units["x"]


def test_a_holder_that_fought_this_turn_or_is_not_in_good_order_does_not() -> None:
    b = _battle("any")
    h = b.state.units["h"]
    h.fought_turn = b.turn
    assert counter_target(b, h) is None
    c = _battle("any")
    c.state.units["h"].morale = "spent"
    assert counter_target(c, c.state.units["h"]) is None


def test_a_won_counterstroke_takes_the_hex_the_loser_left() -> None:
    """Among seeds, one in which h (400 men against a spent 600) wins: it advances into
    (4,4) as the loser falls back, and holds there."""
    for seed in range(1, 40):
        b = _battle("any", seed=seed)
        event = decide_melee(b, b.state.units["h"])
        assert event is not None
        if event.winner == "h" and event.loser_retreats_to is not None:
            assert event.winner_advances_to == (4, 4)
            b.state.apply(event)
            assert b.state.units["h"].hex == (4, 4)
            assert b.state.units["x"].morale == "disrupted"  # spent and beaten: disrupted
            return
    raise AssertionError("no seed in 1-39 gave the holder a win")


def test_in_a_battle_the_volley_breaks_the_charge_and_the_line_counter_charges() -> None:
    """A whole battle: x charges h across open ground; with the option, some h's melee
    appears in the log against x, and none without it, over the same seeds."""
    holder = _inf("h", [4, 6], order={"kind": "hold"}, quality="A", strength=800)
    attacker = _inf("x", [4, 2], order={"kind": "charge", "target": "h"}, quality="D")

    def meleed_by_h(mode: str | None, seed: int) -> int:
        data = _scenario([holder], [attacker], limit=4)
        data["options"] = {"counter_charge": mode}
        lines = _fight(data, seed)
        return sum(1 for x in lines if x.get("type") == "musket.meleed" and x["unit"] == "h")

    assert sum(meleed_by_h(None, s) for s in range(1, 21)) == 0
    assert sum(meleed_by_h("open", s) for s in range(1, 21)) > 0


def _two_attackers(**options: Any) -> Battle:
    """h at (4,5) with two broken enemies next to it: y north of it at (4,4), first in
    neighbour order (N, NE, SE, S, SW, NW), attacking o; x south-east at (5,5) attacking h."""
    holder = _inf("h", [4, 5], order={"kind": "hold"})
    other = _inf("o", [2, 6], order={"kind": "hold"})
    y = _inf("y", [4, 4], order={"kind": "charge", "target": "o"})
    x = _inf("x", [5, 5], order={"kind": "charge", "target": "h"})
    data = _scenario([holder, other], [y, x], limit=1)
    data["options"] = options
    _, sc = validate_data(data, {}, "t.yaml")
    b = Battle(
        sc, initial_state(sc), Streams(1), TurnKernel(simpy.Environment(), plan(sc).phases, 20)
    )
    b.kernel.turn = 1
    b.state.units["x"].morale = b.state.units["y"].morale = "spent"
    return b


def test_own_counter_charges_only_the_attack_that_came_at_it() -> None:
    """Without counter_charge_own, h strikes the first broken enemy in neighbour order,
    y; with it, x, whose charge names h; and with x in good order again, nobody."""
    free = _two_attackers(counter_charge="any")
    assert counter_target(free, free.state.units["h"]) is free.state.units["y"]
    own = _two_attackers(counter_charge="any", counter_charge_own=True)
    assert counter_target(own, own.state.units["h"]) is own.state.units["x"]
    own.state.units["x"].morale = "good"
    assert counter_target(own, own.state.units["h"]) is None  # y attacks o, not h


def test_a_counterstroke_that_holds_stays_in_its_line() -> None:
    """With counter_charge_holds, the seed whose counterstroke h wins (as in the test
    above) leaves h on (4,5); the loser falls back as before."""
    for seed in range(1, 40):
        b = _battle("any", seed=seed)
        event = decide_melee(b, b.state.units["h"])
        assert event is not None
        if event.winner == "h" and event.loser_retreats_to is not None:
            held = _battle("any", seed=seed, counter_charge_holds=True)
            same = decide_melee(held, held.state.units["h"])
            assert same is not None and same.winner == "h"
            assert same.winner_advances_to is None
            assert same.loser_retreats_to == event.loser_retreats_to
            return
    raise AssertionError("no seed in 1-39 gave the holder a win")


@pytest.mark.parametrize("holder_first", [True, False])
def test_the_counterstroke_follows_a_charge_thrown_back_that_turn_whichever_side_is_first(
    holder_first: bool,
) -> None:
    """The counterstroke has its own phase after the melee, so a charge thrown back in the
    melee phase (a failed test: ``after`` spent) is struck the same turn whether the
    holder's side is listed before the attacker's or after it (in the melee phase itself,
    a holder listed first would act before the charge it answers)."""
    holder = _inf("h", [4, 5], order={"kind": "hold"}, quality="A", strength=800)
    attacker = _inf("x", [4, 3], order={"kind": "charge", "target": "h"}, quality="E")
    struck = 0
    for seed in range(1, 31):
        sides = ([holder], [attacker]) if holder_first else ([attacker], [holder])
        data = _scenario(*sides, limit=3)
        if not holder_first:
            data["sides"][0]["retreat"], data["sides"][1]["retreat"] = "north", "south"
        data["options"] = {"counter_charge": "any"}
        lines = _fight(data, seed)
        thrown = {x["turn"] for x in lines if x.get("type") == "musket.morale_tested"
                  and x.get("reason") == "charge" and x.get("after") == "spent"}  # fmt: skip
        hits = {x["turn"] for x in lines if x.get("type") == "musket.meleed" and x["unit"] == "h"}
        struck += len(thrown & hits)
        tests = [x for x in lines if x.get("type") == "musket.morale_tested"]
        assert not [x for x in tests if x["unit"] == "h" and x["reason"] == "charge"]
    assert struck > 0  # and never a charge test for the counterstroke (above)


def test_an_engaging_attacker_counts_as_the_attack_that_came_at_it() -> None:
    b = _battle("any", counter_charge_own=True)
    assert counter_target(b, b.state.units["h"]) is b.state.units["x"]
    engage = _inf("x", [4, 4], order={"kind": "engage", "target": "h"})
    data = _scenario([_inf("h", [4, 5], order={"kind": "hold"})], [engage], limit=1)
    data["options"] = {"counter_charge": "any", "counter_charge_own": True}
    _, sc = validate_data(data, {}, "t.yaml")
    e = Battle(
        sc, initial_state(sc), Streams(1), TurnKernel(simpy.Environment(), plan(sc).phases, 20)
    )
    e.kernel.turn = 1
    e.state.units["x"].morale = "disrupted"
    assert counter_target(e, e.state.units["h"]) is e.state.units["x"]


def test_a_battery_on_hold_never_counter_charges() -> None:
    guns = {"kind": "artillery", "strength": 6, "weapon": "foot_6pdr"}
    data = _scenario(
        [_inf("h", [4, 5], order={"kind": "hold"}, **guns)],
        [_inf("x", [4, 4], order={"kind": "charge", "target": "h"})],
        limit=1,
    )
    data["options"] = {"counter_charge": "any"}
    _, sc = validate_data(data, {}, "t.yaml")
    b = Battle(
        sc, initial_state(sc), Streams(1), TurnKernel(simpy.Environment(), plan(sc).phases, 20)
    )
    b.kernel.turn = 1
    b.state.units["x"].morale = "spent"
    assert counter_target(b, b.state.units["h"]) is None


def test_holds_keeps_only_a_counterstroke_in_place_a_charge_still_advances() -> None:
    """counter_charge_holds on: x, charging h (disrupted, so weak), wins and advances into
    the hex h fell back from, in some seed."""
    for seed in range(1, 40):
        b = _battle("any", morale="good", seed=seed, counter_charge_holds=True)
        b.state.units["h"].morale = "disrupted"
        event = decide_melee(b, b.state.units["x"])
        assert event is not None and event.unit == "x"
        if event.winner == "x" and event.loser_retreats_to is not None:
            assert event.winner_advances_to == (4, 5)
            return
    raise AssertionError("no seed in 1-39 gave the charge a win")


def test_a_counterstroke_names_what_broke_its_target_as_its_cause() -> None:
    b = _battle("open")
    b.state.units["x"].morale_cause = 17  # the seq of the test or volley that threw x back
    event = decide_melee(b, b.state.units["h"])
    assert event is not None and event.cause == 17
    charge = _battle("open", morale="good")
    charge.state.units["h"].morale = "disrupted"
    charge.state.units["h"].morale_cause = 9
    by_x = decide_melee(charge, charge.state.units["x"])
    assert by_x is not None and by_x.cause is None  # an ordered charge is its own decision

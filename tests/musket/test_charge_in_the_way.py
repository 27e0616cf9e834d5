"""Option ``charge_in_the_way``: a unit that may charge, halted next to an enemy that is not
its charge target, charges the enemy in its way (docs/rules/musket.md, *Options* and
*Melee*, *The enemy in the way*).

Side a retreats south, side b north. The attacker ``att`` (side a) stands at (4,6); its
neighbours, in the fixed order N, NE, SE, S, SW, NW, are (4,5), (5,5), (5,6), (4,7), (3,6),
(3,5). Hex distances to the targets used below (``hexmap.distance``):

- from (4,2): (4,5) 3, (5,5) 4, (3,5) 4, and ``att`` itself 4;
- from (1,4): (4,5) 3, (5,5) 4, (3,5) 2, and ``att`` itself 3.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.projection import Projection
from sim.rulesets.musket import RULESET
from sim.rulesets.musket.model.hexmap import distance, neighbours
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.state import BattleState
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.fire import decide_fire
from sim.rulesets.musket.rules.melee import can_charge, decide_melee
from sim.scenario.load import validate_data
from tests.sim.test_rules import _fight, _inf, _scenario, battle_of

ON = {"charge_in_the_way": True}


def _hold(uid: str, at: list[int], **kw: Any) -> dict[str, Any]:
    return _inf(uid, at, weapon="smoothbore", order={"kind": "hold"}) | kw


def _battle(enemies: list[dict[str, Any]], target: str, options: dict[str, Any]) -> Battle:
    """``att`` (side a, 4,6) on a charge order at ``target``, against ``enemies`` (side b,
    in this scenario order)."""
    att = _inf("att", [4, 6], order={"kind": "charge", "target": target})
    data = _scenario([att], enemies, limit=1)
    data["options"] = options
    return battle_of(data)


def _charges(enemies: list[dict[str, Any]], target: str, options: dict[str, Any]) -> str | None:
    b = _battle(enemies, target, options)
    found = can_charge(b, b.state.units["att"])
    return None if found is None else found.id


BLOCKED = [_hold("blk", [4, 5]), _hold("tgt", [4, 2])]
"""``blk`` next to ``att``, between it and its target ``tgt``, four hexes off."""


def test_halted_next_to_another_enemy_it_charges_that_enemy() -> None:
    """On: ``att`` charges ``blk``, and the melee and its narrative name ``blk``; off, the
    rules as shipped: it may not charge (its target is four hexes off)."""
    assert _charges(BLOCKED, "tgt", {}) is None
    assert _charges(BLOCKED, "tgt", ON) == "blk"
    b = _battle(BLOCKED, "tgt", ON)
    event = decide_melee(b, b.state.units["att"])
    assert event is not None and (event.unit, event.target) == ("att", "blk")
    told = narrate(b.scenario, b.state, event.model_copy(update={"seq": 1}))
    assert told is not None and "ATT charges BLK" in told
    off = _battle(BLOCKED, "tgt", {})
    assert decide_melee(off, off.state.units["att"]) is None


def test_of_the_enemies_next_to_it_it_charges_the_one_nearest_its_target() -> None:
    """Target at (1,4): ``nw`` at (3,5) is 2 from it, ``n`` at (4,5) is 3, ``ne`` at (5,5) is
    4; ``nw`` is charged though ``n`` comes first both in neighbour order and in scenario
    order."""
    enemies = [_hold("n", [4, 5]), _hold("ne", [5, 5]), _hold("nw", [3, 5]), _hold("tgt", [1, 4])]
    assert _charges(enemies, "tgt", ON) == "nw"
    assert _charges(enemies, "tgt", {}) is None


def test_equally_near_the_one_first_in_scenario_order_is_charged() -> None:
    """Target at (4,2): ``ne`` (5,5) and ``nw`` (3,5) are both 4 from it. The one listed
    first (the lower ``Battle.rank``) is charged, whichever comes first in neighbour order
    (NE before NW)."""
    ne, nw, tgt = _hold("ne", [5, 5]), _hold("nw", [3, 5]), _hold("tgt", [4, 2])
    assert _charges([nw, ne, tgt], "tgt", ON) == "nw"
    assert _charges([ne, nw, tgt], "tgt", ON) == "ne"
    b = _battle([nw, ne, tgt], "tgt", ON)
    assert b.rank["nw"] < b.rank["ne"]


def test_its_target_next_to_it_is_charged_whatever_else_is() -> None:
    """The target at (5,5), next to ``att``: it is charged, on and off, though ``nw``
    (listed first) stands next to ``att`` too. A friend next to it counts for nothing: with
    only ``pal`` of its own side next to it, it charges no one."""
    enemies = [_hold("nw", [3, 5]), _hold("tgt", [5, 5])]
    assert _charges(enemies, "tgt", ON) == _charges(enemies, "tgt", {}) == "tgt"
    att = _inf("att", [4, 6], order={"kind": "charge", "target": "tgt"})
    data = _scenario([att, _hold("pal", [4, 5])], [_hold("tgt", [4, 2])], limit=1)
    data["options"] = ON
    b = battle_of(data)
    assert can_charge(b, b.state.units["att"]) is None  # only a friend next to it


@pytest.mark.parametrize("how", ["disrupted", "spent", "routed", "fought", "broken_off", "gun"])
def test_a_unit_that_may_not_charge_does_not_charge_the_enemy_in_its_way(how: str) -> None:
    """can_charge's conditions hold as they are: disrupted, spent or routed, fought this
    turn, broken off (200 of 400 lost: 0.5 >= break_off_loss 0.4) or artillery, it charges
    no one, next to ``blk`` or not."""
    b = _battle(BLOCKED, "tgt", ON)
    att = b.state.units["att"]
    assert can_charge(b, att) is b.state.units["blk"]  # as it is, it may
    if how in ("disrupted", "spent", "routed"):
        att.morale = how
    elif how == "fought":
        att.fought_turn = b.turn
    elif how == "broken_off":
        att.strength = 200
    else:
        att.kind = "artillery"
    assert can_charge(b, att) is None
    assert decide_melee(b, att) is None


def _whole(options: dict[str, Any]) -> list[dict[str, Any]]:
    """One turn: ``att`` (A, 400, 4,8) charges ``tgt`` (400, 4,1); ``blk`` (100, 4,4) is in
    its way. ``att`` walks (4,7), (4,6), (4,5) and stops next to ``blk`` (zone of
    control), four hexes from ``tgt``, out of its smoothbore's reach (2)."""
    att = _inf("att", [4, 8], quality="A", order={"kind": "charge", "target": "tgt"})
    data = _scenario([att], [_hold("blk", [4, 4], strength=100), _hold("tgt", [4, 1])], limit=1)
    if options:
        data["options"] = options
    return _fight(data)


def test_in_a_whole_battle_it_tests_against_and_charges_the_enemy_in_its_way() -> None:
    """On: the charge test reads ``blk``: ``odds`` +1 (400 men against 100, at least
    twice), which against ``tgt`` (400, even) would be 0. ``blk``'s volley at one hex
    (100 smoothbores, E = 400: at most 25 x 400 / 1000 = 10 men) is under 3 % of 400, so
    no ``under_fire``; quality A (6) + 1 = 7 passes any roll, and the melee is
    ``att`` on ``blk``. Off: the same battle has no charge test and no melee."""
    on = _whole(ON)
    moved = [e["path"] for e in on if e.get("type") == "musket.moved" and e["unit"] == "att"]
    assert moved == [[[4, 7], [4, 6], [4, 5]]]
    tests = [e for e in on if e.get("type") == "musket.morale_tested" and e["reason"] == "charge"]
    assert [(t["unit"], t["modifiers"], t["morale_value"], t["passed"]) for t in tests] == [
        ("att", {"odds": 1}, 7, True)
    ]
    melees = [(e["unit"], e["target"]) for e in on if e.get("type") == "musket.meleed"]
    assert melees == [("att", "blk")]
    off = _whole({})
    assert [e for e in off if e.get("type") == "musket.meleed"] == []
    assert [e for e in off if e.get("reason") == "charge"] == []
    assert [e["path"] for e in off if e.get("type") == "musket.moved"] == moved


def test_cavalry_charging_home_into_the_enemy_in_its_way_takes_its_volley_only() -> None:
    """With ``cavalry_charge_home``: cavalry that rode up next to ``blk`` (4,4; facing
    south, so (4,5) is its front), its target ``tgt`` (4,2) three hexes off, is charging
    ``blk`` home: ``blk`` fires its closing volley at it and ``tgt``, in reach (rifle
    musket, 4), holds its fire. Without ``charge_in_the_way`` it is not charging home
    (its target is not next to it) and both fire at it."""

    def fires(options: dict[str, Any]) -> tuple[str | None, ...]:
        att = _inf("att", [4, 5], kind="cavalry", weapon="carbine")
        att["order"] = {"kind": "charge", "target": "tgt"}
        enemies = [_inf("blk", [4, 4], order={"kind": "hold"}), _inf("tgt", [4, 2])]
        data = _scenario([att], enemies, limit=1)
        data["options"] = {"cavalry_charge_home": True} | options
        b = battle_of(data)
        b.state.units["att"].moved_turn = b.turn
        shots = [decide_fire(b, b.state.units[u], "defensive_fire") for u in ("blk", "tgt")]
        return tuple(None if s is None else s.target for s in shots)

    assert fires(ON) == ("att", None)
    assert fires({}) == ("att", "att")


def test_the_default_is_neutral_and_left_out_of_the_header() -> None:
    """A later option: false by default and not written, so every header (and replay)
    reads back byte for byte; true is written."""
    assert MusketOptions().charge_in_the_way is False
    assert "charge_in_the_way" not in MusketOptions().model_dump()
    assert "charge_in_the_way" not in _whole({"charge_in_the_way": False})[0]["scenario"]["options"]
    assert _whole(ON)[0]["scenario"]["options"]["charge_in_the_way"] is True


# --- a law over random battles -----------------------------------------------------------


def _in_the_way(state: BattleState, orders: dict[str, str]) -> bool:
    """True when some unit that may be asked to charge (on a ``charge`` order, in good
    order, on the field) stands next to an enemy while its order's target, on the field,
    does not: the one case the option changes (a target off the field is replaced by the
    nearest enemy, which is next to the unit whenever any enemy is)."""
    units, occupant = state.units, state.occupant
    for uid, target in orders.items():
        unit, tgt = units[uid], units[target]
        if unit.morale != "good" or unit.hex is None or not tgt.active or tgt.hex is None:
            continue
        if distance(unit.hex, tgt.hex) == 1:
            continue
        for h in neighbours(unit.hex):
            other = occupant.get(h)
            if other is not None and units[other].side != unit.side and units[other].active:
                return True
    return False


@st.composite
def battles(draw: st.DrawFn) -> dict[str, Any]:
    """Two sides of 1–3 infantry or cavalry units each on distinct hexes of an 8 x 8 map,
    side a in rows 4–7, side b in rows 0–3, each on a hold, charge, engage or advance
    order (a target drawn among the enemies), with the charge-related options drawn."""
    sides: list[list[dict[str, Any]]] = []
    for s, rows in enumerate(((4, 7), (0, 3))):
        spots = draw(
            st.lists(
                st.tuples(st.integers(0, 7), st.integers(*rows)).map(list),
                min_size=1,
                max_size=3,
                unique_by=tuple,
            )
        )
        sides.append(
            [
                {
                    "id": f"{'ab'[s]}{i}",
                    "name": f"{'AB'[s]}{i}",
                    "kind": draw(st.sampled_from(["infantry", "cavalry"])),
                    "strength": draw(st.integers(50, 800)),
                    "quality": draw(st.sampled_from("ABCDEF")),
                    "at": at,
                }
                for i, at in enumerate(spots)
            ]
        )
    for s, units in enumerate(sides):
        enemies = [u["id"] for u in sides[1 - s]]
        for u in units:
            u["weapon"] = "carbine" if u["kind"] == "cavalry" else "rifle_musket"
            kind = draw(st.sampled_from(["hold", "charge", "charge", "engage", "advance"]))
            if kind == "advance":
                u["order"] = {"kind": kind, "to": [draw(st.integers(0, 7)), 4 - s]}
            elif kind == "hold":
                u["order"] = {"kind": kind}
            else:
                u["order"] = {"kind": kind, "target": draw(st.sampled_from(enemies))}
    data = _scenario(sides[0], sides[1], limit=draw(st.integers(1, 4)))
    data["map"] = {"width": 8, "height": 8}
    data["options"] = {
        "cavalry_charge_home": draw(st.booleans()),
        "charging_fire": draw(st.booleans()),
    }
    return data


def _lines(data: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """The battle's events and footer, without the hash chain (the header differs)."""
    return [{k: v for k, v in e.items() if k != "h"} for e in _fight(data, seed)[1:]]


@given(data=battles(), seed=st.integers(1, 10_000))
def test_on_and_off_agree_until_an_enemy_stands_in_a_charging_units_way(
    data: dict[str, Any], seed: int
) -> None:
    """Fought with the option and without, a battle's events are the same up to the first
    event before which a charging unit stands next to an enemy with its target, on the
    field, not next to it (read from the battle without the option, folded event by
    event); in a battle where that never happens they are the same to the footer."""
    off = _lines(data, seed)
    on = _lines(data | {"options": data["options"] | ON}, seed)
    _, sc = validate_data(data, {}, "t.yaml")
    orders = {
        u.id: u.order.target
        for s in sc.sides
        for u in s.units
        if u.order.kind == "charge" and u.order.target is not None
    }
    projection = Projection(RULESET.initial_state(sc), RULESET.apply)
    first = len(off)  # no such event: the whole battle, footer too
    for i, line in enumerate(off[:-1]):
        if _in_the_way(projection.state, orders):
            first = i
            break
        projection.apply(RULESET.registry.parse(line))
    else:
        if _in_the_way(projection.state, orders):
            first = len(off) - 1
    assert on[:first] == off[:first]
    if first == len(off):
        assert len(on) == len(off)

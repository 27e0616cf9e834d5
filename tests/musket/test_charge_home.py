"""Options ``cavalry_charge_home``, ``cavalry_rally_distance`` and ``cavalry_routs_infantry``:
how a cavalry charge went (docs/rules/musket.md, *Cavalry*, *A cavalry charge*).

Side a retreats south, side b north, so b's units face south: an attacker at (4,5) is in
the front of a defender at (4,4), one at (5,3) in its flank, one at (4,3) in its rear.
"""

from __future__ import annotations

from typing import Any

from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.fire import closing_fire_target, decide_fire
from sim.rulesets.musket.rules.melee import decide_melee
from sim.rulesets.musket.rules.morale import charge_failure, out_of_fire
from tests.sim.test_rules import _fight, _inf, _scenario, battle_of

FRONT, FLANK = [4, 5], [5, 3]
"""Hexes next to the defender at (4,4), in its front and its flank."""

HOME = {"cavalry_charge_home": True}


def _cav(uid: str, at: list[int], **kw: Any) -> dict[str, Any]:
    return _inf(uid, at, kind="cavalry", weapon="carbine") | kw


def _foot(uid: str, at: list[int], **kw: Any) -> dict[str, Any]:
    return _inf(uid, at, weapon="smoothbore", order={"kind": "hold"}) | kw


def _battle(at: list[int], options: dict[str, Any], moved: bool = True) -> Battle:
    """Cavalry ``att`` (side a) at ``at`` charging ``def`` (side b, 4,4); ``oth`` (side b)
    at (6,4), two hexes from (4,5). ``moved``: the cavalry moved this turn by its order."""
    att = _cav("att", at, order={"kind": "charge", "target": "def"})
    data = _scenario([att], [_foot("def", [4, 4]), _foot("oth", [6, 4])], limit=1)
    data["options"] = {"cavalry_vs_line": None} | options  # a line as formed (before v8)
    b = battle_of(data)
    if moved:
        b.state.units["att"].moved_turn = b.turn
    return b


def _fires_at(b: Battle, uid: str) -> str | None:
    event = decide_fire(b, b.state.units[uid], "defensive_fire")
    return None if event is None else event.target


def test_off_every_enemy_in_reach_fires_at_the_halted_cavalry() -> None:
    """Rules version 3 as shipped: the cavalry at one hex is shot at as in a firefight,
    by the unit it charges and by the other in reach."""
    b = _battle(FRONT, {})
    assert (_fires_at(b, "def"), _fires_at(b, "oth")) == ("att", "att")


def test_charging_home_only_its_target_fires_one_volley_from_its_front() -> None:
    """On: the charged unit fires at the cavalry (its closing volley, once: a unit fires
    once a turn); the other unit, whose target it would be, holds its fire."""
    b = _battle(FRONT, HOME)
    assert (_fires_at(b, "def"), _fires_at(b, "oth")) == ("att", None)
    b = _battle(FRONT, HOME)
    dfn = b.state.units["def"]
    assert closing_fire_target(b, dfn, b.state.units["oth"]) is b.state.units["att"]


def test_charged_in_the_flank_the_target_gets_no_closing_fire() -> None:
    """From the flank the charged unit may not fire at the cavalry, nor may anyone else."""
    b = _battle(FLANK, HOME)
    assert b.arc(b.state.units["def"], (5, 3)) == "flank"
    att = b.state.units["att"]
    assert closing_fire_target(b, b.state.units["def"], att) is None
    assert closing_fire_target(b, b.state.units["oth"], att) is None


def test_cavalry_that_did_not_move_is_in_a_firefight() -> None:
    """Cavalry standing next to its target since last turn is not charging home: every
    enemy in reach may fire at it, as without the option."""
    b = _battle(FRONT, HOME, moved=False)
    assert (_fires_at(b, "def"), _fires_at(b, "oth")) == ("att", "att")


def test_cavalry_failing_its_charge_test_is_thrown_back_whatever_the_margin() -> None:
    """Failing by 1 (roll 5, value 4; the recoil margin is 3): infantry, or cavalry
    without the option, stays in the firefight; cavalry with it is spent (disrupted
    without assault_exhaustion)."""
    on, off = MusketOptions(**HOME), MusketOptions()
    assert charge_failure(off, "good", 5, 4, cavalry=True) == "good"
    assert charge_failure(on, "good", 5, 4, cavalry=False) == "good"
    assert charge_failure(on, "good", 5, 4, cavalry=True) == "spent"
    bare = MusketOptions(cavalry_charge_home=True, assault_exhaustion=None)
    assert charge_failure(bare, "good", 5, 4, cavalry=True) == "disrupted"
    assert charge_failure(off, "good", 6, 2, cavalry=True) == "spent"  # by 4: as before


def _spent_cavalry(options: dict[str, Any], enemy_at: list[int]) -> Battle:
    """Spent cavalry at (4,8), fired on this turn, at high fatigue; an enemy at ``enemy_at``."""
    data = _scenario(
        [_cav("cav", [4, 8], order={"kind": "charge", "target": "foe"})],
        [_foot("foe", enemy_at)],
        limit=2,
    )
    data["options"] = options
    b = battle_of(data)
    cav = b.state.units["cav"]
    cav.morale, cav.fatigue = "spent", 700
    b.fire_losses["cav"] = (b.turn, 10)
    return b


def test_spent_cavalry_reforms_out_of_contact() -> None:
    """Enemy two hexes off ((4,6) to (4,8)): infantry's rule (no enemy within 4, not fired
    on, rested) keeps the cavalry spent; cavalry_rally_distance 1 lets it rally, 2 does
    not, and 2 does with the enemy three hexes off."""
    b = _spent_cavalry({}, [4, 6])
    assert not out_of_fire(b, b.state.units["cav"])
    for distance, enemy, free in ((1, [4, 6], True), (2, [4, 6], False), (2, [4, 5], True)):
        b = _spent_cavalry({"cavalry_rally_distance": distance}, enemy)
        assert out_of_fire(b, b.state.units["cav"]) is free


SURE = {"cavalry_vs_formed": 10.0, "melee_odds_exponent": 20}
"""Horse 400 x 10 against 400 foot: odds 10, chance 1 - 10^-20 = 1.0 in floating point."""


def _melee(options: dict[str, Any]) -> str:
    b = _battle(FRONT, SURE | options)
    event = decide_melee(b, b.state.units["att"])
    assert event is not None and event.odds is not None and event.winner == "att"
    assert event.odds.p_attacker == 1.0
    return event.loser_state


def test_infantry_beaten_by_cavalry_is_routed() -> None:
    """In good order and beaten: disrupted as shipped, routed with the option."""
    assert _melee({}) == "disrupted"
    assert _melee({"cavalry_routs_infantry": True}) == "routed"


def test_cavalry_beaten_by_infantry_is_only_disrupted() -> None:
    """The option routs infantry beaten by cavalry, not cavalry beaten by infantry:
    400 horse x 0.0 weighs nothing, so the square wins."""
    b = _battle(FRONT, {"cavalry_vs_formed": 0.0, "cavalry_routs_infantry": True})
    event = decide_melee(b, b.state.units["att"])
    assert event is not None and event.winner == "def" and event.loser_state == "disrupted"


def test_a_charge_home_in_a_whole_battle() -> None:
    """Cavalry three hexes from the square: it rides up in the movement phase; in defensive
    fire only the square fires at it (one volley, range 1), the other battalion holds;
    the charge test follows in the melee phase. Off, both fire."""

    def fight(options: dict[str, Any]) -> list[dict[str, Any]]:
        att = _cav("att", [4, 8], order={"kind": "charge", "target": "def"})
        data = _scenario([att], [_foot("def", [4, 4]), _foot("oth", [6, 4])], limit=1)
        data["options"] = options
        return [e for e in _fight(data) if e.get("turn") == 1]

    def shots(events: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
        return [(e["unit"], e["target"], e["range"]) for e in events if e["type"] == "musket.fired"]

    on, off = fight(HOME), fight({})
    moved = [e for e in on if e["type"] == "musket.moved" and e["unit"] == "att"]
    assert moved and moved[0]["path"][-1] == FRONT
    assert shots(on) == [("def", "att", 1)]
    assert shots(off) == [("def", "att", 1), ("oth", "att", 2)]
    tests = [e for e in on if e["type"] == "musket.morale_tested" and e["reason"] == "charge"]
    assert [t["unit"] for t in tests] == ["att"]


def test_the_defaults_are_neutral_and_left_out() -> None:
    """Later options: off at their defaults and not written, so headers read back byte for
    byte."""
    o = MusketOptions()
    assert (o.cavalry_charge_home, o.cavalry_rally_distance, o.cavalry_routs_infantry) == (
        False,
        None,
        False,
    )
    dumped = o.model_dump()
    for name in ("cavalry_charge_home", "cavalry_rally_distance", "cavalry_routs_infantry"):
        assert name not in dumped
    assert MusketOptions(cavalry_rally_distance=1).model_dump()["cavalry_rally_distance"] == 1

"""Options ``closing_depth``, ``column_closing_share`` and ``closing_rout_margin``: what a
charge in depth, the head of a column and a volley that breaks it make of the charge test
(docs/rules/musket.md, *Options*, and the options' protocols and results under *Rules
version 4* and *Rules version 5*).

Side a retreats south, so its units face north: (4,6) is the only hex in the rear arc of
(4,5), (4,7) the only one in the rear arc of (4,6). The charging unit ``att`` stands at
(4,5) next to its target ``def`` at (4,4).
"""

from __future__ import annotations

import math
from typing import Any

from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading import audit
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.morale import (
    assault_mass,
    charge_failure,
    closing_loss_steps,
    closing_share,
    decide_charge_test,
)
from tests.sim.test_rules import _inf, _scenario, battle_of


def _battle(options: dict[str, Any], *extra: dict[str, Any], **att: Any) -> Battle:
    a = [_inf("att", [4, 5], order={"kind": "charge", "target": "def"}, **att), *extra]
    data = _scenario(a, [_inf("def", [4, 4], order={"kind": "hold"}, strength=500)], limit=1)
    data["options"] = options
    return battle_of(data)


def _behind(uid: str, at: list[int], **kw: Any) -> dict[str, Any]:
    return _inf(uid, at, order={"kind": "charge", "target": "def"}, **kw)


def _lost(b: Battle, **men: int) -> None:
    """Each unit named has lost this many men to fire this turn, of the strength it
    started the turn with."""
    for uid, n in men.items():
        b.state.units[uid].strength -= n
        b.fire_losses[uid] = (b.turn, n)


def _ids(b: Battle) -> list[str]:
    return [u.id for u in assault_mass(b, b.state.units["att"])]


OFF = {"closing_depth": False, "column_closing_share": None}
"""Both options off: rules version 4's charge test."""


def test_off_the_charging_unit_is_alone_and_its_share_is_fire_share() -> None:
    b = _battle(OFF, _behind("r1", [4, 6]))
    _lost(b, att=40, r1=20)
    att = b.state.units["att"]
    assert _ids(b) == ["att"]
    assert closing_share(b, [att]) == b.fire_share(att) == 40 / 400


def test_in_depth_the_lines_behind_carry_it_in_front_to_rear() -> None:
    """The chain of friends in the rear arc, of the charging unit's kind, in good order or
    spent, front to rear. A friend on the flank is not in it; a battery or a disrupted
    line behind ends the chain (the line behind a disrupted one does not count)."""
    on = {"closing_depth": True}
    b = _battle(on, _behind("r1", [4, 6]), _behind("r2", [4, 7]), _behind("side", [5, 5]))
    assert _ids(b) == ["att", "r1", "r2"]
    gun = _inf("r1", [4, 6], kind="artillery", weapon="napoleon_12pdr", strength=6)
    b = _battle(on, gun | {"order": {"kind": "hold"}})
    assert _ids(b) == ["att"]
    b = _battle(on, _behind("r1", [4, 6], morale="disrupted"), _behind("r2", [4, 7]))
    assert _ids(b) == ["att"]
    b = _battle(on, _behind("r1", [4, 6]))
    b.state.units["r1"].morale = "spent"
    assert _ids(b) == ["att", "r1"]


def test_in_depth_the_share_lost_is_the_mass_s() -> None:
    """att 400 lost 40, r1 400 lost 20: alone 40/400 = 0.1, three steps of 0.03; in depth
    60/800 = 0.075, two steps."""
    b = _battle({"closing_depth": True}, _behind("r1", [4, 6]))
    _lost(b, att=40, r1=20)
    mass = assault_mass(b, b.state.units["att"])
    assert closing_share(b, mass) == 60 / 800
    assert closing_loss_steps(60 / 800, 0.03) == 2
    assert closing_loss_steps(40 / 400, 0.03) == 3


def test_the_head_of_a_column_takes_the_volley() -> None:
    """A column of 800 that lost 40: 40/800 = 0.05 of it, one step; counted at half its
    men (column_closing_share 0.5), 40/400 = 0.1, three steps. A line is unaffected; the
    share is at most 1."""
    for head, share in ((None, 40 / 800), (0.5, 40 / 400), (0.25, 40 / 200)):
        b = _battle({"column_closing_share": head}, strength=800, formation="column")
        _lost(b, att=40)
        assert closing_share(b, [b.state.units["att"]]) == share
    b = _battle({"column_closing_share": 0.5, "closing_depth": False})
    _lost(b, att=40)
    assert closing_share(b, [b.state.units["att"]]) == 40 / 400
    b = _battle({"column_closing_share": 0.1}, strength=400, formation="column")
    _lost(b, att=200)
    assert closing_share(b, [b.state.units["att"]]) == 1.0


def _test(b: Battle) -> dict[str, int]:
    event = decide_charge_test(b, b.state.units["att"], b.state.units["def"])
    assert event.morale_value == event.base + sum(event.modifiers.values())
    return dict(event.modifiers)


def test_the_charge_test_reads_the_mass() -> None:
    """att 400 (lost 40) against def 500: alone, under fire -3 (40/400 = 0.1) and odds -1
    (360 left, fewer than 500); with r1 400 behind (lost 20), -2 (60/800 = 0.075) and no
    odds modifier (740: not fewer than 500, not twice it); support +1 either way."""
    for depth, share, odds in ((False, 40 / 400, -1), (True, 60 / 800, None)):
        b = _battle({"closing_depth": depth}, _behind("r1", [4, 6]))
        _lost(b, att=40, r1=20)
        mods = _test(b)
        assert mods["under_fire"] == -math.floor(share / 0.03 + 1e-9) == (-2 if depth else -3)
        assert mods.get("odds") == odds
        assert mods["support"] == 1


# --- closing_rout_margin: a column broken by the volley -------------------------------


def test_failing_by_the_rout_margin_routs() -> None:
    """closing_rout_margin 6: failing by 1 or 2 leaves the unit in the firefight, by 3 to 5
    throws it back (closing_recoil_margin 3), by 6 or more routs it, cavalry charging home
    too; off (null, rules version 5), any failure of 3 or more throws it back."""
    on = MusketOptions(closing_rout_margin=6)
    off = MusketOptions()
    assert [charge_failure(on, "good", 6, v) for v in (4, 1, 0, -1, -9)] == [
        "good",
        "spent",
        "routed",
        "routed",
        "routed",
    ]
    assert charge_failure(off, "good", 6, -9) == "spent"
    home = on.model_copy(update={"cavalry_charge_home": True})
    assert charge_failure(home, "good", 5, 4, cavalry=True) == "spent"
    assert charge_failure(home, "good", 6, 0, cavalry=True) == "routed"


def test_a_charge_test_that_routs_is_lawful_and_takes_prisoners() -> None:
    """att 400 lost 200 to fire this turn: under fire -16 (200/400 in steps of 0.03), so
    every roll fails by 6 or more and the unit routs; next to def in good order it gives
    up floor(0.5 x 200) = 100 prisoners with rout_prisoners_share 0.5 (50 at the default,
    0.25; none at 0, version 5's default). The audit, which re-derives every morale
    transition from the options, finds nothing wrong with it."""
    b = _battle({"closing_rout_margin": 6, "rout_prisoners_share": 0.5})
    _lost(b, att=200)
    event = decide_charge_test(b, b.state.units["att"], b.state.units["def"])
    assert event.modifiers["under_fire"] == -16
    assert not event.passed and event.roll - event.morale_value >= 6
    assert (event.after, event.prisoners) == ("routed", 100)
    assert audit._morale(b.scenario, b.state, event) is None
    default = _battle({"closing_rout_margin": 6})
    _lost(default, att=200)
    taken = decide_charge_test(default, default.state.units["att"], default.state.units["def"])
    assert taken.prisoners == 50
    calm = _battle({"closing_rout_margin": 6, "rout_prisoners_share": 0})
    _lost(calm, att=200)
    assert decide_charge_test(calm, calm.state.units["att"], calm.state.units["def"]).prisoners == 0


def test_for_an_army_retreating_west_the_mass_is_a_straight_column_not_a_wedge() -> None:
    """Side a retreats west: the rear arc of (5,4) is two hexes, SW (4,5) and NW (4,4). With
    friends on (4,3), (4,4), (3,3)–(3,5) and (2,2)–(2,6), the column runs from (4,4), the
    first friend in the rear arc (N, NE, SE, S, SW, NW order), on north-west in a straight
    line: (3,3), (2,3); its wedge of ten friends would count 2,800 more men."""
    rear = [[4, 3], [4, 4], [3, 3], [3, 4], [3, 5], [2, 2], [2, 3], [2, 4], [2, 5], [2, 6]]
    friends = [_inf(f"r{c}{r}", [c, r], order={"kind": "hold"}) for c, r in rear]
    data = _scenario(
        [_inf("att", [5, 4], order={"kind": "charge", "target": "def"}), *friends],
        [_inf("def", [6, 4], order={"kind": "hold"})],
        limit=1,
    )
    data["sides"][0]["retreat"], data["sides"][1]["retreat"] = "west", "east"
    b = battle_of(data)
    mass = assault_mass(b, b.state.units["att"])
    assert [u.hex for u in mass] == [(5, 4), (4, 4), (3, 3), (2, 3)]

"""Option ``rout_prisoners_share`` (ours): a unit that routs next to an enemy in good order
(or spent) loses floor(share x what it has left) as prisoners (docs/rules/musket.md,
*Morale checks*, *Melee*, option row).

Side a retreats south, side b north. The checks are made certain by the rule's own
arithmetic: quality F (morale 1) with ``ammo: low`` (-1) gives a morale value of 0, which
always fails (a d6 never rolls 0); quality A (6) always passes. A failure outside
defensive fire routs (seed 003), so a check in the melee phase routs a unit in good order.
"""

from __future__ import annotations

import json
import math
from typing import Any

from sim.rulesets.musket.model.events import Meleed, MoraleTested
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.melee import decide_melee
from sim.rulesets.musket.rules.morale import decide_morale, rout_prisoners
from sim.rulesets.musket.rules.victory import blows, side_shares
from tests.sim.test_rules import _inf, _scenario, battle_of

DOOMED = {"quality": "F", "ammo": "low"}
"""Morale value 1 - 1 = 0: every check fails."""


def _battle(
    share: float | None,
    enemy: dict[str, Any] | None = None,
    unit: dict[str, Any] | None = None,
    **options: Any,
) -> Battle:
    """b1 (side b, 400 men at 4,4) with, by default, a1 (side a, 400 men) next to it at 4,5."""
    a = [_inf("a1", [4, 5], order={"kind": "hold"}) | (enemy or {})]
    b = [_inf("b1", [4, 4], order={"kind": "hold"}) | DOOMED | (unit or {})]
    data = _scenario(a, b, limit=1)
    opts = dict(options)
    if share is not None:
        opts["rout_prisoners_share"] = share
    if opts:
        data["options"] = opts
    return battle_of(data)


def _check(b: Battle, phase: str = "melee") -> MoraleTested:
    unit = b.state.units["b1"]
    event = decide_morale(b, unit, phase, "loss", 1, "a1")
    return event.model_copy(update={"seq": 2})


def test_the_default_is_a_quarter_and_none_is_left_out_of_the_line() -> None:
    """The default, 0.25 (rules version 6): the rout of the 400 men takes 100 prisoners.
    Share 0 (version 5's default): the rout costs no man and the line has no ``prisoners``."""
    assert MusketOptions().rout_prisoners_share == 0.25
    event = _check(_battle(None))
    assert (event.passed, event.after, event.prisoners) == (False, "routed", 100)
    assert json.loads(event.model_dump_json())["prisoners"] == 100
    event = _check(_battle(0))
    assert (event.passed, event.after, event.prisoners) == (False, "routed", 0)
    assert "prisoners" not in json.loads(event.model_dump_json())


def test_the_share_of_what_is_left_rounded_down() -> None:
    """floor(share x left): 0.25 x 283 = 70.75 -> 70; 0.1 x 30 = 3 exactly (not 2);
    0.5 x 5 = 2.5 -> 2; share 1 takes all; 0 left gives 0."""
    b = _battle(0.25)
    unit = b.state.units["b1"]
    assert rout_prisoners(b, unit, 283) == 70
    assert rout_prisoners(b, unit, 0) == 0
    assert rout_prisoners(_battle(0.1), unit, 30) == 3
    assert rout_prisoners(_battle(0.5), unit, 5) == 2
    assert rout_prisoners(_battle(1.0), unit, 283) == 283
    assert rout_prisoners(_battle(0.0), unit, 283) == 0


def test_only_an_enemy_in_good_order_or_spent_next_to_it_takes_prisoners() -> None:
    """Good or spent: floor(0.25 x 400) = 100; disrupted, routed, two hexes off, a friend
    next to it, or the one enemy named ``gone``: none."""
    for morale, taken in (("good", 100), ("spent", 100), ("disrupted", 0), ("routed", 0)):
        b = _battle(0.25)
        b.state.units["a1"].morale = morale  # spent is no scenario state: set on the state
        assert rout_prisoners(b, b.state.units["b1"], 400) == taken, morale
    b = _battle(0.25, {"at": [4, 6]})  # two hexes away
    assert rout_prisoners(b, b.state.units["b1"], 400) == 0
    b = _battle(0.25)
    assert rout_prisoners(b, b.state.units["b1"], 400, gone="a1") == 0
    data = _scenario(
        [_inf("a1", [4, 8], order={"kind": "hold"})],
        [_inf("b1", [4, 4], order={"kind": "hold"}), _inf("b2", [4, 5], order={"kind": "hold"})],
        limit=1,
        options={"rout_prisoners_share": 0.25},
    )
    b = battle_of(data)
    assert rout_prisoners(b, b.state.units["b1"], 400) == 0  # its neighbour is a friend


def test_a_check_that_routs_records_and_applies_the_prisoners() -> None:
    """Share 0.25, 400 men: the check routs it with floor(0.25 x 400) = 100 prisoners;
    applied, it has 300 men, 100 lost, routed, and its army has lost 100 / 400 of its men;
    the rout is a blow to its army; the narrative names the prisoners."""
    b = _battle(0.25)
    event = _check(b)
    assert (event.before, event.after, event.prisoners) == ("good", "routed", 100)
    assert json.loads(event.model_dump_json())["prisoners"] == 100
    line = narrate(b.scenario, b.state, event)
    assert line is not None and line.endswith("routed, 100 men taken prisoner")
    assert blows(event, b.state) == ("b",)
    b.state.morale_changed(event)
    unit = b.state.units["b1"]
    assert (unit.strength, unit.men_lost, unit.morale, unit.morale_cause) == (300, 100, "routed", 2)
    assert side_shares(b, "b") == (1.0, 0.25)


def test_no_prisoners_without_a_rout() -> None:
    """A failure in defensive fire only disrupts; a pass changes nothing; a unit already
    routed does not rout again: none of them gives prisoners."""
    assert _check(_battle(0.25), "defensive_fire").after == "disrupted"
    assert _check(_battle(0.25), "defensive_fire").prisoners == 0
    passed = _check(_battle(0.25, unit={"quality": "A", "ammo": "full"}))
    assert (passed.passed, passed.prisoners) == (True, 0)
    already = _check(_battle(0.25, unit={"morale": "routed"}))
    assert (already.after, already.prisoners) == ("routed", 0)


def test_heavy_losses_rout_in_defensive_fire_with_prisoners() -> None:
    """Rules version 3's rout after 30 % lost: 250 of 400 men left (37.5 % lost), a failure
    in defensive fire routs, and floor(0.5 x 250) = 125 are taken."""
    b = _battle(0.5)
    unit = b.state.units["b1"]
    unit.strength, unit.men_lost = 250, 150
    event = _check(b, "defensive_fire")
    assert (event.after, event.prisoners) == ("routed", 125)


def test_a_battery_that_routs_gives_up_guns() -> None:
    """A battery of 6 guns: floor(0.5 x 6) = 3 guns, counted in its guns lost."""
    battery = {"kind": "artillery", "weapon": "foot_6pdr", "strength": 6}
    b = _battle(0.5, unit=battery)
    event = _check(b)
    assert (event.after, event.prisoners) == ("routed", 3)
    line = narrate(b.scenario, b.state, event)
    assert line is not None and line.endswith("routed, 3 guns taken prisoner")
    b.state.morale_changed(event)
    unit = b.state.units["b1"]
    assert (unit.strength, unit.guns_lost, unit.men_lost) == (3, 3, 0)


SURE_WIN = {"melee_odds_exponent": 20}
"""400 in good order against 40 disrupted (weight x 0.5 = 20): odds 20, chance
1 - 20^-20, which is 1.0 in floating point, so the attacker wins whatever the draw."""


def _melee(share: float, **options: Any) -> tuple[Battle, Meleed]:
    """a1 (400) charges b1 (40 men, disrupted): b1 loses and routs (it was disrupted)."""
    data = _scenario(
        [_inf("a1", [4, 5], order={"kind": "charge", "target": "b1"})],
        [_inf("b1", [4, 4], order={"kind": "hold"}, strength=40, morale="disrupted")],
        limit=1,
        options={"rout_prisoners_share": share} | SURE_WIN | options,
    )
    b = battle_of(data)
    event = decide_melee(b, b.state.units["a1"])
    assert event is not None and event.odds is not None
    assert event.odds.p_attacker == 1.0 and event.winner == "a1"
    return b, event.model_copy(update={"seq": 2})


def test_a_melee_that_routs_the_loser_takes_prisoners_of_what_is_left() -> None:
    """The disrupted loser routs: floor(0.5 x (40 - c)) prisoners, c its melee casualties;
    applied it keeps 40 - c - prisoners and falls back routed."""
    b, event = _melee(0.5)
    c = event.defender_losses.casualties
    assert event.loser_state == "routed"
    assert event.prisoners == math.floor(0.5 * (40 - c)) > 0
    line = narrate(b.scenario, b.state, event)
    assert line is not None and f"; {event.prisoners} men taken prisoner" in line
    b.state.meleed(event)
    unit = b.state.units["b1"]
    assert unit.strength == 40 - c - event.prisoners
    assert unit.men_lost == c + event.prisoners
    assert unit.morale == "routed" and unit.hex == event.loser_retreats_to


def test_a_melee_share_of_one_takes_all_and_the_winner_advances() -> None:
    """Share 1: every man left is taken; the loser is eliminated and a1 takes its hex."""
    b, event = _melee(1.0)
    c = event.defender_losses.casualties
    assert event.prisoners == 40 - c
    assert (event.loser_state, event.loser_retreats_to, event.winner_advances_to) == (
        "eliminated",
        None,
        (4, 4),
    )
    b.state.meleed(event)
    unit = b.state.units["b1"]
    assert (unit.strength, unit.men_lost, unit.morale, unit.hex) == (0, 40, "eliminated", None)


def test_a_melee_at_share_zero_is_as_before() -> None:
    """Share 0: no prisoners, and the line has no ``prisoners``."""
    _, event = _melee(0.0)
    assert event.prisoners == 0
    assert "prisoners" not in json.loads(event.model_dump_json())


def test_prisoners_come_after_the_cavalry_pursuit() -> None:
    """Cavalry beating the disrupted foot: pursuit p = floor(0.25 x (40 - c)), then
    prisoners floor(0.5 x (40 - c - p))."""
    data = _scenario(
        [
            _inf(
                "a1",
                [4, 5],
                kind="cavalry",
                weapon="carbine",
                order={"kind": "charge", "target": "b1"},
            )
        ],
        [_inf("b1", [4, 4], order={"kind": "hold"}, strength=40, morale="disrupted")],
        limit=1,
        options={"rout_prisoners_share": 0.5, "cavalry_pursuit_share": 0.25} | SURE_WIN,
    )
    b = battle_of(data)
    event = decide_melee(b, b.state.units["a1"])
    assert event is not None and event.winner == "a1"
    left = 40 - event.defender_losses.casualties
    pursuit = math.floor(0.25 * left)
    assert event.pursuit_losses == pursuit
    assert event.prisoners == math.floor(0.5 * (left - pursuit))

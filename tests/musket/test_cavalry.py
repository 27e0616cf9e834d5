"""Options ``cavalry_vs_formed``, ``cavalry_vs_broken`` and ``cavalry_pursuit_share``: a
cavalry charge in the v3 ``odds`` melee rule (docs/rules/musket.md, *Melee*, *Cavalry*).

Side a retreats south, side b north, so b's units face south: an attacker at (4,5) is in
the front of a defender at (4,4), one at (5,3) in its flank, one at (4,3) in its rear.
Every unit is quality C (no quality modifier) and fresh (no fatigue), so a side's weight is
its melee strength x its factors, and the expected values below are that product.
"""

from __future__ import annotations

import math
from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.events import Draw
from sim.rulesets.musket.model.events import Meleed
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.melee import (
    attacker_chance,
    cavalry_factors,
    decide_melee,
    melee_odds,
    pursuit_loss,
)
from tests.sim.test_rules import _inf, _scenario, battle_of

FRONT, FLANK, REAR = [4, 5], [5, 3], [4, 3]
"""Hexes next to the defender at (4,4), in its front, flank and rear."""

U = Draw("1/melee/att", 0, 0.5)
"""The odds draw handed to melee_odds: it does not enter the weights."""


def _unit(uid: str, kind: str, at: list[int], **kw: Any) -> dict[str, Any]:
    weapon = {"infantry": "smoothbore", "cavalry": "carbine", "artillery": "foot_6pdr"}[kind]
    strength = 6 if kind == "artillery" else 400
    return _inf(uid, at, kind=kind, weapon=weapon, strength=strength) | kw


def _battle(
    att_kind: str,
    def_kind: str,
    at: list[int] = FRONT,
    options: dict[str, Any] | None = None,
    def_strength: int | None = None,
) -> Battle:
    """``att`` (side a) next to ``def`` (side b, at 4,4) with a charge order on it."""
    att = _unit("att", att_kind, at, order={"kind": "charge", "target": "def"})
    dfn = _unit("def", def_kind, [4, 4], order={"kind": "hold"})
    if def_strength is not None:
        dfn["strength"] = def_strength
    data = _scenario([att], [dfn], limit=1)
    # a line weighed as formed, as before rules version 8 made cavalry_vs_line 3: these
    # tests hold the other cavalry options (tests/musket/test_cavalry_vs_line.py holds it)
    data["options"] = {"cavalry_vs_line": None} | (options or {})
    return battle_of(data)


FACTORS = {"cavalry_vs_formed": 0.25, "cavalry_vs_broken": 3.0}


def _odds(
    att_kind: str,
    def_kind: str,
    at: list[int] = FRONT,
    morale: str = "good",
    options: dict[str, Any] | None = None,
) -> tuple[str, dict[str, float], float, dict[str, float], float]:
    """(arc, attacker factors and weight, defender factors and weight) of one charge."""
    b = _battle(att_kind, def_kind, at, FACTORS if options is None else options)
    att, dfn = b.state.units["att"], b.state.units["def"]
    dfn.morale = morale
    arc = b.arc(dfn, att.hex)
    o = melee_odds(b, att, dfn, arc, U)
    assert o.ratio == o.attacker_weight / o.defender_weight
    assert o.p_attacker == attacker_chance(o.ratio, 1.0)
    return arc, o.attacker_factors, o.attacker_weight, o.defender_factors, o.defender_weight


def test_cavalry_against_formed_infantry_from_its_front() -> None:
    """400 horse x 0.25 = 100 against 400 foot in good order from the front: odds 1/4,
    the attacker's chance (1/4)/(1/4 + 1) = 0.2. Spent infantry is in order too."""
    assert _odds("cavalry", "infantry") == ("front", {"cavalry_vs_formed": 0.25}, 100.0, {}, 400.0)
    b = _battle("cavalry", "infantry", options=FACTORS)
    o = melee_odds(b, b.state.units["att"], b.state.units["def"], "front", U)
    assert o.p_attacker == pytest.approx(0.2)
    spent = _odds("cavalry", "infantry", morale="spent")
    assert spent == ("front", {"cavalry_vs_formed": 0.25}, 100.0, {}, 400.0)


def test_cavalry_against_disrupted_or_routed_infantry() -> None:
    """Disrupted: 400 x 3 = 1200 against 400 x 0.5 (disorder) = 200; routed: against
    400 / 4 = 100 (the routed defender's divisor is in its melee strength)."""
    assert _odds("cavalry", "infantry", morale="disrupted") == (
        "front",
        {"cavalry_vs_broken": 3.0},
        1200.0,
        {"disorder": 0.5},
        200.0,
    )
    assert _odds("cavalry", "infantry", morale="routed") == (
        "front",
        {"cavalry_vs_broken": 3.0},
        1200.0,
        {},
        100.0,
    )


def test_cavalry_against_infantry_in_flank_or_rear() -> None:
    """In good order but charged from its flank or rear: 1200 against 400 x 0.5 = 200."""
    for at, arc in ((FLANK, "flank"), (REAR, "rear")):
        assert _odds("cavalry", "infantry", at) == (
            arc,
            {"cavalry_vs_broken": 3.0},
            1200.0,
            {arc: 0.5},
            200.0,
        )


def test_cavalry_against_artillery() -> None:
    """A battery of 6 guns weighs 6 x 8 = 48. From its front in good order no cavalry
    factor applies (cavalry_vs_formed is infantry's); disrupted or flanked, x3."""
    assert _odds("cavalry", "artillery") == ("front", {}, 400.0, {}, 48.0)
    assert _odds("cavalry", "artillery", morale="disrupted") == (
        "front",
        {"cavalry_vs_broken": 3.0},
        1200.0,
        {"disorder": 0.5},
        24.0,
    )
    assert _odds("cavalry", "artillery", FLANK) == (
        "flank",
        {"cavalry_vs_broken": 3.0},
        1200.0,
        {"flank": 0.5},
        24.0,
    )


def test_other_attackers_and_defenders_are_unaffected() -> None:
    """Infantry charging anything, and cavalry charging cavalry, weigh as before: 400."""
    for att, dfn, at, morale in (
        ("infantry", "infantry", FRONT, "good"),
        ("infantry", "infantry", FRONT, "disrupted"),
        ("infantry", "infantry", REAR, "good"),
        ("infantry", "artillery", FLANK, "good"),
        ("cavalry", "cavalry", FRONT, "good"),
        ("cavalry", "cavalry", REAR, "disrupted"),
    ):
        _, f_att, w_att, _, _ = _odds(att, dfn, at, morale)
        assert (f_att, w_att) == ({}, 400.0)


def test_a_factor_of_one_is_not_written() -> None:
    """At the defaults (1.0) no cavalry factor enters the attacker's factors."""
    for dfn, at, morale in (
        ("infantry", FRONT, "good"),
        ("infantry", FRONT, "disrupted"),
        ("infantry", REAR, "good"),
        ("artillery", FLANK, "routed"),
    ):
        assert _odds("cavalry", dfn, at, morale, options={})[1:3] == ({}, 400.0)
    b = _battle("cavalry", "infantry")
    assert cavalry_factors(b, b.state.units["att"], b.state.units["def"], "rear") == {}


CASES = list(
    product(
        ("infantry", "cavalry"),
        ("infantry", "cavalry", "artillery"),
        (FRONT, FLANK, REAR),
        ("good", "spent", "disrupted", "routed"),
        ("line", "column"),
    )
)


@pytest.mark.parametrize(("att_kind", "def_kind", "at", "morale", "formation"), CASES)
def test_at_the_defaults_every_weight_is_todays(
    att_kind: str, def_kind: str, at: list[int], morale: str, formation: str
) -> None:
    """Every attacker and defender kind, arc, morale and formation: at the defaults the
    attacker's weight is its strength x (1 + column bonus/100), with no factor, as the
    v3 rule has it without the cavalry options."""
    b = _battle(att_kind, def_kind, at)
    att, dfn = b.state.units["att"], b.state.units["def"]
    att.formation, dfn.morale = formation, morale
    o = melee_odds(b, att, dfn, b.arc(dfn, att.hex), U)
    bonus = 20.0 if formation == "column" else 0.0
    assert o.attacker_factors == {}
    assert o.attacker_weight == 400.0 * (1.0 + bonus / 100.0)


@given(
    formed=st.floats(0.0, 10.0),
    broken=st.floats(0.0, 10.0),
    case=st.sampled_from([c for c in CASES if c[0] == "infantry" or c[1] == "cavalry"]),
)
def test_no_factor_touches_a_charge_that_is_not_cavalry_on_foot_or_guns(
    formed: float, broken: float, case: tuple[str, str, list[int], str, str]
) -> None:
    """Whatever the two factors, an infantry attacker, or cavalry charging cavalry, weighs
    what it weighs at the defaults."""
    att_kind, def_kind, at, morale, _ = case
    options = {"cavalry_vs_formed": formed, "cavalry_vs_broken": broken}
    assert _odds(att_kind, def_kind, at, morale, options)[1:3] == ({}, 400.0)


# --- pursuit ---------------------------------------------------------------------------


def test_the_pursuit_loss_is_the_share_of_what_is_left_rounded_down() -> None:
    """floor(share x left): 0.25 x 283 = 70.75 -> 70 men; 0.5 x 5 guns = 2.5 -> 2; share 1
    takes all that is left. Only a cavalry winner, only infantry or artillery losers."""
    b = _battle("cavalry", "infantry", options={"cavalry_pursuit_share": 0.25})
    cav, inf = b.state.units["att"], b.state.units["def"]
    assert pursuit_loss(b, cav, inf, 283) == 70
    assert pursuit_loss(b, cav, inf, 0) == 0
    assert pursuit_loss(b, inf, cav, 283) == 0  # infantry beat the cavalry: no pursuit
    b = _battle("cavalry", "artillery", options={"cavalry_pursuit_share": 0.5})
    assert pursuit_loss(b, b.state.units["att"], b.state.units["def"], 5) == 2
    b = _battle("cavalry", "cavalry", options={"cavalry_pursuit_share": 0.5})
    assert pursuit_loss(b, b.state.units["att"], b.state.units["def"], 300) == 0
    b = _battle("infantry", "infantry", options={"cavalry_pursuit_share": 0.5})
    assert pursuit_loss(b, b.state.units["att"], b.state.units["def"], 300) == 0
    b = _battle("cavalry", "infantry", options={"cavalry_pursuit_share": 1.0})
    assert pursuit_loss(b, b.state.units["att"], b.state.units["def"], 283) == 283
    b = _battle("cavalry", "infantry")
    assert pursuit_loss(b, b.state.units["att"], b.state.units["def"], 283) == 0


SURE_WIN = {"cavalry_vs_broken": 10.0, "melee_odds_exponent": 20}
"""Horse 400 x 10 against 400 routed foot (÷4 = 100): odds 40, chance 1 - 40^-20, which
is 1.0 in floating point, so the cavalry wins whatever the draw."""


def _routed_melee(options: dict[str, Any], def_kind: str = "infantry") -> tuple[Battle, Meleed]:
    b = _battle("cavalry", def_kind, options=SURE_WIN | options)
    b.state.units["def"].morale = "routed"
    event = decide_melee(b, b.state.units["att"])
    assert event is not None and event.odds is not None
    assert event.odds.p_attacker == 1.0 and event.winner == "att"
    return b, event


def test_a_melee_lost_to_cavalry_costs_the_pursuit_share_on_top() -> None:
    """0.25 of the men left after the melee's casualties c: floor(0.25 x (400 - c)); the
    applied event leaves 400 - c - pursuit men and counts both as lost; the narrative
    names the pursuit."""
    b, event = _routed_melee({"cavalry_pursuit_share": 0.25})
    c = event.defender_losses.casualties
    assert event.pursuit_losses == math.floor(0.25 * (400 - c))
    assert event.pursuit_losses > 0
    line = narrate(b.scenario, b.state, event.model_copy(update={"seq": 1}))
    assert line is not None
    assert f"the cavalry's pursuit cuts down or takes {event.pursuit_losses} men more" in line
    b.state.meleed(event)
    dfn = b.state.units["def"]
    assert dfn.strength == 400 - c - event.pursuit_losses
    assert dfn.men_lost == c + event.pursuit_losses
    assert dfn.morale == "routed" and dfn.hex == event.loser_retreats_to


def test_a_pursuit_that_takes_every_man_left_eliminates() -> None:
    """Share 1: the loser is eliminated, does not retreat, and the cavalry advances."""
    b, event = _routed_melee({"cavalry_pursuit_share": 1.0})
    c = event.defender_losses.casualties
    assert event.pursuit_losses == 400 - c
    assert (event.loser_state, event.loser_retreats_to) == ("eliminated", None)
    assert event.winner_advances_to == (4, 4)
    b.state.meleed(event)
    dfn = b.state.units["def"]
    assert (dfn.strength, dfn.men_lost, dfn.morale, dfn.hex) == (0, 400, "eliminated", None)
    assert b.state.units["att"].hex == (4, 4)


def test_an_uncaptured_battery_loses_guns_to_the_pursuit() -> None:
    """guns_captured off: a battery of 6 that loses g guns in the melee loses
    floor(0.5 x (6 - g)) more."""
    b, event = _routed_melee({"cavalry_pursuit_share": 0.5, "guns_captured": False}, "artillery")
    g = event.defender_losses.guns_lost
    assert event.pursuit_losses == math.floor(0.5 * (6 - g))
    b.state.meleed(event)
    assert b.state.units["def"].guns_lost == g + event.pursuit_losses


def test_at_the_default_share_no_pursuit_is_written() -> None:
    """Share 0: pursuit_losses is 0 and left out of the line, which reads as before."""
    assert MusketOptions().cavalry_pursuit_share == 0.0
    _, event = _routed_melee({})
    assert event.pursuit_losses == 0
    assert "pursuit_losses" not in event.model_dump(mode="json")
    _, event = _routed_melee({"cavalry_pursuit_share": 0.25})
    assert "pursuit_losses" in event.model_dump(mode="json")


def test_the_defaults_are_left_out_of_a_scenario() -> None:
    """Later options: at their defaults they are not written, so headers read back byte
    for byte; a value set is."""
    dumped = MusketOptions().model_dump()
    for name in ("cavalry_vs_formed", "cavalry_vs_broken", "cavalry_pursuit_share"):
        assert name not in dumped
    assert MusketOptions(cavalry_vs_broken=2.0).model_dump()["cavalry_vs_broken"] == 2.0

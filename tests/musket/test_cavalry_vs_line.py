"""Option ``cavalry_vs_line``: a cavalry charge on a battalion in line, told apart from one
on a column (the rules' square) in the v3 ``odds`` melee rule (docs/rules/musket.md,
*Melee*, *Cavalry*).

Side a retreats south, side b north, so b's units face south: an attacker at (4,5) is in
the front of a defender at (4,4), one at (5,3) in its flank, one at (4,3) in its rear.
Every unit is quality C (no quality modifier), fresh (no fatigue) and 400 strong, so a
side's weight is its melee strength x its factors, and the expected values below are
that product.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.melee import cavalry_factors, decide_melee, melee_odds
from sim.scenario.load import ScenarioError, validate_data
from tests.musket.test_cavalry import CASES, FLANK, FRONT, REAR, U, _battle
from tests.sim.test_rules import _fight, _inf, _scenario

LINE = {"cavalry_vs_line": 2.0, "cavalry_vs_formed": 0.5, "cavalry_vs_broken": 3.0}
"""A line is ridden over (x2), a column holds (x0.5), broken foot is cut up (x3)."""


def _odds(
    def_kind: str = "infantry",
    formation: str = "line",
    at: list[int] = FRONT,
    morale: str = "good",
    options: dict[str, Any] | None = None,
    att_kind: str = "cavalry",
) -> tuple[str, dict[str, float], float, dict[str, float], float]:
    """(arc, attacker factors and weight, defender factors and weight) of one charge on
    ``def`` in ``formation``."""
    b = _battle(att_kind, def_kind, at, LINE if options is None else options)
    att, dfn = b.state.units["att"], b.state.units["def"]
    dfn.formation, dfn.morale = formation, morale
    o = melee_odds(b, att, dfn, b.arc(dfn, att.hex), U)
    assert o.ratio == o.attacker_weight / o.defender_weight
    return (
        b.arc(dfn, att.hex),
        o.attacker_factors,
        o.attacker_weight,
        o.defender_factors,
        o.defender_weight,
    )


def test_a_line_is_weighed_by_cavalry_vs_line_a_column_by_cavalry_vs_formed() -> None:
    """400 horse x 2 = 800 against 400 foot in line from its front; x 0.5 = 200 against
    the same foot in column. Spent infantry is in order too."""
    assert _odds(formation="line") == ("front", {"cavalry_vs_line": 2.0}, 800.0, {}, 400.0)
    assert _odds(formation="column") == ("front", {"cavalry_vs_formed": 0.5}, 200.0, {}, 400.0)
    spent_line = _odds(formation="line", morale="spent")
    assert spent_line == ("front", {"cavalry_vs_line": 2.0}, 800.0, {}, 400.0)
    spent_column = _odds(formation="column", morale="spent")
    assert spent_column == ("front", {"cavalry_vs_formed": 0.5}, 200.0, {}, 400.0)


def test_a_broken_or_flanked_line_keeps_cavalry_vs_broken() -> None:
    """Disrupted: 400 x 3 = 1200 against 400 x 0.5 (disorder); routed: against 400 / 4;
    in good order from the flank or rear: against 400 x 0.5. In line or in column alike."""
    for formation in ("line", "column"):
        assert _odds(formation=formation, morale="disrupted") == (
            "front",
            {"cavalry_vs_broken": 3.0},
            1200.0,
            {"disorder": 0.5},
            200.0,
        )
        assert _odds(formation=formation, morale="routed") == (
            "front",
            {"cavalry_vs_broken": 3.0},
            1200.0,
            {},
            100.0,
        )
        for at, arc in ((FLANK, "flank"), (REAR, "rear")):
            assert _odds(formation=formation, at=at) == (
                arc,
                {"cavalry_vs_broken": 3.0},
                1200.0,
                {arc: 0.5},
                200.0,
            )


def test_null_a_line_counts_as_formed_as_before_version_8() -> None:
    """null (the default until rules version 8, which made it 3): a line in good order from
    its front takes cavalry_vs_formed, as before the option: 400 x 0.5 = 200."""
    assert MusketOptions().cavalry_vs_line == 3
    formed = {"cavalry_vs_line": None, "cavalry_vs_formed": 0.5, "cavalry_vs_broken": 3.0}
    for formation in ("line", "column"):
        assert _odds(formation=formation, options=formed) == (
            "front",
            {"cavalry_vs_formed": 0.5},
            200.0,
            {},
            400.0,
        )


def test_a_line_factor_of_one_is_not_written_and_replaces_formed() -> None:
    """cavalry_vs_line 1: the line weighs as against any attacker (400, no factor), not
    x cavalry_vs_formed; a column still takes cavalry_vs_formed."""
    options = {"cavalry_vs_line": 1.0, "cavalry_vs_formed": 0.5}
    assert _odds(formation="line", options=options)[1:3] == ({}, 400.0)
    assert _odds(formation="column", options=options)[1:3] == ({"cavalry_vs_formed": 0.5}, 200.0)


def test_artillery_and_other_charges_are_unaffected() -> None:
    """A battery from its front takes no factor (6 guns x 8 = 48); infantry attackers and
    cavalry charging cavalry in line weigh 400 with no factor."""
    assert _odds("artillery", "line") == ("front", {}, 400.0, {}, 48.0)
    assert _odds("artillery", "line", FLANK)[1:3] == ({"cavalry_vs_broken": 3.0}, 1200.0)
    assert _odds("cavalry", "line")[1:3] == ({}, 400.0)
    assert _odds("infantry", "line", att_kind="infantry")[1:3] == ({}, 400.0)


@given(
    line=st.floats(0.0, 10.0),
    case=st.sampled_from(CASES),
)
def test_the_option_touches_only_cavalry_on_a_formed_line_from_its_front(
    line: float, case: tuple[str, str, list[int], str, str]
) -> None:
    """Every attacker and defender kind, arc, morale and defender formation: with
    cavalry_vs_line set, the factors are what they are without it, except for cavalry
    charging infantry in line, in good order or spent, from its front."""
    att_kind, def_kind, at, morale, formation = case
    base = {"cavalry_vs_formed": 0.5, "cavalry_vs_broken": 3.0}
    b0 = _battle(att_kind, def_kind, at, base | {"cavalry_vs_line": None})
    b1 = _battle(att_kind, def_kind, at, base | {"cavalry_vs_line": line})
    got = []
    for b in (b0, b1):
        att, dfn = b.state.units["att"], b.state.units["def"]
        dfn.formation, dfn.morale = formation, morale
        got.append(cavalry_factors(b, att, dfn, b.arc(dfn, att.hex)))
    hit = (att_kind, def_kind, formation, at) == (
        "cavalry",
        "infantry",
        "line",
        FRONT,
    ) and morale in ("good", "spent")
    if hit:
        assert got == [{"cavalry_vs_formed": 0.5}, {} if line == 1.0 else {"cavalry_vs_line": line}]
    else:
        assert got[1] == got[0]


def test_the_meleed_records_the_factor_under_its_name() -> None:
    """The melee's event holds {"cavalry_vs_line": 2.0} in its odds' attacker factors, in
    the JSON line too, and its narrative reads as any melee's (the odds and the chance)."""
    b = _battle("cavalry", "infantry", options=LINE)
    event = decide_melee(b, b.state.units["att"])
    assert event is not None and event.odds is not None
    assert event.odds.attacker_factors == {"cavalry_vs_line": 2.0}
    assert event.odds.attacker_weight == 800.0 and event.odds.ratio == 2.0
    line = json.loads(event.model_dump_json())
    assert line["odds"]["attacker_factors"] == {"cavalry_vs_line": 2.0}
    told = narrate(b.scenario, b.state, event.model_copy(update={"seq": 1}))
    assert told is not None and "(odds 2.00, attacker's chance 0.67)" in told


def test_a_scenario_setting_it_loads_fights_and_carries_it_in_its_header() -> None:
    """Set, it is validated, written in the scenario's header and read by the melee of a
    whole battle: cavalry next to a line, charging it, fights with the line's factor (3 by
    default since rules version 8, not written; null written, and no factor)."""
    att = _inf("att", FRONT, kind="cavalry", weapon="carbine")
    att["order"] = {"kind": "charge", "target": "def"}
    dfn = _inf("def", [4, 4], weapon="smoothbore", order={"kind": "hold"})
    data = _scenario([att], [dfn], limit=1)
    data["options"] = {"charge_test": False}  # the charge closes whatever the fire did
    events = _fight(data)  # the default since rules version 8, 3: not written, but weighed
    assert "cavalry_vs_line" not in events[0]["scenario"]["options"]
    melees = [e for e in events if e.get("type") == "musket.meleed"]
    assert len(melees) == 1 and melees[0]["odds"]["attacker_factors"] == {"cavalry_vs_line": 3.0}
    data["options"] = {"charge_test": False, "cavalry_vs_line": None}  # version 7's: written
    events = _fight(data)
    assert events[0]["scenario"]["options"]["cavalry_vs_line"] is None
    melees = [e for e in events if e.get("type") == "musket.meleed"]
    assert len(melees) == 1 and melees[0]["odds"]["attacker_factors"] == {}
    data["options"] = {"charge_test": False, "cavalry_vs_line": 2.0}
    _, sc = validate_data(data, {}, "t.yaml")
    assert sc.options.cavalry_vs_line == 2.0
    events = _fight(data)
    assert events[0]["scenario"]["options"]["cavalry_vs_line"] == 2.0
    melees = [e for e in events if e.get("type") == "musket.meleed"]
    assert len(melees) == 1 and melees[0]["odds"]["attacker_factors"] == {"cavalry_vs_line": 2.0}


def test_the_default_is_left_out_of_a_scenario() -> None:
    """A later option: at null it is not written, so headers read back byte for byte."""
    assert "cavalry_vs_line" not in MusketOptions().model_dump()
    assert "cavalry_vs_line" not in MusketOptions(cavalry_vs_formed=0.5).model_dump()
    assert MusketOptions(cavalry_vs_line=2.0).model_dump()["cavalry_vs_line"] == 2.0
    assert MusketOptions(cavalry_vs_line=0).model_dump()["cavalry_vs_line"] == 0


@pytest.mark.parametrize("bad", [-0.5, 10.5, float("inf"), float("nan")])
def test_a_factor_not_in_0_to_10_is_refused_at_its_path(bad: float) -> None:
    """Bounded as cavalry_vs_formed and cavalry_vs_broken are: 0 to 10."""
    for name in ("cavalry_vs_formed", "cavalry_vs_line"):
        data = _scenario([_inf("a1", [1, 8])], [_inf("b1", [1, 1])], options={name: bad})
        with pytest.raises(ScenarioError) as err:
            validate_data(data, {}, "t.yaml")
        assert f"options.{name}" in str(err.value)

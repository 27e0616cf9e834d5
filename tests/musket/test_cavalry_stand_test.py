"""Option ``cavalry_stand_test`` (ours): infantry charged by cavalry in line, disrupted or
spent, or from its flank or rear, takes a morale check before the melee; failing, it is
routed and fought as a routed defender (docs/rules/musket.md, *Melee*, *A cavalry charge*).

Side a retreats south, side b north, so b's units face south: the cavalry ``att`` at
(4,5) is in the front of the defender ``def`` at (4,4), at (5,3) in its flank, at (4,3)
in its rear. The tests are made certain by the check's own arithmetic: a morale value of
6 or more always passes (quality A, 6, + 3), one of 0 or less always fails (quality F,
1, - 3); a d6 rolls 1 to 6.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.log import MemorySink
from engine.rng import Streams
from sim import api
from sim.rulesets.musket import RULESET
from sim.rulesets.musket.model.events import Meleed
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading import audit
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.melee import decide_melee
from sim.rulesets.musket.rules.morale import decide_morale, rout_prisoners, takes_stand_test
from sim.rulesets.musket.rules.victory import blows
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _inf, _scenario, battle_of

FRONT, FLANK, REAR = [4, 5], [5, 3], [4, 3]
"""Hexes next to the defender at (4,4), in its front, flank and rear."""

STEADY = {"quality": "A"}
"""Morale value 6: with the option at +3, 9, every test passes."""
SHAKY = {"quality": "F"}
"""Morale value 1: with the option at -3, -2, every test fails."""


def _data(
    at: list[int] = FRONT,
    formation: str = "line",
    options: dict[str, Any] | None = None,
    att_kind: str = "cavalry",
    def_kind: str = "infantry",
    limit: int = 1,
    **dfn: Any,
) -> dict[str, Any]:
    """``att`` (side a, 400) at ``at`` charging ``def`` (side b, 400, on hold, at 4,4)."""
    weapon = {"infantry": "smoothbore", "cavalry": "carbine", "artillery": "foot_6pdr"}
    att = _inf("att", at, kind=att_kind, weapon=weapon[att_kind])
    att["order"] = {"kind": "charge", "target": "def"}
    d = _inf("def", [4, 4], kind=def_kind, weapon=weapon[def_kind], order={"kind": "hold"})
    if def_kind == "artillery":
        d["strength"] = 6
    d |= {"formation": formation} | dfn
    data = _scenario([att], [d], limit=limit)
    if options is not None:
        data["options"] = options
    return data


def _battle(
    at: list[int] = FRONT,
    formation: str = "line",
    morale: str = "good",
    options: dict[str, Any] | None = None,
    turn: int = 1,
    **kw: Any,
) -> Battle:
    b = battle_of(_data(at, formation, options, **kw), turn)
    b.state.units["def"].morale = morale  # spent is no scenario state: set on the state
    return b


def _melee(b: Battle) -> Meleed:
    event = decide_melee(b, b.state.units["att"])
    assert event is not None
    return event.model_copy(update={"seq": 7})


def _fields(e: Meleed, *without: str) -> dict[str, Any]:
    """The event's line as JSON, less ``without``."""
    line = json.loads(e.model_dump_json())
    return {k: v for k, v in line.items() if k not in without}


# Who takes the test ------------------------------------------------------------------

TAKEN = [
    ("line", "good", FRONT),  # (a) a line
    ("line", "spent", FRONT),
    ("column", "disrupted", FRONT),  # (b) in disorder, any formation
    ("column", "spent", FRONT),
    ("line", "disrupted", FLANK),
    ("column", "good", FLANK),  # (c) from its flank or rear
    ("column", "good", REAR),
]
NOT_TAKEN = [
    ("column", "good", FRONT),  # the square, charged from its front
    ("column", "routed", FRONT),  # already routed
    ("line", "routed", FLANK),
]


@pytest.mark.parametrize(("formation", "morale", "at"), TAKEN)
def test_a_line_a_broken_or_spent_unit_or_one_charged_in_flank_or_rear_takes_it(
    formation: str, morale: str, at: list[int]
) -> None:
    """Each of (a) line, (b) disrupted or spent and (c) flank or rear: the meleed records
    a test, its one draw the first of the melee's stream."""
    b = _battle(at, formation, morale, {"cavalry_stand_test": 0})
    dfn, att = b.state.units["def"], b.state.units["att"]
    assert takes_stand_test(b.options, att, dfn, b.arc(dfn, att.hex))
    test = _melee(b).stand_test
    assert test is not None and [(d.stream, d.i) for d in test.draws] == [("1/melee/att", 0)]


@pytest.mark.parametrize(("formation", "morale", "at"), NOT_TAKEN)
def test_a_column_in_good_order_from_its_front_or_a_routed_unit_takes_none(
    formation: str, morale: str, at: list[int]
) -> None:
    """The square in good order charged from its front stands without a test; a routed
    defender is not tested again; neither draws: the melee's first draw is its losses'."""
    b = _battle(at, formation, morale, {"cavalry_stand_test": 3})
    event = _melee(b)
    assert event.stand_test is None and event.defender_losses.draws[0].i == 0


@pytest.mark.parametrize(("formation", "morale", "at"), TAKEN + NOT_TAKEN)
@pytest.mark.parametrize(
    ("att_kind", "def_kind"),
    [("infantry", "infantry"), ("cavalry", "cavalry"), ("cavalry", "artillery")],
)
def test_only_cavalry_charging_infantry_is_tested(
    formation: str, morale: str, at: list[int], att_kind: str, def_kind: str
) -> None:
    """Infantry charging infantry, cavalry charging cavalry or a battery: never a test,
    whatever the defender's formation, order or the arc."""
    options = {"cavalry_stand_test": 0}
    b = _battle(at, formation, morale, options, att_kind=att_kind, def_kind=def_kind)
    assert _melee(b).stand_test is None


# The value and the verdict -----------------------------------------------------------


@pytest.mark.parametrize("shift", [-3, -1, 0, 2, 3])
def test_the_value_is_the_ordinary_checks_plus_the_option(shift: int) -> None:
    """Quality C (4), a leader (+1), disrupted (-1), charged in the flank (enfilade -2):
    the ordinary check after this melee has 4 + 1 - 1 - 2 = 2; the stand test 2 + shift,
    the option its own modifier (left out at 0); the roll is the melee stream's first d6."""
    b = _battle(FLANK, "column", "disrupted", {"cavalry_stand_test": shift}, leader=True)
    dfn = b.state.units["def"]
    ordinary = decide_morale(b, dfn, "melee", "loss", 0, "att", flanked=True)
    assert ordinary.morale_value == 2
    assert ordinary.modifiers == {"leader": 1, "disrupted": -1, "enfilade": -2}
    test = _melee(b).stand_test
    assert test is not None
    assert test.morale_value == ordinary.morale_value + shift == 2 + shift
    assert test.base == 4
    assert test.modifiers == ordinary.modifiers | ({"cavalry_stand_test": shift} if shift else {})
    u = Streams(1).named("1/melee/att").draw().u
    assert test.roll == 1 + math.floor(6 * u)
    assert test.passed == (test.roll <= 2 + shift)


@pytest.mark.parametrize("turn", range(1, 9))
def test_failing_routs_the_defender_and_the_melee_weighs_it_as_routed(turn: int) -> None:
    """A line of quality F at -3 (value -2) fails. The melee is then the one fought
    against the same line already routed, its stream one draw on (the test's): the same
    losses, odds (400 / 4 = 100 men, no disorder; cavalry_vs_broken), winner, loser state
    and retreat; the rout happens in this event, so a loser routed by it gives up
    rout_prisoners_share of what it has left, where one routed before gives none."""
    options = {"cavalry_stand_test": -3, "cavalry_vs_broken": 3.0}
    b = _battle(options=options, turn=turn, **SHAKY)
    event = _melee(b)
    assert event.stand_test is not None and not event.stand_test.passed
    assert event.stand_test.morale_value == -2
    assert event.odds is not None
    assert (event.odds.defender_strength, event.odds.defender_factors) == (100.0, {})
    assert event.odds.attacker_factors == {"cavalry_vs_broken": 3.0}
    before = _battle(FRONT, "line", "routed", {"cavalry_vs_broken": 3.0}, turn, **SHAKY)
    before.stream("melee", "att").draw()  # the stand test's draw
    routed = _melee(before)
    assert routed.stand_test is None and routed.prisoners == 0
    assert _fields(event, "stand_test", "prisoners") == _fields(routed, "prisoners")
    if event.winner == "att":
        assert event.loser_state == "routed"
        left = 400 - event.defender_losses.casualties - event.pursuit_losses
        assert event.prisoners == rout_prisoners(b, b.state.units["def"], left) == left // 4
    else:
        assert event.prisoners == 0


def test_the_eight_turns_cover_both_winners() -> None:
    """The draws of the failing test's turns give the cavalry some melees and the routed
    line others, so both branches above are exercised."""
    options = {"cavalry_stand_test": -3}
    winners = {_melee(_battle(options=options, turn=t, **SHAKY)).winner for t in range(1, 9)}
    assert winners == {"att", "def"}


@pytest.mark.parametrize("turn", range(1, 5))
def test_applying_a_failed_test_routs_the_defender_from_the_event(turn: int) -> None:
    """Applied, the defender is routed (or eliminated) whoever won, its morale's cause the
    meleed; the rout is a blow to its army."""
    b = _battle(options={"cavalry_stand_test": -3}, turn=turn, **SHAKY)
    event = _melee(b)
    b.state.apply(event)
    dfn = b.state.units["def"]
    assert dfn.morale in ("routed", "eliminated") and dfn.morale_cause == 7
    assert "b" in blows(event, b.state)


@pytest.mark.parametrize(("formation", "morale", "at"), TAKEN)
def test_passing_leaves_the_melee_as_without_the_option(
    formation: str, morale: str, at: list[int]
) -> None:
    """Quality A at +3 passes: every field of the meleed is the one fought without the
    option, the stream one draw on (the test's), and applying it leaves the defender's
    morale to the melee."""
    b = _battle(at, formation, morale, {"cavalry_stand_test": 3}, **STEADY)
    event = _melee(b)
    assert event.stand_test is not None and event.stand_test.passed
    assert event.stand_test.morale_value == 6 + 3 - (morale == "disrupted") - 2 * (at != FRONT)
    without = _battle(at, formation, morale, None, **STEADY)
    without.stream("melee", "att").draw()
    assert _fields(event, "stand_test") == _fields(_melee(without))


# Null: nothing changes ---------------------------------------------------------------


def _lines(data: dict[str, Any], seed: int = 1) -> list[str]:
    _, sc = validate_data(data, {}, "t.yaml")
    sink = MemorySink()
    RULESET.simulate(sc, api.make_header(RULESET, sc, seed), sink)
    return list(sink.lines)


def test_null_draws_nothing_and_is_left_out_of_the_header() -> None:
    """The default null: a line charged by cavalry takes no test (the melee's first draw
    is its losses'); the option is not written, so a scenario setting it null fights
    byte for byte the battle that does not name it; set, it is in the header."""
    assert MusketOptions().cavalry_stand_test is None
    assert "cavalry_stand_test" not in MusketOptions().model_dump()
    assert MusketOptions(cavalry_stand_test=0).model_dump()["cavalry_stand_test"] == 0
    event = _melee(_battle())
    assert event.stand_test is None and event.defender_losses.draws[0].i == 0
    assert "stand_test" not in json.loads(event.model_dump_json())
    quiet = {"charge_test": False}
    absent = _lines(_data(options=quiet, limit=2))
    assert _lines(_data(options=quiet | {"cavalry_stand_test": None}, limit=2)) == absent
    assert "cavalry_stand_test" not in json.loads(absent[0])["scenario"]["options"]
    assert any('"musket.meleed"' in line for line in absent)
    named = _lines(_data(options=quiet | {"cavalry_stand_test": 1}, limit=2))
    assert json.loads(named[0])["scenario"]["options"]["cavalry_stand_test"] == 1


@pytest.mark.parametrize("bad", [-4, 4, 1.5, "x"])
def test_a_value_outside_minus_3_to_3_is_refused_at_its_path(bad: object) -> None:
    """Whole numbers from -3 to 3 (or null): the ends are taken, a step past them is
    refused, as is a fraction or a word."""
    for fine in (-3, 3, None):
        _, sc = validate_data(_data(options={"cavalry_stand_test": fine}), {}, "t.yaml")
        assert sc.options.cavalry_stand_test == fine
    with pytest.raises(ScenarioError) as err:
        validate_data(_data(options={"cavalry_stand_test": bad}), {}, "t.yaml")
    assert "options.cavalry_stand_test" in str(err.value)


_HEXES = [(c, r) for c in range(1, 9) for r in range(2, 8)]


@st.composite
def _quiet_battle(draw: st.DrawFn) -> dict[str, Any]:
    """A small battle with no cavalry charge: infantry that charges or holds, batteries
    and cavalry that hold (``counter_charge`` null: a unit on hold never charges)."""
    n_a, n_b = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    n = n_a + n_b
    hexes = draw(st.lists(st.sampled_from(_HEXES), min_size=n, max_size=n, unique=True))
    ids = [f"a{i}" for i in range(n_a)] + [f"b{i}" for i in range(n_b)]
    sides: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
    for uid, at in zip(ids, hexes, strict=True):
        kind = draw(st.sampled_from(["infantry", "infantry", "cavalry", "artillery"]))
        enemies = [e for e in ids if e[0] != uid[0]]
        unit = _inf(uid, list(at), kind=kind, quality=draw(st.sampled_from("ABCDEF")))
        unit["weapon"] = {"infantry": "smoothbore", "cavalry": "carbine"}.get(kind, "foot_6pdr")
        if kind == "artillery":
            unit["strength"] = 6
        else:
            unit["formation"] = draw(st.sampled_from(["line", "column"]))
        unit["morale"] = draw(st.sampled_from(["good", "good", "disrupted"]))
        if kind == "infantry" and draw(st.booleans()):
            unit["order"] = {"kind": "charge", "target": draw(st.sampled_from(enemies))}
        else:
            unit["order"] = {"kind": "hold"}
        sides[uid[0]].append(unit)
    return _scenario(sides["a"], sides["b"], limit=3)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_quiet_battle(), shift=st.integers(-3, 3), seed=st.integers(0, 2**32))
def test_set_a_battle_without_a_cavalry_charge_is_the_same_battle(
    data: dict[str, Any], shift: int, seed: int
) -> None:
    """With the option at any value, a battle in which no cavalry charges fights event for
    event, byte for byte, the battle with it null: only the header (which names it) and
    the chain's hashes, which run from the header, differ."""

    def body(lines: list[str]) -> list[dict[str, Any]]:
        return [{k: v for k, v in json.loads(x).items() if k != "h"} for x in lines[1:]]

    null = _lines(data, seed)
    set_ = _lines(data | {"options": {"cavalry_stand_test": shift}}, seed)
    assert body(set_) == body(null)
    assert not any('"stand_test"' in line for line in set_)


# Record, replay, narrative -----------------------------------------------------------


def test_the_narrative_tells_the_test() -> None:
    """``show --events`` and the narrative: the defender's nerve fails (routed) or holds
    (stands), with the roll and the value, before the melee's losses."""
    b = _battle(options={"cavalry_stand_test": -3}, **SHAKY)
    event = _melee(b)
    assert event.stand_test is not None
    roll = event.stand_test.roll
    told = narrate(b.scenario, b.state, event)
    assert told is not None
    assert (
        f"ATT charges DEF; DEF's nerve fails before the charge (rolled {roll} against -2): "
        f"routed; attacker loses {event.attacker_losses.casualties}, " in told
    )
    b = _battle(FLANK, options={"cavalry_stand_test": 3}, **STEADY)
    event = _melee(b)
    assert event.stand_test is not None
    told = narrate(b.scenario, b.state, event)
    assert told is not None
    assert (
        f"ATT charges DEF in the flank; DEF's nerve holds before the charge (rolled "
        f"{event.stand_test.roll} against 7): stands; attacker loses " in told
    )


def test_the_audit_checks_the_test() -> None:
    """verify's audit: a test recorded when none was due, one missing when due, a verdict
    against the roll, a value without the option, a failed test with the defender
    weighed in good order: each refused; the lawful event passes."""
    b = _battle(options={"cavalry_stand_test": -3}, **SHAKY)
    event = _melee(b)
    test = event.stand_test
    assert test is not None
    sc, state = b.scenario, b.state
    assert audit.audit(sc, state, event) is None
    missing = event.model_copy(update={"stand_test": None})
    assert "took no stand test" in (audit.audit(sc, state, missing) or "")
    flipped = event.model_copy(update={"stand_test": test.model_copy(update={"passed": True})})
    assert "do not follow" in (audit.audit(sc, state, flipped) or "")
    mods = {k: v for k, v in test.modifiers.items() if k != "cavalry_stand_test"}
    plain = test.model_copy(update={"modifiers": mods, "morale_value": 1})
    unshifted = event.model_copy(update={"stand_test": plain})
    assert "with the option" in (audit.audit(sc, state, unshifted) or "")
    assert event.odds is not None
    good = event.odds.model_copy(update={"defender_strength": 400.0})
    assert "not weighed as routed" in (
        audit.audit(sc, state, event.model_copy(update={"odds": good})) or ""
    )
    square = _battle(FRONT, "column", "good", {"cavalry_stand_test": -3}, **SHAKY)
    extra = _melee(square).model_copy(update={"stand_test": test})
    assert "took a stand test" in (audit.audit(square.scenario, square.state, extra) or "")


def test_a_battle_with_the_test_replays_and_verifies(tmp_path: Any) -> None:
    """Fought from a file with the option set, the line of quality F in line charged by
    cavalry fails its test; the replay reads back with the stand_test on its meleed, and
    verify (the audit on every event, the battle fought again) passes."""
    data = _data(options={"charge_test": False, "cavalry_stand_test": -3}, limit=2, **SHAKY)
    path = tmp_path / "stand.yaml"
    path.write_text(json.dumps(data))
    result = api.run(path, seed=3, out=tmp_path / "r.jsonl")
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    melees = [e for e in lines if e.get("type") == "musket.meleed"]
    assert melees and melees[0]["stand_test"]["passed"] is False
    loaded = api.load_replay(tmp_path / "r.jsonl")
    events = [e for e in loaded.events if isinstance(e, Meleed)]
    assert events[0].stand_test is not None and not events[0].stand_test.passed
    written = {k: v for k, v in melees[0].items() if k != "h"}
    assert json.loads(events[0].model_dump_json()) == written
    assert result.replay is not None and api.verify_replay(result.replay).ok

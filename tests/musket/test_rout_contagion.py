"""Option ``rout_contagion`` (ours): when a unit routs, each unit of its side within the
option's reach, on the map and not routed, takes an ordinary morale check (reason
``friend_routed``); a unit that check routs spreads the test in turn (docs/rules/musket.md,
*Morale checks*).

Side b (retreating north) stands in a row on row 4: ``r`` at (4,4), the unit that routs;
``n1`` at (5,4), one hex from it; ``n2`` at (6,4), two; ``far`` at (8,4), four. The enemy
``e`` (side a) stands at (4,8), out of everyone's reach. The checks are made certain by
their own arithmetic: a morale value of 6 or more always passes (quality A), one of 0 or
less always fails (quality F, disrupted: 1 - 1); a d6 rolls 1 to 6.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from engine.events import Event
from engine.log import MemorySink
from engine.rng import Streams
from sim import api
from sim.rulesets.musket import RULESET
from sim.rulesets.musket.battle import _spread
from sim.rulesets.musket.model.events import MoraleTested
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading import audit
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.morale import check_value
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _inf, _scenario, battle_of

ROOT = Path(__file__).resolve().parents[2]

SHAKY = {"quality": "F", "morale": "disrupted"}
"""Morale value 1 - 1 = 0: every check fails."""
STEADY = {"quality": "A"}
"""Morale value 6: every check passes."""


def _data(radius: int | None, limit: int = 1, **kinds: dict[str, Any]) -> dict[str, Any]:
    """The row of side b and the far enemy; ``kinds`` adds fields to a unit by its id."""
    row = [("r", [4, 4]), ("n1", [5, 4]), ("n2", [6, 4]), ("far", [8, 4])]
    b = [_inf(uid, at, order={"kind": "hold"}) | kinds.get(uid, {}) for uid, at in row]
    a = [_inf("e", [4, 8], order={"kind": "hold"})]
    data = _scenario(a, b, limit=limit)
    data["options"] = {"rout_contagion": radius}
    return data


class _Rec:
    """The recorder's part :func:`_spread` uses: each event stamped with the next seq and
    applied to the battle's state."""

    def __init__(self, b: Battle) -> None:
        self.b, self.seq, self.events = b, 100, list[Event]()

    def emit(self, event: Event) -> Event:
        self.seq += 1
        stamped = event.model_copy(update={"seq": self.seq})
        self.b.state.apply(stamped)
        self.events.append(stamped)
        return stamped


def _routs(
    radius: int, phase: str = "offensive_fire", **kinds: dict[str, Any]
) -> tuple[Battle, list[MoraleTested]]:
    """``r`` routed (by the event of seq 7), then the spread, in ``phase``: the checks."""
    b = battle_of(_data(radius, **kinds))
    b.state.units["r"].morale = "routed"
    rec = _Rec(b)
    _spread(b, rec, phase, [("r", 7)])  # type: ignore[arg-type]
    assert all(isinstance(e, MoraleTested) for e in rec.events)
    return b, rec.events  # type: ignore[return-value]


# Who tests ---------------------------------------------------------------------------


@pytest.mark.parametrize(("radius", "tested"), [(1, ["n1"]), (2, ["n1", "n2"]), (3, ["n1", "n2"])])
def test_the_friends_within_reach_test_in_scenario_order(radius: int, tested: list[str]) -> None:
    """Within ``radius`` hexes of the routed unit: n1 at 1, n2 at 2; ``far`` at 4 never,
    nor the enemy, nor the routed unit itself. Each check names the friend and the cause,
    and draws once on ``<turn>/morale/<phase>/<unit>/<friend>``."""
    _, checks = _routs(radius, **{"n1": STEADY, "n2": STEADY})
    assert [c.unit for c in checks] == tested
    for c in checks:
        assert (c.reason, c.friend, c.cause, c.phase) == ("friend_routed", "r", 7, "offensive_fire")
        assert [(d.stream, d.i) for d in c.draws] == [(f"1/morale/offensive_fire/{c.unit}/r", 0)]
        assert c.passed and c.before == c.after == "good"


def test_the_check_is_the_ordinary_one_and_its_roll_the_streams_d6() -> None:
    """Quality C (4) with a leader (+1): value 5, the modifiers :func:`check_value`'s, no
    enfilade; the roll 1 + floor(6u) of the stream's first draw."""
    b, checks = _routs(1, **{"n1": {"leader": True}})
    (c,) = checks
    base, mods, value = check_value(b, b.state.units["n1"], False)
    assert (c.base, c.modifiers, c.morale_value) == (base, mods, value) == (4, {"leader": 1}, 5)
    u = Streams(1).named("1/morale/offensive_fire/n1/r").draw().u
    assert c.roll == 1 + math.floor(6 * u)
    assert c.passed == (c.roll <= 5)


def test_a_routed_eliminated_or_absent_friend_does_not_test() -> None:
    """n1 already routed and n2 eliminated take no check at reach 2; with r off the map
    (eliminated by the event that routed it) no one does."""
    b = battle_of(_data(2))
    units = b.state.units
    units["r"].morale, units["n1"].morale, units["n2"].morale = "routed", "routed", "eliminated"
    rec = _Rec(b)
    _spread(b, rec, "melee", [("r", 7)])  # type: ignore[arg-type]
    assert rec.events == []
    b = battle_of(_data(3))
    b.state.units["r"].morale = "routed"
    b.state.units["r"].hex = None
    rec = _Rec(b)
    _spread(b, rec, "melee", [("r", 7)])  # type: ignore[arg-type]
    assert rec.events == []


# What failing does -------------------------------------------------------------------


def test_a_friend_the_check_routs_spreads_it_in_turn() -> None:
    """At reach 1, n1 (value 0) fails in the offensive fire phase and routs; n2, two hexes
    from r but one from n1, then tests for n1's rout, its cause n1's check; n2 steady
    passes, and the spread stops there."""
    _, checks = _routs(1, **{"n1": SHAKY, "n2": STEADY})
    first, second = checks
    assert (first.unit, first.friend, first.cause, first.after) == ("n1", "r", 7, "routed")
    assert (second.unit, second.friend, second.cause) == ("n2", "n1", first.seq)
    assert second.passed and len(checks) == 2


def test_each_routs_neighbours_test_before_the_next_routs() -> None:
    """At reach 2 both n1 and n2 (value 0) fail for r's rout, in scenario order; then n1's
    rout and n2's each find no unrouted friend but ``far``: n2's is two hexes from it, so
    ``far`` tests once, for n2, after both."""
    _, checks = _routs(2, **{"n1": SHAKY, "n2": SHAKY, "far": STEADY})
    assert [(c.unit, c.friend) for c in checks] == [("n1", "r"), ("n2", "r"), ("far", "n2")]
    assert checks[2].cause == checks[1].seq


def test_failing_in_defensive_fire_disrupts_and_past_rout_loss_routs() -> None:
    """As any failed check: n1 (value 0) disrupted in the defensive fire phase, so nothing
    spreads; the same n1 having lost half its men (past ``rout_loss`` 0.3) routed."""
    _, checks = _routs(1, "defensive_fire", **{"n1": SHAKY, "n2": STEADY})
    assert [(c.unit, c.passed, c.before, c.after) for c in checks] == [
        ("n1", False, "disrupted", "disrupted")
    ]
    b = battle_of(_data(1, n1=SHAKY, n2=STEADY))
    b.state.units["r"].morale = "routed"
    b.state.units["n1"].strength = 200  # of 400: past rout_loss
    rec = _Rec(b)
    _spread(b, rec, "defensive_fire", [("r", 7)])  # type: ignore[arg-type]
    first = rec.events[0]
    assert isinstance(first, MoraleTested) and (first.unit, first.after) == ("n1", "routed")
    assert [getattr(e, "friend", None) for e in rec.events] == ["r", "n1"]


# The option --------------------------------------------------------------------------


def _lines(data: dict[str, Any], seed: int = 1) -> list[str]:
    _, sc = validate_data(data, {}, "t.yaml")
    sink = MemorySink()
    RULESET.simulate(sc, api.make_header(RULESET, sc, seed), sink)
    return list(sink.lines)


def test_null_is_left_out_and_a_value_outside_1_to_3_is_refused() -> None:
    """Null by default and not written; 1 to 3 taken, 0, 4, a fraction or a word refused
    at the option's path."""
    assert MusketOptions().rout_contagion is None
    assert "rout_contagion" not in MusketOptions().model_dump()
    for fine in (1, 3, None):
        _, sc = validate_data(_data(fine), {}, "t.yaml")
        assert sc.options.rout_contagion == fine
    for bad in (0, 4, 1.5, "x"):
        with pytest.raises(ScenarioError) as err:
            validate_data(_data(bad), {}, "t.yaml")  # type: ignore[arg-type]
        assert "options.rout_contagion" in str(err.value)


def _stand(radius: int | None, n1_at: list[int] = [5, 3]) -> dict[str, Any]:  # noqa: B006
    """Cavalry ``e`` (quality A with a leader: 7) at (4,5) charging ``r``, quality F, which
    fails its stand test (option ``cavalry_stand_test`` -3: value -2), loses the melee
    and retreats routed to (4,3); n1 at ``n1_at``."""
    data = _data(radius, limit=1, r={"quality": "F"}, n1=STEADY | {"at": n1_at})
    data["sides"][1]["units"] = data["sides"][1]["units"][:2]  # r and n1
    charge = {"kind": "charge", "target": "r"}
    cavalry = {"kind": "cavalry", "weapon": "carbine", "order": charge, "strength": 800}
    data["sides"][0]["units"] = [_inf("e", [4, 5], quality="A", leader=True, **cavalry)]
    data["options"] |= {"charge_test": False, "cavalry_stand_test": -3}
    return data


def _events(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(x) for x in _lines(data)]


def test_a_melee_that_routs_its_loser_spreads_from_the_meleed() -> None:
    """In a battle, the line routed by the charge (its stand test failed) retreats to
    (4,3); n1 at (5,3), one hex from there, tests for its rout in the melee phase, the
    check's cause the meleed. Null, no such check, and the battle is the same event for
    event up to it."""
    events = _events(_stand(1))
    meleed = next(e for e in events if e.get("type") == "musket.meleed")
    assert meleed["stand_test"]["passed"] is False
    assert (meleed["loser_state"], meleed["loser_retreats_to"]) == ("routed", [4, 3])
    spread = [e for e in events if e.get("reason") == "friend_routed"]
    assert [(e["unit"], e["friend"], e["cause"], e["phase"]) for e in spread] == [
        ("n1", "r", meleed["seq"], "melee")
    ]
    off = _events(_stand(None))
    assert not any(e.get("reason") == "friend_routed" for e in off)

    def body(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "h"} for e in lines[1:]]

    upto = meleed["seq"] + 1
    assert body(events)[:upto] == body(off)[:upto]


def test_the_reach_is_counted_from_where_the_routed_unit_stands_after_the_event() -> None:
    """n1 at (5,4) stood next to r before the melee and is two hexes from (4,3), where the
    routed loser's retreat took it: at reach 1 it does not test, at 2 it does."""
    for radius, tested in ((1, []), (2, ["n1"])):
        events = _events(_stand(radius, [5, 4]))
        assert [e["unit"] for e in events if e.get("reason") == "friend_routed"] == tested


def test_null_fights_byte_for_byte_the_battle_that_does_not_name_it() -> None:
    """Set null, the scenario fights the battle that leaves the option out, byte for byte."""
    named = _stand(None)
    absent = json.loads(json.dumps(named))
    del absent["options"]["rout_contagion"]
    assert _lines(named) == _lines(absent)
    assert "rout_contagion" not in json.loads(_lines(absent)[0])["scenario"]["options"]


# Record, replay, narrative, audit ----------------------------------------------------


def test_the_narrative_names_the_friend() -> None:
    b, checks = _routs(1, **{"n1": STEADY})
    told = narrate(b.scenario, b.state, checks[0])
    assert told is not None
    assert f"N1 checks morale (R routed nearby, quality A = 6, none; rolled {checks[0].roll}" in (
        told
    )


def test_the_audit_checks_the_friend_the_reach_and_the_stream() -> None:
    """verify's audit on the check, read against the state before it: lawful, it passes;
    without the friend, naming one for another reason, a friend not routed, one beyond the
    reach, the option off, or a draw on another stream: each refused."""
    b = battle_of(_data(2, **{"n1": STEADY, "n2": STEADY}))
    b.state.units["r"].morale = "routed"
    before = b.state
    rec = _Rec(b)
    snapshot = battle_of(_data(2, **{"n1": STEADY, "n2": STEADY}))
    snapshot.state.units["r"].morale = "routed"
    _spread(b, rec, "offensive_fire", [("r", 7)])  # type: ignore[arg-type]
    n1, n2 = rec.events
    assert isinstance(n1, MoraleTested) and isinstance(n2, MoraleTested)
    sc, state = snapshot.scenario, snapshot.state
    assert before is b.state
    assert audit.audit(sc, state, n1) is None and audit.audit(sc, state, n2) is None
    refused = {
        "names the friend": n1.model_copy(update={"friend": None}),
        "names the friend n2": n1.model_copy(update={"reason": "loss", "friend": "n2"}),
        "is no routed friend": n1.model_copy(update={"friend": "n2"}),
    }
    for words, bad in refused.items():
        assert words in (audit.audit(sc, state, bad) or ""), words
    near = battle_of(_data(1, **{"n1": STEADY, "n2": STEADY}))
    near.state.units["r"].morale = "routed"
    assert audit.audit(near.scenario, near.state, n2) == "n2 checked for r's rout beyond 1 hex"
    far = battle_of(_data(2, **{"far": STEADY}))
    far.state.units["r"].morale = "routed"
    wide = n2.model_copy(update={"unit": "far", "draws": [n2.draws[0]._replace(stream="x/far/r")]})
    assert audit.audit(far.scenario, far.state, wide) == "far checked for r's rout beyond 2 hexes"
    off = battle_of(_data(None, **{"n1": STEADY}))
    off.state.units["r"].morale = "routed"
    assert "rout_contagion off" in (audit.audit(off.scenario, off.state, n1) or "")
    draw = n1.draws[0]._replace(stream="1/morale/offensive_fire/n1/e")
    assert "drew on" in (audit.audit(sc, state, n1.model_copy(update={"draws": [draw]})) or "")


def test_a_battle_with_the_spread_replays_and_verifies(tmp_path: Path) -> None:
    """The shipped stone wall with the option at 2, seed 7: the spread's checks are in the
    replay with their friend, the replay reads back to the same lines, and verify (the
    audit on every event, the battle fought again) passes."""
    import yaml

    data = yaml.safe_load((ROOT / "scenarios" / "stone_wall.yaml").read_text(encoding="utf-8"))
    data.setdefault("options", {})["rout_contagion"] = 2
    path = tmp_path / "wall.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = api.run(path, seed=7, out=tmp_path / "r.jsonl")
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    spread = [e for e in lines if e.get("reason") == "friend_routed"]
    assert spread and all(e["friend"] != e["unit"] for e in spread)
    loaded = api.load_replay(tmp_path / "r.jsonl")
    read = [e for e in loaded.events if isinstance(e, MoraleTested) and e.friend is not None]
    assert [json.loads(e.model_dump_json()) for e in read] == [
        {k: v for k, v in e.items() if k != "h"} for e in spread
    ]
    assert result.replay is not None and api.verify_replay(result.replay).ok

"""Causes in every ruleset: each consequence names the event it follows from, and ``why`` prints it.

Each expected chain is derived here from the golden replay's own events (the
blow before a break, the fall before a morale check, the knock-out before a
recovery, the attack that crippled a ship), never copied from ``why``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.events import Event
from sim import api
from sim.cli import cli
from sim.replay import analysis

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"


def _load(name: str) -> api.LoadedReplay:
    return api.load_replay(REPLAYS / name)


def _why_seqs(path: Path, seq: int) -> list[int]:
    """The seqs ``battlesim why`` prints, root first (one ``[seq n]`` per line)."""
    result = CliRunner().invoke(cli, ["why", str(path), str(seq)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if "[seq " in line]
    for depth, line in enumerate(lines):  # each link indented one step deeper, with an arrow
        assert line.startswith("  " * depth + ("→ " if depth else "") + "[seq "), line
    return [int(line.split("[seq ")[1].split("]")[0]) for line in lines]


def _only(events: list[Event], kind: str) -> Event:
    found = [e for e in events if e.type == kind]
    assert len(found) == 1, (kind, len(found))
    return found[0]


def _field(event: Event, name: str) -> Any:
    return getattr(event, name)


# --- musket: losses → side breaks → battle end ---------------------------------


def _musket_units(loaded: api.LoadedReplay) -> dict[str, tuple[str, str]]:
    sc: Any = loaded.scenario
    return {u.id: (s.id, u.kind) for s in sc.sides for u in s.units}


def _musket_struck(event: Event, units: dict[str, tuple[str, str]]) -> set[str]:
    """Sides an event cost men or guns or a unit routed or eliminated (from its own fields)."""

    def lost(uid: str, c: Any) -> bool:
        n: int = c.guns_lost if units[uid][1] == "artillery" else c.casualties
        return n > 0

    e: Any = event
    out = ("routed", "eliminated")
    if e.type == "musket.fired":
        return {units[e.target][0]} if lost(e.target, e.result) else set()
    if e.type == "musket.meleed":
        loser = e.target if e.winner == e.unit else e.unit
        sides = set()
        for uid, c in ((e.unit, e.attacker_losses), (e.target, e.defender_losses)):
            if lost(uid, c) or (uid == loser and e.loser_state in out):
                sides.add(units[uid][0])
        return sides
    if e.type == "musket.morale_tested" and e.after in out and e.before not in out:
        return {units[e.unit][0]}
    return set()


@pytest.mark.parametrize("name", ["napoleonic_brigade-s1815.jsonl", "chancellorsville-s1863.jsonl"])
def test_musket_battle_end_chains_back_through_the_break_to_the_last_blow(name: str) -> None:
    """why on the end: the last blow the broken army took, its break, then the end."""
    loaded = _load(name)
    events = loaded.events
    broken = _only(events, "musket.side_broken")
    ended = _only(events, "musket.battle_ended")
    units = _musket_units(loaded)
    side = _field(broken, "side")
    blow = max(e.seq for e in events[: broken.seq] if side in _musket_struck(e, units))
    # the blow may itself follow from an earlier event (a rout from a volley): walk it back
    root = [blow]
    while events[root[0]].cause is not None:
        root.insert(0, events[root[0]].cause)  # type: ignore[arg-type]
    assert (broken.cause, ended.cause) == (blow, broken.seq)
    assert _why_seqs(REPLAYS / name, ended.seq) == [*root, broken.seq, ended.seq]
    assert events[root[0]].cause is None


FORMAT4 = ROOT / "tests" / "data" / "replays"
"""The goldens as format 4 wrote them (derivation 1's dice): battles with other turns of fate."""


def test_musket_end_at_the_turn_limit_is_a_decision_of_its_own() -> None:
    """stone_wall at format 4's dice ends at the turn limit unbroken: its end names no cause."""
    loaded = api.load_replay(FORMAT4 / "stone_wall-s1862.format4.jsonl")
    ended = _only(loaded.events, "musket.battle_ended")
    assert not any(e.type == "musket.side_broken" for e in loaded.events)
    assert (ended.cause, ended.schema_version) == (None, 2)


# --- becmi: falls → morale checks, knock-outs → coming to, holds → pins ---------


def _falls(event: Event) -> list[str]:
    """Combatants an event killed, knocked out or put to flight (from its own fields)."""
    e: Any = event
    if e.type == "becmi.attacked":
        return [e.target] if e.killed else []
    if e.type == "becmi.struck":
        return [e.target] if e.killed or e.knocked_out_rounds > 0 else []
    if e.type == "becmi.wrestled":
        return [p.combatant for p in e.pins if p.killed]
    if e.type == "becmi.morale_checked":
        return list(e.fled)
    return []


def _side_of(loaded: api.LoadedReplay) -> dict[str, str]:
    sc: Any = loaded.scenario
    return {c.id: s.id for s in sc.sides for c in s.combatants}


@pytest.mark.parametrize("name", ["tavern_brawl-s377.jsonl", "dungeon_skirmish-s3.jsonl"])
def test_becmi_first_morale_check_names_the_sides_first_fall(name: str) -> None:
    """A side's first morale check follows the fall that reached its trigger.

    Only falls of combatants still out count (one that came to is standing
    again): the first of them, or for ``half_out`` the one that made half.
    """
    loaded = _load(name)
    events, side_of = loaded.events, _side_of(loaded)
    check: Any = next(e for e in events if e.type == "becmi.morale_checked")
    sc: Any = loaded.scenario
    size = next(len(s.combatants) for s in sc.sides if s.id == check.side)
    woke = [(_field(e, "combatant"), e.seq) for e in events if e.type == "becmi.recovered"]
    falls = [
        e.seq
        for e in events[: check.seq]
        for c in _falls(e)
        if side_of[c] == check.side and not any(w == c and e.seq < t < check.seq for w, t in woke)
    ]
    k = 1 if check.trigger == "first_fallen" else -(-size // 2)
    assert check.cause == falls[k - 1]
    chain = _why_seqs(REPLAYS / name, check.seq)
    assert chain[-2:] == [falls[k - 1], check.seq]
    assert loaded.events[chain[0]].cause is None


def test_becmi_coming_to_names_the_knock_out() -> None:
    """tavern_brawl at format 4's dice: the combatant that comes to was knocked out just before."""
    path = FORMAT4 / "tavern_brawl-s377.format4.jsonl"
    loaded = api.load_replay(path)
    events = loaded.events
    woke: Any = _only(events, "becmi.recovered")
    blow = max(
        e.seq
        for e in events[: woke.seq]
        if e.type == "becmi.struck"
        and _field(e, "target") == woke.combatant
        and _field(e, "knocked_out_rounds") > 0
    )
    assert woke.cause == blow
    assert _why_seqs(path, woke.seq) == [blow, woke.seq]


def test_becmi_pins_chain_back_through_the_holds_to_the_bouts_start() -> None:
    """A round with pins names the bout's previous round, back to the round that started it."""
    loaded = _load("tavern_brawl-s377.jsonl")
    events = loaded.events
    pinned: Any = next(e for e in events if e.type == "becmi.wrestled" and _field(e, "pins"))
    rounds = [e.seq for e in events[: pinned.seq + 1] if _field(e, "type") == "becmi.wrestled"]
    rounds = [s for s in rounds if _field(events[s], "bout") == pinned.bout]
    assert _field(events[rounds[0]], "started") and events[rounds[0]].cause is None
    assert abs(_field(events[rounds[-2]], "hold_after")) == 3 or abs(pinned.hold_after) == 3
    assert _why_seqs(REPLAYS / "tavern_brawl-s377.jsonl", pinned.seq) == rounds


def test_becmi_end_names_the_last_fall_of_the_beaten_side() -> None:
    """The end of a fight names the last fall among the sides no longer standing."""
    for name in ("tavern_brawl-s377.jsonl", "dungeon_skirmish-s3.jsonl"):
        loaded = _load(name)
        events, side_of = loaded.events, _side_of(loaded)
        ended: Any = _only(events, "becmi.battle_ended")
        beaten = {s for s in side_of.values() if s not in ended.standing}
        last = max(e.seq for e in events if any(side_of[c] in beaten for c in _falls(e)))
        assert ended.cause == last, name
        assert _why_seqs(REPLAYS / name, ended.seq)[-2:] == [last, ended.seq]


# --- flattop: hits → crippled/sunk → victory ------------------------------------


@pytest.mark.parametrize("name", ["coral_sea-s1942.jsonl", "carrier_duel-s688.jsonl"])
def test_flattop_end_names_the_attack_that_last_crippled_or_sank(name: str) -> None:
    """why on the end: the strike's spotting, its launch, the crippling attack, the end."""
    loaded = _load(name)
    events = loaded.events
    ended = _only(events, "flattop.battle_ended")
    damaging: list[Any] = [
        e
        for e in events
        if e.type == "flattop.attacked" and _field(e, "status_after") != _field(e, "status_before")
    ]
    attack = damaging[-1]
    launched = next(
        e for e in events if e.type == "flattop.launched" and _field(e, "strike") == attack.strike
    )
    spotted = next(
        e for e in events if e.type == "flattop.spotted" and _field(e, "strike") == attack.strike
    )
    assert (ended.cause, attack.cause, launched.cause) == (attack.seq, launched.seq, spotted.seq)
    chain = [spotted.seq, launched.seq, attack.seq, ended.seq]
    assert _why_seqs(REPLAYS / name, ended.seq) == chain


SKETCH = ROOT / "tests" / "data" / "replays" / "coral_sea_sketch-s1942.jsonl"
"""The rules-notes sketch coral_sea.yaml was: Shoho's own strike is grounded when she is hit."""


def test_flattop_grounded_strike_names_the_attack_on_its_carrier() -> None:
    """The sketch: a strike cancelled because its carrier was crippled names that attack."""
    loaded = api.load_replay(SKETCH)
    events = loaded.events
    cancelled: Any = _only(events, "flattop.strike_cancelled")
    sc: Any = loaded.scenario
    origin = next(st.origin for s in sc.sides for st in s.strikes if st.id == cancelled.strike)
    hit = max(
        e.seq
        for e in events[: cancelled.seq]
        if e.type == "flattop.attacked"
        and _field(e, "ship") == origin
        and _field(e, "status_after") != _field(e, "status_before")
    )
    assert cancelled.cause == hit
    assert _why_seqs(SKETCH, cancelled.seq)[-2:] == [hit, cancelled.seq]


# --- why itself -----------------------------------------------------------------


def test_why_refuses_a_cause_that_is_not_an_earlier_event() -> None:
    """A cause pointing at itself or later would loop: why names it instead."""
    loaded = _load("stone_wall-s1862.jsonl")
    check = next(e for e in loaded.events if e.type == "musket.morale_tested")
    loaded.events[check.seq] = check.model_copy(update={"cause": check.seq})
    with pytest.raises(IndexError, match=f"event seq {check.seq} names cause {check.seq}"):
        analysis.why(loaded, check.seq)


# --- replays from before causes keep loading -------------------------------------

OLD = ROOT / "tests" / "data" / "replays"


@pytest.mark.parametrize(
    ("name", "bumped"),
    [
        (
            "tavern_brawl-s377.v1-causes.jsonl",
            ("becmi.recovered", "becmi.wrestled", "becmi.morale_checked", "becmi.battle_ended"),
        ),
        ("coral_sea-s1942.v1-causes.jsonl", ("flattop.strike_cancelled", "flattop.battle_ended")),
    ],
)
def test_replays_from_before_causes_load_upcast_and_explain(
    name: str, bumped: tuple[str, ...]
) -> None:
    """Version-1 records of the types that now name causes are upcast as stored: no new cause."""
    path = OLD / name
    stored = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    old = [d for d in stored if d.get("type") in bumped]
    assert old and all(d["schema_version"] == 1 for d in old)
    loaded = api.load_replay(path)
    assert loaded.replay.upcast == len(old)
    for d in old:
        event = loaded.events[d["seq"]]
        assert (event.schema_version, event.cause) == (2, d["cause"])
    ended = loaded.events[-1] if loaded.events[-1].type.endswith("battle_ended") else None
    ended = ended or next(e for e in loaded.events if e.type.endswith("battle_ended"))
    assert _why_seqs(path, ended.seq) == [ended.seq]


@pytest.mark.parametrize(
    "name", ["tavern_brawl-s377.jsonl", "coral_sea-s1942.jsonl", "napoleonic_brigade-s1815.jsonl"]
)
def test_the_state_kept_for_causes_survives_a_snapshot(name: str) -> None:
    """Falls, bout rounds and damaging attacks round-trip: restore(snapshot(s)) == s throughout."""
    loaded = _load(name)
    rs = loaded.ruleset
    for _event, state in loaded.fold():
        data = json.loads(json.dumps(rs.snapshot(state)))
        assert rs.restore(loaded.scenario, data) == state

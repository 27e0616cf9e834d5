"""Replay tooling: diff, fork, why, report, snapshots, upcasting, gzip, invariants."""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from engine.log import GENESIS, seal
from sim import api
from sim.cli import cli
from sim.contract import headline
from sim.outputs import is_chart
from sim.replay import analysis
from sim.replay.diff import _ending as ending_lines
from sim.replay.diff import _named, draw_counts, render
from sim.replay.file import ReplayFile
from sim.rulesets.musket.model.events import Fired, MoraleTested

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
"""The stone wall golden as musket rules version 1 wrote it (kept: these tests pin it)."""
STONE_WALL = ROOT / "tests" / "data" / "rules1" / "stone_wall.yaml"
"""That battle's scenario: the pre-issue-22 stone wall with version 1's options."""
FORMAT1 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862.format1.jsonl"
EVENTS = api.load_replay(GOLDEN).events
CHECK = next(
    e for e in EVENTS if e.type == "musket.morale_tested" and e.unit == "69ny" and not e.passed
)
"""The golden's first failed morale check of the 69th New York (after a lost melee: routed)."""


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(scope="module")
def forked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden battle forked where the 69th New York failed its morale check: it holds."""
    out = tmp_path_factory.mktemp("fork") / "held.jsonl"
    result = _invoke(
        "fork",
        str(GOLDEN),
        "--at",
        str(CHECK.seq),
        "--set",
        "passed=true",
        "--set",
        f"after={CHECK.before}",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    return out


def test_diff_context_lines_of_an_event_of_no_unit_end_at_its_type(tmp_path: Path) -> None:
    """The goblin barricade (seed 3) forked at seq 77 with no goblin fleeing: the context
    lines of ``becmi.battle_ended``, ``engine.turn_ended`` and ``becmi.initiative``, which
    name no unit, ended in the spaces of an empty unit column."""
    replay = ROOT / "replays" / "dungeon_skirmish-s3.jsonl"
    out = tmp_path / "h.jsonl"
    made = _invoke("fork", str(replay), "--at", "77", "--set", "fled=[]", "-o", str(out))
    assert made.exit_code == 0, made.output
    diff = _invoke("diff", str(replay), str(out))
    lines = diff.output.splitlines()
    at = lines.index("after, in a:")
    assert lines[at : at + 7] == [
        "after, in a:",
        "  seq    78 round   9 becmi.battle_ended",
        "  seq    79 round   9 engine.turn_ended",
        "after, in b:",
        "  seq    78 round   9 engine.turn_ended",
        "  seq    79 round  10 becmi.initiative",
        "  seq    80 round  10 becmi.attacked           pip g2",
    ]
    assert [line for line in lines if line != line.rstrip()] == []


def test_identical_battles_diff_to_nothing() -> None:
    """A replay diffed with itself: exit 0 and one 'identical' line."""
    result = _invoke("diff", str(GOLDEN), str(GOLDEN))
    assert (result.exit_code, result.stdout) == (0, f"identical: {GOLDEN} and {GOLDEN}\n")


def test_diff_names_the_first_divergent_event_exactly(forked: Path) -> None:
    """The fork parts from its parent at the check; diff prints exactly where and how, bounded."""
    result = _invoke("diff", str(GOLDEN), str(forked), "--context", "1")
    assert result.exit_code == 1
    # The changed morale check is the first draw of its stream (index 0): 0 draws before it.
    [draw] = CHECK.draws
    assert (draw.stream, draw.i, CHECK.cause) == (f"{CHECK.turn}/morale/melee/69ny/69ny", 0, 37)
    assert result.stdout.splitlines() == [
        f"same scenario and seed; first divergent event at seq {CHECK.seq}, turn {CHECK.turn}, "
        "phase melee, unit 69ny",
        "  changed  passed: false -> true",
        f"  changed  after: {CHECK.after} -> {CHECK.before}",
        f"first turn whose state differs: {CHECK.turn}",
        "before:",
        f"  seq    37 turn {CHECK.turn:3} musket.meleed            69ny 24ga",
        "after, in a:",
        f"  seq    39 turn {CHECK.turn:3} musket.rallied           69ny",
        "after, in b:",
        f"  seq    39 turn {CHECK.turn:3} musket.rallied           69ny",
        "random-stream draws before it, streams the divergent events draw from:",
        f"  {draw.stream}: 0",
        f"draws in a's event: {draw.stream} x1",
        f"draws in b's event: {draw.stream} x1",
        *_ending(GOLDEN, forked),
    ]


def _ending(a: Path, b: Path) -> list[str]:
    """The two lines a diff of a fork ends with, from both battles' outcomes."""
    la, lb = api.load_replay(a), api.load_replay(b)
    oa = la.ruleset.outcome(la.scenario, la.state_at())
    ob = lb.ruleset.outcome(lb.scenario, lb.state_at())
    ha, hb = headline(la.ruleset, oa), headline(lb.ruleset, ob)
    same = (oa.winner, oa.reason, oa.turns) == (ob.winner, ob.reason, ob.turns)
    lines = [f"outcome unchanged: {ha}" if same else f"outcome changed: {ha} -> {hb}"]
    moved = [
        f"{sid} {name} {value} -> {ob.losses()[sid][name]}"
        for sid, losses in oa.losses().items()
        for name, value in losses.items()
        if ob.losses()[sid][name] != value
    ]
    return [*lines, f"losses changed: {'; '.join(moved)}" if moved else "losses unchanged"]


def test_diff_of_a_fork_ends_with_whether_the_outcome_and_losses_changed(forked: Path) -> None:
    """The 69th holds: the text ends with two lines, --json says the same; a fork of a
    field that changes nothing after it says both are unchanged (issue 33)."""
    la, lb = api.load_replay(GOLDEN), api.load_replay(forked)
    oa = la.ruleset.outcome(la.scenario, la.state_at())
    ob = lb.ruleset.outcome(lb.scenario, lb.state_at())
    assert oa.losses() != ob.losses()  # holding on, the 69th fights on and the losses move
    data = json.loads(_invoke("diff", str(GOLDEN), str(forked), "--json").stdout)
    assert (data["outcome_changed"], data["losses_changed"]) == (
        (oa.winner, oa.reason, oa.turns) != (ob.winner, ob.reason, ob.turns),
        True,
    )
    assert data["outcomes"]["b"] == {"headline": headline(lb.ruleset, ob), **ob.as_json()}
    lines = _invoke("diff", str(GOLDEN), str(forked)).stdout.splitlines()
    assert lines[-2:] == _ending(GOLDEN, forked)


def test_a_changed_outcome_shows_both_headlines(forked: Path) -> None:
    """When the winner differs, the line gives both headlines, a's first (the text alone)."""
    d = json.loads(_invoke("diff", str(GOLDEN), str(forked), "--json").stdout)
    ha = d["outcomes"]["a"]["headline"]
    d["outcome_changed"], d["outcomes"]["b"]["headline"] = True, "Union wins after 9 turns"
    assert render(d)[-2] == f"outcome changed: {ha} -> Union wins after 9 turns"


def test_diff_names_a_draw_taken_and_not_recorded(tmp_path: Path) -> None:
    """A stray draw before a volley's first: b's volley records its stream from index 1, so
    both counts are the same (the highest index plus one) and only the draws' indices told;
    b's count names the index drawn and not recorded, and --json lists it by stream."""
    from tests.forge import forge

    volley = next(e for e in EVENTS if e.type == "musket.fired")
    first = volley.model_dump(mode="json")["result"]["draws"][0]
    stream, n = first[0], len(volley.result.draws)
    stray = json.dumps(first, separators=(",", ":")) + ","
    at = volley.seq + 1  # the line bodies: the header first

    def skip_first_draw(texts: list[str]) -> list[str]:
        assert stray in texts[at]
        return [*texts[:at], texts[at].replace(stray, ""), *texts[at + 1 :]]

    b = forge(tmp_path, skip_first_draw, GOLDEN)
    lines = _invoke("diff", str(GOLDEN), str(b)).stdout.splitlines()
    assert lines[lines.index(f"  {stream}: 0") + 1 :][:2] == [
        f"draws in a's event: {stream} x{n}",
        f"draws in b's event: {stream} x{n} (index 0 drawn, not recorded)",
    ]
    data = json.loads(_invoke("diff", str(GOLDEN), str(b), "--json").stdout)
    assert (data["seq"], data["unrecorded_in_a"], data["unrecorded_in_b"]) == (
        volley.seq,
        {},
        {stream: [0]},
    )


def test_diff_verbose_lists_every_stream_drawn_before(forked: Path) -> None:
    """--verbose lists the draw count of every stream drawn before the divergence, as --json."""
    text = _invoke("diff", str(GOLDEN), str(forked), "--verbose").stdout.splitlines()
    counts = json.loads(_invoke("diff", str(GOLDEN), str(forked), "--json").stdout)["draw_counts"]
    start = text.index("random-stream draws before it (stream: count):") + 1
    assert text[start : start + len(counts)] == [f"  {k}: {v}" for k, v in counts.items()]
    assert text[start + len(counts)].startswith("draws in a's event:")


def test_diff_verbose_and_json_count_the_divergent_events_streams_too(forked: Path) -> None:
    """Every stream the divergent events draw from is in --verbose and --json, at 0 when it
    was not drawn before (the text summary showed ``…/69ny: 0`` and both left it out), beside
    every stream drawn before, each at its count over the events before the divergence."""
    data = json.loads(_invoke("diff", str(GOLDEN), str(forked), "--json").stdout)
    theirs = sorted({*data["draws_in_a"], *data["draws_in_b"]})
    before = draw_counts(e for e in api.load_replay(GOLDEN).events if e.seq < data["seq"])
    assert any(stream not in before for stream in theirs)  # the case the change is about
    assert data["draw_counts"] == dict(sorted({**dict.fromkeys(theirs, 0), **before}.items()))
    text = _invoke("diff", str(GOLDEN), str(forked), "--verbose").stdout.splitlines()
    assert {f"  {k}: {data['draw_counts'][k]}" for k in theirs} <= set(text)


def test_diff_names_the_units_of_an_event_without_a_unit_field(tmp_path: Path) -> None:
    """flattop's attack names its strike and ship, not a ``unit``: diff's first line said only
    ``seq 9, turn 3`` and its context lines nothing after the type; they name every text
    field holding a unit id, in the event's order, and --json has them as ``units``."""
    golden = ROOT / "replays" / "coral_sea-s1942.jsonl"
    fork = tmp_path / "f9.jsonl"
    # a lawful change (flattop's audit_change): Shoho (damage 5) afloat at 2 hits of 5, and
    # so none of the 4 AF aboard her (F2 TB2) lost with her
    sets = ("--set", "hits_taken=2", "--set", "hits_after=2", "--set", "status_after=afloat")
    sets += ("--set", "lost_hangar.fighter=0", "--set", "lost_hangar.torpedo_bomber=0")
    assert _invoke("fork", str(golden), "--at", "9", *sets, "-o", str(fork)).exit_code == 0
    text = _invoke("diff", str(golden), str(fork)).stdout.splitlines()
    assert text[0] == (
        "same scenario and seed; first divergent event at seq 9, turn 3, strike lex_strike, "
        "declared shoho, ship shoho"
    )
    data = json.loads(_invoke("diff", str(golden), str(fork), "--json").stdout)
    assert (data["unit"], data["units"], data["subjects"]) == (
        None,
        {"strike": "lex_strike", "declared": "shoho", "ship": "shoho"},
        None,  # flattop gives no subjects hook: its fields' own names say who
    )
    # the context lines name their units too, each once (a ship declared and attacked)
    assert data["context_before"][-1] == {
        "seq": 8, "turn": 3, "type": "flattop.anti_aircraft",
        "units": {"strike": "lex_strike", "task_force": "mo_main"},
    }  # fmt: skip
    assert "  seq    10 turn   3 flattop.attacked         lex_strike shoho" in text


def test_diff_names_the_units_an_event_names_within_a_field(tmp_path: Path) -> None:
    """becmi's bout names its wrestlers within `aggressors` and `defenders` alone: diff's
    first line said only `seq 4, round 1, phase melee`, and its context lines nothing after
    the type. Each unit named within a field is named once, by its dotted path, in --json's
    `units`; the first line says them in becmi's words (its `subjects` hook), by their role
    in the bout, where it listed the paths (`aggressors.members.0.id snaga, …`)."""
    golden = ROOT / "replays" / "tavern_brawl-s377.jsonl"
    fork = tmp_path / "f4.jsonl"
    assert (
        _invoke(
            "fork", str(golden), "--at", "4", "--set", "hold_after=0", "-o", str(fork)
        ).exit_code
        == 0
    )
    text = _invoke("diff", str(golden), str(fork), "--context", "1").stdout.splitlines()
    assert text[0] == (
        "same scenario and seed; first divergent event at seq 4, round 1, phase melee, "
        "aggressor snaga, defender thorgrim"
    )
    data = json.loads(_invoke("diff", str(golden), str(fork), "--json").stdout)
    assert data["units"] == {
        "aggressors.members.0.id": "snaga",
        "defenders.members.0.id": "thorgrim",
    }
    assert data["subjects"] == {"aggressor": ["snaga"], "defender": ["thorgrim"]}
    # the engine's snapshot, which holds every unit, names none (top-level text aside)
    snapshot = {"type": "engine.snapshot", "state": {"combatants": [{"id": "snaga"}]}}
    assert _named(snapshot, {"snaga"}) == {}


def test_diff_json_has_the_same_content(forked: Path) -> None:
    """--json gives one object with the divergent seq, the changes and the draw counts."""
    result = _invoke("diff", str(GOLDEN), str(forked), "--json")
    data = json.loads(result.stdout)
    assert (result.exit_code, data["mode"], data["seq"], data["turn"]) == (
        1,
        "same",
        CHECK.seq,
        CHECK.turn,
    )
    assert (data["a"], data["b"]) == (str(GOLDEN), str(forked))
    assert data["changes"] == [
        {"path": "passed", "kind": "changed", "a": False, "b": True},
        {"path": "after", "kind": "changed", "a": CHECK.after, "b": CHECK.before},
    ]
    assert data["draw_counts"]["2/fire/defensive_fire/24ga"] == 5


def test_diff_of_variants_compares_inputs_and_outcomes(tmp_path: Path) -> None:
    """Two seeds of one scenario: the seed is the only input change; outcomes side by side."""
    out, base = tmp_path / "s7.jsonl", tmp_path / "s1862.jsonl"
    for seed, path in (("7", out), ("1862", base)):
        assert _invoke("run", str(STONE_WALL), "--seed", seed, "--out", str(path)).exit_code == 0
    data = json.loads(_invoke("diff", str(base), str(out), "--json").stdout)
    assert data["mode"] == "variants"
    assert data["inputs"] == [{"path": "seed", "kind": "changed", "a": 1862, "b": 7}]
    assert data["outcome"]["winner"] == ["csa", "csa"]
    assert data["outcome"]["turns"] == [EVENTS[-1].turn, 9]
    # men and guns are summed apart (924 = 920 men + 4 guns was a sum of unlike things)
    assert data["strength_by_turn"]["0"] == {
        "csa": {"men": [920, 920], "guns": [4, 4]},
        "usa": {"men": [1230, 1230], "guns": [6, 6]},
    }


def test_diff_of_variants_shows_every_kind_of_loss_a_beside_b(tmp_path: Path) -> None:
    """Coral Sea at two seeds: each loss kind of a side is `kind a | b`, every kind in full.
    The line was a side's losses a, then b, each cut at 60 characters, so a flattop side's
    seven kinds lost four from sight, among them the air combat loss that differs here."""
    coral_sea = ROOT / "scenarios" / "coral_sea.yaml"
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for seed, path in (("1942", a), ("5", b)):
        assert _invoke("run", str(coral_sea), "--seed", seed, "--out", str(path)).exit_code == 0
    lines = _invoke("diff", str(a), str(b)).stdout.splitlines()
    at = lines.index("losses by side (a | b):")
    assert lines[at + 2] == (
        "  japan        ships_sunk 1 | 1, ships_crippled 0 | 0, air_factors 4 | 5, "
        "air_factors_air_combat 0 | 1, air_factors_anti_aircraft 0 | 0, "
        "air_factors_aboard 4 | 4, air_factors_ditched 0 | 0"
    )
    # a side one battle has not: each kind "a | -" (or "- | b"), in full too
    duel = ROOT / "replays" / "carrier_duel-s688.jsonl"
    lines = _invoke("diff", str(a), str(duel)).stdout.splitlines()
    at = lines.index("losses by side (a | b):")
    assert lines[at + 1].startswith("  allied       ships_sunk 0 | -, ships_crippled 0 | -, ")
    assert lines[at + 1].endswith(", air_factors_ditched 0 | -")
    assert lines[at + 4].startswith("  red          ships_sunk - | 1, ships_crippled - | 1, ")


def test_diff_of_variants_writes_counts_with_thousands_separators(tmp_path: Path) -> None:
    """Cold Harbor at two seeds: losses, strengths and a unit's whole numbers read `1,326`, as
    run's summary writes men; the seed, turns and hex coordinates stay plain. The table read
    `men 1326 | 1367` beside run's `Union: 1,326 men`."""
    cold_harbor = ROOT / "scenarios" / "cold_harbor.yaml"
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for seed, path in (("1", a), ("2", b)):
        assert _invoke("run", str(cold_harbor), "--seed", seed, "--out", str(path)).exit_code == 0
    data = json.loads(_invoke("diff", str(a), str(b), "--json").stdout)
    lines = _invoke("diff", str(a), str(b)).stdout.splitlines()
    usa = data["sides"]["usa"]["losses"]
    assert usa[0]["men"] >= 1000  # the case in point
    assert f"  usa          men {usa[0]['men']:,} | {usa[1]['men']:,}, guns 0 | 0" in lines
    first = data["strength_by_turn"]["0"]
    assert lines[lines.index("  changed  seed: 1 -> 2") + 1] == "outcome (a | b):"
    assert (
        f"  turn   0: csa men {first['csa']['men'][0]:,} | {first['csa']['men'][1]:,}, "
        f"guns 12 | 12; usa men {first['usa']['men'][0]:,} | {first['usa']['men'][1]:,}"
    ) in lines


def test_diff_keeps_a_units_position_plain_and_its_quantities_grouped() -> None:
    """A unit's position (the space's axes) is a place, not a count: `col 1000 | 1001`,
    beside `strength 1,200 | 1,350`."""
    d = {
        "identical": False,
        "mode": "variants",
        "inputs": [],
        "outcome": {},
        "sides": {},
        "units": {"u1": {"strength": [1200, 1350], "col": [1000, 1001]}},
        "strength_by_turn": {},
    }
    lines = render(d, axes=("col", "row"))
    assert "  u1           strength 1,200 | 1,350; col 1000 | 1001" in lines


def test_diff_of_a_fork_writes_the_losses_changed_with_thousands_separators() -> None:
    """The same battle's closing line: `losses changed: usa men 1,326 -> 1,367`."""
    side = {"usa": {"losses": {"men": 1326, "guns": 0}}}
    later = {"usa": {"losses": {"men": 1367, "guns": 0}}}
    d = {
        "outcomes": {"a": {"headline": "h", "sides": side}, "b": {"headline": "h", "sides": later}},
        "outcome_changed": False,
        "losses_changed": True,
    }
    assert ending_lines(d) == ["outcome unchanged: h", "losses changed: usa men 1,326 -> 1,367"]


def test_a_scenario_seed_changed_is_one_input_change(tmp_path: Path) -> None:
    """The scenario's own seed edited (so the header's differs too): "seed" is listed once."""
    text = STONE_WALL.read_text(encoding="utf-8")
    scenario = tmp_path / "stone_wall.yaml"
    scenario.write_text(text.replace("\nseed: 1862\n", "\nseed: 7\n"), encoding="utf-8")
    out, base = tmp_path / "s7.jsonl", tmp_path / "s1862.jsonl"
    assert _invoke("run", str(scenario), "--out", str(out)).exit_code == 0
    assert _invoke("run", str(STONE_WALL), "--out", str(base)).exit_code == 0
    data = json.loads(_invoke("diff", str(base), str(out), "--json").stdout)
    assert data["inputs"] == [{"path": "seed", "kind": "changed", "a": 1862, "b": 7}]


def test_forked_replay_names_its_parent_and_verifies(forked: Path) -> None:
    """The fork's header names parent, seq and change; verify re-simulates the fork exactly."""
    header = json.loads(forked.read_text().split("\n")[0])
    assert header["fork"]["parent"] == GOLDEN.name
    assert (header["fork"]["at_seq"], header["fork"]["event"]) == (
        CHECK.seq,
        {"passed": True, "after": CHECK.before},
    )
    result = _invoke("verify", str(forked))
    assert result.exit_code == 0, result.output


def test_fork_of_a_state_field_emits_an_override(tmp_path: Path) -> None:
    """--set state.units.wash.strength=2 logs an engine.override right after the event."""
    out = tmp_path / "f.jsonl"
    result = _invoke(
        "fork", str(GOLDEN), "--at", "10", "--set", "state.units.wash.strength=2", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in out.read_text().split("\n")[1:-2]]
    assert {k: events[11][k] for k in ("type", "cause", "path", "value")} == {
        "type": "engine.override",
        "cause": 10,
        "path": "units.wash.strength",
        "value": 2,
    }
    assert _invoke("verify", str(out)).exit_code == 0


def _first_rout(replay: Path) -> int:
    """The seq of the first morale check that routs its unit, with no prisoners taken: only
    a check that routs may take some (``audit_change``)."""
    return next(
        e.seq
        for e in api.load_replay(replay).events
        if isinstance(e, MoraleTested) and e.after == "routed" != e.before and not e.prisoners
    )


def test_fork_sets_a_field_its_line_leaves_out_at_its_default(tmp_path: Path) -> None:
    """`prisoners` is left out of a morale test's line at 0; --set prisoners=3 still forks a
    check that routs its unit: the event holds 3, the unit has 3 men fewer after it, and the
    fork verifies."""
    parent = ROOT / "replays" / "stone_wall-s1862.jsonl"
    at = _first_rout(parent)
    out = tmp_path / "f.jsonl"
    result = _invoke("fork", str(parent), "--at", str(at), "--set", "prisoners=3", "-o", str(out))
    assert result.exit_code == 0, result.output
    forked, before = ReplayFile(out), ReplayFile(parent)
    event = forked.event(at)
    assert "prisoners" not in before.event(at).model_dump() and event.prisoners == 3
    unit = event.unit
    assert forked.after(at).units[unit].strength == before.after(at).units[unit].strength - 3
    assert _invoke("verify", str(out)).exit_code == 0


def test_diff_compares_a_field_left_out_at_its_default_at_that_default(tmp_path: Path) -> None:
    """A fork that sets `prisoners` (left out of the line at 0) is diffed as a changed value,
    both ways: diff called it `missing  prisoners (in a: 3)`, a field gone from one event,
    when both events have it and one holds 0 (an engineer's review)."""
    parent = ROOT / "replays" / "stone_wall-s1862.jsonl"
    at = _first_rout(parent)
    out = tmp_path / "f.jsonl"
    result = _invoke("fork", str(parent), "--at", str(at), "--set", "prisoners=3", "-o", str(out))
    assert result.exit_code == 0, result.output
    for a, b, was, now in ((parent, out, 0, 3), (out, parent, 3, 0)):
        text = _invoke("diff", str(a), str(b))
        assert text.output.splitlines()[1] == f"  changed  prisoners: {was} -> {now}"
        found = json.loads(_invoke("diff", "--json", str(a), str(b)).output)
        assert found["changes"] == [{"path": "prisoners", "kind": "changed", "a": was, "b": now}]
        assert ("prisoners" in found["event_a"], "prisoners" in found["event_b"]) == (
            bool(was),
            bool(now),
        )  # the events themselves stay as their lines hold them


def test_diff_says_when_the_two_battles_were_fought_under_other_rules(forked: Path) -> None:
    """The brigade's version-5 replay against today's golden parts where version 6's
    prisoners begin; diff said only "same scenario and seed", the rules versions unnamed,
    so the divergence read as a desync (an engineer's review). It names both versions when
    they differ, and `--json` gives them whenever the battles part."""
    older = ROOT / "tests" / "data" / "replays" / "napoleonic_brigade-s1815-musket-rules5.jsonl"
    today = ROOT / "replays" / "napoleonic_brigade-s1815.jsonl"
    va, vb = (api.load_replay(p).replay.header.ruleset_version for p in (older, today))
    assert va != vb
    text = _invoke("diff", str(older), str(today))
    assert text.exit_code == 1
    assert text.output.splitlines()[1] == (
        f"  a was fought under rules v{va}, b under v{vb}: the rules may be what parts them"
    )
    found = json.loads(_invoke("diff", "--json", str(older), str(today)).output)
    assert found["ruleset_versions"] == {"a": va, "b": vb}
    same = _invoke("diff", str(GOLDEN), str(forked))  # a fork is fought under its parent's
    assert "fought under rules" not in same.output
    found = json.loads(_invoke("diff", "--json", str(GOLDEN), str(forked)).output)
    assert found["ruleset_versions"] == {"a": "1", "b": "1"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--at", "999", "--set", "passed=true"],
            f"--at 999: {GOLDEN} has seq 0..{len(EVENTS) - 1}",
        ),
        (["--at", "14", "--set", "nope=1"], "--set nope: no field 'nope'"),
        (
            ["--at", "14", "--set", "passed=maybe"],
            "--set passed: 'maybe' is not true or false (write true or false)",
        ),
        (["--at", "14", "--set", "seq=3"], "--set seq: the event's seq cannot change"),
        (
            ["--at", "14", "--set", "state.units.wash.strength=abc"],
            "--set state.units.wash.strength: 'abc' is not an integer",
        ),
        (["--at", "14", "--set", "novalue"], "--set 'novalue': expected FIELD=VALUE"),
    ],
)
def test_fork_refuses_bad_changes_with_exit_2(
    args: list[str], message: str, tmp_path: Path
) -> None:
    """A fork that cannot be made exits 2 naming the flag and why, and writes nothing."""
    out = tmp_path / "f.jsonl"
    result = _invoke("fork", str(GOLDEN), *args, "--out", str(out))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"battlesim: error: {message}")
    assert not out.exists()


def test_why_prints_the_chain_of_causes() -> None:
    """why of the 69th's failed check: the melee that caused it, then the check."""
    result = _invoke("why", str(GOLDEN), str(CHECK.seq))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "[seq 37] Turn 4, 13:12 — 69th New York charges 24th Georgia: attacker loses 21, "
        "defender loses 6; 24th Georgia wins, 69th New York is disrupted and retreats to 6,5",
        f"  → [seq {CHECK.seq}] Turn 4, 13:12 — 69th New York checks morale (loss, quality C = 4, "
        "fatigue medium -1, disrupted -1; rolled 4, passes at or under 2): routed",
    ]


def test_why_of_a_turns_end_says_it_is_the_engines_not_a_decision() -> None:
    """A turn's end has no cause and no line of narrative: why names it for what it is,
    and does not call it a decision from an order and the dice."""
    end = next(e for e in EVENTS if e.type == "engine.turn_ended")
    result = _invoke("why", str(GOLDEN), str(end.seq))
    assert (result.exit_code, result.stdout.splitlines()) == (
        0,
        [
            f"[seq {end.seq}] the end of turn {end.turn} (engine.turn_ended)",
            "  (no cause: the engine's bookkeeping, which no decision or dice made)",
        ],
    )
    first = _invoke("why", str(GOLDEN), "0")
    assert first.stdout.splitlines()[1:] == [
        "  (no recorded cause: a decision of its own, from the battle as it stood and the dice)"
    ]


def test_why_of_a_missing_seq_exits_2() -> None:
    """why with a seq past the end names the valid range."""
    result = _invoke("why", str(GOLDEN), "500")
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: {GOLDEN}: no event seq 500: the replay has seq 0..{len(EVENTS) - 1}\n",
    )


@pytest.mark.parametrize("command", ["report", "diff"])
def test_a_page_that_cannot_be_made_names_the_path_given_not_a_temporary_one(
    tmp_path: Path, command: str
) -> None:
    """A folder where no file can be made (Linux's /proc): the error names the page's own
    path, not the temporary name beside it (``.page.html.<pid>.<hex>.tmp``), and the flag
    it was given with (tests/cli/test_unwritable.py), exit 2."""
    page = Path("/proc") / f"{tmp_path.name}.html"
    args = (
        ["report", str(GOLDEN), "-o"]
        if command == "report"
        else ["diff", str(GOLDEN), str(GOLDEN), "--html"]
    )
    result = _invoke(*args, str(page))
    option = "--out" if command == "report" else "--html"
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: {option} {page}: cannot write in '/proc': No such file or directory\n",
    )


def test_narrative_filters_by_unit_and_type() -> None:
    """show --events --unit 69ny --type morale_tested: only that unit's morale checks."""
    result = _invoke("show", str(GOLDEN), "--events", "--unit", "69ny", "--type", "morale_tested")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "Turn 1, 12:04 — 69th New York checks morale (loss, quality C = 4, none; "
        "rolled 4, passes at or under 4): passes"
    )
    assert all("69th New York checks morale" in line for line in lines)
    assert _invoke("show", str(GOLDEN), "--events", "--unit", "zz").exit_code == 2


def test_report_and_diff_name_what_they_wrote_as_schema_does(tmp_path: Path) -> None:
    """report's files (stdout) and diff --html's page (stderr) are each ``Wrote PATH``, the
    form of schema, new and export (they said ``wrote PATH``)."""
    out, pngs, page = tmp_path / "r.html", tmp_path / "png", tmp_path / "d.html"
    listed = _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(pngs), "--json")
    written = json.loads(listed.stdout)["written"]
    result = _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(pngs))
    assert (result.exit_code, result.stdout) == (0, "".join(f"Wrote {f}\n" for f in written))
    diffed = _invoke("diff", str(GOLDEN), str(GOLDEN), "--html", str(page))
    assert (diffed.exit_code, diffed.stderr) == (0, f"Wrote {page}\n")
    schema = tmp_path / "s.json"
    said = _invoke("schema", "-o", str(schema))
    assert (said.exit_code, said.stdout) == (0, f"Wrote {schema}\n")


def test_report_is_one_html_file_with_its_charts(tmp_path: Path) -> None:
    """report writes one page with an SVG chart per measure, and each chart as a PNG on request."""
    out, pngs = tmp_path / "r.html", tmp_path / "png"
    result = _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(pngs))
    assert result.exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    loaded = api.load_replay(GOLDEN)
    readings = loaded.ruleset.measures(loaded.scenario, loaded.state_at(0))
    # a chart for each measure and unit: the units' strength in men and, apart, in guns
    charts = sorted({(r.scope, r.measure.name, r.measure.unit) for r in readings})
    assert len(re.findall(r'<svg class="chart"', page)) == len(charts) == 5
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched from a network
    split = {(s, m) for s, m, _ in charts if sum(c[:2] == (s, m) for c in charts) > 1}
    names = [f"{s}_{m}_{u}.png" if (s, m) in split else f"{s}_{m}.png" for s, m, u in charts]
    names = [n.replace(" ", "_") for n in names]  # side_men_on_the_field.png
    assert split == {("unit", "strength")}
    assert sorted(p.name for p in pngs.iterdir()) == sorted(names)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs.iterdir())
    assert f'<p class="headline">Confederate wins after {EVENTS[-1].turn} turns</p>' in page


def test_old_format_replay_loads_shows_and_verifies() -> None:
    """A format-1 replay (fired/meleed/battle_ended at schema 1) is upcast on read and verifies."""
    loaded = api.load_replay(FORMAT1)
    assert loaded.replay.header.format_version == 1
    kinds = Counter(json.loads(line).get("type") for line in FORMAT1.read_text().splitlines())
    # every fired and meleed (v2 named the check's reason), and the end (v2 names its cause)
    assert (kinds["musket.fired"], kinds["musket.meleed"], kinds["musket.battle_ended"]) == (
        66,
        4,
        1,
    )
    assert loaded.replay.upcast == 66 + 4 + 1
    ended = loaded.events[-2]
    assert (ended.type, ended.schema_version, ended.cause) == ("musket.battle_ended", 2, None)
    fired = next(e for e in loaded.events if e.type == "musket.fired")
    assert fired.schema_version == 2
    first = next(analysis.narrative(loaded))[1]
    assert first == "Turn 1, 12:00 — 69th New York moves to 5,6 (4 hexes)"
    assert _invoke("show", str(FORMAT1), "--turn", "2").exit_code == 0
    result = _invoke("verify", str(FORMAT1))
    assert (result.exit_code, result.stdout) == (
        0,
        f"OK: {FORMAT1}: 124 events, intact, lawful, upcast from an older format, "
        "re-simulates to the same events\n",
    )


def test_a_format_1_replay_forks_only_before_its_first_snapshot(tmp_path: Path) -> None:
    """Seq 107 is a fire in the format-1 file and the turn-10 snapshot in today's
    re-simulation: a state fork there is refused (its override went in at 108, before that
    fire, and the fork was written), and so is a change of that fire or a later event, in
    words that say why (they asked whether the file was intact, or said the rules had
    changed, of a file that verifies); a state fork at turn 10's end (seq 106) names only
    seq 105 as the nearest to fork at (it named 107, refused); seq 50 forks."""
    out = tmp_path / "f.jsonl"
    why = (
        "a format-1 replay, written before snapshots, forks only before seq 107, where "
        "today's re-simulation writes the turn-10 snapshot it lacks and numbers every later "
        "event one higher"
    )
    for at, change in (("107", "state.units.1ri.strength=1"), ("107", "result.casualties=0"),
                       ("108", "passed=false")):  # fmt: skip
        result = _invoke("fork", str(FORMAT1), "--at", at, "--set", change, "-o", str(out))
        assert (result.exit_code, result.stderr) == (2, f"battlesim: error: --at {at}: {why}\n")
        assert not out.exists()
    result = _invoke(
        "fork", str(FORMAT1), "--at", "106", "--set", "state.units.1ri.strength=1", "-o", str(out)
    )  # fmt: skip  (turn 10's end: the nearest forkable is 105 alone)
    assert (result.exit_code, result.stderr.endswith("(the nearest: seq 105)\n")) == (2, True)
    result = _invoke("fork", str(FORMAT1), "--at", "50", "--set", "state.units.1ri.strength=1",
                     "-o", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output


def test_diff_of_a_format_1_replay_leaves_the_later_formats_snapshots_out(tmp_path: Path) -> None:
    """Format 1 has no turn-10 snapshot: against the same battle in format 4, diff named it
    the first divergent event (seq 107, ``changed  type: musket.fired -> engine.snapshot``,
    exit 1). It leaves the later format's snapshots out and numbers its events as format 1
    does, as verify compares them: the same battle is identical, and a fork of the format-4
    file past its snapshot parts where format 1 numbers the changed check. `--json` gives
    each file's own seq of it (`seq_in_a`, `seq_in_b`) and each file's own count of events,
    and `--html` tells each pane's line at its own seq (B's pane told the event before)."""
    format4 = FORMAT1.with_name("stone_wall-s1862.format4.jsonl")
    for a, b in ((FORMAT1, format4), (format4, FORMAT1)):
        result = _invoke("diff", str(a), str(b))
        assert (result.exit_code, result.stdout) == (0, f"identical: {a} and {b}\n")
    check = api.load_replay(FORMAT1).events[108]
    assert (check.type, check.unit, check.passed) == ("musket.morale_tested", "24ga", True)
    forked = tmp_path / "routed.jsonl"
    result = _invoke("fork", str(format4), "--at", "109", "--set", "passed=false",
                     "--set", "after=routed", "-o", str(forked))  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(_invoke("diff", str(FORMAT1), str(forked), "--json").stdout)
    assert (data["seq"], data["event_b"]["seq"], [c["path"] for c in data["changes"]]) == (
        108,
        108,
        ["passed", "after"],
    )
    # each file's own seq of the check and its own count of events (the fork's 126 hold its
    # turn-10 snapshot and its fork note); the page's banner tells B's line at B's own seq
    assert (data["seq_in_a"], data["seq_in_b"], data["events"]) == (108, 109, {"a": 124, "b": 126})
    page = tmp_path / "d.html"
    assert _invoke("diff", str(FORMAT1), str(forked), "--html", str(page)).exit_code == 1
    banner = page.read_text(encoding="utf-8").split("First divergent event</b> — ")[1]
    assert banner.startswith("seq 108 (seq 109 in B), turn 11;")
    told = banner.split("<li>")[2]
    assert told.startswith("B: Turn 11, 15:24 — 24th Georgia checks morale"), told


def test_newer_event_schema_is_a_clear_error(tmp_path: Path) -> None:
    """An event from a newer schema version is refused with the versions, not a traceback,
    exit 2 from every tool: a newer battlesim's replay, as a newer format's is."""
    lines = GOLDEN.read_text().split("\n")[:-1]
    out, h = [], GENESIS
    for n, line in enumerate(lines):
        data = {k: v for k, v in json.loads(line).items() if k != "h"}
        if data.get("seq") == 0:
            data["schema_version"] = 9
        body = (
            line[: line.rindex(',"h":')] + "}"
            if n == 0
            else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        )
        sealed, h = seal(h, body)
        out.append(sealed)
    path = tmp_path / "new.jsonl"
    path.write_text("\n".join(out) + "\n")
    newer = (
        f"battlesim: error: {path}:2 (seq 0): event type 'musket.moved' schema version 9 "
        "is newer than this battlesim reads (1); upgrade battlesim\n"
    )
    for command in ("show", "verify", "why"):  # verify said DAMAGED, exit 1: the file is whole
        result = _invoke(command, str(path), *(["0"] if command == "why" else []))
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", newer), command


def test_gzip_replays_are_written_and_read_transparently(tmp_path: Path) -> None:
    """run --out x.jsonl.gz writes gzip; verify and show read it; a cut file is truncated."""
    out, plain = tmp_path / "sw.jsonl.gz", tmp_path / "sw.jsonl"
    assert _invoke("run", str(STONE_WALL), "--seed", "1862", "--out", str(out)).exit_code == 0
    assert _invoke("run", str(STONE_WALL), "--seed", "1862", "--out", str(plain)).exit_code == 0
    assert gzip.decompress(out.read_bytes()) == plain.read_bytes()
    assert _invoke("verify", str(out)).exit_code == 0
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(out.read_bytes()[: len(out.read_bytes()) // 2])
    result = _invoke("verify", str(cut))
    assert result.exit_code == 1
    assert result.stdout.startswith("INCOMPLETE at seq ")


def test_verify_names_the_first_event_that_breaks_an_invariant(tmp_path: Path) -> None:
    """A resealed log whose morale check goes good -> routed in defensive fire fails at its seq."""
    check = next(
        e
        for e in EVENTS
        if e.type == "musket.morale_tested"
        and (e.phase, e.before, e.after) == ("defensive_fire", "good", "disrupted")
    )
    lines = GOLDEN.read_text().split("\n")[:-1]
    out, h = [], GENESIS
    for n, line in enumerate(lines):
        body = line[: line.rindex(',"h":')] + "}"
        if n == check.seq + 1:
            body = body.replace('"after":"disrupted"', '"after":"routed"')
        sealed, h = seal(h, body)
        out.append(sealed)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(out) + "\n")
    result = _invoke("verify", str(path))
    assert (result.exit_code, result.stdout) == (
        1,
        f"INVARIANT broken at seq {check.seq} (line {check.seq + 2}): musket.morale_tested: "
        "illegal morale transition good -> routed in defensive_fire\n",
    )


def test_a_fork_of_a_fork_keeps_both_changes(tmp_path: Path) -> None:
    """Forking a forked battle applies the earlier change too, and the result verifies."""
    first, second = tmp_path / "f1.jsonl", tmp_path / "f2.jsonl"
    # the first fire that required no morale check: its loss at 0 takes no check away
    fire = next(e.seq for e in EVENTS if isinstance(e, Fired) and not e.result.morale_check)
    assert (
        _invoke(
            "fork",
            str(GOLDEN),
            "--at",
            str(fire),
            "--set",
            "result.casualties=0",
            "--set",  # a loss of 0 adds no fatigue: refused if it kept its own
            "result.fatigue_value=0",
            "--set",
            "result.fatigue_added=0",
            "--set",  # nor any chance of a morale check
            "result.morale_check_p=0",
            "--out",
            str(first),
        ).exit_code
        == 0
    )
    assert (
        _invoke(
            "fork",
            str(first),
            "--at",
            "29",  # the last event of turn 3 (30 closes it: a state fork there is refused)
            "--set",
            "state.units.wash.strength=1",
            "--out",
            str(second),
        ).exit_code
        == 0
    )
    header = json.loads(second.read_text().split("\n")[0])
    assert (header["fork"]["at_seq"], header["fork"]["earlier"]["at_seq"]) == (29, fire)
    events = [json.loads(x) for x in second.read_text().split("\n")[1:-2]]
    assert events[fire]["result"]["casualties"] == 0
    assert _invoke("verify", str(second)).exit_code == 0
    data = json.loads(_invoke("diff", str(first), str(second), "--json").stdout)
    assert (data["seq"], data["event_b"]["type"]) == (30, "engine.override")


def test_fork_to_a_gz_name_is_gzip(tmp_path: Path) -> None:
    """fork --out x.jsonl.gz writes a gzip file that verifies, and leaves no partial file."""
    out = tmp_path / "held.jsonl.gz"
    assert (
        _invoke(
            "fork",
            str(GOLDEN),
            "--at",
            str(CHECK.seq),
            "--set",
            "passed=true",
            "--set",
            f"after={CHECK.before}",
            "--out",
            str(out),
        ).exit_code
        == 0
    )
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["held.jsonl.gz"]
    assert _invoke("verify", str(out)).exit_code == 0


def test_diff_with_html_compares_the_two_battles_once(
    forked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page reuses the comparison the text printed: one diff_replays, not two."""
    import sim.replay.diff
    import sim.replay.viewer.report

    calls: list[int] = []
    real = sim.replay.diff.diff_replays

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sim.replay.diff, "diff_replays", counted)
    monkeypatch.setattr(sim.replay.viewer.report, "diff_replays", counted)
    result = _invoke("diff", str(GOLDEN), str(forked), "--html", str(tmp_path / "d.html"))
    assert result.exit_code == 1, result.output
    assert (tmp_path / "d.html").stat().st_size > 0
    assert len(calls) == 1


def test_fork_json_names_the_rules_its_parent_was_fought_under(tmp_path: Path) -> None:
    """A fork of a musket rules version 1 replay is fought under version 1, and says so."""
    out = tmp_path / "held.jsonl"
    result = _invoke(
        "fork", str(GOLDEN), "--at", str(CHECK.seq), "--set", "passed=true",
        "--set", f"after={CHECK.before}", "--out", str(out), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    header = json.loads(out.read_text().split("\n")[0])
    assert (got["ruleset"], got["ruleset_version"], header["ruleset_version"]) == (
        "musket",
        "1",
        "1",
    )


def test_report_png_refuses_a_file_of_the_users_and_writes_nothing(tmp_path: Path) -> None:
    """A chart's name in --png holding another file: exit 2 before the page is written
    (the file was overwritten, and a failure after the page left it unmentioned);
    --force replaces it; an empty --out or --png is no name (it meant the default)."""
    pngs, out = tmp_path / "png", tmp_path / "r.html"
    pngs.mkdir()
    chart = "side_men_on_the_field.png"
    (pngs / chart).write_text("photo\n")
    result = _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(pngs))
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: --png {pngs / chart}: the file is not a chart battlesim "
        "wrote; add --force to overwrite it, or choose another name\n"
    )
    assert not out.exists() and sorted(p.name for p in pngs.iterdir()) == [chart]
    forced = _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(pngs), "--force")
    assert forced.exit_code == 0 and out.exists()
    assert (pngs / chart).read_bytes()[:4] == b"\x89PNG"
    charts = sorted(pngs.iterdir())
    assert all(is_chart(p) for p in charts) and not is_chart(GOLDEN)
    again = _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(pngs))  # its own charts
    assert again.exit_code == 0, again.output
    assert sorted(pngs.iterdir()) == charts
    (pngs / chart).write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)  # a PNG, not ours
    assert not is_chart(pngs / chart)
    assert _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(pngs)).exit_code == 2
    for option in ("-o", "--png"):
        empty = _invoke("report", str(GOLDEN), option, "")
        assert (empty.exit_code, empty.output) == (
            2,
            f"battlesim: error: {'--out' if option == '-o' else option}: an empty name; give a "
            f"{'file' if option == '-o' else 'folder'}, or leave it out\n",
        )


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["diff", str(GOLDEN), str(GOLDEN), "--context", "99999999999999999999"], "'--context'"),
        (["why", str(GOLDEN), "99999999999999999999"], "'SEQ'"),
    ],
)
def test_a_whole_number_past_a_machine_index_is_a_usage_error(args: list[str], name: str) -> None:
    """It ended in `OverflowError: Python int too large to convert to C ssize_t`, naming no
    option; the largest a machine index holds is said, not printed in --help."""
    result = _invoke(*args)
    assert result.exit_code == 2
    assert (
        f"Invalid value for {name}: 99999999999999999999 is too large (at most "
        f"{sys.maxsize})" in result.output
    )
    assert "x>=0" in _invoke("diff", "--help").output
    assert str(sys.maxsize) not in _invoke("diff", "--help").output


def test_a_page_is_never_written_over_a_replay_it_reads(tmp_path: Path) -> None:
    """report -o and diff --html naming an input replay: refused even with --force (the
    replay was replaced by the page; fork already refused its parent)."""
    replay = tmp_path / "r.jsonl"
    replay.write_bytes(GOLDEN.read_bytes())
    for args, option in (
        (["report", str(replay), "-o", str(replay), "--force"], "--out"),
        (["diff", str(replay), str(GOLDEN), "--html", str(replay), "--force"], "--html"),
    ):
        result = _invoke(*args)
        assert result.exit_code == 2
        assert result.output == (
            f"battlesim: error: {option} {replay}: that is {str(replay)!r}, which this command "
            "reads: choose another name\n"
        )
        assert replay.read_bytes() == GOLDEN.read_bytes()


def test_a_parent_fought_under_rules_this_battlesim_cannot_fight_is_not_forked(
    tmp_path: Path,
) -> None:
    """A (re-chained) parent of musket rules version "0": fork said OK and printed "0" in
    --json, though it fought the fork under today's rules (its header said so)."""
    from tests.forge import edit_header, forge

    def change(header: dict[str, Any]) -> None:
        header["ruleset_version"] = "0"

    parent = forge(tmp_path, lambda t: edit_header(t, change))
    out = tmp_path / "child.jsonl"
    result = _invoke("fork", str(parent), "--at", "19", "--set", "passed=true", "-o", str(out))
    assert result.exit_code == 2
    assert result.output.startswith(
        f"battlesim: error: {parent.name} was fought under musket rules version '0', which "
        "this battlesim cannot fight again (its rules are version "
    )
    assert not out.exists()


def test_default_names_keep_a_replays_name_but_its_suffixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``.hidden.jsonl`` forks to ``.hidden-fork<seq>.jsonl`` and reports to
    ``.hidden.html`` (they were ``-fork<seq>.jsonl``, which the suggested diff command took
    for an option, and ``.html``); ``a.b.jsonl.gz`` reports to ``a.b.html``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".hidden.jsonl").write_bytes(GOLDEN.read_bytes())
    at = CHECK.seq
    result = _invoke("fork", ".hidden.jsonl", "--at", str(at), "--set", "passed=true",
                     "--set", f"after={CHECK.before}")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"battlesim diff .hidden.jsonl .hidden-fork{at}.jsonl" in result.output
    assert _invoke("report", ".hidden.jsonl").exit_code == 0
    (tmp_path / "a.b.jsonl.gz").write_bytes(gzip.compress(GOLDEN.read_bytes()))
    assert _invoke("report", "a.b.jsonl.gz").exit_code == 0
    made = sorted(p.name for p in tmp_path.iterdir())
    assert {f".hidden-fork{at}.jsonl", ".hidden.html", "a.b.html"} <= set(made), made


def test_a_replay_of_newer_rules_is_a_newer_battlesims(tmp_path: Path) -> None:
    """A replay fought under musket rules v9 (this battlesim's are older) made verify say
    MISMATCH, exit 1, as if the file differed: it is a newer battlesim's replay, which this
    one cannot judge, and verify says so in one line, exit 2, as for a newer format."""
    golden = ROOT / "replays" / "stone_wall-s1862.jsonl"
    out, h = [], GENESIS
    for n, line in enumerate(golden.read_text(encoding="utf-8").splitlines()):
        body = line[: line.rindex(',"h":')] + "}"
        if n == 0:
            data = json.loads(body)
            current = data["ruleset_version"]
            body = body.replace(f'"ruleset_version":"{current}"', '"ruleset_version":"9"')
        sealed, h = seal(h, body)
        out.append(sealed)
    path = tmp_path / "v9.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    result = _invoke("verify", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {path}: fought under musket rules v9, newer than this battlesim's "
        f"(v{current}); upgrade battlesim (or the ruleset's plugin)\n",
    )


def test_a_gzip_replay_cut_before_its_first_line_is_incomplete(tmp_path: Path) -> None:
    """A gzip replay cut at 100 bytes holds no whole line once decompressed: verify called
    it an "empty file", not a replay (exit 2); it is INCOMPLETE, exit 1, as a plain file cut
    short is (docs/replay-format.md, *Compressed files*)."""
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(GOLDEN.read_bytes())[:100])
    result = _invoke("verify", str(cut))
    assert (result.exit_code, result.stdout) == (
        1,
        f"INCOMPLETE at line 1: {cut}:1: incomplete: the gzip stream was cut short in its "
        "first line\n",
    )


def test_report_png_into_a_link_to_nothing_says_so(tmp_path: Path) -> None:
    """`--png dangling`, a link to a folder that is gone: it said "cannot write dangling: File
    exists"; it names the option and the link, exit 2, and writes nothing."""
    (tmp_path / "dangling").symlink_to("nowhere")
    out = tmp_path / "r.html"
    result = _invoke("report", str(GOLDEN), "-o", str(out), "--png", str(tmp_path / "dangling"))
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: --png {tmp_path / 'dangling'}: a link to 'nowhere', which does not "
        "exist: no folder can be made there\n",
    )
    assert not out.exists() and not (tmp_path / "nowhere").exists()


def test_diff_says_when_a_changed_field_is_one_the_upcasters_made(tmp_path: Path) -> None:
    """A format-1 volley is stored at schema version 1 and read upcast to 2, its
    morale_check_reason made by the upcaster: diff named the changed field alone, as if the
    rules had changed it. It says the event was upcast and which fields the upcasters made
    when one of them changed (an upcaster's bug shows there); not for another field."""
    fired = next(e for e in api.load_replay(FORMAT1).events if e.type == "musket.fired")
    reason = fired.result.morale_check_reason  # type: ignore[attr-defined]
    other = "max_fatigue" if reason != "max_fatigue" else "heavy_losses"
    for change, note in ((f"result.morale_check_reason={other}", True),
                         (f"result.casualties={fired.result.casualties + 1}", False)):  # type: ignore[attr-defined]  # fmt: skip
        out = tmp_path / "f.jsonl"
        forked = _invoke("fork", str(FORMAT1), "--at", str(fired.seq), "--set", change,
                         "-o", str(out))  # fmt: skip
        assert forked.exit_code == 0, forked.output
        result = _invoke("diff", str(FORMAT1), str(out), "--context", "0")
        said = (
            "a's event was recorded at schema version 1 and upcast to 2 on reading, its "
            "upcasters making result.morale_check_reason: a difference there may be theirs"
        )
        assert (result.exit_code, said in result.stdout.splitlines()) == (1, note)
        data = json.loads(_invoke("diff", str(FORMAT1), str(out), "--json").stdout)
        made = {"schema_version": 1, "fields": ["result.morale_check_reason"]}
        assert (data["seq"], data["upcast_a"], data["upcast_b"]) == (fired.seq, made, None)

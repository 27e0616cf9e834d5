"""Reading replays: snapshots, notebook rows, narrative of a golden replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.events import Snapshot
from sim import api
from sim.replay import analysis
from sim.rulesets.musket.model.options import RULES_V2

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
"""The stone wall golden replay as fought under musket rules version 1 (before rules
version 2 changed four defaults and the scenario was rebuilt from the record): the
reading tools read an old battle from its log alone, as they did when it was fought."""


@pytest.fixture(scope="module")
def long_battle(tmp_path_factory: pytest.TempPathFactory) -> api.LoadedReplay:
    """The stone wall fought to a 25-turn limit with no army breaking (under rules version
    2's options: version 3's routs would take every regiment off the field first)."""
    text = (ROOT / "scenarios" / "stone_wall.yaml").read_text()
    text = text.replace("\nvictory:", f"\noptions: {json.dumps(RULES_V2)}\nvictory:", 1)
    text = text.replace("limit: 12 ", "limit: 25 ").replace("break_units: 0.5", "break_units: 1.0")
    text = text.replace("break_losses: 0.4", "break_losses: 1.0").replace(
        "break_losses: 0.5", "break_losses: 1.0"
    )
    folder = tmp_path_factory.mktemp("long")
    (folder / "long.yaml").write_text(text)
    api.run(folder / "long.yaml", seed=3, out=folder / "long.jsonl")
    return api.load_replay(folder / "long.jsonl")


def test_snapshots_are_logged_every_tenth_turn(long_battle: api.LoadedReplay) -> None:
    """A 25-turn battle carries state snapshots after turns 10 and 20."""
    assert [e.turn for e in long_battle.events if isinstance(e, Snapshot)] == [10, 20]


def test_snapshot_plus_tail_equals_the_full_fold(long_battle: api.LoadedReplay) -> None:
    """For every turn, starting from the nearest snapshot gives the full fold's state."""
    rs = long_battle.ruleset
    for turn in range(26):
        fast = rs.snapshot(long_battle.state_at(turn))
        full = rs.snapshot(long_battle.state_at(turn, use_snapshots=False))
        assert json.loads(json.dumps(fast)) == json.loads(json.dumps(full)), turn


def test_unit_rows_one_per_unit_per_turn() -> None:
    """unit_rows gives 7 units × (every turn + the start) rows, with the start's strengths."""
    loaded = api.load_replay(GOLDEN)
    rows = analysis.unit_rows(loaded)
    assert len(rows) == 7 * (loaded.events[-1].turn + 1)
    assert [(r["id"], r["strength"], r["col"], r["row"]) for r in rows[:2]] == [
        ("69ny", 450, 5, 10),
        ("28ma", 400, 7, 10),
    ]
    # the scenario's men and guns, each summed apart (1,236 and 924 were men and guns added)
    start = {"usa": {"men": 1230, "guns": 6}, "csa": {"men": 920, "guns": 4}}
    assert analysis.side_strength(loaded)[0] == start


def test_side_strength_sums_each_measure_apart() -> None:
    """Chancellorsville's Union has men and a battery's guns: side_strength sums each in its
    own measure, as the unit rows give them (not men and guns added together)."""
    loaded = api.load_replay(ROOT / "replays" / "chancellorsville-s1863.jsonl")
    rows = [r for r in analysis.unit_rows(loaded) if r["turn"] == 0]
    want: dict[str, dict[str, int]] = {}
    for r in rows:
        side = want.setdefault(r["side"], {})
        side[r["strength_unit"]] = side.get(r["strength_unit"], 0) + r["strength"]
    assert any(len(m) == 2 for m in want.values())  # a side with men and guns
    assert analysis.side_strength(loaded)[0] == want


def test_event_rows_are_flat() -> None:
    """event_rows flattens nested fields to dotted columns and draws to their count."""
    loaded = api.load_replay(GOLDEN)
    rows = analysis.event_rows(loaded)
    assert len(rows) == len(loaded.events)
    fired = next(r for r in rows if r["type"] == "musket.fired")
    event: Any = loaded.events[fired["seq"]]
    assert event.type == "musket.fired"
    assert (fired["result.casualties"], fired["result.draws"]) == (event.result.casualties, 5)


def test_golden_narrative_opening_lines() -> None:
    """The golden replay's narrative opens with the Union advance and the first volley."""
    lines = [line for _, line in analysis.narrative(api.load_replay(GOLDEN))]
    assert lines[:4] == [
        "Turn 1, 12:00 — 69th New York moves to 5,6 (4 hexes)",
        "Turn 1, 12:00 — 28th Massachusetts moves to 7,6 (4 hexes)",
        "Turn 1, 12:00 — 116th Pennsylvania moves to 9,6 (4 hexes)",
        "Turn 1, 12:04 — 24th Georgia fires on 69th New York at 3 hexes: value 1,000, "
        "modifier +0% (none) → E 1,000, range 5.00–25.00, drew 15.55 → 15 casualties, "
        "+44 fatigue; morale check p = 0.38: required",
    ]
    assert lines[-1] == (
        "Turn 8, 14:40 — Confederate wins: every other army broke; Confederate holds the field"
    )

"""The replay tools stream (issue 11, item 3): the work they do is counted, never timed.

A 100-turn battle (snapshots after every 10th turn) is read through
:class:`sim.replay.file.ReplayFile`: how many event lines were parsed in
full, how many events are alive at once, where ``verify`` stops.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.comparison.replay import verify
from engine.events import Event
from engine.log import Header, Sink
from sim import api
from sim.cli import cli
from sim.contract import get_ruleset
from sim.replay import analysis
from sim.replay.file import ReplayFile
from sim.replay.viewer.model import battle_view

ROOT = Path(__file__).resolve().parents[2]
LONG = ROOT / "tests" / "data" / "long_lines.yaml"


@pytest.fixture(scope="module")
def long_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 100-turn battle's replay."""
    out = tmp_path_factory.mktemp("long") / "long.jsonl"
    api.run(LONG, out=out)
    return out


def _records(path: Path) -> list[dict[str, Any]]:
    """Every line of the file as data, without its chain link."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [{k: v for k, v in json.loads(line).items() if k != "h"} for line in lines]


def test_state_at_turn_95_parses_the_snapshot_and_turns_91_to_95_only(long_replay: Path) -> None:
    """show --turn 95: the scan parses no line; the fold parses the turn-90 snapshot, turns
    91..95 and the first event of turn 96 (which ends the fold) — and gets the full fold's state."""
    events = _records(long_replay)[1:-1]
    snaps = [e for e in events if e["type"] == "engine.snapshot" and e["turn"] <= 95]
    assert snaps[-1]["turn"] == 90
    after = [e for e in events if e["seq"] > snaps[-1]["seq"]]
    wanted = 1 + sum(1 for e in after if e["turn"] <= 95) + 1
    replay = ReplayFile(long_replay)
    replay.scan()
    assert replay.stream.parsed == 0
    state = replay.state_at(95)
    assert replay.stream.parsed == wanted < len(events) // 8
    whole = api.load_replay(long_replay)
    expected = whole.state_at(95, use_snapshots=False)
    assert whole.ruleset.snapshot(state) == whole.ruleset.snapshot(expected)


def test_show_turn_prints_what_the_whole_fold_gives(long_replay: Path) -> None:
    """``show --turn 95 --json`` lists the units of the state folded from the first event."""
    result = CliRunner().invoke(cli, ["show", str(long_replay), "--turn", "95", "--json"])
    assert result.exit_code == 0, result.output
    whole = api.load_replay(long_replay)
    rows = whole.ruleset.units(whole.scenario, whole.state_at(95, use_snapshots=False))
    assert json.loads(result.stdout)["units"] == [r.model_dump(mode="json") for r in rows]


def test_event_and_after_start_from_the_nearest_snapshot(long_replay: Path) -> None:
    """fork's reads: the event at a seq and the state after it parse from the snapshot before it."""
    events = _records(long_replay)[1:-1]
    target = next(e for e in events if e["turn"] == 55 and e["type"] == "musket.fired")
    snap = max(
        e["seq"] for e in events if e["type"] == "engine.snapshot" and e["seq"] <= target["seq"]
    )
    replay = ReplayFile(long_replay)
    replay.scan()
    assert replay.event(target["seq"]).model_dump(mode="json") == target
    assert replay.stream.parsed == 1  # the lines before it are chain-checked only
    state = replay.after(target["seq"])
    assert replay.stream.parsed == 1 + (target["seq"] - snap + 1) + 1
    whole = api.load_replay(long_replay)
    assert whole.ruleset.snapshot(state) == whole.ruleset.snapshot(whole.after(target["seq"]))


def _live_events() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, Event))


def test_a_fold_holds_one_event_at_a_time(long_replay: Path) -> None:
    """Folding the whole battle, never more than two events are alive (this one, the last)."""
    replay = ReplayFile(long_replay)
    gc.collect()
    base = _live_events()
    peak = 0
    for i, (_event, _state) in enumerate(replay.fold()):
        if i % 50 == 0:
            peak = max(peak, _live_events() - base)
    assert 1 <= peak <= 2


def test_the_report_page_data_holds_no_events(long_replay: Path) -> None:
    """battle_view keeps plain data for the page, not the replay's events."""
    gc.collect()
    base = _live_events()
    view = battle_view(ReplayFile(long_replay))
    gc.collect()
    assert _live_events() - base == 0
    assert len(view.data["events"]) == len(_records(long_replay)) - 2


def _fake_resimulation(lines: list[str]) -> Any:
    """A re-simulation that writes ``lines``, counting what it was allowed to write."""

    def resimulate(header: Header, sink: Sink) -> None:
        for line in lines:
            sink.write(line)

    return resimulate


def _turn_end_line(records: list[dict[str, Any]], turn: int) -> int:
    return next(
        n
        for n, r in enumerate(records, start=1)
        if r.get("type") == "engine.turn_ended" and r["turn"] == turn
    )


def _registry_for(header: Header) -> Any:
    return get_ruleset(header.ruleset).registry


def test_verify_stops_at_the_end_of_the_turn_of_the_first_difference(long_replay: Path) -> None:
    """A re-simulation differing at an event of turn 2 writes no line past turn 2's end."""
    lines = long_replay.read_text(encoding="utf-8").splitlines()
    records = [json.loads(x) for x in lines]
    k = next(n for n, r in enumerate(records, start=1) if r.get("turn") == 2)
    changed = [*lines[: k - 1], lines[k - 1].replace('"turn":2', '"turn":2 ', 1), *lines[k:]]
    result = verify(long_replay, _registry_for, _fake_resimulation(changed))
    assert result.mismatch is not None
    assert (result.mismatch.line, result.mismatch.seq) == (k, records[k - 1]["seq"])
    assert result.resimulated == _turn_end_line(records, 2) < len(lines) // 10
    assert "first turn whose state differs" not in result.mismatch.reason
    assert result.events == len(lines) - 2  # the recorded file was still read to its footer


def test_verify_names_the_first_turn_whose_digest_differs(long_replay: Path) -> None:
    """When turn 2's state digest differs too, the reason names turn 2 and the stop is there."""
    lines = long_replay.read_text(encoding="utf-8").splitlines()
    records = [json.loads(x) for x in lines]
    end = _turn_end_line(records, 2)
    digest = records[end - 1]["state_digest"]
    changed = [
        *lines[: end - 1],
        lines[end - 1].replace(digest, "sha256:" + "0" * 64),
        *lines[end:],
    ]
    result = verify(long_replay, _registry_for, _fake_resimulation(changed))
    assert result.mismatch is not None
    assert result.mismatch.line == end
    assert result.mismatch.reason.endswith("; first turn whose state differs: 2")
    assert result.resimulated == end


def test_verify_of_the_long_battle_is_ok_and_reads_every_line(long_replay: Path) -> None:
    """The real verify re-simulates all of it: every line written, every event counted."""
    result = api.verify_replay(long_replay)
    n = len(long_replay.read_text(encoding="utf-8").splitlines())
    assert (result.ok, result.events, result.resimulated) == (True, n - 2, n)


def _spread_turns(last: int, rows: int) -> list[int]:
    step = last / (rows - 1)
    return [round(k * step) for k in range(rows)]


def test_diff_of_two_long_battles_prints_a_bounded_summary(
    long_replay: Path, tmp_path: Path
) -> None:
    """Another seed: 20 of the 101 turn rows, evenly spaced, then a line saying so; -v: all."""
    other = tmp_path / "other.jsonl"
    api.run(LONG, seed=7, out=other)
    result = CliRunner().invoke(cli, ["diff", str(long_replay), str(other)])
    assert result.exit_code == 1, result.output
    text = result.stdout.splitlines()
    turns = [int(x.split(":")[0].split()[1]) for x in text if x.startswith("  turn ")]
    assert turns == _spread_turns(100, 20)
    assert text[-1] == "  (20 of 101 turns, evenly spaced; --verbose lists all)"
    verbose = CliRunner().invoke(cli, ["diff", str(long_replay), str(other), "--verbose"])
    assert sum(1 for x in verbose.stdout.splitlines() if x.startswith("  turn ")) == 101


def _iter_count(it: Iterator[Any]) -> int:
    return sum(1 for _ in it)


def test_replay_file_and_loaded_replay_read_the_same_events(long_replay: Path) -> None:
    """The streamed and the whole-list readers give the same events, in order."""
    streamed = ReplayFile(long_replay)
    whole = api.load_replay(long_replay)
    assert list(streamed.iter_events()) == whole.events
    assert (
        (streamed.count, streamed.last_turn)
        == (whole.count, whole.last_turn)
        == (
            len(whole.events),
            100,
        )
    )
    assert _iter_count(streamed.turn_ends()) == 101


def test_narrative_of_one_turn_starts_from_the_snapshot_before_it(long_replay: Path) -> None:
    """show --events --turn 95: the lines of turn 95, told from the turn-90 snapshot on."""
    events = _records(long_replay)[1:-1]
    snap = max(e["seq"] for e in events if e["type"] == "engine.snapshot" and e["turn"] < 95)
    replay = ReplayFile(long_replay)
    replay.scan()
    told = [(e.seq, line) for e, line in analysis.narrative(replay, turn=95)]
    whole = [(e.seq, line) for e, line in analysis.narrative(api.load_replay(long_replay))]
    assert told == [(s, line) for s, line in whole if events[s]["turn"] == 95]
    assert (
        replay.stream.parsed
        == 1 + sum(1 for e in events if snap < e["seq"] and e["turn"] <= 95) + 1
    )


def test_a_gzip_replay_starts_from_its_snapshot_too(long_replay: Path, tmp_path: Path) -> None:
    """A .gz replay is decompressed again up to the snapshot: same lines parsed, same state."""
    gz = tmp_path / "long.jsonl.gz"
    api.run(LONG, out=gz)
    plain, packed = ReplayFile(long_replay), ReplayFile(gz)
    assert plain.scan().snapshots == packed.scan().snapshots
    a, b = plain.state_at(95), packed.state_at(95)
    assert plain.stream.parsed == packed.stream.parsed
    assert plain.ruleset.snapshot(a) == packed.ruleset.snapshot(b)

"""verify's auditor folds the re-simulation's own event objects for lines written byte for byte.

The log hands a sink that asks (``takes_events``) each event with its line
(:meth:`engine.log.EventLog.write`); ``verify``'s comparing sink passes it to
the reader with the line it expects (``ReplayStream.given``), and a recorded
line equal to that line gets that event instead of one decoded again from
the same bytes.  These tests pin that it is used on intact replays of every
built-in ruleset, that the auditor's fold of the handed events is the fold
of the file's own events, and that a line the shortcut would have skipped,
once edited, is read from the file: the audit sees the edit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine.replayfile.decoders
import sim.replay.verify as verify_module
from engine.log import EventLog, Header, MemorySink
from engine.replayfile.reader import ReplayStream, read_replay
from sim.contract import get_ruleset
from sim.replay.header import header_scenario, registry_for
from sim.replay.verify import verify_replay
from tests.forge import bodies, reseal

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = sorted((ROOT / "replays").glob("*.jsonl"))
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
AUDITED = [p for p in GOLDENS if get_ruleset(ReplayStream(p, registry_for).header.ruleset).audit]
"""The goldens of rulesets with an audit (becmi has none: its verify folds nothing)."""


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """Seqs of the lines read through the shortcut: given the writer's event, or built again."""
    seen: dict[str, list[int]] = {"given": [], "built": []}
    inner = ReplayStream._written

    def spying(self: ReplayStream, mark: Any, raw: bytes) -> Any:
        given = self.given
        line = inner(self, mark, raw)
        seen["given" if given is not None and line.event is given else "built"].append(mark.seq)
        return line

    monkeypatch.setattr(ReplayStream, "_written", spying)
    return seen


@pytest.fixture
def auditors(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every auditor verify makes, kept to look at its fold afterwards."""
    made: list[Any] = []
    inner = verify_module._Auditor

    def keeping(header: Header, path: str) -> Any:
        made.append(inner(header, path))
        return made[-1]

    monkeypatch.setattr(verify_module, "_Auditor", keeping)
    return made


def _events(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) - 2


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_every_line_of_an_intact_golden_is_given_the_writers_event(
    golden: Path, handed: dict[str, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No event of an intact replay is decoded again: each is the re-simulation's own."""
    decoded: list[bytes] = []
    inner = engine.replayfile.decoders.decode_written

    def counting(fast: Any, body: bytes) -> Any:
        decoded.append(body)
        return inner(fast, body)

    monkeypatch.setattr(engine.replayfile.decoders, "decode_written", counting)
    result = verify_replay(golden)
    assert result.ok
    assert handed == {"given": list(range(_events(golden))), "built": []}
    assert decoded == []


@pytest.mark.parametrize("golden", AUDITED, ids=lambda p: p.stem)
def test_the_auditors_fold_of_handed_events_is_the_fold_of_the_files_events(
    golden: Path, auditors: list[Any]
) -> None:
    """Sharing each event object with the live fold leaves the audit's state the file's own.

    An apply that kept an event's list in its state and changed it later
    would change both folds; the audit's final state is compared with a
    fold of the events read from the file alone.
    """
    assert verify_replay(golden).ok
    (auditor,) = auditors
    replay = read_replay(golden, registry_for)
    ruleset, scenario = header_scenario(replay.header, str(golden))
    state = ruleset.initial_state(scenario)
    for event in replay.events:
        if event.type not in ("engine.turn_ended", "engine.snapshot"):
            ruleset.apply(state, event)
    assert auditor.projection.last_seq == len(replay.events) - 1
    ours, theirs = ruleset.snapshot(auditor.projection.state), ruleset.snapshot(state)
    assert json.dumps(ours, sort_keys=True) == json.dumps(theirs, sort_keys=True)


def _musket_check(texts: list[str]) -> int:
    """The index of the first defensive-fire morale check that leaves a good unit disrupted."""
    for n, body in enumerate(texts):
        if '"type":"musket.morale_tested"' in body:
            data = json.loads(body)
            if (data["phase"], data["before"], data["after"]) == (
                "defensive_fire",
                "good",
                "disrupted",
            ):
                return n
    raise AssertionError("no such check in the stone-wall golden")


def test_a_rechained_unlawful_edit_of_a_line_the_shortcut_skips_is_audited_from_the_file(
    tmp_path: Path, handed: dict[str, list[int]]
) -> None:
    """The edited line is not the re-simulation's: its event is read from the file, so the
    audit names the illegal transition (an audit of the handed event would find none)."""
    texts = bodies(STONE_WALL)
    n = _musket_check(texts)
    texts[n] = texts[n].replace('"after":"disrupted"', '"after":"routed"', 1)
    path = tmp_path / "bad.jsonl"
    path.write_text(reseal(texts), encoding="utf-8")
    result = verify_replay(path)
    assert not result.ok
    assert result.violation is not None
    assert (result.violation.line, result.violation.seq) == (n + 1, n - 1)
    assert "illegal morale transition good -> routed" in result.violation.reason
    assert handed["given"] == list(range(n - 1))
    assert n - 1 not in handed["built"]


def test_an_event_of_another_class_or_seq_is_not_taken(tmp_path: Path) -> None:
    """The reader takes a handed event only when the registry reads its type with that class,
    at that seq; otherwise it builds the line's event from the bytes."""
    stream = ReplayStream(STONE_WALL, registry_for)
    own = [stream.parse(line) for line in stream.lines()]
    raw = STONE_WALL.read_bytes().split(b"\n")
    fired = next(e for e in own if e.type == "musket.fired")
    other = next(e for e in own if e.type == "musket.moved")

    def read(given: Any) -> Any:
        again = ReplayStream(STONE_WALL, registry_for)
        lines = again.lines()
        for _ in range(fired.seq):
            next(lines)
        again.expect, again.given = raw[fired.seq + 1] + b"\n", given
        return next(lines).event

    assert read(fired) is fired
    for wrong in (other, fired.model_copy(update={"seq": fired.seq + 1})):
        built = read(wrong)
        assert built is not wrong and built == fired


def test_the_log_hands_events_only_to_a_sink_that_asks() -> None:
    """A sink that takes events gets each event line with its event; others get the line."""
    header = ReplayStream(STONE_WALL, registry_for).header
    events = read_replay(STONE_WALL, registry_for).events[:5]

    class Taking(MemorySink):
        takes_events = True

        def __init__(self) -> None:
            super().__init__()
            self.handed: list[tuple[str, Any]] = []

        def write_event(self, line: bytes, event: Any) -> None:
            self.handed.append((line.decode(), event))
            self.write(line)

    taking, plain = Taking(), MemorySink()
    for sink in (taking, plain):
        log = EventLog(header, sink)
        for event in events:
            log.write(event)
    assert taking.lines == plain.lines
    assert taking.handed == list(zip(plain.lines[1:], events, strict=True))
    assert get_ruleset(header.ruleset).name == "musket"

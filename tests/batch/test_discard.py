"""A run whose replay is not kept builds no line, hashes nothing and ends the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine.log
import engine.recorder
from engine.log import DiscardSink, MemorySink
from sim.batch.execution.worker import Chunk as WorkChunk
from sim.batch.execution.worker import RunSpec, Shared, fight, prepare, run_chunk, unit_finals
from sim.batch.inputs.target import load_target
from tests.batch.helpers import CAMPAIGN, SCENARIOS, STONE_WALL


def _count(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count line serialisations, chain links and state digests from here on."""
    calls = {"dump": 0, "seal": 0, "digest": 0}

    def counted(name: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(engine.log, "line_body", counted("dump", engine.log.line_body))
    monkeypatch.setattr(engine.log, "seal_bytes", counted("seal", engine.log.seal_bytes))
    # every state digest the recorder hashes, from a ruleset's snapshot_json or its snapshot
    monkeypatch.setattr(
        engine.recorder, "text_digest", counted("digest", engine.recorder.text_digest)
    )
    return calls


@pytest.mark.parametrize("path", [STONE_WALL, CAMPAIGN, SCENARIOS / "coral_sea.yaml"])
def test_discarded_run_has_the_kept_runs_outcome_and_builds_no_line(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same outcome and unit finals with the replay kept or discarded; discarding
    serialises, seals and digests nothing while the kept path does it for every line."""
    prepared = prepare(load_target(path), {})
    calls = _count(monkeypatch)
    kept: list[MemorySink] = []
    dropped: list[DiscardSink] = []

    def keep(_k: int, _name: str) -> MemorySink:
        kept.append(MemorySink())
        return kept[-1]

    def drop(_k: int, _name: str) -> DiscardSink:
        dropped.append(DiscardSink())
        return dropped[-1]

    with_replay = fight(prepared, 77, keep)
    lines = sum(s.count for s in kept)
    events = lines - 2 * len(kept)  # less each battle's header and footer
    assert calls["seal"] == lines and calls["dump"] == events and calls["digest"] > 0
    calls.update(dump=0, seal=0, digest=0)
    without = fight(prepared, 77, drop)
    assert calls == {"dump": 0, "seal": 0, "digest": 0}
    assert [s.count for s in dropped] == [s.count for s in kept]  # the same events passed on
    assert without.outcome == with_replay.outcome
    assert unit_finals(without) == unit_finals(with_replay)


def test_chunk_keeps_exactly_the_replays_asked_for() -> None:
    """In one chunk, the run that keeps its replay has its lines, the other has none,
    and both have the outcome of the same seed fought alone."""
    target = load_target(STONE_WALL)
    runs = (RunSpec(0, 0, 0, 5, keep_replay=True), RunSpec(1, 0, 1, 5, keep_replay=False))
    rows = run_chunk(WorkChunk(Shared.of(target, ()), 0, {}, runs))
    [(run_id, [(name, lines)])] = rows.replays
    assert (run_id, name) == (0, "stone_wall") and '"format":"battlesim-replay"' in lines[0]
    a, b = zip(*rows.runs, strict=True)
    assert a[0] == 0 and b[0] == 1
    assert a[4:] == b[4:]  # status, error, outcome columns and its JSON: the same
    units = list(zip(*rows.units, strict=True))
    assert [u[1:] for u in units if u[0] == 0] == [u[1:] for u in units if u[0] == 1]

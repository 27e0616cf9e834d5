"""Run counts of a thousand or more in a study's lines carry thousands separators, as
``export`` and ``load_study`` already write them (``1,160 of 3,000``); a run's id does not
(it is what ``SELECT run_id`` gives)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import sim.batch.storage.store
from sim.batch.verification.replays import _no_run
from sim.cli.outcomes.batch import _interrupted


def test_rerun_past_the_plan_counts_with_separators() -> None:
    assert _no_run(3000, 3000, 1160) == (
        "no run 3000: the study plans runs 0 to 2,999 and holds 1,160 "
        "(their ids: SELECT run_id FROM runs)"
    )


def test_an_interrupt_counts_the_runs_kept_with_separators(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study interrupted after 1,160 committed runs says so (it said "1160 runs")."""
    db = tmp_path / "study.duckdb"
    db.write_bytes(b"")
    rows = SimpleNamespace(fetchone=lambda: (1160,))
    store = SimpleNamespace(con=SimpleNamespace(execute=lambda _sql: rows), close=lambda: None)

    def open_(_path: Any, read_only: bool = False) -> Any:
        return store

    monkeypatch.setattr(sim.batch.storage.store.Store, "open", staticmethod(open_))
    assert _interrupted(db) == (
        "battlesim: interrupted; the committed chunks are kept (1,160 runs) — "
        "run the same command with --resume to complete the study"
    )

"""The study's progress bar: it moves as chunks come in, never goes back, and says a rate.

A study of small battles reached its first commit point only at its end, so the bar
drew 0/300, then 300/300 at "0.0 runs/s" with no time left (found by a designer's
review): its rate was measured from the second update, which was the last.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from sim.batch.execution import progress
from sim.batch.execution.progress import ProgressBar
from sim.batch.inputs.target import load_target
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from tests.batch.helpers import STONE_WALL


def _bar(monkeypatch: pytest.MonkeyPatch, updates: list[tuple[float, int, int]]) -> list[str]:
    """The lines a bar draws for (time, done, total) updates, one a tenth of a second apart
    at least."""
    clock = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    bar = ProgressBar(stream)
    for t, done, total in updates:
        clock[0] = t
        bar(done, total)
    bar.close()
    return [line.rstrip() for line in stream.getvalue().split("\r") if line.strip()]


def test_a_study_done_at_its_second_update_says_the_rate_since_its_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = _bar(monkeypatch, [(0.0, 0, 300), (3.0, 300, 300)])
    assert lines[-1] == f"[{'#' * 28}] 300/300 runs  100.0 runs/s"


def test_the_rate_and_time_left_count_from_the_first_chunk_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers up at t = 1 with 10 runs in; 30 at t = 3: 10 runs/s, 70 left, 0:07."""
    lines = _bar(monkeypatch, [(0.0, 0, 100), (1.0, 10, 100), (3.0, 30, 100)])
    assert lines[-1] == f"[{'#' * 8}{'-' * 20}] 30/100 runs  10.0 runs/s  ETA 0:07"


def test_a_count_that_lags_never_takes_the_bar_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs fought (40) and then runs committed (20): the bar stays at 40."""
    lines = _bar(monkeypatch, [(0.0, 0, 100), (1.0, 40, 100), (2.0, 20, 100)])
    assert lines[-1].startswith(f"[{'#' * 11}{'-' * 17}] 40/100 runs")


def test_a_study_tells_the_runs_fought_chunk_by_chunk(tmp_path: Path) -> None:
    """30 runs in chunks of 5, one commit point at the end (commits as rarely as the
    defaults allow for these light runs): ``fought`` hears of each chunk as it comes in,
    ``progress`` of what is committed."""
    plan = StudyPlan(load_target(STONE_WALL), seed=3, replications=30, chunk_size=5)
    fought: list[tuple[int, int]] = []
    committed: list[tuple[int, int]] = []

    def heard(into: list[tuple[int, int]]) -> Any:
        return lambda done, planned: into.append((done, planned))

    options = RunOptions(progress=heard(committed), fought=heard(fought), plots=False)
    run_study(plan, tmp_path / "s", options)
    assert fought == [(n, 30) for n in range(5, 31, 5)]
    assert committed[0] == (0, 30) and committed[-1] == (30, 30)


def test_the_finished_bar_is_drawn_once_at_the_rate_it_finished_at(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """400 runs done at t = 4 (100 runs/s from the first chunk at t = 0); the runs committed
    and the study's end told it 400/400 twice more, at t = 4.5 and 5: it drew the last line
    three times, at 100.0, 88.9 and 80.0 runs/s, the rate falling as nothing more was done."""
    lines = _bar(monkeypatch, [(0.0, 0, 400), (0.0, 0, 400), (4.0, 400, 400),
                               (4.5, 400, 400), (5.0, 400, 400)])  # fmt: skip
    assert [line for line in lines if line.startswith(f"[{'#' * 28}]")] == [
        f"[{'#' * 28}] 400/400 runs  100.0 runs/s"
    ]

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
    assert _no_run(3000, 3000, [(0, 1159)]) == (
        "no run 3000: the study plans runs 0 to 2,999 and holds 1,160: runs 0 to 1,159"
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


def _point(done: int) -> dict[str, Any]:
    rate = {"count": 0, "p": 0.0, "low": 0.0, "high": 0.003, "method": "wilson"}
    stats = {"mean": 2.0, "sd": 0.5, "median": 2.0, "p5": 1.0, "p95": 3.0}
    return {
        "point": 0, "label": "base", "factors": {}, "runs": done + 1_001, "done": done,
        "failed": 1_001, "errors": {}, "win": {"a": {"name": "A", **rate, "observed": "none"}},
        "draw": {**rate, "observed": "none"}, "losses": {}, "turns": stats,
        "stopped": "ci", "half_width": 0.0015, "target_met": True, "confirm_planned": done,
        "pilot": {"runs": 1_200},
    }  # fmt: skip


def test_a_points_lines_count_runs_with_separators() -> None:
    """A point of 1,920 runs says so in its heading, its never-in and its stop line (they
    said "1920 runs", "a pilot of 1200", "1001 failed")."""
    from sim.batch.analysis.summary import format_summary

    study = {"name": "s", "until_ci": 0.05, "interval": "wilson", "factors": []}
    lines = format_summary({"study": study, "points": [_point(1_920)], "unmet_targets": []})
    assert lines[1] == (
        "Point 0 (base): 1,920 runs, 1,001 failed (after a pilot of 1,200, not summarised)"
    )
    assert lines[2].endswith("  never in 1,920 runs")
    assert lines[-1] == (
        "  stopped: ci — the pilot's 1,200 runs sized the sample at 2,921 runs; "
        "Wilson half-width 0.1 % ≤ 5 %"
    )


def test_the_verify_verdict_counts_with_separators() -> None:
    """verify's OK line over 1,200 runs (it said "re-derived from 1200 runs; 1200 runs' rows",
    "(2 of 1200")."""
    from sim.batch.verification.verify import StudyCheck, verify_lines

    check = StudyCheck(study="st", runs=1_200, sample_seed=3, sampled=[7, 873])
    check.digests, check.files = 1_200, 7
    assert verify_lines(check) == [
        "OK: st: plan, seeds, every planned run present and summary.json re-derived from "
        "1,200 runs; 1,200 runs' rows and kept replays match their digests; 7 files match the "
        "manifest; 2 runs re-fought identically (sample seed 3: 7, 873); a run altered with "
        "its digests recomputed is caught with probability 0.17% (2 of 1,200; --all fights "
        "every run)"
    ]


def test_discover_counts_runs_with_separators() -> None:
    """discover's base rate and box lines over 1,200 runs (they said "all 1200 runs")."""
    from sim.batch.discovery.discover import discover_lines

    box = {
        "box": 1, "text": "x = 1", "holds": 1_050, "runs": 1_100, "coverage": 0.9,
        "density": 0.95, "mass": 0.5, "significance": [],
    }  # fmt: skip
    result = {"words": "A wins", "base_rate": 0.5, "runs": 2_400, "holds": 1_200,
              "boxes": [box], "pilot_runs": 1_000}  # fmt: skip
    assert discover_lines(result)[:3] == [
        "A wins in 50.0 % of all 2,400 confirmatory runs (1,200 runs; the 1,000 pilot runs "
        "that sized them are left out).",
        "Box 1: x = 1",
        "  1,050 of 1,100 runs in the box; coverage 90.0 % (of the 1,200 runs where it holds), "
        "density 95.0 %, mass 50.0 %",
    ]


def test_a_noise_share_above_a_thousand_percent_has_a_separator() -> None:
    """flattop's carrier duel at 4 Sobol' base samples of 10 runs: "replication noise
    32015 %" now reads 32,015 %."""
    from sim.batch.analysis.summary import _noise_text

    assert _noise_text({"noise_share": 320.15}) == (
        " (replication noise 32,015 % of the variance between points: the points differ "
        "mostly by noise)"
    )


def test_a_refused_rerun_names_the_runs_held_by_their_ids() -> None:
    """The ids a study holds, in words (it printed the SQL that lists them): runs of
    consecutive ids, a lone id alone, and past four runs of ids the rest counted."""
    from sim.batch.verification.replays import held_ids

    assert held_ids([]) == "no run"
    assert held_ids([(0, 0)]) == "run 0"
    assert held_ids([(0, 1159)]) == "runs 0 to 1,159"
    assert held_ids([(0, 9), (20, 20), (30, 39)]) == "runs 0 to 9, 20 and 30 to 39"
    assert held_ids([(0, 1), (4, 7)]) == "runs 0, 1 and 4 to 7"
    assert held_ids([(0, 9), (20, 20), (30, 39), (50, 59), (70, 70), (80, 90)]) == (
        "runs 0 to 9, 20, 30 to 39, 50 to 59 and 12 others"  # 70, and 80 to 90: 1 + 11
    )
    assert (
        _no_run(400, 400, [(0, 399)]) == "no run 400: the study plans runs 0 to 399 and holds 400"
    )

"""Why each point stopped: "ci" (target half-width reached) or "runs" (cap reached)."""

from __future__ import annotations

import json
from pathlib import Path

from sim.batch.stats import wilson
from tests.batch.helpers import STONE_WALL, invoke, tables

W = 0.09
ARGS = ["--runs", "40", "--seed", "7", "--chunk-size", "5", "--until-ci", str(W), "--jobs", "1"]
ARGS += ["--sweep", "map.terrain.0.cover=-50,0", "--no-plots"]


def test_each_point_says_why_it_stopped_and_unmet_targets_are_flagged(tmp_path: Path) -> None:
    """stopped/half_width per point from its stored runs; --json, text and progress.json agree."""
    result = invoke("batch", STONE_WALL, "--out", tmp_path, *ARGS, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    runs = tables(tmp_path)["runs"]
    reasons = []
    for pt in summary["points"]:
        winners = [r[6] for r in runs if r[1] == pt["point"]]
        width = max(wilson(winners.count(s), len(winners)).half_width for s in ("usa", "csa"))
        assert pt["half_width"] == width
        expected = "ci" if width <= W else "runs"
        assert pt["stopped"] == expected
        assert pt["target_met"] is (expected == "ci")
        if expected == "runs":
            assert len(winners) == 40  # the cap, not the target, stopped it
        reasons.append(expected)
    assert reasons == ["ci", "runs"]  # the wall holds (Union never wins); no wall: Union wins some
    assert summary["unmet_targets"] == [1]
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert progress == {
        "committed": len(runs),
        "planned": len(runs),
        "finished": True,
        "stopped": {"0": "ci", "1": "runs"},
    }


def test_text_summary_flags_a_point_that_missed_its_target(tmp_path: Path) -> None:
    """The readable summary says 'stopped: ci' or 'TARGET NOT MET' and lists unmet points."""
    result = invoke("batch", STONE_WALL, "--out", tmp_path, *ARGS)
    assert result.exit_code == 0, result.output
    assert "  stopped: ci — half-width " in result.output
    assert "  stopped: runs — cap of 40 runs reached" in result.output
    assert "TARGET NOT MET" in result.output
    assert f"Target --until-ci {W:g} not met at point(s) 1: raise --runs" in result.output

"""A rare but non-zero value in a study's text reads as what it is, never as all zeros or
``-0.0`` (an analyst's review, section 3).

One gun lost in 500 runs printed "mean 0.0  sd 0.0  median 0.0  p5 0.0  p95 0.0", and its
comparison "sd 0.0 paired vs 0.0 unpaired"; an interval that stopped short of zero printed
``-0.0``. A value that rounds to zero at one decimal is now shown to two significant
figures, and zero is ``0.0`` (``+0.0``). summary.json is unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim.batch.analysis import summary as text
from tests.batch.helpers import SCENARIOS, invoke


def test_one_gun_lost_in_500_runs_is_not_said_as_zeros(tmp_path: Path) -> None:
    """The reviewer's study: at fire_hcv 35 one run of 500 cost the Union a gun (mean 0.002,
    sd 0.0447). Its line says so, as does its comparison's spread; summary.json keeps the
    numbers."""
    out = tmp_path / "g"
    result = invoke(
        "batch", SCENARIOS / "stone_wall.yaml", "--runs", "500", "--crn", "--sweep",
        "options.fire_hcv=15,35", "--jobs", "1", "--out", out, "-q", "--no-plots",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    guns = [t for t in result.output.splitlines() if "Union guns lost" in t]
    assert guns == [
        "  Union guns lost              0.0 in every run (no variation observed)",
        "  Union guns lost              mean 0.002  sd 0.045  median 0.0  p5 0.0  p95 0.0",
        "    Union guns lost                     +0.002  [-0.002, +0.006]  "
        "sd 0.045 paired vs 0.045 unpaired",
    ]
    stats = json.loads((out / "summary.json").read_text())["points"][1]["losses"]["usa"]["guns"]
    assert stats == {"mean": 0.002, "sd": pytest.approx(0.044721359549995794, abs=1e-15),
                     "median": 0.0, "p5": 0.0, "p95": 0.0}  # fmt: skip


@pytest.mark.parametrize(
    ("x", "said"),
    [
        (0.002, "0.002"),
        (0.044721359549995794, "0.045"),
        (0.01, "0.01"),
        (0.0995, "0.1"),
        (0.00033333, "0.00033"),
        (-0.0085, "-0.0085"),
        (-0.0, "0.0"),
        (-4e-17, "0.0"),
        (430.125, "430.1"),
        (12345.6, "12,345.6"),
    ],
)
def test_a_number_shows_its_first_figures_and_no_negative_zero(x: float, said: str) -> None:
    assert text._fixed(x) == said


def test_a_loss_seen_in_one_run_of_100_has_a_mean_not_zero() -> None:
    """Coral Sea: one Japanese carrier crippled in 100 runs read "mean 0.0"."""
    stats = {"mean": 0.01, "sd": 0.1, "median": 0.0, "p5": 0.0, "p95": 0.0}
    assert text._stats_line("Japanese ships crippled", stats) == (
        "  Japanese ships crippled      mean 0.01  sd 0.1  median 0.0  p5 0.0  p95 0.0"
    )
    never = {"mean": 0.0, "sd": 0.0, "median": 0.0, "p5": 0.0, "p95": 0.0}
    assert text._stats_line("Allied ships crippled", never) == (
        "  Allied ships crippled        0.0 in every run (no variation observed)"
    )


def test_a_bound_short_of_zero_is_never_minus_zero() -> None:
    """Carrier duel: an interval [-0.191, -0.009] printed [-0.2, -0.0], and a difference of
    +0.017 printed +0.0: a line with a value that rounds to zero at one decimal is shown to
    three; one still zero at three keeps its own figures."""
    assert [text._signed(x, "losses.ships_sunk") for x in (0.0, -0.0, -3e-17)] == ["+0.0"] * 3
    assert text._signed(-0.0085, "losses.ships_sunk") == "-0.0085"
    assert text._signed(-0.0003, "losses.ships_sunk", 3) == "-0.0003"
    assert text._signed(-0.00002, "win_rate", 1) == "-0.002 pts"


def _comparison(difference: float, low: float, high: float) -> dict[str, Any]:
    return {"point": 1, "baseline": 0, "side": "blue", "measure": "losses.ships_sunk",
            "difference": difference, "ci_low": low, "ci_high": high, "method": "t",
            "paired": True}  # fmt: skip


def _summary(*comparisons: dict[str, Any]) -> dict[str, Any]:
    stats = {"mean": 1.0, "sd": 0.5, "median": 1.0, "p5": 0.0, "p95": 2.0}
    rate = {"count": 30, "p": 0.5, "low": 0.4, "high": 0.6, "method": "wilson"}
    points = [
        {"point": p, "label": f"cap={p}", "factors": {}, "runs": 60, "done": 60, "failed": 0,
         "errors": {}, "win": {"blue": {"name": "Blue", **rate}}, "draw": rate,
         "losses": {"blue": {"ships_sunk": stats}}, "turns": stats, "stopped": "runs",
         "half_width": 0.1, "target_met": False}
        for p in (0, 1)
    ]  # fmt: skip
    variance = [
        {
            "point": 1,
            "baseline": 0,
            "side": "blue",
            "measure": "losses.ships_sunk",
            "pairs": 60,
            "paired_sd": 0.4,
            "unpaired_sd": 0.0447,
            "variance_ratio": 1.0,
        }
    ]
    study = {"name": "s", "until_ci": None, "interval": "wilson", "factors": [],
             "ruleset": "flattop"}  # fmt: skip
    return {"study": study, "points": points, "unmet_targets": [], "baseline": 0,
            "comparisons": list(comparisons), "variance_reduction": variance}  # fmt: skip


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ((-0.1, -0.191, -0.0085), "-0.100  [-0.191, -0.009]  sd 0.4 paired vs 0.045 unpaired"),
        ((0.0167, -0.095, 0.128), "+0.017  [-0.095, +0.128]  sd 0.4 paired vs 0.045 unpaired"),
        ((-2.5, -7.0, 2.0), "-2.5  [-7.0, +2.0]  sd 0.4 paired vs 0.045 unpaired"),
    ],
)
def test_a_comparison_line_shows_what_rounds_to_zero(
    row: tuple[float, float, float], said: str
) -> None:
    lines = text.format_summary(_summary(_comparison(*row)))
    line = next(t for t in lines if t.startswith("    Blue ships sunk"))
    assert " ".join(line.split()[3:]) == " ".join(said.split())
    assert "-0.0 " not in line and "-0.0]" not in line

"""A study of one run a point prints each loss difference it knows, and why it has no interval.

With ``--runs 1`` every loss difference printed ``– [–, –]``: Welch's t needs two runs a
point, so summary.json has no difference and no interval, but the difference of the two
runs is known from the points' own means (a reviewer's report). The text now prints it and
says why there is no interval; a loss the same at both points says "no variation observed",
as a study of more runs does. summary.json is unchanged (``verify-study`` re-derives it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.batch.helpers import STONE_WALL, invoke

NO_INTERVAL = "[no interval: one run a point]"


def _lines(tmp_path: Path) -> tuple[list[str], dict[str, object]]:
    out = tmp_path / "s1"
    args = ["batch", STONE_WALL, "--runs", "1", "--sweep", "options.fire_hcv=20,30"]
    result = invoke(*args, "-o", out, "--no-plots")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    tail = result.output.splitlines()
    start = next(i for i, t in enumerate(tail) if t.startswith("Differences from point 0"))
    return [" ".join(t.split()) for t in tail[start + 2 : start + 11]], summary


def test_each_loss_difference_is_printed_with_the_reason_it_has_no_interval(
    tmp_path: Path,
) -> None:
    """Men lost and turns: point 1's run less point 0's, then the reason; guns lost, 0 at
    both points: no variation observed; summary.json still has no difference."""
    lines, summary = _lines(tmp_path)
    points = summary["points"]  # type: ignore[index]
    names = {"usa": "Union", "csa": "Confederate"}
    expected = {}
    for sid, name in names.items():
        for kind in ("men", "guns"):
            a, b = (p["losses"][sid][kind]["mean"] for p in points)
            said = f"{b - a:+,.1f} {NO_INTERVAL}" if a != b else "+0.0 no variation observed"
            expected[f"{name} {kind} lost"] = said
    a, b = (p["turns"]["mean"] for p in points)
    expected["turns"] = f"{b - a:+,.1f} {NO_INTERVAL}" if a != b else "+0.0 no variation observed"
    shown = {
        m.group(1): m.group(2)
        for t in lines
        if (m := re.fullmatch(r"(\w+ (?:men|guns) lost|turns) (.*)", t))
    }
    assert shown == expected
    assert "–" not in "".join(shown.values())
    assert all(
        c["difference"] is None
        for c in summary["comparisons"]
        if c["measure"] != "win_rate"  # type: ignore[index]
    )

"""The outcomes plot's title stays inside the picture, however long the study's name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.batch.charts import results
from sim.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def test_the_outcomes_title_is_not_clipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-point campaign study (the narrowest plot) keeps its whole title inside the figure."""
    out = tmp_path / "delve-study"
    args = ["batch", str(ROOT / "scenarios" / "delve_campaign.yaml"), "--runs", "2"]
    done = CliRunner().invoke(cli, [*args, "--out", str(out), "--no-plots", "-q"])
    assert done.exit_code == 0, done.output
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    for win in summary["points"][0]["win"].values():
        win["count"] = 1  # every side in the legend, as in a long study: the widest legend
    drawn: list[Figure] = []
    monkeypatch.setattr(results, "_save", lambda fig, path: drawn.append(fig) or path)
    results._outcomes(summary, tmp_path / "outcomes.png")
    (fig,) = drawn
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    fig.draw_without_rendering()
    ax = fig.axes[0]
    (title,) = [t for t in (ax.title, ax._left_title, ax._right_title) if t.get_text()]
    box = title.get_window_extent(renderer)
    assert box.x0 >= fig.bbox.x0 and box.x1 <= fig.bbox.x1
    assert title.get_text().startswith("Outcomes — The delve")


def test_the_outcomes_plot_draws_more_sides_than_it_has_colours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study with more sides than the palette has colours cycles through them (it used to
    index past the end of ``COLOURS``): side ``i`` is drawn in ``COLOURS[i % len(COLOURS)]``."""
    from matplotlib.colors import to_hex

    from sim.batch.charts.plotting import COLOURS

    out = tmp_path / "delve-study"
    args = ["batch", str(ROOT / "scenarios" / "delve_campaign.yaml"), "--runs", "2"]
    done = CliRunner().invoke(cli, [*args, "--out", str(out), "--no-plots", "-q"])
    assert done.exit_code == 0, done.output
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    point = summary["points"][0]
    sides = len(COLOURS) + 2
    point["win"] = {f"s{i}": {"name": f"side {i}", "count": 1} for i in range(sides)}
    drawn: list[Figure] = []
    monkeypatch.setattr(results, "_save", lambda fig, path: drawn.append(fig) or path)
    results._outcomes(summary, tmp_path / "outcomes.png")
    (fig,) = drawn
    handles, labels = fig.axes[0].get_legend_handles_labels()
    wins = [(h, lab) for h, lab in zip(handles, labels, strict=True) if lab.endswith("wins")]
    assert [lab for _, lab in wins] == [f"side {i} wins" for i in range(sides)]
    colours = [to_hex(h.patches[0].get_facecolor()) for h, _ in wins]
    assert colours == [COLOURS[i % len(COLOURS)] for i in range(sides)]


def test_the_outcomes_shares_are_written_as_the_summary_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1 run in 8 and 7 in 8: the bars said ``12%`` and ``88%`` (whole percents rounded half
    to even) where the text summary says 12.5% and 87.5%; they say what the summary says."""
    from sim.batch.analysis.summary import _rate_line

    def point(i: int, a: int, b: int) -> dict[str, Any]:
        win = {"a": {"name": "Side A", "count": a}, "b": {"name": "Side B", "count": b}}
        return {"point": i, "label": f"x={i}", "runs": 8, "done": 8, "failed": 0,
                "win": win, "draw": {"count": 8 - a - b}}  # fmt: skip

    summary = {"study": {"name": "shares"}, "points": [point(0, 1, 7), point(1, 7, 0)]}
    drawn: list[Figure] = []
    monkeypatch.setattr(results, "_save", lambda fig, path: drawn.append(fig) or path)
    results._outcomes(summary, tmp_path / "outcomes.png")
    (fig,) = drawn
    shown = [t.get_text() for t in fig.axes[0].texts if t.get_text()]
    assert shown == ["12.5%", "87.5%", "87.5%", "12.5%"]  # A's two bars, B's, then the draw
    line = _rate_line("Side A wins", {"p": 1 / 8, "low": 0.02, "high": 0.47}, 8)
    assert line.split()[3] == "12.5%"


def test_the_runs_axis_ends_at_the_run_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two points of 20 runs: the runs axis goes from 0 to 20, the tallest bar's top, and no
    tick stands above it (matplotlib's margin drew the axis to 21 and ticked past 20)."""

    def point(i: int, a: int) -> dict[str, Any]:
        win = {"a": {"name": "Side A", "count": a}, "b": {"name": "Side B", "count": 20 - a}}
        return {"point": i, "label": f"x={i}", "runs": 20, "done": 20, "failed": 0,
                "win": win, "draw": {"count": 0}}  # fmt: skip

    summary = {"study": {"name": "twenty"}, "points": [point(0, 12), point(1, 5)]}
    drawn: list[Figure] = []
    monkeypatch.setattr(results, "_save", lambda fig, path: drawn.append(fig) or path)
    results._outcomes(summary, tmp_path / "outcomes.png")
    (fig,) = drawn
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert ax.get_ylim() == (0.0, 20.0)
    shown = [t for t in ax.get_yticks() if 0 <= t <= ax.get_ylim()[1]]
    assert max(shown) <= 20 and all(float(t).is_integer() for t in shown)

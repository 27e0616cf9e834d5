"""``report --png``: each chart tells its lines apart, keeps its legend off them, and counts
whole turns (a chart of 18 ships drew no legend; of 13 regiments, three pairs in one
colour, the legend over the lines; a 3-turn battle had ticks at 0.25, 0.5…)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim import api
from sim.replay.report import STYLES, chart_figure
from sim.replay.viewer.model import battle_view

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("replay", "chart"),
    [
        ("coral_sea-s1942", ("unit", "hits taken", "hits")),
        ("stone_wall-s1862", ("unit", "fatigue", "fatigue points")),
    ],
)
def test_every_line_is_its_own_in_a_legend_beside_the_axes(
    replay: str, chart: tuple[str, str, str]
) -> None:
    """Every subject in the legend, in order; no two lines of one colour and style; the
    legend wholly right of the axes; the x ticks whole turns."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    view = battle_view(api.load_replay(ROOT / "replays" / f"{replay}.jsonl"))
    subjects = list(view.series.values[chart])
    assert len(subjects) > 10  # more lines than the default cycle has colours
    fig = chart_figure(view, chart, plt)
    try:
        ax = fig.axes[0]
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == subjects
        looks = [(line.get_color(), line.get_linestyle()) for line in ax.get_lines()]
        assert len(set(looks)) == len(looks) == len(subjects)
        assert {style for _, style in looks} <= {"-", "--", ":", "-."} == set(STYLES)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        assert legend.get_window_extent(renderer).x0 > ax.get_window_extent(renderer).x1
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks)
    finally:
        plt.close(fig)

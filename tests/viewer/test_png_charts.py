"""``report --png``: each chart is drawn as the page draws it (names, side colours, its
title), tells its lines apart, keeps its legend off them, and counts whole turns (a chart
of 18 ships drew no legend; of 13 regiments, three pairs in one colour, the legend over the
lines; a 3-turn battle had ticks at 0.25, 0.5…; lines were labelled by id, coloured by
matplotlib's cycle, and titled "unit: strength")."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim import api
from sim.replay.report import STYLES, chart_figure
from sim.replay.viewer.model import SIDE_COLOURS, battle_view

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
    """Every subject in the legend by the name the page gives it, in order; each line in
    its side's colour (the page's), no two of one side alike in line style and marker; the
    page's title; the legend wholly right of the axes; the x ticks whole turns."""
    import matplotlib
    from matplotlib.colors import to_hex

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    loaded = api.load_replay(ROOT / "replays" / f"{replay}.jsonl")
    view = battle_view(loaded)
    rows = loaded.ruleset.units(loaded.scenario, loaded.ruleset.initial_state(loaded.scenario))
    sides = list(dict.fromkeys(r.side for r in rows))
    subjects = list(view.series.values[chart])
    assert len(subjects) > 10  # more lines than the default cycle has colours
    named = {r.id: r.name for r in rows}
    side_of = {r.id: r.side for r in rows}
    fig = chart_figure(view, chart, plt)
    try:
        ax = fig.axes[0]
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == [named[u] for u in subjects]
        assert [to_hex(line.get_color()) for line in ax.get_lines()] == [
            SIDE_COLOURS[sides.index(side_of[u])] for u in subjects
        ]
        looks = [
            (side_of[u], line.get_linestyle(), line.get_marker())
            for u, line in zip(subjects, ax.get_lines(), strict=True)
        ]
        assert len(set(looks)) == len(looks)
        assert {style for _, style, _ in looks} <= {"-", "--", ":", "-."} == set(STYLES)
        _, measure, unit = chart
        said = {"hits taken": "hits taken"}.get(measure, f"{measure} ({unit})")  # not "(hits)"
        assert ax.get_title() == f"Units: {said} by turn"
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        assert legend.get_window_extent(renderer).x0 > ax.get_window_extent(renderer).x1
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks)
    finally:
        plt.close(fig)


def test_a_count_has_whole_numbers_on_the_y_axis() -> None:
    """The brawl's combatants standing (2, then 0) were labelled 0.25, 0.5 … on the y axis
    of the PNG: a count is labelled in whole numbers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    view = battle_view(api.load_replay(ROOT / "replays" / "tavern_brawl-s377.jsonl"))
    fig = chart_figure(view, ("side", "standing", "combatants"), plt)
    try:
        ax = fig.axes[0]
        ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
        assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks)
    finally:
        plt.close(fig)

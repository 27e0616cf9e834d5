"""Plots a person reads: loss words, short factor names, keys that fit inside the figure."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.batch.analysis.labels import loss_label, measure_label
from sim.batch.charts.plotting import key_legend, point_keys, short_paths, wrap


def test_losses_in_each_rulesets_own_words() -> None:
    """'ships sunk', 'dead', 'knocked out' as they are; a count of things gets 'lost'."""
    assert [loss_label(k) for k in ("ships_sunk", "dead", "knocked_out", "fled")] == [
        "ships sunk", "dead", "knocked out", "fled",
    ]  # fmt: skip
    assert [loss_label(k) for k in ("men", "guns", "air_factors", "hp")] == [
        "men lost", "guns lost", "air factors lost", "hp lost",
    ]  # fmt: skip
    assert measure_label("Allied", "losses.ships_sunk") == "Allied ships sunk"
    assert measure_label("Thorgrim", "losses.dead") == "Thorgrim dead"
    assert measure_label("Union", "win_rate") == "Union win rate"


def test_short_factor_names_are_last_segments_made_unique() -> None:
    """The last path segment, or more of the path where two factors would share it."""
    paths = ["sides.csa.units.cobb.strength", "sides.usa.units.69ny.strength", "options.fire_hcv"]
    assert short_paths(paths) == {
        "sides.csa.units.cobb.strength": "cobb.strength",
        "sides.usa.units.69ny.strength": "69ny.strength",
        "options.fire_hcv": "fire_hcv",
    }


def _points(n: int) -> list[dict[str, object]]:
    return [
        {
            "point": i,
            "label": f"map.terrain.0.cover={-20 - i}, options.fire_hcv={15 + i}",
            "factors": {"map.terrain.0.cover": -20 - i, "options.fire_hcv": 15 + i},
        }
        for i in range(n)
    ]


def test_long_labels_become_keys_spelled_out_in_full() -> None:
    """P0, P1, … with every value under a short name, and a line naming each path."""
    keys, lines = point_keys(_points(3))
    assert keys == {0: "P0", 1: "P1", 2: "P2"}
    assert lines == [
        "where cover = map.terrain.0.cover; fire_hcv = options.fire_hcv",
        "P0 = cover=-20, fire_hcv=15",
        "P1 = cover=-21, fire_hcv=16",
        "P2 = cover=-22, fire_hcv=17",
    ]


def test_a_wrapped_title_and_a_40_point_key_stay_inside_the_figure() -> None:
    """Rendered: every text's extent lies within the figure (nothing cut at an edge)."""
    fig = Figure(figsize=(6.0, 3.0), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    long = "Win probability against sides.csa.units.cobb.strength (pooled over the other factors)"
    ax.set_title(wrap(long, 50))
    _, lines = point_keys(_points(40))
    key_legend(fig, lines)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    texts = [ax.title, fig._supxlabel]  # the key is the figure's supxlabel
    for t in texts:
        assert t is not None
        e = t.get_window_extent(renderer)
        assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1, t.get_text()[:40]
        assert box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, t.get_text()[:40]
    assert "P39 = cover=-59, fire_hcv=54" in fig._supxlabel.get_text()

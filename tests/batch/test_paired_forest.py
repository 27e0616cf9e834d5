"""The paired plot's panel, drawn a mark kind at a time, is the picture a row at a time made.

``analysis._forest`` draws each kind of mark once a panel (the ± 1 SD lines, the points
without variation, the intervals); one call a row drew the same marks with many more
artists. The reference below is that row-at-a-time drawing; both are rendered by Agg at
the plots' resolution and compared pixel for pixel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from sim.batch.charts import analysis
from sim.batch.charts.plotting import DPI

COLOUR = "#1f4e9c"


def _row(point: int, diff: float | None, low: float | None, high: float | None) -> dict[str, Any]:
    return {"point": point, "side": "usa", "measure": "men_lost", "difference": diff,
            "ci_low": low, "ci_high": high}  # fmt: skip


ROWS = [
    _row(1, 12.0, 2.0, 22.0),  # an interval and a spread
    _row(2, -5.0, -9.0, -1.0),  # an interval, no spread
    _row(3, 0.0, None, None),  # no variation: a point, with a spread
    _row(4, None, None, None),  # nothing to draw
    _row(5, 3.0, None, None),  # no variation, no spread
    _row(6, 30.0, 25.0, 41.0),
]
SPREAD = {(1, "usa", "men_lost"): 15.0, (3, "usa", "men_lost"): 0.0, (6, "usa", "men_lost"): 4.0}


def _reference(ax: Any, rows: list[dict[str, Any]], keys: dict[int, str]) -> None:
    """The panel as one call a row drew it (before the marks were drawn a kind at a time)."""
    ys = list(range(len(rows)))[::-1]
    for y, c in zip(ys, rows, strict=True):
        if c["difference"] is None:
            continue
        d = c["difference"]
        sd = SPREAD.get((c["point"], c["side"], c["measure"]))
        if sd is not None:
            ax.plot([d - sd, d + sd], [y, y], color=COLOUR, linewidth=0.8, alpha=0.5)
        if c["ci_low"] is None:
            ax.plot([d], [y], marker="D", color=COLOUR, markersize=4)
            continue
        lo, hi = c["ci_low"], c["ci_high"]
        ax.errorbar([d], [y], xerr=[[d - lo], [hi - d]], fmt="o", color=COLOUR, capsize=3,
                    markersize=4, linewidth=1.8)  # fmt: skip
    ax.axvline(0.0, color="#555555", linewidth=0.8, linestyle="--")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.set_yticks(ys)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_yticklabels([keys[c["point"]] for c in rows], fontsize=8)
    ax.grid(axis="x", alpha=0.3)


def _pixels(draw: Any) -> np.ndarray:
    fig = Figure(figsize=(5.2, 3.2), dpi=DPI)
    canvas: Any = FigureCanvasAgg(fig)  # matplotlib's Agg canvas is untyped
    draw(fig.add_subplot(1, 1, 1))
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def test_a_panel_drawn_a_mark_kind_at_a_time_is_the_row_at_a_time_picture() -> None:
    keys = {c["point"]: f"P{c['point']}" for c in ROWS}
    batched = _pixels(lambda ax: analysis._forest(ax, ROWS, keys, COLOUR, SPREAD))
    per_row = _pixels(lambda ax: _reference(ax, ROWS, keys))
    assert batched.shape == per_row.shape
    assert int((batched != per_row).any(axis=2).sum()) == 0
    assert int((per_row[..., :3] < 200).any(axis=2).sum()) > 1000  # the panel drew marks

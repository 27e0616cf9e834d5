"""``battlesim report`` and ``diff --html``: write the viewer pages (and PNG charts on request).

The pages come from :mod:`sim.replay.viewer` and need no plotting library; the PNGs
(``report --png DIR``) are drawn with matplotlib from the same chart series,
imported only when asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.safety.atomic import replacing
from sim.outputs import CHART_SOFTWARE, PNG_LEVEL
from sim.replay.file import ReplayLike
from sim.replay.viewer.charts import chart_title
from sim.replay.viewer.model import Chart, ViewData, battle_view
from sim.replay.viewer.page import colours, write_pieces
from sim.replay.viewer.report import diff_pieces, report_pieces

__all__ = ["key_events", "write_diff", "write_png_charts", "write_report"]


def key_events(loaded: ReplayLike) -> list[str]:
    """Narrative lines of the key events: a unit's first time in a status, and the end."""
    keys = battle_view(loaded).keys
    return [f"{e['line'] or e['type']} — {e['key']}" for _, e in keys]


def _stem(view: ViewData, chart: Chart) -> str:
    """``<scope>_<measure>``, and ``_<unit>`` when the measure is charted per unit."""
    scope, measure, unit = chart
    name = f"{scope}_{measure}_{unit}" if view.series.split(chart) else f"{scope}_{measure}"
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def write_png_charts(view: ViewData, png_dir: Path) -> list[Path]:
    """Each chart of the page as ``<scope>_<measure>.png`` in ``png_dir`` (``_<unit>`` after
    a measure charted per unit: ``unit_strength_guns.png``); the files written."""
    import matplotlib  # noqa: PLC0415 - heavy, only for --png

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    png_dir.mkdir(parents=True, exist_ok=True)
    # matplotlib's default style, whatever rc file it read (a matplotlibrc where battlesim
    # is run: sim.batch.charts.plotting.in_default_style); "$x$" in a name is text
    with matplotlib.style.context("default"), matplotlib.rc_context({"text.parse_math": False}):
        return _png_charts(view, png_dir, plt)


STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "x")
"""Line styles, then markers, tell apart the lines of one side, which share its colour:
24 units of a side, each a look of its own."""


def _png_charts(view: ViewData, png_dir: Path, plt: Any) -> list[Path]:
    written = []
    for chart in view.series.charts():
        fig = chart_figure(view, chart, plt)
        path = png_dir / f"{_stem(view, chart)}.png"
        with replacing(path) as fh:  # an old PNG survives a failed write
            fig.savefig(
                fh, format="png", bbox_inches="tight", metadata={"Software": CHART_SOFTWARE},
                pil_kwargs={"compress_level": PNG_LEVEL},
            )  # fmt: skip
        plt.close(fig)
        written.append(path)
    return written


def chart_figure(view: ViewData, chart: Chart, plt: Any) -> Any:
    """One chart of the page as a matplotlib figure, as the page draws it: its title, a line
    per subject named as the page names it in its side's colour, the units of one side told
    apart by line style and marker; the legend beside the axes (never over the lines), whole
    turns on the x axis, and whole numbers on the y axis when every value is one."""
    from matplotlib.ticker import MaxNLocator  # noqa: PLC0415 - heavy, only for --png

    s = view.series
    scope, measure, unit = chart
    lines = s.values[chart]
    colour = colours(view)
    side_of = {u["id"]: u["side"] for u in view.head["units"]}
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    seen: dict[str, int] = {}  # lines drawn of each side
    for subject, values in lines.items():
        side = side_of.get(subject, subject)
        j = seen[side] = seen.get(side, -1) + 1
        ys = [float("nan") if v is None else v for v in values]
        ax.plot(
            s.turns[: len(ys)], ys, markersize=3, label=s.names[scope, subject],
            color=colour.get(subject, "#555555"), linestyle=STYLES[j % len(STYLES)],
            marker=MARKERS[(j // len(STYLES)) % len(MARKERS)],
        )  # fmt: skip
    ax.set_title(chart_title(scope, measure, unit, view.meta["turn_name"]))
    ax.set_xlabel(view.meta["turn_name"])
    ax.set_ylabel(unit)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if all(float(v).is_integer() for vs in lines.values() for v in vs if v is not None):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count: never 1.5 of it
    ax.grid(alpha=0.3)
    ax.legend(
        fontsize="small", ncol=1 + len(lines) // 20, loc="upper left", bbox_to_anchor=(1.01, 1)
    )
    return fig


def png_paths(view: ViewData, png_dir: Path) -> list[Path]:
    """The files :func:`write_png_charts` writes for ``view`` in ``png_dir``, in order."""
    return [png_dir / f"{_stem(view, chart)}.png" for chart in view.series.charts()]


def write_report(
    loaded: ReplayLike,
    out: Path,
    png_dir: Path | None = None,
    check: Callable[[list[Path]], None] | None = None,
    parent: ReplayLike | None = None,
) -> list[Path]:
    """Write the viewer page of a battle (and its charts as PNGs); return the files written.

    ``check`` is given the PNGs' paths before anything is written, so a caller can refuse
    them (a file of the user's there, a folder it cannot write) with nothing written yet.
    ``parent``: a fork's parent, whose outcome its What if banner shows (by default the
    parent's file beside the fork, when there).

    Raises:
        NotTheParent: ``parent`` is not the fork's parent; nothing is written.
    """
    view = battle_view(loaded, parent=parent)
    if png_dir is not None and check is not None:
        check(png_paths(view, png_dir))
    if png_dir is not None:  # before the page: a folder that cannot be made leaves the page be
        png_dir.mkdir(parents=True, exist_ok=True)
    write_pieces(out, report_pieces(view))
    if png_dir is None:
        return [out]
    return [out, *write_png_charts(view, png_dir)]


def write_diff(
    a: ReplayLike, b: ReplayLike, out: Path, compared: dict[str, Any] | None = None
) -> Path:
    """Write the side-by-side page of two battles; return its path.

    Args:
        compared: ``diff_replays(a, b)`` if already made (see :func:`diff_pieces`).
    """
    write_pieces(out, diff_pieces(a, b, compared=compared))
    return out

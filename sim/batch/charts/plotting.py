"""What every study plot shares: colours, line styles, wrapped titles, point keys, saving.

A design point's label (``options.fire_hcv=25, map.terrain.0.cover=-40``)
is used as it is when every label is short; otherwise points are keyed
``P0``, ``P1``, … and the keys are spelled out under the figure, where
matplotlib's constrained layout makes room for them — nothing is cut.
"""

from __future__ import annotations

import contextlib
import functools
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from matplotlib import rc_context, style
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from engine.safety.atomic import replacing
from sim.batch.storage.store import in_factor_order, point_value
from sim.outputs import PNG_LEVEL
from sim.text.grammar import count

__all__ = [
    "COLOURS",
    "LINESTYLES",
    "MARKERS",
    "Look",
    "as_text",
    "factor_paths",
    "in_default_style",
    "key_legend",
    "look",
    "point_keys",
    "save",
    "short_paths",
    "wrap",
]

COLOURS = ("#1f4e9c", "#a3312b", "#5b8c3a", "#c98a1b", "#6b4c9a", "#2a8c8c", "#777777")
LineStyle = str | tuple[int, tuple[int, ...]]
"""A matplotlib line style: a name, or (offset, dash pattern)."""
LINESTYLES: tuple[LineStyle, ...] = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)))
"""So lines that coincide (common random numbers) stay distinguishable."""
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
SHORT_LABEL = 28
"""Longest point label written out on an axis or in a legend."""
MAX_KEYS = 40
"""Point keys spelled out under a figure; the rest are in summary.json."""


F = TypeVar("F", bound=Callable[..., Any])


def in_default_style(draw: F) -> F:
    """``draw`` under matplotlib's own default style, whatever rc file matplotlib read when
    imported (a ``matplotlibrc`` in the folder battlesim is run in, the user's own): the
    same study draws the same plots wherever it is run, and a received folder's rc file
    is data, never settings (``text.usetex: True`` in one made a study fail after its
    last run, looking for LaTeX). The caller's own style is back after it."""

    @functools.wraps(draw)
    def drawn(*args: Any, **kwargs: Any) -> Any:
        with style.context("default"):
            return draw(*args, **kwargs)

    return drawn  # type: ignore[return-value]


class Look(NamedTuple):
    """How one series of a plot is drawn."""

    colour: str
    linestyle: LineStyle
    marker: str


def look(i: int) -> Look:
    """Series ``i``'s look: its colour, line style and marker, each list taken in turn
    (past its end, from its start again)."""
    return Look(
        COLOURS[i % len(COLOURS)], LINESTYLES[i % len(LINESTYLES)], MARKERS[i % len(MARKERS)]
    )


def wrap(text: str, width: int) -> str:
    """Text broken into lines of at most ``width`` characters (titles, axis labels)."""
    # a hyphenated name (wilson-by-replication, clopper-pearson) stays whole on its line
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


def short_paths(paths: list[str]) -> dict[str, str]:
    """Each factor path's last segment, or as many last segments as make it unique."""
    out: dict[str, str] = {}
    for path in paths:
        parts = path.split(".")
        for n in range(1, len(parts) + 1):
            short = ".".join(parts[-n:])
            clash = [p for p in paths if p != path and p.split(".")[-n:] == parts[-n:]]
            if not clash:
                break
        out[path] = short
    return out


def _short_label(point: dict[str, Any], names: dict[str, str], paths: list[str]) -> str:
    values = point.get("factors") or {}
    if not values:
        return str(point["label"])
    ordered = in_factor_order(values, paths)  # stored keys are sorted; a label is not
    return ", ".join(f"{names.get(k, k)}={_value(v)}" for k, v in ordered.items())


def _value(v: Any) -> str:
    """A factor's value as the point's label writes it (``true``, not Python's ``True``), a
    decimal to four figures."""
    return f"{v:.4g}" if isinstance(v, float) else point_value(v)


def factor_paths(summary: dict[str, Any]) -> list[str] | None:
    """The study's factor paths in its order (a stored point's keys are sorted); None when
    the summary does not say them."""
    factors = (summary.get("study") or {}).get("factors")
    return [f["path"] for f in factors] if factors else None


def point_keys(
    points: list[dict[str, Any]], paths: list[str] | None = None
) -> tuple[dict[int, str], list[str]]:
    """Each point's name on a plot, and the lines that spell out abbreviated names.

    Short labels are used as they are; otherwise points are ``P0``, ``P1``, …
    and each key line gives the point's values under short factor names (the
    last segment of each path), with a line saying which path each name is —
    in ``paths``' order (the study's factors, as a point's label has them).
    """
    if all(len(p["label"]) <= SHORT_LABEL for p in points):
        return {p["point"]: p["label"] for p in points}, []
    if paths is None:
        paths = list((points[0].get("factors") or {}).keys())
    names = short_paths(paths)
    keys = {p["point"]: f"P{p['point']}" for p in points}
    lines = [f"P{p['point']} = {_short_label(p, names, paths)}" for p in points[:MAX_KEYS]]
    if len(points) > MAX_KEYS:
        more = count(len(points) - MAX_KEYS, "more point")
        lines.append(f"… and {more} (labels in summary.json)")
    renamed = [f"{n} = {p}" for p, n in names.items() if n != p]
    return keys, ([f"where {'; '.join(renamed)}"] if renamed else []) + lines


KEY_POINTS = 7
"""The key's font size, in points (monospace: a character 0.6 of it wide, taken as 0.68)."""


def key_legend(fig: Figure, lines: list[str]) -> None:
    """Write the key lines under the figure, in up to three columns, growing it to fit.

    Constrained layout keeps room for a figure's ``supxlabel``; the figure is
    made taller by the key's height first, so the plots keep theirs. A line
    too long for its column (``where …``, a list of measures left out) is
    wrapped to the figure's width above the columns, never cut by its edge.
    """
    if not lines:
        return
    fit = max(40, int(0.97 * fig.get_figwidth() * 72 / (0.68 * KEY_POINTS)))  # monospace, wide
    cols = 1 if len(lines) <= 8 else 2 if len(lines) <= 24 else 3
    notes = [ln for ln in lines if ln.startswith("where ") or len(ln) + 3 > fit // cols]
    entries = [ln for ln in lines if ln not in notes]
    cols = 1 if len(entries) <= 8 else 2 if len(entries) <= 24 else 3
    rows = -(-len(entries) // cols)
    width = max((len(e) for e in entries), default=0) + 3
    table = [
        "".join(
            entries[r + c * rows].ljust(width) for c in range(cols) if r + c * rows < len(entries)
        )
        for r in range(rows)
    ]
    wrapped = [wrap(n, fit).split("\n") for n in notes]
    table = [*(line for w in wrapped for line in w), *table]
    fig.set_figheight(fig.get_figheight() + 0.15 * len(table) + 0.2)
    fig.supxlabel(
        "\n".join(line.rstrip() for line in table),
        fontsize=KEY_POINTS,
        x=0.01,
        ha="left",
        family="monospace",
        linespacing=1.25,
    )


def as_text(fig: Figure) -> None:
    """Every text of ``fig`` drawn as written: ``$...$`` in a side's name is not mathtext.

    matplotlib reads text between dollar signs as mathematics, and a name
    such as ``$\\notacommand{x}$`` makes the whole figure fail to draw.
    """
    for text in fig.findobj(Text):
        text.set_parse_math(False)


DPI = 110
"""The resolution every plot is written at."""


def save(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as a PNG at ``path`` (Agg canvas: no display, no pyplot); text as text.

    A figure with a layout engine (constrained layout) is laid out once here, at the
    resolution it is written at, and the engine is then removed: ``savefig`` would
    otherwise draw the whole figure twice, once without rendering to lay it out and
    once to render it. The pixels are the same (``tests/batch/test_plot_words.py``).
    """
    FigureCanvasAgg(fig)
    as_text(fig)
    # autolayout and constrained_layout.use off: set_layout_engine(None) then removes the engine
    with rc_context(
        {
            "text.parse_math": False,
            "figure.autolayout": False,
            "figure.constrained_layout.use": False,
        }
    ):
        engine = fig.get_layout_engine()
        if engine is not None:
            fig.set_dpi(DPI)
            if fig.axes:  # as Figure.draw runs the engine: only with axes, a ValueError ignored
                with contextlib.suppress(ValueError):
                    engine.execute(fig)
            fig.set_layout_engine(None)
        with replacing(path) as fh:
            # an old plot survives a failed write; zlib's fastest level (sim.outputs.PNG_LEVEL)
            fig.savefig(fh, dpi=DPI, format="png", pil_kwargs={"compress_level": PNG_LEVEL})
    return path

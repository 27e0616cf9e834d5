"""What every study plot shares: colours, line styles, wrapped titles, point keys, saving.

A design point's label (``options.fire_hcv=25, map.terrain.0.cover=-40``)
is used as it is when every label is short; otherwise points are keyed
``P0``, ``P1``, … and the keys are spelled out under the figure, where
matplotlib's constrained layout makes room for them — nothing is cut.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "COLOURS",
    "LINESTYLES",
    "MARKERS",
    "key_legend",
    "point_keys",
    "save",
    "wrap",
]

COLOURS = ("#1f4e9c", "#a3312b", "#5b8c3a", "#c98a1b", "#6b4c9a", "#2a8c8c", "#777777")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)))
"""So lines that coincide (common random numbers) stay distinguishable."""
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
SHORT_LABEL = 28
"""Longest point label written out on an axis or in a legend."""
MAX_KEYS = 40
"""Point keys spelled out under a figure; the rest are in summary.json."""


def wrap(text: str, width: int) -> str:
    """Text broken into lines of at most ``width`` characters (titles, axis labels)."""
    return "\n".join(textwrap.wrap(text, width)) or text


def point_keys(points: list[dict[str, Any]]) -> tuple[dict[int, str], list[str]]:
    """Each point's name on a plot, and the lines that spell out abbreviated names."""
    if all(len(p["label"]) <= SHORT_LABEL for p in points):
        return {p["point"]: p["label"] for p in points}, []
    keys = {p["point"]: f"P{p['point']}" for p in points}
    lines = [f"P{p['point']} = {p['label']}" for p in points[:MAX_KEYS]]
    if len(points) > MAX_KEYS:
        lines.append(f"… and {len(points) - MAX_KEYS} more points (labels in summary.json)")
    return keys, lines


def key_legend(fig: Figure, lines: list[str]) -> None:
    """Write the key lines under the figure (constrained layout keeps room for them)."""
    if lines:
        text = "\n".join(textwrap.shorten(line, 140) for line in lines)
        fig.supxlabel(text, fontsize=7, x=0.01, ha="left", linespacing=1.3)


def save(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as a PNG at ``path`` (Agg canvas: no display, no pyplot)."""
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=110)
    return path

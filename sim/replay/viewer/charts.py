"""Line charts of a ruleset's own measures per turn, as inline SVG (no plotting library).

Each chart is one (scope, measure, unit) of :class:`~sim.replay.viewer.model.Series`: a line
per side or per unit, coloured by side.  The ``data-x0``/``data-x1`` and
``data-t0``/``data-t1`` attributes map turns to x, so the page can move the
timeline cursor (``line.cursor``) and jump to a clicked turn.
"""

from __future__ import annotations

from html import escape

from sim.replay.viewer.model import Series

__all__ = ["MAX_LINES", "chart_svgs", "chart_title", "tick_step"]

MAX_LINES = 40
"""A unit chart with more units than this would be unreadable: it is left out."""

_W, _H = 520, 230
_LEFT, _RIGHT, _TOP, _BOTTOM = 46, 12, 22, 64
_DASHES = ("", "5 3", "2 2", "8 3 2 3", "1 3")


def _nice(top: float, whole: bool = False) -> float:
    """A round upper bound for the y axis, labelled at its quarters: for ``whole`` values
    (men, hits, combatants standing) one whose quarters are whole too, so a count is
    never labelled 1.5."""
    if top <= 0:
        return 4.0 if whole else 1.0
    step = 10.0 ** (len(str(int(top))) - 1)
    for m in (1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 20.0):
        if m * step >= top and not (whole and (m * step) % 4):
            return m * step
    return 20.0 * step


def _points(values: list[float | None], turns: list[int], t0: int, t1: int, ymax: float) -> str:
    span = max(t1 - t0, 1)
    out = []
    for t, v in zip(turns, values, strict=False):
        if v is None:
            continue
        x = _LEFT + (t - t0) / span * (_W - _LEFT - _RIGHT)
        y = _TOP + (1 - v / ymax) * (_H - _TOP - _BOTTOM)
        out.append(f"{x:.1f},{y:.1f}")
    return " ".join(out)


TICK_CHAR = 5.5
"""Width of a digit of a tick label (9 px text) in the chart's units; labels keep a gap of two."""


def tick_step(t0: int, t1: int, width: float) -> int:
    """The step between labelled ticks on an axis of ``width`` from t0 to t1: 1, 2 or 5 times a
    power of ten, wide enough that no two labels touch."""
    span = max(t1 - t0, 1)
    label = (max(len(str(t0)), len(str(t1))) + 2) * TICK_CHAR
    fit = max(1, int(width // label))
    step = 1
    while span / step > fit:
        step = _next_step(step)
    return step


def _next_step(step: int) -> int:
    """1, 2, 5, 10, 20, 50, ... after ``step``."""
    lead = int(str(step)[0])
    power = int("1" + "0" * (len(str(step)) - 1))
    factor: int = {1: 2, 2: 5, 5: 10}[lead]
    return factor * power


def _axes(t0: int, t1: int, ymax: float, turn_name: str) -> list[str]:
    parts = [
        f'<rect class="frame" x="{_LEFT}" y="{_TOP}" width="{_W - _LEFT - _RIGHT}" '
        f'height="{_H - _TOP - _BOTTOM}"/>'
    ]
    span = max(t1 - t0, 1)
    every = tick_step(t0, t1, _W - _LEFT - _RIGHT)
    for t in range(t0 - t0 % every + (every if t0 % every else 0), t1 + 1, every):
        x = _LEFT + (t - t0) / span * (_W - _LEFT - _RIGHT)
        parts.append(f'<text class="tick" x="{x:.1f}" y="{_H - _BOTTOM + 12}">{t}</text>')
    for k in range(5):
        v = ymax * k / 4
        y = _TOP + (1 - k / 4) * (_H - _TOP - _BOTTOM)
        label = f"{v:g}" if v < 10_000 else f"{v / 1000:g}k"
        parts.append(f'<text class="tick" x="2" y="{y + 3:.1f}">{label}</text>')
    parts.append(
        f'<text class="tick" x="{_W - _RIGHT}" y="{_H - _BOTTOM + 24}" '
        f'text-anchor="end">{escape(turn_name)}</text>'
    )
    return parts


_LEGEND_SLOTS = 12
"""Legend places: three rows of four under the plot."""


def _slot(k: int) -> tuple[int, int]:
    """The legend place ``k``'s line start and text baseline."""
    return _LEFT + (k % 4) * 118, _H - _BOTTOM + 36 + (k // 4) * 11


def _legend(entries: list[tuple[str, str, str]]) -> list[str]:
    """A line and name for each entry; beyond twelve, the last place says how many more
    (a place of its own, so it never lies over a name)."""
    shown = entries if len(entries) <= _LEGEND_SLOTS else entries[: _LEGEND_SLOTS - 1]
    parts = []
    for k, (name, colour, dash) in enumerate(shown):
        x, y = _slot(k)
        parts.append(
            f'<line x1="{x}" x2="{x + 16}" y1="{y - 3}" y2="{y - 3}" stroke="{colour}" '
            f'stroke-width="2" stroke-dasharray="{dash}"/>'
            f'<text class="legend" x="{x + 20}" y="{y}">{escape(name[:18])}</text>'
        )
    if len(shown) < len(entries):
        x, y = _slot(len(shown))
        parts.append(
            f'<text class="legend" x="{x + 20}" y="{y}">+{len(entries) - len(shown)} more</text>'
        )
    return parts


def chart_title(scope: str, measure: str, unit: str, turn_name: str) -> str:
    """A chart's title: ``Units: strength (men) by turn`` (the unit left out when the
    measure's name is it or starts with it: ``Sides: hp by round``, ``Sides: men on the
    field by turn``); the PNG charts take it too."""
    said = unit in (measure, "") or measure.startswith(f"{unit} ")
    what = measure if said else f"{measure} ({unit})"
    return f"{'Sides' if scope == 'side' else 'Units'}: {what} by {turn_name}"


def chart_svgs(series: Series, colour_of: dict[str, str], turn_name: str) -> list[str]:
    """One ``<svg class="chart">`` per measure, sides first (``colour_of``: subject → colour)."""
    if not series.turns:
        return []
    t0, t1 = series.turns[0], series.turns[-1]
    out = []
    for scope, measure, unit in sorted(series.charts(), key=lambda c: c[0] != "side"):
        lines = series.values[scope, measure, unit]
        if scope == "unit" and len(lines) > MAX_LINES:
            continue
        shown = [v for vs in lines.values() for v in vs if v is not None]
        ymax = _nice(max(shown, default=0.0), whole=all(float(v).is_integer() for v in shown))
        title = chart_title(scope, measure, unit, turn_name)
        parts = [
            f'<svg class="chart" viewBox="0 0 {_W} {_H}" data-scope="{escape(scope)}" '
            f'data-measure="{escape(measure)}" data-unit="{escape(unit)}" '
            f'data-x0="{_LEFT}" data-x1="{_W - _RIGHT}" '
            f'data-t0="{t0}" data-t1="{t1}" role="img" aria-label="{escape(title)}">',
            f'<text class="title" x="{_LEFT}" y="14">{escape(title)}</text>',
            *_axes(t0, t1, ymax, turn_name),
        ]
        entries = []
        for k, (subject, values) in enumerate(lines.items()):
            colour = colour_of.get(subject, "#555")
            dash = _DASHES[k % len(_DASHES)] if scope == "unit" else ""
            name = series.names[(scope, subject)]
            parts.append(
                f'<polyline class="series" data-subject="{escape(subject)}" stroke="{colour}" '
                f'stroke-dasharray="{dash}" points="{_points(values, series.turns, t0, t1, ymax)}">'
                f"<title>{escape(name)}</title></polyline>"
            )
            entries.append((name, colour, dash))
        parts += _legend(entries)
        parts.append(
            f'<line class="cursor" x1="{_LEFT}" x2="{_LEFT}" y1="{_TOP}" y2="{_H - _BOTTOM}"/>'
        )
        parts.append("</svg>")
        out.append("".join(parts))
    return out

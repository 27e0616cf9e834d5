"""The suite as one figure: each measure's estimate and interval against history.

One row per measure, each on its own axis (the measures' scales differ): the
accepted range shaded, the runs' middle 90 % a grey bar (not for a
probability, whose runs are 0 or 1), the historical value a hollow diamond
(drawn over the dot, so a record the estimate equals still shows), the
estimate a dot with its 95 % interval — green when it passes, red when it
fails, amber when it is inconclusive; each row's title names its verdict,
its interval's method and the case's set (fitting or held out). A
probability's axis and accepted range stop at 0 and 1.
matplotlib is imported only here (``battlesim history --plot``).
"""

from __future__ import annotations

import math
from pathlib import Path

from matplotlib.figure import Figure

from sim.batch.charts.plotting import in_default_style, save, wrap
from sim.history.estimate import METHODS
from sim.history.run import CaseResult, MeasureResult

__all__ = ["plot"]

_PASS, _FAIL, _ACCEPT, _HISTORY = "#5b8c3a", "#a3312b", "#dfe8f2", "#1f4e9c"
_UNSURE, _SPREAD = "#b07d1a", "#c4c4c4"
_COLOUR = {"pass": _PASS, "fail": _FAIL, "inconclusive": _UNSURE}
_WORD = {"pass": "pass", "fail": "FAIL", "inconclusive": "inconclusive"}


def _probability(m: MeasureResult) -> bool:
    return m.estimate.method == METHODS["probability"]


def _span(m: MeasureResult) -> tuple[float, float]:
    e, a = m.estimate, m.spec.accept
    xs = [x for x in (e.value, e.low, e.high, m.spec.historical, a.min, a.max) if x is not None]
    xs += [x for x in (m.spread or ()) if math.isfinite(x)]
    xs = [x for x in xs if not math.isnan(x)]
    lo, hi = min(xs), max(xs)
    pad = (hi - lo) * 0.15 or 0.1
    if _probability(m):  # a share: nothing lies past 0 or 1
        return max(lo - pad, -0.02), min(hi + pad, 1.02)
    return lo - pad, hi + pad


def _row(ax: object, m: MeasureResult, title: str) -> None:
    from matplotlib.axes import Axes  # noqa: PLC0415

    assert isinstance(ax, Axes)
    lo, hi = _span(m)
    a, e = m.spec.accept, m.estimate
    left = a.min if a.min is not None else lo
    right = a.max if a.max is not None else hi
    if _probability(m):
        left, right = max(left, 0.0), min(right, 1.0)
    ax.axvspan(left, right, color=_ACCEPT)
    runs = m.spread
    if runs is not None:  # the runs' middle 90 %, behind the rest; an infinite end at the edge
        ends = [min(max(x, lo), hi) for x in runs]
        ax.plot(ends, [0, 0], color=_SPREAD, linewidth=7, solid_capstyle="butt", zorder=1)
    colour = _COLOUR[m.verdict]
    if not math.isnan(e.value):
        err = [[e.value - e.low], [e.high - e.value]] if not math.isnan(e.low) else None
        ax.errorbar([e.value], [0], xerr=err, fmt="o", color=colour, capsize=4)
    ax.plot(  # hollow and on top: a dot at the record's value shows through it
        [m.spec.historical], [0], marker="D", markersize=8, markerfacecolor="none",
        markeredgecolor=_HISTORY, markeredgewidth=1.5, linestyle="none", zorder=4,
    )  # fmt: skip
    ax.set_xlim(lo, hi)
    ax.set_yticks([])
    ax.set_ylim(-1, 1)
    ax.set_title(title, fontsize=9, loc="left", parse_math=False)
    ax.tick_params(axis="x", labelsize=8)


_WIDTH = 7.5
"""The figure's width, inches."""
_RIGHT, _BOTTOM, _AXIS = 0.2, 0.4, 0.42
"""The right margin, the bottom one (the last row's tick labels) and each row's axis, inches."""
_LINE = 0.17
"""A title line's height at 9 points (10.8 points and a little), inches."""
_TICKS = 0.26
"""A row's tick labels under its axis and the padding above the next row's title, inches."""
_ID_CHAR, _ID_PAD, _LEFT_MIN = 0.065, 0.25, 1.75
"""A case id's width per character at 7 points (DejaVu Sans: a digit 0.062 in, most letters
less), the space between it and its axis, and the least left margin, inches."""
_TITLE_CHAR = 0.09
"""A title character's width at 9 points, allowed for when titles are wrapped (DejaVu Sans:
a capital about 0.085 in, a digit 0.08, most small letters less), inches."""


_SET = {"fitting": "fitting", "held_out": "held out"}


_HEADING = (
    "Historical cases: estimate (dot and its 95 % interval, by the method named; green pass, "
    "red FAIL, amber inconclusive), the runs' middle 90 % (grey bar), history (hollow "
    "diamond), accepted range (shaded)"
)
"""The figure's title: what each mark means."""


def _title(r: CaseResult, m: MeasureResult, width: int) -> str:
    """``label — verdict (method; set)``, wrapped to the axis."""
    where = _SET.get(r.case.spec.split, r.case.spec.split)
    return wrap(f"{m.spec.label} — {_WORD[m.verdict]} ({m.estimate.method}; {where})", width)


def _figure(results: list[CaseResult]) -> Figure:
    """The figure, laid out by margins in inches worked out from what it holds.

    Not by matplotlib's constrained layout, which took about 5 CPU seconds to place
    the hundred-odd rows of the shipped suite: every row has the same parts, so the
    longest case id sets the left margin, the axes' width what a title wraps at, and
    the most lines any title wraps to the space above every row.
    """
    rows = [(r, m) for r in results for m in r.measures]
    n = len(rows)
    left = max(_LEFT_MIN, _ID_PAD + _ID_CHAR * max((len(r.case.id) for r, _m in rows), default=0))
    width = max(20, int((_WIDTH - left - _RIGHT) / _TITLE_CHAR))
    titles = [_title(r, m, width) for r, m in rows]
    lines = max((t.count("\n") + 1 for t in titles), default=1)
    gap = _TICKS + lines * _LINE
    heading = wrap(_HEADING, int((_WIDTH - 0.3) / _TITLE_CHAR))
    # the figure's title (its lines past the first), then the first row's
    top = 0.4 + heading.count("\n") * _LINE + lines * _LINE
    height = top + _BOTTOM + n * _AXIS + (n - 1) * gap
    fig = Figure(figsize=(_WIDTH, height))
    axes = fig.subplots(
        n,
        1,
        squeeze=False,
        gridspec_kw={
            "left": left / _WIDTH,
            "right": 1 - _RIGHT / _WIDTH,
            "top": 1 - top / height,
            "bottom": _BOTTOM / height,
            "hspace": gap / _AXIS,
        },
    )[:, 0]
    for ax, (_res, m), title in zip(axes, rows, titles, strict=True):
        _row(ax, m, title)
    for ax, (res, _m) in zip(axes, rows, strict=True):
        ax.set_ylabel(
            res.case.id, fontsize=7, rotation=0, ha="right", va="center", parse_math=False
        )
    fig.suptitle(
        heading,
        fontsize=9,
        y=1 - 0.12 / height,
        va="top",
        parse_math=False,
    )
    return fig


@in_default_style
def plot(results: list[CaseResult], path: Path) -> Path:
    """Draw every measure of ``results`` into one PNG at ``path``."""
    return save(_figure(results), path)

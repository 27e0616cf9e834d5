"""The suite as one figure: each measure's estimate and interval against history.

One row per measure, each on its own axis (the measures' scales differ): the
accepted range shaded, the historical value a diamond, the estimate a dot
with its 95 % interval — green when it passes, red when it fails, amber when
it is inconclusive.
matplotlib is imported only here (``battlesim history --plot``).
"""

from __future__ import annotations

import math
from pathlib import Path

from matplotlib.figure import Figure

from sim.batch.charts.plotting import save, wrap
from sim.history.run import CaseResult, MeasureResult

__all__ = ["plot"]

_PASS, _FAIL, _ACCEPT, _HISTORY = "#5b8c3a", "#a3312b", "#dfe8f2", "#1f4e9c"
_UNSURE = "#b07d1a"
_COLOUR = {"pass": _PASS, "fail": _FAIL, "inconclusive": _UNSURE}
_WORD = {"pass": "pass", "fail": "FAIL", "inconclusive": "inconclusive"}


def _span(m: MeasureResult) -> tuple[float, float]:
    e, a = m.estimate, m.spec.accept
    xs = [x for x in (e.value, e.low, e.high, m.spec.historical, a.min, a.max) if x is not None]
    xs = [x for x in xs if not math.isnan(x)]
    lo, hi = min(xs), max(xs)
    pad = (hi - lo) * 0.15 or 0.1
    return lo - pad, hi + pad


def _row(ax: object, m: MeasureResult) -> None:
    from matplotlib.axes import Axes  # noqa: PLC0415

    assert isinstance(ax, Axes)
    lo, hi = _span(m)
    a, e = m.spec.accept, m.estimate
    left = a.min if a.min is not None else lo
    ax.axvspan(left, a.max if a.max is not None else hi, color=_ACCEPT)
    colour = _COLOUR[m.verdict]
    if not math.isnan(e.value):
        err = [[e.value - e.low], [e.high - e.value]] if not math.isnan(e.low) else None
        ax.errorbar([e.value], [0], xerr=err, fmt="o", color=colour, capsize=4)
    ax.plot([m.spec.historical], [0], marker="D", color=_HISTORY, linestyle="none")
    ax.set_xlim(lo, hi)
    ax.set_yticks([])
    ax.set_ylim(-1, 1)
    title = wrap(f"{m.spec.label} — {_WORD[m.verdict]}", 70)
    ax.set_title(title, fontsize=9, loc="left", parse_math=False)
    ax.tick_params(axis="x", labelsize=8)


_WIDTH = 7.5
"""The figure's width, inches."""
_LEFT, _RIGHT, _TOP, _BOTTOM = 1.75, 0.2, 0.6, 0.4
"""Margins, inches: the case ids at the left, the title and first row's title at the top,
the last row's tick labels at the bottom."""
_AXIS, _GAP = 0.42, 0.58
"""Each row's axis and the space above the next (its title, up to two lines, and this
row's tick labels), inches."""


def plot(results: list[CaseResult], path: Path) -> Path:
    """Draw every measure of ``results`` into one PNG at ``path``.

    Laid out by fixed margins in inches, not by matplotlib's constrained layout, which
    took about 5 CPU seconds to place the hundred-odd rows of the shipped suite: every
    row has the same parts (a title of at most two lines, a case id of one), so one
    layout fits them all.
    """
    rows = [(r, m) for r in results for m in r.measures]
    n = len(rows)
    height = _TOP + _BOTTOM + n * _AXIS + (n - 1) * _GAP
    fig = Figure(figsize=(_WIDTH, height))
    axes = fig.subplots(
        n,
        1,
        squeeze=False,
        gridspec_kw={
            "left": _LEFT / _WIDTH,
            "right": 1 - _RIGHT / _WIDTH,
            "top": 1 - _TOP / height,
            "bottom": _BOTTOM / height,
            "hspace": _GAP / _AXIS,
        },
    )[:, 0]
    for ax, (_res, m) in zip(axes, rows, strict=True):
        _row(ax, m)
    for ax, (res, _m) in zip(axes, rows, strict=True):
        ax.set_ylabel(
            res.case.id, fontsize=7, rotation=0, ha="right", va="center", parse_math=False
        )
    fig.suptitle(
        "Historical cases: estimate (dot, 95 % interval), history (diamond), accepted (shaded)",
        fontsize=9,
        y=1 - 0.15 / height,
        va="top",
        parse_math=False,
    )
    return save(fig, path)

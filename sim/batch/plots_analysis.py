"""Plots of a study's analysis: ``paired.png`` (comparisons) and ``sensitivity.png``.

* ``paired.png``: one panel per side and measure; each design point's
  difference from the baseline with its 95 % interval (a forest plot), a
  zero line, and whether the intervals are paired (CRN) or not;
* ``sensitivity.png``: per side and measure, Sobol' S1 and ST with their
  95 % bootstrap intervals as bars per factor, or Morris μ* against σ.

Long point labels are replaced by short keys (P0, P1, …) and spelled out
under the figure, so nothing is cut.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sim.batch.labels import measure_label
from sim.batch.plotting import COLOURS, key_legend, point_keys, save, wrap

__all__ = ["MAX_PAIRED", "paired_plot", "sensitivity_plot"]

MAX_PAIRED = 40
"""Design points drawn in ``paired.png``; a larger design's comparisons are in summary.json."""


def _panels(n: int) -> tuple[int, int]:
    cols = 1 if n == 1 else 2
    return (n + cols - 1) // cols, cols


def _scale(measure: str) -> float:
    return 100.0 if measure == "win_rate" else 1.0


def _unit(measure: str) -> str:
    return "percentage points" if measure == "win_rate" else "difference in mean"


def _forest(ax: Axes, rows: list[dict[str, Any]], keys: dict[int, str], colour: str) -> None:
    k = _scale(rows[0]["measure"])
    ys = list(range(len(rows)))[::-1]
    for y, c in zip(ys, rows, strict=True):
        if c["difference"] is None:
            continue
        d, lo, hi = (k * c[x] for x in ("difference", "ci_low", "ci_high"))
        ax.errorbar(
            [d], [y], xerr=[[d - lo], [hi - d]], fmt="o", color=colour, capsize=3, markersize=4
        )
    ax.axvline(0.0, color="#555555", linewidth=0.8, linestyle="--")
    ax.set_yticks(ys)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_yticklabels([keys[c["point"]] for c in rows], fontsize=8)
    ax.grid(axis="x", alpha=0.3)


def paired_plot(summary: dict[str, Any], path: Path) -> Path | None:
    """Forest plot of every comparison with the baseline; None when there is none."""
    rows = summary.get("comparisons") or []
    if not rows or len(summary["points"]) > MAX_PAIRED:
        return None  # beyond a few dozen points a forest plot is unreadable: summary.json has them
    pts = summary["points"]
    names = {sid: w["name"] for sid, w in pts[0]["win"].items()}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in rows:
        groups.setdefault((c["side"], c["measure"]), []).append(c)
    keys, legend = point_keys(pts)
    nrows, ncols = _panels(len(groups))
    height = max(2.2, 0.35 * len(pts) + 1.2)
    fig = Figure(figsize=(5.2 * ncols, height * nrows + 1.2), layout="constrained")
    for i, ((side, measure), group) in enumerate(groups.items()):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        k = list(names).index(side) if side in names else len(names)  # turns: no side's
        _forest(ax, group, keys, COLOURS[k % len(COLOURS)])
        ax.set_title(wrap(measure_label(names.get(side, side), measure), 40), fontsize=9)
        ax.set_xlabel(_unit(measure), fontsize=8)
    how = "paired, common random numbers" if rows[0]["paired"] else "unpaired (no --crn)"
    base = summary["baseline"]
    fig.suptitle(
        wrap(f"Difference from {keys[base]} (the baseline), 95 % intervals, {how}", 90),
        fontsize=10,
    )
    key_legend(fig, legend)
    return save(fig, path)


def _sobol_panel(ax: Axes, indices: list[dict[str, Any]], short: list[str]) -> None:
    ys = list(range(len(indices)))[::-1]
    for j, (name, colour, dy) in enumerate((("S1", COLOURS[0], 0.18), ("ST", COLOURS[1], -0.18))):
        vals = [ix[name] or 0.0 for ix in indices]
        conf = [ix[f"{name}_conf"] or 0.0 for ix in indices]
        ax.barh(
            [y + dy for y in ys], vals, height=0.34, xerr=conf, color=colour, capsize=2,
            label="first order S1" if j == 0 else "total ST",
        )  # fmt: skip
    ax.set_yticks(ys)
    ax.set_yticklabels(short, fontsize=8)
    ax.axvline(0.0, color="#555555", linewidth=0.8)
    ax.set_xlabel("share of the output's variance", fontsize=8)


def _morris_panel(ax: Axes, indices: list[dict[str, Any]], short: list[str]) -> None:
    for i, (ix, label) in enumerate(zip(indices, short, strict=True)):
        mu, sigma, conf = ix["mu_star"] or 0.0, ix["sigma"] or 0.0, ix["mu_star_conf"] or 0.0
        ax.errorbar([mu], [sigma], xerr=[conf], fmt="o", color=COLOURS[i % len(COLOURS)])
        ax.annotate(label, (mu, sigma), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlabel("μ* (mean |elementary effect| over the factor's range)", fontsize=8)
    ax.set_ylabel("σ (interaction or non-linearity)", fontsize=8)
    ax.margins(x=0.1, y=0.18)  # room for the point labels inside the axes
    ax.grid(alpha=0.3)


def sensitivity_plot(summary: dict[str, Any], path: Path) -> Path | None:
    """Sobol' S1/ST bars or Morris μ*–σ per measure; None without indices."""
    sens = summary.get("sensitivity")
    measures = [m for m in (sens or {}).get("measures", []) if m["indices"]]
    if sens is None or not measures:
        return None
    names = {sid: w["name"] for sid, w in summary["points"][0]["win"].items()}
    factors = [ix["factor"] for ix in measures[0]["indices"]]
    short = [f"F{i + 1}" for i in range(len(factors))]
    nrows, ncols = _panels(len(measures))
    fig = Figure(figsize=(5.2 * ncols, 2.9 * nrows + 1.4), layout="constrained")
    for i, m in enumerate(measures):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        if sens["method"] == "sobol":
            _sobol_panel(ax, m["indices"], short)
            if i == 0:
                ax.legend(fontsize=7, frameon=False)
        else:
            _morris_panel(ax, m["indices"], short)
        ax.set_title(wrap(measure_label(names.get(m["side"], m["side"]), m["measure"]), 40),
                     fontsize=9)  # fmt: skip
    title = (
        "Sobol' indices with 95 % bootstrap intervals"
        if sens["method"] == "sobol"
        else "Morris elementary effects (μ* with its 95 % bootstrap interval)"
    )
    fig.suptitle(wrap(f"{title} — {summary['study']['name']}", 90), fontsize=10)
    key_legend(
        fig, [f"{s} = {textwrap.shorten(f, 80)}" for s, f in zip(short, factors, strict=True)]
    )
    return save(fig, path)

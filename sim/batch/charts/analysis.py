"""Plots of a study's analysis: ``paired.png`` (comparisons) and ``sensitivity.png``.

* ``paired.png``: one panel per side and measure that varied (a measure
  with no variation at any point, like guns never lost, is left out and
  named under the figure); each design point's difference from the baseline
  with its 95 % interval (a forest plot; the interval's method in the panel
  title), with CRN the spread of the run-by-run differences (± 1 SD, a thin
  line), a zero line, and whether the intervals are paired (CRN) or not;
* ``sensitivity.png``: per side and measure, Sobol' S1 and ST with their
  95 % percentile bootstrap intervals as bars per factor — a bar outside
  [0, 1] or an S1 above its ST hatched and marked with its flag — or Morris
  μ* against σ with the μ* = σ line, factors told apart by marker and legend
  (no labels to overlap).

Long point labels are replaced by short keys (P0, P1, …) and spelled out
under the figure, so nothing is cut.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from sim.batch.analysis.summary import UNPAIRED, said
from sim.batch.charts.plotting import (
    COLOURS,
    factor_paths,
    key_legend,
    look,
    point_keys,
    save,
    wrap,
)

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


def _forest(  # one panel's rows and how to draw them
    ax: Axes, rows: list[dict[str, Any]], keys: dict[int, str], colour: str,
    spread: dict[tuple[int, str, str], float],
) -> None:  # fmt: skip
    k = _scale(rows[0]["measure"])
    ys = list(range(len(rows)))[::-1]
    # each kind of mark drawn by one call for the whole panel: a call a row made hundreds of
    # artists for matplotlib to lay out and draw (rows never overlap, so the look is the same)
    spreads: list[tuple[float, float, float]] = []  # y, low, high: ± 1 SD of the differences
    points: list[tuple[float, float]] = []  # no variation: a point, no interval
    bars: list[tuple[float, float, float, float]] = []  # difference, y, its error below, above
    for y, c in zip(ys, rows, strict=True):
        if c["difference"] is None:
            continue
        d = k * c["difference"]
        sd = spread.get((c["point"], c["side"], c["measure"]))
        if sd is not None:
            spreads.append((y, d - k * sd, d + k * sd))
        if c["ci_low"] is None:
            points.append((d, y))
        else:
            bars.append((d, y, d - k * c["ci_low"], k * c["ci_high"] - d))
    if spreads:
        sy, slo, shi = zip(*spreads, strict=True)
        ax.hlines(sy, slo, shi, colors=colour, linewidth=0.8, alpha=0.5, capstyle="projecting")
    if points:
        px, py = zip(*points, strict=True)
        ax.plot(px, py, linestyle="none", marker="D", color=colour, markersize=4)
    if bars:
        bx, by, below, above = zip(*bars, strict=True)
        ax.errorbar(
            bx, by, xerr=[below, above], fmt="o", color=colour, capsize=3, markersize=4,
            linewidth=1.8,
        )  # fmt: skip
    ax.axvline(0.0, color="#555555", linewidth=0.8, linestyle="--")
    # at most six ticks: a panel 5 inches wide held nine of "−0.100", run together
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.set_yticks(ys)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_yticklabels([keys[c["point"]] for c in rows], fontsize=8)
    ax.grid(axis="x", alpha=0.3)


METHOD_WORDS = {"newcombe-paired": "Newcombe paired score",
                "newcombe-paired-cc": "Newcombe paired score, continuity-corrected",
                "newcombe": "Newcombe score", "t": "paired t", "welch": "Welch t"}  # fmt: skip


def _varied(group: list[dict[str, Any]]) -> bool:
    return any(c["method"] != "no-variation" or c["difference"] for c in group)


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
    left_out = [said(summary, names, s, m) for (s, m), g in groups.items() if not _varied(g)]
    groups = {key: g for key, g in groups.items() if _varied(g)}
    if not groups:
        return None
    spread = {
        (v["point"], v["side"], v["measure"]): v["paired_sd"]
        for v in summary.get("variance_reduction", [])
        if v["paired_sd"] is not None
    }
    keys, legend = point_keys(pts, factor_paths(summary))
    nrows, ncols = _panels(len(groups))
    height = max(2.2, 0.35 * len(pts) + 1.2)
    fig = Figure(figsize=(5.2 * ncols, height * nrows + 1.4), layout="constrained")
    for i, ((side, measure), group) in enumerate(groups.items()):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        k = list(names).index(side) if side in names else len(names)  # turns: no side's
        _forest(ax, group, keys, look(k).colour, spread)
        method = next((c["method"] for c in group if c["method"] != "no-variation"), None)
        how_found = (
            "no variation within a point" if method is None else METHOD_WORDS.get(method, method)
        )
        title = f"{said(summary, names, side, measure)} ({how_found})"
        ax.set_title(wrap(title, 40), fontsize=9)
        ax.set_xlabel(_unit(measure), fontsize=8)
    how = "paired, common random numbers" if rows[0]["paired"] else UNPAIRED
    spread_note = "; thin line: ± 1 SD of the run-by-run differences" if spread else ""
    base = summary["baseline"]
    fig.suptitle(
        wrap(
            f"Difference from {keys[base]} (the baseline), 95 % intervals, {how}{spread_note}", 90
        ),
        fontsize=10,
    )
    exact = any(
        c["ci_low"] is None and c["difference"] is not None for g in groups.values() for c in g
    )
    if exact:
        legend = [
            "◆ no variation observed at that point: the difference, exact (no interval)",
            *legend,
        ]
    if left_out:
        legend = [f"no variation observed, not drawn: {', '.join(left_out)}", *legend]
    key_legend(fig, legend)
    return save(fig, path)


def _errors(vals: list[float], indices: list[dict[str, Any]], name: str) -> list[list[float]]:
    """Bar error lengths below and above each value from its percentile interval."""
    lows = [ix[f"{name}_low"] for ix in indices]
    highs = [ix[f"{name}_high"] for ix in indices]
    return [
        [0.0 if lo is None else max(0.0, v - lo) for v, lo in zip(vals, lows, strict=True)],
        [0.0 if hi is None else max(0.0, hi - v) for v, hi in zip(vals, highs, strict=True)],
    ]


def _flag_words(ix: dict[str, Any]) -> str:
    return " ".join(f["flag"] + ("!" if f["beyond_interval"] else "") for f in ix.get("flags", []))


def _sobol_panel(ax: Axes, indices: list[dict[str, Any]], short: list[str]) -> None:
    ys = list(range(len(indices)))[::-1]
    for j, (name, colour, dy) in enumerate((("S1", COLOURS[0], 0.18), ("ST", COLOURS[1], -0.18))):
        vals = [ix[name] or 0.0 for ix in indices]
        bars = ax.barh(
            [y + dy for y in ys], vals, height=0.34, xerr=_errors(vals, indices, name),
            color=colour, capsize=2, label="first order S1" if j == 0 else "total ST",
        )  # fmt: skip
        for bar, v, ix in zip(bars, vals, indices, strict=True):
            above = any(f["flag"] == "S1>ST" for f in ix.get("flags", []))
            if not 0.0 <= v <= 1.0 or (name == "S1" and above):
                bar.set_hatch("///")
                bar.set_edgecolor("#000000")
    for y, ix in zip(ys, indices, strict=True):
        if ix.get("flags"):  # the flags in the right margin, level with the factor
            ax.annotate(
                _flag_words(ix), (1.0, y), xycoords=("axes fraction", "data"), xytext=(3, 0),
                textcoords="offset points", fontsize=7, va="center", color=COLOURS[1],
            )  # fmt: skip
    ax.set_yticks(ys)
    ax.set_yticklabels(short, fontsize=8)
    ax.axvline(0.0, color="#555555", linewidth=0.8)
    ax.axvline(1.0, color="#555555", linewidth=0.8, linestyle=":")
    ax.set_xlabel("share of the output's variance", fontsize=8)


def _morris_panel(ax: Axes, indices: list[dict[str, Any]], short: list[str]) -> None:
    top = 0.0
    for i, (ix, label) in enumerate(zip(indices, short, strict=True)):
        mu, sigma = ix["mu_star"] or 0.0, ix["sigma"] or 0.0
        low, high = ix["mu_star_low"], ix["mu_star_high"]
        err = [[mu - low if low is not None else 0.0], [high - mu if high is not None else 0.0]]
        ax.errorbar([mu], [sigma], xerr=err, fmt=look(i).marker, markersize=6,
                    color=look(i).colour, label=label, capsize=2)  # fmt: skip
        top = max(top, mu, sigma, high or 0.0)
    ax.plot([0, top * 1.05], [0, top * 1.05], color="#777777", linewidth=0.8, linestyle="--",
            label="μ* = σ")  # fmt: skip
    ax.set_xlabel("μ* (mean |elementary effect| over the factor's range)", fontsize=8)
    ax.set_ylabel("σ (interaction or non-linearity)", fontsize=8)
    if top > 0:  # a margin below 0: a factor at μ* = σ = 0 sat hidden in the axes' corner
        ax.set_xlim(left=-0.04 * top)
        ax.set_ylim(bottom=-0.04 * top)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
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
        ax.set_title(wrap(said(summary, names, m["side"], m["measure"]), 40), fontsize=9)
    title = (
        "Sobol' indices with 95 % percentile bootstrap intervals (hatched: outside [0, 1] or "
        "S1 > ST; ! beyond its interval)"
        if sens["method"] == "sobol"
        else "Morris elementary effects (μ* with its 95 % percentile bootstrap interval; "
        "above the dashed μ* = σ line: interactions or non-linearity dominate)"
    )
    fig.suptitle(wrap(f"{title} — {summary['study']['name']}", 90), fontsize=10)
    key_legend(
        fig, [f"{s} = {textwrap.shorten(f, 80)}" for s, f in zip(short, factors, strict=True)]
    )
    return save(fig, path)

"""Plots of a study, as PNG files in ``DIR/plots/`` (matplotlib's Agg canvas, no pyplot).

* ``outcomes.png``: runs won by each side, drawn and failed, per design point;
* ``losses.png``: histograms of each side's losses (per point when few);
* ``win_vs_<factor>.png``: each side's win probability against each swept
  factor, over every run at each value, with 95 % interval bars — with CRN
  clustered by replication (:mod:`sim.batch.analysis.pooled`), the method named on
  the axis; the axis says the rates are pooled over the other factors in a grid,
  and that the other factors vary in lhs, Morris and Sobol' designs (where a value
  is not crossed with every value of the others);
* ``losses.png``: whole-number bins (one bar per value when the values span
  at most 30), and the title says when the runs of all points are pooled;
* ``convergence.png``, ``sensitivity_convergence.png``: see
  :mod:`sim.batch.charts.convergence`;
* ``paired.png`` and ``sensitivity.png``: see :mod:`sim.batch.charts.analysis`.

Titles wrap, long point labels become keys spelled out under the figure,
series differ in line style and marker as well as colour (under common
random numbers lines often coincide), and losses are named in the
ruleset's own words (:mod:`sim.batch.analysis.labels`).

Histograms and running rates are computed in DuckDB, so memory does not
grow with the number of runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from engine.safety.atomic import own_folder
from sim.batch.analysis.labels import loss_label, loss_words
from sim.batch.analysis.pooled import pooled
from sim.batch.analysis.summary import percent
from sim.batch.charts.analysis import paired_plot, sensitivity_plot
from sim.batch.charts.convergence import MAX_SERIES, convergence_plot, index_convergence_plot
from sim.batch.charts.plotting import (
    factor_paths,
    in_default_style,
    key_legend,
    look,
    point_keys,
    save,
    wrap,
)
from sim.batch.planning.stopping import summarised
from sim.batch.storage.store import Store, point_value, quote
from sim.text.grammar import agree

__all__ = ["write_plots"]

BINS = 30
_save = save


def _sides(summary: dict[str, Any]) -> dict[str, str]:
    first = summary["points"][0]["win"]
    return {sid: w["name"] for sid, w in first.items()}


def _outcomes(summary: dict[str, Any], path: Path) -> Path:
    pts = summary["points"]
    fig = Figure(figsize=(max(6.0, 0.5 * len(pts) + 3), 4.2), layout="constrained")
    ax = fig.add_subplot()
    x = list(range(len(pts)))
    bottom = [0.0] * len(pts)
    series = [
        (agree(w["name"], "wins"), [p["win"][sid]["count"] for p in pts])
        for sid, w in pts[0]["win"].items()
    ]
    series += [("draw", [p["draw"]["count"] for p in pts]), ("failed", [p["failed"] for p in pts])]
    for i, (label, counts) in enumerate(series):
        if not any(counts):
            continue
        special = {"draw": "#bbbbbb", "failed": "#000000"}
        colour = special.get(label, look(i).colour)
        bars = ax.bar(x, counts, bottom=bottom, label=label, color=colour, width=0.7)
        if len(pts) <= 12:  # each segment's share of its point's runs
            shares = [c / max(1, p["runs"]) for c, p in zip(counts, pts, strict=True)]
            text = [percent(s) if s >= 0.05 else "" for s in shares]  # as the summary says it
            ax.bar_label(bars, labels=text, label_type="center", color="white", fontsize=8)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    _point_axis(fig, ax, pts, factor_paths(summary))
    ax.set_ylabel("runs")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # runs are counts
    if max(bottom) > 0:  # up to the tallest bar's runs: the margin drew 21 of 20 runs
        ax.set_ylim(0, max(bottom))
    ax.set_title(
        wrap(f"Outcomes — {summary['study']['name']}", int(fig.get_figwidth() * 8)), loc="left"
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return _save(fig, path)


def _point_axis(fig: Figure, ax: Axes, pts: list[dict[str, Any]], paths: list[str] | None) -> None:
    ax.set_xticks(range(len(pts)))
    keys, legend = point_keys(pts, paths)
    if len(pts) > 60:
        ax.set_xticklabels([str(p["point"]) if p["point"] % 10 == 0 else "" for p in pts])
        ax.set_xlabel("design point (labels in summary.json)")
        return
    rotate = 20 if any(len(k) > 6 for k in keys.values()) else 0
    ax.set_xticklabels(
        [keys[p["point"]] for p in pts],
        rotation=rotate,
        ha="right" if rotate else "center",
        fontsize=8,
    )
    key_legend(fig, legend)


def _histogram(
    store: Store, column: str, per_point: bool
) -> tuple[list[float], dict[int, list[int]]]:
    """Bin edges and counts per point (or all pooled under -1) of a runs column."""
    c = quote(column)
    where = f"status = 'done' AND {c} IS NOT NULL AND {summarised(store.meta()['plan'])}"
    row = store.con.execute(f"SELECT min({c}), max({c}) FROM runs WHERE {where}").fetchone()
    if row is None or row[0] is None:
        return [], {}
    low, high = int(row[0]), int(row[1])  # losses are counts: bins of whole numbers
    width = max(1, -(-(high - low + 1) // BINS))  # ⌈values / BINS⌉, so at most BINS bins
    nbins = -(-(high - low + 1) // width)
    lo = low - 0.5  # each bin holds the integers [lo + i·width + ½, …]: no value on an edge
    group = "point" if per_point else "-1"
    rows = store.con.execute(
        f"SELECT {group} AS g, CAST(floor(({c} - ?) / ?) AS BIGINT) AS b, count(*) "
        f"FROM runs WHERE {where} GROUP BY ALL ORDER BY ALL",
        [lo, width],
    ).fetchall()
    counts: dict[int, list[int]] = {}
    for g, b, n in rows:
        counts.setdefault(int(g), [0] * nbins)[int(b)] = int(n)
    return [lo + i * width for i in range(nbins + 1)], counts


def _losses(store: Store, summary: dict[str, Any], path: Path) -> Path | None:
    names = _sides(summary)
    columns = [(sid, kind, col) for sid, kind, col in store.losses if _any_nonzero(store, col)]
    if not columns:
        return None
    words = loss_words(summary)
    left_out = [  # a loss no run had: an empty panel, or none, would go unsaid
        f"{names.get(sid, sid)} {loss_label(kind, words)}"
        for sid, kind, col in store.losses
        if (sid, kind, col) not in columns
    ]
    pts = summary["points"]
    per_point = 1 < len(pts) <= MAX_SERIES
    fig = Figure(
        figsize=(6.0 * min(len(columns), 2), 3.6 * ((len(columns) + 1) // 2)), layout="constrained"
    )
    keys, legend = point_keys(pts, factor_paths(summary))
    for i, (sid, kind, col) in enumerate(columns):
        ax = fig.add_subplot((len(columns) + 1) // 2, min(len(columns), 2), i + 1)
        edges, counts = _histogram(store, col, per_point)
        for g, n in counts.items():
            label = keys[g] if g >= 0 else None
            colour = look(g if g >= 0 else list(names).index(sid)).colour
            style = look(g).linestyle if g >= 0 else "-"
            ax.stairs(
                n, edges, label=label, color=colour, fill=not per_point, alpha=0.85,
                linestyle=style, linewidth=1.3,
            )  # fmt: skip
        ax.set_title(wrap(f"{names.get(sid, sid)}: {loss_label(kind, words)}", 45), fontsize=10)
        width = edges[1] - edges[0] if len(edges) > 1 else 1
        bins = "one bar per value" if width == 1 else f"bins of {width:g}"
        ax.set_xlabel(f"{loss_label(kind, words)} ({bins})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # losses are counts
        ax.set_ylabel("runs")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # so are runs
        if per_point and i == 0:
            ax.legend(fontsize=7, frameon=False)
    how = "one line per design point" if per_point else "one design point"
    if not per_point and len(pts) > 1:
        how = f"the runs of all {len(pts)} design points pooled"
    fig.suptitle(wrap(f"Losses per run — {how}", 90), fontsize=10)
    notes = [f"0 in every run, not drawn: {', '.join(left_out)}"] if left_out else []
    key_legend(fig, notes + (legend if per_point else []))
    return _save(fig, path)


def _any_nonzero(store: Store, column: str) -> bool:
    row = store.con.execute(
        f"SELECT max({quote(column)}) FROM runs WHERE status = 'done'"
    ).fetchone()
    return row is not None and row[0] is not None and row[0] > 0


def _win_vs(store: Store, summary: dict[str, Any], path: str, file: Path) -> Path:
    names = _sides(summary)
    study = summary["study"]
    rows = pooled(store, path, list(names), bool(study["crn"]), study.get("interval", "wilson"))
    values = list(dict.fromkeys(r.value for r in rows))
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    xs: list[float] = [float(v) if numeric else float(i) for i, v in enumerate(values)]
    span = (max(xs) - min(xs)) if len(xs) > 1 else 1.0
    fig = Figure(figsize=(7.8, 4.2), layout="constrained")  # the legend beside the axes
    ax = fig.add_subplot()
    for i, (sid, name) in enumerate(names.items()):
        iv = [r for r in rows if r.side == sid]
        shift = (i - (len(names) - 1) / 2) * span * 0.012
        colour, linestyle, marker = look(i)
        ax.errorbar(
            [x + shift for x in xs],
            [v.p for v in iv],
            yerr=[[v.p - v.low for v in iv], [v.high - v.p for v in iv]],
            fmt=marker,
            linestyle=linestyle if numeric and len(xs) <= 12 else "none",
            capsize=3,
            color=colour,
            label=agree(name, "wins"),
            markersize=4,
        )
    if not numeric:
        ax.set_xticks(xs)
        ax.set_xticklabels([point_value(v) for v in values])
    ax.set_ylim(-0.02, 1.02)
    note = ""
    if len(summary["study"]["factors"]) > 1:  # only a grid repeats each value at every other's
        grid = summary["study"]["design"] == "grid"
        note = " (pooled over the other factors)" if grid else " (the other factors vary)"
    ax.set_xlabel(wrap(path + note, 60))
    methods = sorted({r.method for r in rows})
    ax.set_ylabel(wrap(f"win probability (95 % interval: {', '.join(methods)})", 45))
    ax.set_title(wrap(f"Win probability against {path}", 60))
    ax.grid(alpha=0.3)
    # beside the axes: inside, at its best corner, it covered a rate of 0 or 1 and its bars
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, file)


@in_default_style
def write_plots(store: Store, summary: dict[str, Any], folder: Path) -> list[Path]:
    """Write the study's plots into ``folder``; return their paths."""
    folder = own_folder(folder)  # a planted link must not send the plots out of the study
    if not any(p["done"] for p in summary["points"]):
        return []
    written = [_outcomes(summary, folder / "outcomes.png")]
    losses = _losses(store, summary, folder / "losses.png")
    if losses is not None:
        written.append(losses)
    for f in summary["study"]["factors"]:
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in f["path"])
        written.append(_win_vs(store, summary, f["path"], folder / f"win_vs_{safe}.png"))
    plan = store.meta()["plan"]
    written.append(convergence_plot(store, summary, plan, folder / "convergence.png"))
    for extra in (
        paired_plot(summary, folder / "paired.png"),
        sensitivity_plot(summary, folder / "sensitivity.png"),
        index_convergence_plot(summary, folder / "sensitivity_convergence.png"),
    ):
        if extra is not None:
            written.append(extra)
    return written

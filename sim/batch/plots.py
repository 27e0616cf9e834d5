"""Plots of a study, as PNG files in ``DIR/plots/`` (matplotlib's Agg canvas, no pyplot).

* ``outcomes.png``: runs won by each side, drawn and failed, per design point;
* ``losses.png``: histograms of each side's losses (per point when few);
* ``win_vs_<factor>.png``: each side's win probability against each swept
  factor, pooled over the other factors, with Wilson 95 % interval bars;
* ``convergence.png``: the running win rate of the first side as
  replications accumulate, with its 95 % band;
* ``paired.png`` and ``sensitivity.png``: see :mod:`sim.batch.plots_analysis`.

Titles wrap, long point labels become keys spelled out under the figure,
series differ in line style and marker as well as colour (under common
random numbers lines often coincide), and losses are named in the
ruleset's own words (:mod:`sim.batch.labels`).

Histograms and running rates are computed in DuckDB, so memory does not
grow with the number of runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from sim.batch.labels import loss_label
from sim.batch.plots_analysis import paired_plot, sensitivity_plot
from sim.batch.plotting import COLOURS, LINESTYLES, MARKERS, key_legend, point_keys, save, wrap
from sim.batch.stats import wilson
from sim.batch.store import Store, quote
from sim.text.grammar import agree

__all__ = ["write_plots"]

MAX_SERIES = 6
"""Points drawn as separate series; with more, runs are pooled."""
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
        colour = "#bbbbbb" if label == "draw" else "#000000" if label == "failed" else COLOURS[i]
        bars = ax.bar(x, counts, bottom=bottom, label=label, color=colour, width=0.7)
        if len(pts) <= 12:  # each segment's share of its point's runs
            shares = [c / max(1, p["runs"]) for c, p in zip(counts, pts, strict=True)]
            text = [f"{s:.0%}" if s >= 0.05 else "" for s in shares]
            ax.bar_label(bars, labels=text, label_type="center", color="white", fontsize=8)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    _point_axis(fig, ax, pts)
    ax.set_ylabel("runs")
    ax.set_title(wrap(f"Outcomes — {summary['study']['name']}", 70))
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return _save(fig, path)


def _point_axis(fig: Figure, ax: Axes, pts: list[dict[str, Any]]) -> None:
    ax.set_xticks(range(len(pts)))
    keys, legend = point_keys(pts)
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
    row = store.con.execute(
        f"SELECT min({c}), max({c}) FROM runs WHERE status = 'done' AND {c} IS NOT NULL"
    ).fetchone()
    if row is None or row[0] is None:
        return [], {}
    lo, hi = float(row[0]), float(row[1])
    if hi - lo < BINS:  # few whole numbers (guns lost): one bar per value
        lo, width, nbins = lo - 0.5, 1.0, int(hi - lo) + 1
    else:
        width, nbins = (hi - lo) / BINS, BINS
    group = "point" if per_point else "-1"
    rows = store.con.execute(
        f"SELECT {group} AS g, least(CAST(floor(({c} - ?) / ?) AS BIGINT), ?) AS b, count(*) "
        f"FROM runs WHERE status = 'done' AND {c} IS NOT NULL GROUP BY ALL ORDER BY ALL",
        [lo, width, nbins - 1],
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
    pts = summary["points"]
    per_point = 1 < len(pts) <= MAX_SERIES
    fig = Figure(
        figsize=(6.0 * min(len(columns), 2), 3.6 * ((len(columns) + 1) // 2)), layout="constrained"
    )
    keys, legend = point_keys(pts)
    for i, (sid, kind, col) in enumerate(columns):
        ax = fig.add_subplot((len(columns) + 1) // 2, min(len(columns), 2), i + 1)
        edges, counts = _histogram(store, col, per_point)
        for g, n in counts.items():
            label = keys[g] if g >= 0 else None
            colour = (
                COLOURS[g % len(COLOURS)]
                if g >= 0
                else COLOURS[list(names).index(sid) % len(COLOURS)]
            )
            style = LINESTYLES[g % len(LINESTYLES)] if g >= 0 else "-"
            ax.stairs(
                n, edges, label=label, color=colour, fill=not per_point, alpha=0.85,
                linestyle=style, linewidth=1.3,
            )  # fmt: skip
        ax.set_title(wrap(f"{names.get(sid, sid)}: {loss_label(kind)}", 45), fontsize=10)
        ax.set_xlabel(loss_label(kind))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # losses are counts
        ax.set_ylabel("runs")
        if per_point and i == 0:
            ax.legend(fontsize=7, frameon=False)
    if per_point:
        key_legend(fig, legend)
    return _save(fig, path)


def _any_nonzero(store: Store, column: str) -> bool:
    row = store.con.execute(
        f"SELECT max({quote(column)}) FROM runs WHERE status = 'done'"
    ).fetchone()
    return row is not None and row[0] is not None and row[0] > 0


def _pooled(store: Store, path: str) -> list[tuple[Any, dict[str, int], int]]:
    """(factor value, wins by side, runs done) pooled over the other factors, by value.

    Values come in the order they first appear in the design (a values
    list's own order), numbers in ascending order.
    """
    rows = store.con.execute(
        f"SELECT p.{quote(path)} AS v, min(p.point) AS first, coalesce(r.winner, ''), count(*) "
        "FROM runs r JOIN points p USING (point) WHERE r.status = 'done' GROUP BY v, r.winner"
    ).fetchall()
    out: dict[Any, dict[str, int]] = {}
    first: dict[Any, int] = {}
    for v, f, w, n in rows:
        out.setdefault(v, {})[w] = n
        first[v] = min(f, first.get(v, f))
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in out)
    order = sorted(out, key=lambda v: v if numeric else first[v])
    return [(v, out[v], sum(out[v].values())) for v in order]


def _win_vs(store: Store, summary: dict[str, Any], path: str, file: Path) -> Path:
    names = _sides(summary)
    data = _pooled(store, path)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v, _, _ in data)
    xs: list[float] = [float(v) if numeric else float(i) for i, (v, _, _) in enumerate(data)]
    span = (max(xs) - min(xs)) if len(xs) > 1 else 1.0
    fig = Figure(figsize=(6.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    for i, (sid, name) in enumerate(names.items()):
        iv = [wilson(wins.get(sid, 0), n) for _, wins, n in data]
        shift = (i - (len(names) - 1) / 2) * span * 0.012
        ax.errorbar(
            [x + shift for x in xs],
            [v.p for v in iv],
            yerr=[[v.p - v.low for v in iv], [v.high - v.p for v in iv]],
            fmt=MARKERS[i % len(MARKERS)],
            linestyle=LINESTYLES[i % len(LINESTYLES)] if numeric and len(xs) <= 12 else "none",
            capsize=3,
            color=COLOURS[i % len(COLOURS)],
            label=agree(name, "wins"),
            markersize=4,
        )
    if not numeric:
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v, _, _ in data])
    ax.set_ylim(-0.02, 1.02)
    note = ""
    if len(summary["study"]["factors"]) > 1:
        lhs = summary["study"]["design"] == "lhs"
        note = " (the other factors vary)" if lhs else " (pooled over the other factors)"
    ax.set_xlabel(wrap(path + note, 60))
    ax.set_ylabel("win probability (95 % Wilson interval)")
    ax.set_title(wrap(f"Win probability against {path}", 60))
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    return _save(fig, file)


def _running(store: Store, side: str, point: int, step: int) -> list[tuple[int, int]]:
    """(runs done, wins of ``side``) at every ``step``-th done run of a point, and the last."""
    rows = store.con.execute(
        "SELECT n, k FROM (SELECT row_number() OVER w AS n, "
        "sum(CASE WHEN winner = ? THEN 1 ELSE 0 END) OVER w AS k, count(*) OVER () AS total "
        "FROM runs WHERE status = 'done' AND point = ? "
        "WINDOW w AS (ORDER BY replication ROWS UNBOUNDED PRECEDING)) "
        "WHERE n % ? = 0 OR n = total ORDER BY n",
        [side, point, step],
    ).fetchall()
    return [(int(n), int(k)) for n, k in rows]


def _convergence(store: Store, summary: dict[str, Any], path: Path) -> Path:
    names = _sides(summary)
    side, name = next(iter(names.items()))
    pts = summary["points"][:MAX_SERIES]
    wide = len(summary["points"]) > 1
    fig = Figure(figsize=(10.0 if wide else 7.0, 4.2), layout="constrained")
    ax = fig.add_subplot()
    keys, legend = point_keys(pts)
    for i, pt in enumerate(pts):
        step = max(1, pt["done"] // 400)
        series = _running(store, side, pt["point"], step)
        if not series:
            continue
        ns = [n for n, _ in series]
        iv = [wilson(k, n) for n, k in series]
        colour = COLOURS[i % len(COLOURS)]
        every = max(1, len(ns) // 8)  # markers staggered between series, so each shows
        label = keys[pt["point"]] if len(summary["points"]) > 1 else None
        ax.plot(
            ns, [v.p for v in iv], color=colour, label=label, linewidth=1.4,
            linestyle=LINESTYLES[i % len(LINESTYLES)], marker=MARKERS[i % len(MARKERS)],
            markevery=(i * every // len(pts), every), markersize=4,
        )  # fmt: skip
        ax.fill_between(ns, [v.low for v in iv], [v.high for v in iv], color=colour, alpha=0.12)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("replications")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(f"{name} win rate so far")
    shown = "" if len(summary["points"]) <= MAX_SERIES else f" (first {MAX_SERIES} points)"
    ax.set_title(wrap(f"Running win rate of {name}, with 95 % band{shown}", 70))
    ax.grid(alpha=0.3)
    if len(summary["points"]) > 1:
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        key_legend(fig, legend)
    return _save(fig, path)


def write_plots(store: Store, summary: dict[str, Any], folder: Path) -> list[Path]:
    """Write the study's plots into ``folder``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    if not any(p["done"] for p in summary["points"]):
        return []
    written = [_outcomes(summary, folder / "outcomes.png")]
    losses = _losses(store, summary, folder / "losses.png")
    if losses is not None:
        written.append(losses)
    for f in summary["study"]["factors"]:
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in f["path"])
        written.append(_win_vs(store, summary, f["path"], folder / f"win_vs_{safe}.png"))
    written.append(_convergence(store, summary, folder / "convergence.png"))
    for extra in (
        paired_plot(summary, folder / "paired.png"),
        sensitivity_plot(summary, folder / "sensitivity.png"),
    ):
        if extra is not None:
            written.append(extra)
    return written

"""Convergence plots: ``convergence.png`` (win rates over replications) and
``sensitivity_convergence.png`` (indices over base samples).

* ``convergence.png``: one panel per side — each point's running win rate
  as replications accumulate, with its Wilson 95 % band — and a last panel
  with the widest side's running half-width, the ``--until-ci`` target as a
  horizontal line, the pilot shaded and each point's stop marked ×. The
  pilot's runs are not summarised, so the curves start again at its end and
  count the confirmatory runs alone: each ends at the point's summarised
  rate, and its × at the half-width the stopping verdict is about (pooled
  with the pilot's, they showed the target met where the summary said
  TARGET NOT MET). At most :data:`MAX_SERIES` points are drawn; the title
  says which when there are more.
* ``sensitivity_convergence.png``: per measure, each factor's S1 and ST
  (Sobol') or μ* (Morris) recomputed on the first N base samples
  (trajectories), N = 4, 8, …: indices still moving at the design's N are
  not settled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from sim.batch.analysis.summary import said
from sim.batch.charts.plotting import factor_paths, key_legend, look, point_keys, save, wrap
from sim.batch.methods.stats import wilson
from sim.batch.planning.stopping import PILOT, pilot_runs
from sim.batch.storage.store import Store

__all__ = ["MAX_SERIES", "convergence_plot", "index_convergence_plot"]

MAX_SERIES = 6
"""Points drawn as separate series in ``convergence.png``."""


def _running(
    store: Store, side: str, point: int, step: int, first: int
) -> list[tuple[bool, list[tuple[int, int]]]]:
    """(runs done, wins of ``side``) at every ``step``-th done run of a point, and the last,
    per stretch counted from its own start: the pilot's replications (below ``first``), then
    the summarised ones, each with whether it is summarised. Without a pilot (``first`` 0)
    one stretch, summarised."""
    rows = store.con.execute(
        "SELECT s, n, k FROM (SELECT replication >= $first AS s, row_number() OVER w AS n, "
        "sum(CASE WHEN winner = $side THEN 1 ELSE 0 END) OVER w AS k, "
        "count(*) OVER (PARTITION BY replication >= $first) AS total "
        "FROM runs WHERE status = 'done' AND point = $point "
        "WINDOW w AS (PARTITION BY replication >= $first ORDER BY replication "
        "ROWS UNBOUNDED PRECEDING)) "
        "WHERE n % $step = 0 OR n = total ORDER BY s, n",
        {"first": first, "side": side, "point": point, "step": step},
    ).fetchall()
    stretches: dict[bool, list[tuple[int, int]]] = {}
    for summarised, n, k in rows:
        stretches.setdefault(bool(summarised), []).append((int(n), int(k)))
    return list(stretches.items())


def _pilot(summary: dict[str, Any], plan: dict[str, Any]) -> int | None:
    study = summary["study"]
    if study.get("stopping") != PILOT or study["until_ci"] is None:
        return None
    return pilot_runs(study["until_ci"], plan["replications"], plan["chunk_size"])


def convergence_plot(
    store: Store, summary: dict[str, Any], plan: dict[str, Any], path: Path
) -> Path:
    """Every side's running win rate per point, and the running half-width against the target."""
    names = {sid: w["name"] for sid, w in summary["points"][0]["win"].items()}
    pts = summary["points"][:MAX_SERIES]
    keys, legend = point_keys(pts, factor_paths(summary))
    fig = Figure(figsize=(10.0, 2.6 * (len(names) + 1) + 0.8), layout="constrained")
    axes = [fig.add_subplot(len(names) + 1, 1, i + 1) for i in range(len(names) + 1)]
    pilot = _pilot(summary, plan)
    widths_ax = axes[-1]
    for i, pt in enumerate(pts):
        step = max(1, (pt["done"] + pt.get("pilot", {}).get("done", 0)) // 400)
        colour, style, marker = look(i)
        label = keys[pt["point"]] if len(summary["points"]) > 1 else None
        widest: dict[bool, list[float]] = {}
        xs: dict[bool, list[int]] = {}
        for ax, side in zip(axes, names, strict=False):
            stretches = _running(store, side, pt["point"], step, pilot or 0)
            for j, (summarised, series) in enumerate(stretches):
                # the summarised runs from the pilot's end, counted afresh: the summary's rate
                start = (pilot or 0) if summarised else 0
                x = xs[summarised] = [start + n for n, _ in series]
                iv = [wilson(k, n) for n, k in series]
                widest[summarised] = [
                    max(w, v.half_width)
                    for w, v in zip(widest.get(summarised) or [0.0] * len(iv), iv, strict=True)
                ]
                ax.plot(
                    x, [v.p for v in iv], color=colour, linestyle=style, linewidth=1.3,
                    label=label if j == len(stretches) - 1 else None,
                    marker=marker if summarised else "", markevery=[len(x) - 1], markersize=4,
                )  # fmt: skip
                ax.fill_between(
                    x, [v.low for v in iv], [v.high for v in iv], color=colour, alpha=0.1
                )
        for j, (summarised, x) in enumerate(xs.items()):
            widths_ax.plot(
                x, widest[summarised], color=colour, linestyle=style, linewidth=1.3,
                label=label if j == len(xs) - 1 else None,
            )  # fmt: skip
            if summarised:  # the half-width the point's stopping verdict is about
                widths_ax.plot([x[-1]], [widest[summarised][-1]], marker="x", color=colour,
                               markersize=8)  # fmt: skip
    for ax, name in zip(axes, names.values(), strict=False):
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(wrap(f"{name} win rate so far", 24), fontsize=8)
        ax.grid(alpha=0.3)
    target = summary["study"]["until_ci"]
    if target is not None:
        widths_ax.axhline(target, color="#000000", linewidth=1.0, linestyle="--",
                          label=f"target half-width {target:g}")  # fmt: skip
    widths_ax.set_ylabel("widest Wilson\nhalf-width", fontsize=8)
    after = "; after the pilot, its summarised runs counted afresh" if pilot is not None else ""
    widths_ax.set_xlabel(f"replications of the point (× where it stopped{after})")
    widths_ax.grid(alpha=0.3)
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if pilot is not None:
            ax.axvspan(0, pilot, color="#999999", alpha=0.12, lw=0)
    if pilot is not None:
        axes[0].annotate("pilot (not summarised)", (pilot / 2, 0.97), ha="center", va="top",
                         fontsize=7, color="#555555")  # fmt: skip
    if widths_ax.get_legend_handles_labels()[1]:  # one point and no target: nothing to name
        widths_ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    total = len(summary["points"])
    shown = "" if total <= MAX_SERIES else f" — points 0–{MAX_SERIES - 1} of {total} shown"
    fig.suptitle(
        wrap(f"Running win rates with 95 % Wilson bands, every side{shown}", 90), fontsize=10
    )
    key_legend(fig, legend)
    return save(fig, path)


def index_convergence_plot(summary: dict[str, Any], path: Path) -> Path | None:
    """Each measure's indices against the base samples they rest on; None without two steps."""
    sens = summary.get("sensitivity")
    measures = [m for m in (sens or {}).get("measures", []) if len(m.get("convergence", [])) > 1]
    if sens is None or not measures:
        return None
    names = {sid: w["name"] for sid, w in summary["points"][0]["win"].items()}
    keys = ("S1", "ST") if sens["method"] == "sobol" else ("mu_star",)
    cols = 2 if len(measures) > 1 else 1
    rows = -(-len(measures) // cols)
    fig = Figure(figsize=(5.6 * cols, 2.9 * rows + 1.2), layout="constrained")
    factors = list(measures[0]["convergence"][0]["indices"])
    for i, m in enumerate(measures):
        ax = fig.add_subplot(rows, cols, i + 1)
        ns = [c["base_samples"] for c in m["convergence"]]
        for j, factor in enumerate(factors):
            for key, style in zip(keys, ("-", "--"), strict=False):
                ys = [c["indices"][factor][key] for c in m["convergence"]]
                label = f"F{j + 1} {key}" if i == 0 else None
                ax.plot(
                    ns, [float("nan") if y is None else y for y in ys], linestyle=style,
                    color=look(j).colour, marker=look(j).marker,
                    markersize=3, label=label,
                )  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.set_title(wrap(said(summary, names, m["side"], m["measure"]), 40), fontsize=9)
        ax.set_xlabel("base samples" if sens["method"] == "sobol" else "trajectories", fontsize=8)
        ax.grid(alpha=0.3)
    fig.legend(loc="outside right upper", fontsize=7, frameon=False)
    what = "S1 (solid) and ST (dashed)" if sens["method"] == "sobol" else "μ*"
    fig.suptitle(wrap(f"Convergence of {what} as base samples are added", 90), fontsize=10)
    key_legend(fig, [f"F{j + 1} = {f}" for j, f in enumerate(factors)])
    return save(fig, path)

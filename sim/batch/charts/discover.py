"""The plot of ``battlesim discover``: PRIM's coverage–density trade-off.

Each box's peeling trajectory is drawn as density against coverage (every
peel removes runs: coverage falls, density mostly rises), the boxes
reported are marked and numbered, and a dashed line gives the share of all
runs where the outcome holds (the density of doing nothing), a dotted one
the least coverage a reported box may have. The legend stands right of the
axes, never over a trajectory or a box. Text from the user (the measure) is
drawn with mathtext off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from sim.batch.charts.plotting import in_default_style, look, save, wrap
from sim.text.grammar import count, in_sentence

__all__ = ["discover_plot"]


@in_default_style
def discover_plot(result: dict[str, Any], path: Path) -> Path:
    """Draw the trajectories and boxes of a :func:`sim.batch.discovery.discover.discover` result."""
    fig = Figure(figsize=(9.0, 4.6), layout="constrained")  # the legend beside the axes
    ax = fig.add_subplot()
    for i, box in enumerate(result["boxes"]):
        steps = [s for s in box["trajectory"] if s["coverage"] is not None]
        colour, linestyle, marker = look(i)
        ax.plot(
            [s["coverage"] for s in steps],
            [s["density"] for s in steps],
            color=colour,
            linestyle=linestyle,
            marker=".",
            markersize=4,
            label=f"box {box['box']}: peeling trajectory",
        )
        ax.plot(
            [box["coverage"]],
            [box["density"]],
            marker=marker,
            markersize=10,
            color=colour,
            markeredgecolor="black",
            linestyle="none",
            label=f"box {box['box']}: {box['holds']} of {count(box['runs'], 'run')}",
        )
        ax.annotate(
            f" {box['box']}",
            (box["coverage"], box["density"]),
            fontsize=9,
            parse_math=False,
        )
    rate, least = result["base_rate"], result["min_coverage"]
    for line, at, style, label in (
        (ax.axhline, rate, "--", f"all runs ({100 * rate:.1f} %)"),
        (ax.axvline, least, ":", f"least coverage of a box ({least:g})"),
    ):
        line(at, color="#777777", linestyle=style, linewidth=1, label=label)
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("coverage: share of the runs where it holds that fall in the box")
    ax.set_ylabel("density: share of the box's runs where it holds")
    title = f"Where {in_sentence(result['words'])} — PRIM (α {result['alpha']:g}, min coverage "
    title += f"{result['min_coverage']:g})"
    ax.set_title(wrap(title, 70), parse_math=False)
    # beside the axes: in its lower left it hid the boxes of low coverage and density
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    for text in legend.get_texts():
        text.set_parse_math(False)
    return save(fig, path)

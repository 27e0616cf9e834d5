"""``battlesim report``: one self-contained HTML page (and PNGs) for a battle.

Charts are drawn with matplotlib (Agg, no display) from the fold of the log:
side strength over time, per-unit strength, fatigue and morale-state
timelines when the ruleset's units have them; then a casualty table and the
key events.  Images are embedded as base64 PNG, so the file needs no network.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from sim.analysis import narrative, side_strength, unit_rows
from sim.api import LoadedReplay
from sim.ruleset import headline

__all__ = ["charts", "key_events", "write_report"]

_KEY_TYPES = ("side_broken", "battle_ended", "meleed", "left_field", "sunk", "crippled", "died")
_MORALE = ["good", "disrupted", "routed", "eliminated"]
_MORALE_COLOURS = ["#4c9a2a", "#e0b000", "#d2461e", "#555555"]


def _series(rows: list[dict[str, Any]], field: str) -> dict[str, tuple[list[int], list[Any]]]:
    out: dict[str, tuple[list[int], list[Any]]] = {}
    for row in rows:
        if field in row:
            turns, values = out.setdefault(row["id"], ([], []))
            turns.append(row["turn"])
            values.append(row[field])
    return out


def _side_colours(rows: list[dict[str, Any]]) -> dict[str, str]:
    palette = ["#1f5fa8", "#b22222", "#2e8b57", "#8a2be2", "#d2691e", "#008b8b"]
    sides = list(dict.fromkeys(row.get("side", "") for row in rows))
    return {s: palette[i % len(palette)] for i, s in enumerate(sides)}


def _figure(title: str, ylabel: str) -> tuple[Figure, Any]:
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    ax.set_title(title)
    ax.set_xlabel("turn")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig, ax


_STYLES = ("-", "--", "-.", ":")
_MARKERS = ("o", "s", "^", "D", "v", "P")


def charts(loaded: LoadedReplay) -> dict[str, Figure]:
    """The report's figures by file stem (only those the ruleset's units support)."""
    rows = unit_rows(loaded)
    colours = _side_colours(rows)
    names = {row["id"]: row.get("name", row["id"]) for row in rows}
    sides = {row["id"]: row.get("side", "") for row in rows}
    figs: dict[str, Figure] = {}
    strength = side_strength(loaded)
    if strength:
        fig, ax = _figure("Side strength", "strength (men, guns, ...)")
        turns = sorted(strength)
        for side in colours:
            ax.plot(
                turns,
                [strength[t].get(side, 0) for t in turns],
                marker="o",
                color=colours[side],
                label=side,
            )
        ax.legend()
        figs["side_strength"] = fig
    for field, title, ylabel in (
        ("strength", "Unit strength", "% of starting strength"),
        ("fatigue", "Unit fatigue", "fatigue"),
    ):
        series = _series(rows, field)
        if series and all(isinstance(v, int | float) for _, vs in series.values() for v in vs):
            fig, ax = _figure(title, ylabel)
            for k, (uid, (turns, raw)) in enumerate(series.items()):
                values = raw
                if field == "strength":  # men and guns on one scale
                    values = [100 * v / raw[0] if raw[0] else 0 for v in raw]
                ax.plot(
                    turns,
                    values,
                    color=colours[sides[uid]],
                    alpha=0.85,
                    label=names[uid],
                    linestyle=_STYLES[k % len(_STYLES)],
                    marker=_MARKERS[k % len(_MARKERS)],
                    markersize=3,
                )
            if len(series) <= 16:
                ax.legend(fontsize="small", ncol=2)
            figs[f"unit_{field}"] = fig
    morale = _series(rows, "morale")
    if morale:
        figs["morale"] = _morale_chart(morale, names)
    return figs


def _morale_chart(morale: dict[str, tuple[list[int], list[Any]]], names: dict[str, str]) -> Figure:
    from matplotlib.colors import ListedColormap  # noqa: PLC0415

    uids = list(morale)
    last = max(max(turns) for turns, _ in morale.values())
    grid = [[-1] * (last + 1) for _ in uids]
    for i, uid in enumerate(uids):
        for t, state in zip(*morale[uid], strict=True):
            grid[i][t] = _MORALE.index(state) if state in _MORALE else -1
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(uids) + 1.2), dpi=100)
    ax.imshow(
        grid,
        aspect="auto",
        cmap=ListedColormap(_MORALE_COLOURS),
        vmin=0,
        vmax=3,
        interpolation="nearest",
    )
    ax.set_yticks(range(len(uids)), [names[u] for u in uids], fontsize="small")
    ax.set_xlabel("turn")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("Morale state (green good, yellow disrupted, red routed, grey out)")
    return fig


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def key_events(loaded: LoadedReplay) -> list[str]:
    """Narrative lines of the events that decide a battle."""
    out = []
    for event, line in narrative(loaded):
        data = event.model_dump()
        changed = "before" in data and "after" in data and data["before"] != data["after"]
        if event.type.split(".")[-1] in _KEY_TYPES or changed:
            out.append(line)
    return out


def _casualty_table(loaded: LoadedReplay) -> str:
    rows = unit_rows(loaded)
    first = {r["id"]: r for r in rows if r["turn"] == 0}
    last_turn = max(r["turn"] for r in rows)
    last = {r["id"]: r for r in rows if r["turn"] == last_turn}
    head = (
        "<tr><th>unit</th><th>side</th><th>start</th><th>end</th><th>lost</th><th>state</th></tr>"
    )
    body = []
    for uid, start in first.items():
        end = last.get(uid, start)
        s0, s1 = start.get("strength", ""), end.get("strength", "")
        lost = s0 - s1 if isinstance(s0, int) and isinstance(s1, int) else ""
        body.append(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    start.get("name", uid),
                    start.get("side", ""),
                    s0,
                    s1,
                    lost,
                    end.get("morale", ""),
                )
            )
            + "</tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def write_report(loaded: LoadedReplay, out: Path, png_dir: Path | None = None) -> list[Path]:
    """Write the HTML report (and PNGs to ``png_dir``); return the files written."""
    rs, sc = loaded.ruleset, loaded.scenario
    outcome = rs.outcome(sc, loaded.state_at())
    written = []
    images = []
    for stem, fig in charts(loaded).items():
        data = _png(fig)
        if png_dir is not None:
            png_dir.mkdir(parents=True, exist_ok=True)
            (png_dir / f"{stem}.png").write_bytes(data)
            written.append(png_dir / f"{stem}.png")
        b64 = base64.b64encode(data).decode()
        images.append(f'<figure><img alt="{stem}" src="data:image/png;base64,{b64}"></figure>')
    who = headline(rs, outcome, reason=False)
    summary = "".join(f"<li>{html.escape(line)}</li>" for line in rs.summary(outcome))
    events = "".join(f"<li>{html.escape(line)}</li>" for line in key_events(loaded))
    header = loaded.replay.header
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{html.escape(sc.name)} — battlesim report</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: .2rem .5rem; }}
figure {{ margin: 1rem 0; }} img {{ max-width: 100%; }} li {{ margin: .2rem 0; }}
.meta {{ color: #666; font-size: .9rem; }}
</style></head><body>
<h1>{html.escape(sc.name)}</h1>
<p class="meta">{html.escape(header.ruleset)} ruleset, seed {header.seed},
{len(loaded.events)} events — replay {html.escape(Path(loaded.replay.path).name)}</p>
<h2>{html.escape(who)}</h2>
<p>{html.escape(outcome.reason)}</p><ul>{summary}</ul>
<h2>Charts</h2>{"".join(images)}
<h2>Casualties</h2>{_casualty_table(loaded)}
<h2>Key events</h2><ol>{events}</ol>
</body></html>
"""
    out.write_text(page, encoding="utf-8")
    return [out, *written]

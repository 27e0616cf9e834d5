"""The two pages: one battle (``battlesim report``) and two side by side (``diff --html``)."""

from __future__ import annotations

from collections.abc import Iterator
from html import escape
from typing import Any

from sim.replay.analysis import plain
from sim.replay.diff import VALUE_WIDTH, diff_replays
from sim.replay.file import ReplayLike
from sim.replay.parent import is_parent
from sim.replay.viewer.model import ROW_BUDGET, ViewData, battle_view
from sim.replay.viewer.page import GZIP_ABOVE, PaneSpec, isolated, names_of, page_pieces
from sim.text.grammar import ordinal
from sim.text.values import in_words, shortened

__all__ = [
    "diff_html",
    "diff_pieces",
    "fork_banner",
    "report_html",
    "report_page",
    "report_pieces",
]


def _header(view: ViewData) -> str:
    m = view.meta
    frames = (
        ""
        if m["frames"] == "event"
        else f" The map and table change at each {m['turn_name']}'s end (a large battle)."
    )
    if m.get("chart_every", 1) > 1:  # a long battle: its charts thinned
        frames += f" The charts show every {ordinal(m['chart_every'])} {m['turn_name']}'s end."
    names = names_of(view)
    summary = "".join(f"<li>{isolated(line, names)}</li>" for line in m["summary"])
    return (
        f"<h1>{escape(m['title'])}</h1>"
        f'<p class="meta">{escape(m["ruleset"])} ruleset, seed {m["seed"]}, {m["events"]} '
        f"events — replay {escape(m['replay'])}.{escape(frames)}</p>"
        f'<p class="headline">{isolated(m["headline"], names)}</p>'
        f"<p>{isolated(m['reason'], names)}</p>"
        f'<ul class="summary">{summary}</ul>'
    )


def _value(v: Any) -> str:
    return escape(plain(v))


def _words(v: Any) -> str:
    """A changed value as ``battlesim diff`` prints it: in words, long ones cut."""
    return escape(shortened(in_words(v), VALUE_WIDTH))


def fork_banner(view: ViewData) -> str:
    """The "what if" banner of a forked battle, naming each changed event; '' otherwise."""
    fork = view.meta["fork"]
    if fork is None:
        return ""
    word = view.meta["turn_name"]
    parts = []
    for c in fork["changes"]:
        where = f"seq {c['seq']}" + (f", {word} {c['turn']}" if c["turn"] is not None else "")
        what = f"{escape(c['type'] or 'event')} ({where})"
        line = f" — “{escape(c['line'])}”" if c["line"] else ""
        sets = [f"{escape(k)} = {_value(v)}" for k, v in sorted(c["event"].items())]
        sets += [f"state {escape(k)} = {_value(v)} after it" for k, v in sorted(c["state"].items())]
        parts.append(f"<li>{what}{line}: {'; '.join(sets)}</li>")
    return (
        '<div class="banner whatif"><b>What if</b> — this battle is a fork of '
        f"{escape(fork['parent'])}, fought on with the same random streams after these "
        f"changes:<ul>{''.join(parts)}</ul>{_outcomes(view)}</div>"
    )


def _outcomes(view: ViewData) -> str:
    """How the parent ended beside how the fork did, one line each; where the parent's file
    is not at hand, why its outcome is not shown (a fork's header holds no outcome)."""
    m, fork = view.meta, view.meta["fork"]
    names = names_of(view)
    parent = fork.get("parent_outcome")
    said = (
        isolated(parent, names)
        if parent is not None
        else f"not shown — {escape(fork.get('parent_note') or 'its file is not at hand')}"
    )
    ours = isolated(f"{m['headline']} — {m['reason']}", names)
    return f'<p class="outcomes">parent: {said}<br>this fork: {ours}</p>'


def report_html(
    loaded: ReplayLike,
    *,
    row_budget: int = ROW_BUDGET,
    gzip_above: int = GZIP_ABOVE,
    parent: ReplayLike | None = None,
) -> str:
    """The viewer page of one battle (``parent``: a fork's parent, see :func:`battle_view`)."""
    view = battle_view(loaded, row_budget=row_budget, parent=parent)
    return report_page(view, gzip_above=gzip_above)


def report_page(view: ViewData, *, gzip_above: int = GZIP_ABOVE) -> str:
    """The viewer page of one battle already folded into a :class:`ViewData`."""
    return "".join(report_pieces(view, gzip_above=gzip_above))


def report_pieces(view: ViewData, *, gzip_above: int = GZIP_ABOVE) -> Iterator[str]:
    """:func:`report_page` in pieces, its data streamed (``write_pieces`` writes them)."""
    banner = fork_banner(view)
    return page_pieces(
        f"{view.meta['title']} — battlesim",
        _header(view),
        [PaneSpec(view, view.meta["replay"])],
        banners=[banner] if banner else [],
        gzip_above=gzip_above,
    )


def _line_at(view: ViewData, seq: int) -> str | None:
    """The narrative line of event ``seq`` of a battle's page (None past its end)."""
    return next((e["line"] for i, e in enumerate(view.events()) if i == seq), None)


def _diff_banner(d: dict[str, Any], a: ViewData, b: ViewData) -> str:
    if d["identical"]:
        return '<div class="banner diff"><b>Identical</b> — the two battles do not differ.</div>'
    if d["mode"] == "same":
        seq = d["seq"]
        own = [d.get(f"seq_in_{side}", seq) for side in "ab"]  # a later format's own numbers
        lines = [_line_at(v, n) for v, n in zip((a, b), own, strict=True)]
        told = "".join(
            f"<li>{side}: {escape(line or '(past its end)')}</li>"
            for side, line in zip("AB", lines, strict=True)
        )
        changes = "".join(
            f"<li>{escape(c['kind'])} {escape(c['path'])}: {_words(c['a'])} → {_words(c['b'])}</li>"
            for c in d["changes"]
        )
        return (
            '<div class="banner diff"><b>First divergent event</b> — seq '
            f"{own[0]}{f' (seq {own[1]} in B)' if own[1] != own[0] else ''}, "
            f"{a.meta['turn_name']} {d['turn']}; the timeline starts just "
            f"before it (the battles are identical up to there).<ul>{told}{changes}</ul></div>"
        )
    inputs = "".join(
        f"<li>{escape(c['kind'])} {escape(c['path'])}: {_words(c['a'])} → {_words(c['b'])}</li>"
        for c in d["inputs"]
    )
    return (
        '<div class="banner diff"><b>Two variants</b> — different inputs, compared '
        f"{a.meta['turn_name']} by {a.meta['turn_name']}:<ul>{inputs}</ul></div>"
    )


def _large_panes(va: ViewData, vb: ViewData) -> str:
    """The diff header's note on a pane whose map and table change at turn ends only."""
    large = [k for k, v in (("A", va), ("B", vb)) if v.meta["frames"] == "turn"]
    if not large:
        return ""
    whose = "Both panes'" if len(large) == 2 else f"{large[0]}'s"
    word = escape(va.meta["turn_name"])
    return (
        f"<br>{whose} map and table change at each {word}'s end (a large battle): within a "
        f"{word} they show its start, while the narrative steps event by event."
    )


def _parent_among(loaded: ReplayLike, other: ReplayLike) -> ReplayLike | None:
    """``other`` when it is the fork ``loaded``'s parent (its banner then shows how it
    ended), else None: the parent is looked for beside the fork."""
    fork = loaded.header.fork
    return other if fork is not None and is_parent(fork, other) else None


def diff_html(a: ReplayLike, b: ReplayLike, *, row_budget: int = ROW_BUDGET) -> str:
    """Two battles side by side on one timeline, from their first divergent event."""
    return "".join(diff_pieces(a, b, row_budget=row_budget))


def diff_pieces(
    a: ReplayLike,
    b: ReplayLike,
    *,
    row_budget: int = ROW_BUDGET,
    compared: dict[str, Any] | None = None,
) -> Iterator[str]:
    """:func:`diff_html` in pieces, each battle's data streamed.

    Args:
        compared: ``diff_replays(a, b)`` when the caller has it already (each
            comparison folds both battles again).
    """
    d = compared if compared is not None else diff_replays(a, b, context=0, detail=False)
    va = battle_view(a, row_budget=row_budget, parent=_parent_among(a, b))
    vb = battle_view(b, row_budget=row_budget, parent=_parent_among(b, a))
    start = None
    if d["mode"] == "same" and not d["identical"]:
        turn = d["turn"]
        k = d.get("seq_in_a", d["seq"]) - sum(1 for e in va.events() if e["turn"] < turn)
        start = {"turn": turn, "k": k}
    header = (
        f"<h1>{escape(va.meta['title'])} — A and B side by side</h1>"
        f'<p class="meta">A: {escape(va.meta["replay"])} — '
        f"{escape(va.meta['headline'])}<br>B: {escape(vb.meta['replay'])}"
        f" — {escape(vb.meta['headline'])}{_large_panes(va, vb)}</p>"
    )
    banners = [_diff_banner(d, va, vb), fork_banner(va), fork_banner(vb)]
    return page_pieces(
        f"{va.meta['title']} — A vs B — battlesim",
        header,
        [
            PaneSpec(va, f"A: {va.meta['replay']}"),
            PaneSpec(vb, f"B: {vb.meta['replay']}"),
        ],
        banners=[x for x in banners if x],
        start=start,
    )

"""One self-contained HTML page for one battle (report) or two (diff): no network at all.

The page inlines ``viewer.css`` and ``viewer.js`` (package data) and embeds
each battle's data as JSON, or as gzip+base64 when it is larger than
:data:`GZIP_ABOVE` bytes (the browser inflates it with ``DecompressionStream``).
Header, outcome, banners, charts, key events and casualties are plain HTML
and SVG, readable without scripts; the script adds the map, the timeline, the
unit table, the narrative and the details.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import Any

from engine.safety.atomic import atomic_write_text, replacing
from sim.replay.viewer.charts import chart_svgs
from sim.replay.viewer.model import SIDE_COLOURS, ViewData

__all__ = [
    "GZIP_ABOVE",
    "PaneSpec",
    "colours",
    "embed",
    "embed_pieces",
    "isolated",
    "names_of",
    "page_pieces",
    "write_atomic",
    "write_pieces",
]

GZIP_ABOVE = 256 * 1024
"""Battle data above this many bytes of JSON is embedded gzip+base64."""


@dataclass(frozen=True)
class PaneSpec:
    """One battle on the page, with the title of its pane."""

    view: ViewData
    title: str


def _asset(name: str) -> str:
    return files("sim.replay.viewer").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


_PIECE = 1 << 16
"""Characters of JSON encoded before they are measured and packed."""
_LEVEL = 6
"""gzip level of the page's data: zlib's default; level 9 took three times the CPU
for 5 % less (a 40 MB page's data: 4.2 MB at 6, 4.0 MB at 9)."""


class _Gzip:
    """gzip of text fed piece by piece (the bytes ``gzip.compress(raw, 6, mtime=0)`` gives),
    given back as base64 text as soon as it is compressed.

    The page's data can be tens of MiB of JSON; neither it nor its
    compressed form is ever held whole.
    """

    def __init__(self) -> None:
        self._z = zlib.compressobj(_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        self._rest = b""

    def add(self, raw: bytes) -> str:
        """Compress ``raw``; the base64 of what is ready (a multiple of 3 bytes of it)."""
        return self._b64(self._z.compress(raw))

    def finish(self) -> str:
        """The base64 of the rest of the stream."""
        tail = self._rest + self._z.flush()
        self._rest = b""
        return base64.b64encode(tail).decode("ascii")

    def _b64(self, out: bytes) -> str:
        out = self._rest + out
        cut = len(out) - len(out) % 3
        self._rest = out[cut:]
        return base64.b64encode(out[:cut]).decode("ascii")


def _batched(pieces: Iterable[str]) -> Iterator[str]:
    """``pieces`` joined into pieces of about :data:`_PIECE` characters."""
    held: list[str] = []
    pending = 0
    for piece in pieces:
        held.append(piece)
        pending += len(piece)
        if pending >= _PIECE:
            yield "".join(held)
            held, pending = [], 0
    yield "".join(held)


def embed(data: dict[str, Any], pane: int, gzip_above: int = GZIP_ABOVE) -> str:
    """The ``<script class="battle-data">`` element carrying one battle's data."""
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return embed_pieces(encoder.iterencode(data), pane, gzip_above)


def embed_pieces(pieces: Iterable[str], pane: int, gzip_above: int = GZIP_ABOVE) -> str:
    """The ``<script class="battle-data">`` element of a battle's data given as JSON in pieces."""
    return "".join(_embed_stream(pieces, pane, gzip_above))


def _embed_stream(pieces: Iterable[str], pane: int, gzip_above: int) -> Iterator[str]:
    """The data element in pieces: past ``gzip_above`` bytes of JSON, gzip+base64 as it comes.

    No whole copy of the JSON text, nor of its compressed form, is made.
    """
    kept: list[str] = []
    size = 0
    packer: _Gzip | None = None
    for chunk in _batched(pieces):
        if packer is not None:
            yield packer.add(chunk.encode("utf-8"))
            continue
        kept.append(chunk)
        size += len(chunk.encode("utf-8"))
        if size > gzip_above:
            packer = _Gzip()
            yield (
                f'<script type="text/plain" class="battle-data" data-pane="{pane}" '
                'data-encoding="gzip+base64">'
            )
            yield packer.add("".join(kept).encode("utf-8"))
            kept = []
    if packer is not None:
        yield packer.finish() + "</script>"
        return
    text = "".join(kept)
    safe = text.replace("</", "<\\/").replace("<!--", "<\\u0021--")
    yield f'<script type="application/json" class="battle-data" data-pane="{pane}">{safe}</script>'


def _right_to_left(name: str) -> bool:
    """Whether ``name`` holds a right-to-left letter (Hebrew, Arabic...)."""
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in name)


def names_of(view: ViewData) -> list[str]:
    """The names of the battle's units and sides that hold a right-to-left letter."""
    names = [u["name"] for u in view.head["units"]] + [s["name"] for s in view.head["sides"]]
    return [n for n in dict.fromkeys(names) if _right_to_left(n)]


def isolated(text: str, names: Sequence[str]) -> str:
    """``text`` as HTML, each of ``names`` in it in a ``<bdi>`` of its own.

    A right-to-left name in a left-to-right line takes the neutral characters
    and the number after it into its own run: "عربي: 42 men" reads "42 :عربي men".
    Isolated, it is one word of the line (``viewer.js``'s ``withNames`` does the same
    for the lines it writes); ``names``: the battle's right-to-left names
    (:func:`names_of`), so a page without any is unchanged.
    """
    if not names:
        return escape(text)
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    out, at = [], 0
    for m in pattern.finditer(text):
        out.append(f"{escape(text[at : m.start()])}<bdi>{escape(m.group())}</bdi>")
        at = m.end()
    return "".join(out) + escape(text[at:])


def colours(view: ViewData) -> dict[str, str]:
    """Subject (side or unit id) → its side's colour."""
    side = {s["id"]: SIDE_COLOURS[s["index"] % len(SIDE_COLOURS)] for s in view.head["sides"]}
    return {**side, **{u["id"]: side[u["side"]] for u in view.head["units"]}}


def _key_line(e: dict[str, Any], word: str) -> str:
    """A key event as the narrative tells it (its line names the turn), or its type and turn."""
    return str(e["line"]) if e["line"] else f"{word.capitalize()} {e['turn']} — {e['type']}"


def _key_events(view: ViewData) -> str:
    word = view.meta["turn_name"]
    names = names_of(view)
    items = [
        f'<li><a href="#" data-event="{i}">[seq {e["seq"]}] {isolated(_key_line(e, word), names)}'
        f"</a> <span class='muted'>— {isolated(e['key'], names)}</span></li>"
        for i, e in view.keys
    ]
    return f'<ol class="key-events">{"".join(items)}</ol>' if items else "<p>None.</p>"


def _casualties(view: ViewData) -> str:
    last = {r.id: r for r in view.last}
    head = (
        "<tr><th>unit</th><th>side</th><th>start</th><th>end</th><th>lost</th><th>status</th></tr>"
    )
    body = []
    for r in view.first:
        end = last.get(r.id, r)
        lost = r.strength.value - end.strength.value
        cells = (
            r.name,
            r.side_name,
            f"{r.strength.value:g} {r.strength.unit}",
            f"{end.strength.value:g}",
            f"{lost:g}",
            ", ".join(end.status),
        )
        body.append(
            f"<tr><td><bdi>{escape(cells[0])}</bdi></td><td><bdi>{escape(cells[1])}</bdi></td>"
            + "".join(f"<td>{escape(c)}</td>" for c in cells[2:])
            + "</tr>"
        )
    return f'<table class="casualties">{head}{"".join(body)}</table>'


def _pane(k: int, spec: PaneSpec) -> str:
    view = spec.view
    charts = chart_svgs(view.series, colours(view), view.meta["turn_name"])
    heads = "".join(
        f"<th>{h}</th>" for h in ("unit", "side", "kind", "position", "strength", "status", "")
    )
    return f"""<section class="pane" data-pane="{k}">
<h2 class="pane-title">{escape(spec.title)}</h2><div class="pane-pos" aria-live="polite"></div>
<div class="stage"><div class="map" role="region" aria-label="map"></div>
<div class="table-wrap">
<table class="units-table"><thead><tr>{heads}</tr></thead></table></div></div>
<div class="lower"><div class="narrative"><h3>Narrative</h3><ol></ol></div>
<div class="details"><h3>Details</h3><p class="muted">Click a unit (map or table) for its
history, or an event for its inputs, draws and causes.</p></div></div>
<h3>Charts</h3><div class="charts">{"".join(charts)}</div>
<section class="static"><h3>Key events</h3>{_key_events(view)}
<h3>Casualties</h3>{_casualties(view)}</section>
</section>"""


def _controls(turn: str) -> str:
    """The timeline's buttons and keys, a turn in the ruleset's word (becmi's round)."""
    t = escape(turn)
    return f"""<nav class="controls" aria-label="timeline">
<button data-act="first" title="Home" aria-label="first">|◀ first</button>
<button data-act="prevturn" title="PgUp" aria-label="previous {t}">◀◀ {t}</button>
<button data-act="prev" title="←" aria-label="previous event">◀</button>
<button id="play" data-act="play" title="Space">▶ play</button>
<button data-act="next" title="→" aria-label="next event">▶</button>
<button data-act="nextturn" title="PgDn" aria-label="next {t}">{t} ▶▶</button>
<button data-act="last" title="End" aria-label="last">last ▶|</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="timeline position">
<span id="where"></span>
<label>play by <select id="speed"><option value="event">event</option>
<option value="turn">{t}</option></select></label>
<span class="keys muted">Keys: ←/→ one event, PgUp/PgDn one {t}, Home/End, Space play/pause.
Click a unit or an event for its story.</span></nav>"""


def page_pieces(
    title: str,
    header: str,
    panes: list[PaneSpec],
    *,
    banners: Sequence[str] = (),
    start: dict[str, int] | None = None,
    gzip_above: int = GZIP_ABOVE,
) -> Iterator[str]:
    """The whole page in pieces, the battle data streamed (see :func:`write_pieces`):
    ``header`` and ``banners`` are trusted HTML built by the caller."""
    sides = "".join(
        f".side-{i} {{ --c: {c}; }}\n" for i, c in enumerate(SIDE_COLOURS)
    )  # CSS variables per side index
    start_json = json.dumps(start).replace("</", "<\\/")
    yield f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="battlesim">
<title>{escape(title)}</title>
<style>
{_asset("viewer.css")}{sides}</style></head>
<body>
<svg id="ns-probe" width="0" height="0" aria-hidden="true"></svg>
<header class="top">{header}</header>
{"".join(banners)}
<p id="status">Loading the battle… (this page needs JavaScript for the map and timeline)</p>
{_controls(panes[0].view.meta["turn_name"] if panes else "turn")}
<div class="panes n{len(panes)}">{"".join(_pane(k, p) for k, p in enumerate(panes))}</div>
"""
    for k, p in enumerate(panes):
        yield from _embed_stream(p.view.json_chunks(), k, gzip_above)
    yield f"""
<script type="application/json" id="timeline-start">{start_json}</script>
<script>
{_asset("viewer.js")}</script>
</body></html>
"""


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary name beside ``path``, then rename it into place.

    The one atomic writer (:func:`engine.safety.atomic.atomic_write_text`): flushed to
    disk before the rename, and never over a device or a folder.
    """
    atomic_write_text(path, text)


def write_pieces(path: Path, pieces: Iterable[str]) -> None:
    """Write text given in pieces (UTF-8) through a temporary name and a rename.

    Each piece is written as it comes, so a page is never held whole.
    """
    with replacing(path) as fh:
        for piece in pieces:
            fh.write(piece.encode("utf-8"))

"""What a page should show, derived from the replay itself (its fold and its JSON lines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.api import LoadedReplay

__all__ = ["draws_in", "events_naming", "shown_rows", "turns_of", "unit_rows_at"]


def turns_of(loaded: LoadedReplay) -> list[int]:
    """The turns that have events, in order (PgDn steps from one's end to the next's)."""
    return list(dict.fromkeys(e.turn for e in loaded.events))


def _pos(position: Any) -> str:
    return "" if position is None else ",".join(str(v) for v in position)


def unit_rows_at(loaded: LoadedReplay, state: Any) -> dict[str, tuple[str, float, str]]:
    """unit id → (position "a,b", strength, "status,words") of the ruleset's rows at ``state``."""
    rows = loaded.ruleset.units(loaded.scenario, state)
    return {r.id: (_pos(r.position), float(r.strength.value), ",".join(r.status)) for r in rows}


def shown_rows(page: Any, pane: str = "") -> dict[str, tuple[str, float, str]]:
    """The same, read from the map's unit marks in the page (``pane``: a selector prefix)."""
    marks = page.eval_on_selector_all(
        f"{pane}svg.field g.unit",
        "gs => gs.map(g => [g.dataset.unit, g.dataset.pos, g.dataset.strength, g.dataset.status])",
    )
    return {u: (pos, float(s), status) for u, pos, s, status in marks}


def _lines(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if "seq" in r and "type" in r]


def events_naming(path: Path, unit: str) -> list[int]:
    """Seqs of the replay's events naming ``unit`` in a top-level field (or a list there)."""
    out = []
    for e in _lines(path):
        values = [v for k, v in e.items() if k not in ("type", "phase", "h")]
        flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
        if unit in flat:
            out.append(e["seq"])
    return out


def draws_in(path: Path, seq: int) -> int:
    """How many random draws (``[stream, i, u]`` arrays) event ``seq`` records."""

    def count(v: Any) -> int:
        if isinstance(v, list) and [type(x) for x in v] == [str, int, float]:
            return 1
        if isinstance(v, dict):
            if {"stream", "i", "u"} <= set(v):
                return 1
            return sum(count(x) for x in v.values())
        if isinstance(v, list):
            return sum(count(x) for x in v)
        return 0

    return count(next(e for e in _lines(path) if e["seq"] == seq))

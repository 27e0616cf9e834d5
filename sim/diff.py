"""Compare two battles: where the same battle parts, or how two variants differ.

Two replays of the same scenario and seed (before and after a code change, or
a fork and its parent) are compared event by event: the first divergent
event, a field-level diff, context, and the draw counts of every random
stream at that point.  Replays of different seeds or scenario variants are
compared by their inputs (scenario diff by field path) and their outcomes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from engine.events import Draw, Event, TurnEnded
from engine.jsondiff import diff
from sim.analysis import side_strength, unit_rows
from sim.api import LoadedReplay

__all__ = ["diff_replays", "draw_counts", "render"]


def _draws(value: Any, out: dict[str, int]) -> None:
    """Count the :class:`Draw` records in an event's fields, however nested."""
    if isinstance(value, Draw):
        out[value.stream] = max(out.get(value.stream, 0), value.i + 1)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _draws(getattr(value, name), out)
    elif isinstance(value, dict):
        for v in value.values():
            _draws(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _draws(v, out)


def draw_counts(events: list[Event]) -> dict[str, int]:
    """Draws taken from each random stream by these events (stream name → count)."""
    out: dict[str, int] = {}
    for event in events:
        _draws(event, out)
    return dict(sorted(out.items()))


def _brief(event: Event) -> dict[str, Any]:
    data = event.model_dump(mode="json")
    return {k: data[k] for k in ("seq", "turn", "type", "phase", "unit", "target") if k in data}


def _first_turn_apart(a: LoadedReplay, b: LoadedReplay) -> int | None:
    da = {e.turn: e.state_digest for e in a.events if isinstance(e, TurnEnded)}
    db = {e.turn: e.state_digest for e in b.events if isinstance(e, TurnEnded)}
    for turn in sorted(set(da) | set(db)):
        if da.get(turn) != db.get(turn):
            return turn
    return None


def _same_battle(a: LoadedReplay, b: LoadedReplay, context: int) -> dict[str, Any]:
    ea, eb = a.events, b.events
    i = next(
        (k for k, (x, y) in enumerate(zip(ea, eb, strict=False)) if x != y),
        min(len(ea), len(eb)),
    )
    if i == len(ea) == len(eb):
        return {"mode": "same", "identical": True, "events": len(ea)}
    x = ea[i].model_dump(mode="json") if i < len(ea) else None
    y = eb[i].model_dump(mode="json") if i < len(eb) else None
    if x is None or y is None:
        changes = []
    elif x["type"] != y["type"]:
        changes = [{"path": "type", "kind": "changed", "a": x["type"], "b": y["type"]}]
    else:
        changes = [c.as_json() for c in diff(x, y)]
    first = ea[i] if i < len(ea) else eb[i]
    return {
        "mode": "same",
        "identical": False,
        "seq": i,
        "turn": first.turn,
        "phase": getattr(first, "phase", None),
        "unit": getattr(first, "unit", None),
        "event_a": x,
        "event_b": y,
        "changes": changes,
        "context_before": [_brief(e) for e in ea[max(0, i - context) : i]],
        "context_after_a": [_brief(e) for e in ea[i + 1 : i + 1 + context]],
        "context_after_b": [_brief(e) for e in eb[i + 1 : i + 1 + context]],
        "draw_counts": draw_counts(ea[:i]),
        "draws_in_a": draw_counts(ea[i : i + 1]),
        "draws_in_b": draw_counts(eb[i : i + 1]),
        "first_turn_apart": _first_turn_apart(a, b),
        "events": {"a": len(ea), "b": len(eb)},
    }


_ROW_FIXED = ("turn", "id", "name", "side", "side_name", "kind", "strength_unit", "initial")
"""Unit-row columns that never differ between variants of one unit."""


def _finals(r: LoadedReplay) -> dict[str, dict[str, Any]]:
    rows = unit_rows(r)
    last = max((row["turn"] for row in rows), default=0)
    return {row["id"]: row for row in rows if row["turn"] == last}


def _variants(a: LoadedReplay, b: LoadedReplay) -> dict[str, Any]:
    inputs = [c.as_json() for c in diff(a.replay.header.scenario, b.replay.header.scenario)]
    if a.replay.header.seed != b.replay.header.seed:
        inputs.insert(
            0,
            {
                "path": "seed",
                "kind": "changed",
                "a": a.replay.header.seed,
                "b": b.replay.header.seed,
            },
        )
    oa = a.ruleset.outcome(a.scenario, a.state_at()).as_json()
    ob = b.ruleset.outcome(b.scenario, b.state_at()).as_json()
    fa, fb = _finals(a), _finals(b)
    units = {}
    for uid in [*fa, *(k for k in fb if k not in fa)]:
        ra, rb = fa.get(uid, {}), fb.get(uid, {})
        keys = [k for k in (*ra, *(k for k in rb if k not in ra)) if k not in _ROW_FIXED]
        units[uid] = {k: [ra.get(k), rb.get(k)] for k in keys}
    sa, sb = side_strength(a), side_strength(b)
    turns = sorted(set(sa) | set(sb))
    return {
        "mode": "variants",
        "identical": not inputs and oa == ob and sa == sb,
        "inputs": inputs,
        "outcome": {
            k: [oa.get(k), ob.get(k)] for k in ("winner", "winner_name", "turns", "reason")
        },
        "sides": {
            sid: {
                "losses": [
                    oa["sides"].get(sid, {}).get("losses"),
                    ob["sides"].get(sid, {}).get("losses"),
                ]
            }
            for sid in [*oa["sides"], *(k for k in ob["sides"] if k not in oa["sides"])]
        },
        "units": units,
        "strength_by_turn": {
            t: {
                s: [sa.get(t, {}).get(s), sb.get(t, {}).get(s)]
                for s in sorted(set(sa.get(t, {})) | set(sb.get(t, {})))
            }
            for t in turns
        },
    }


def diff_replays(a: LoadedReplay, b: LoadedReplay, context: int = 3) -> dict[str, Any]:
    """Compare two replays; the result is plain JSON data (``diff --json`` prints it)."""
    ha, hb = a.replay.header, b.replay.header
    same = (ha.ruleset, ha.seed, ha.scenario) == (hb.ruleset, hb.seed, hb.scenario)
    result = _same_battle(a, b, context) if same else _variants(a, b)
    return {"a": a.replay.path, "b": b.replay.path, **result}


def _event_line(e: dict[str, Any]) -> str:
    who = " ".join(str(e[k]) for k in ("unit", "target") if e.get(k))
    return f"  seq {e['seq']:>5} turn {e['turn']:>3} {e['type']:<24} {who}"


def render(d: dict[str, Any]) -> list[str]:
    """Readable text of a :func:`diff_replays` result."""
    if d["identical"]:
        return [f"identical: {d['a']} and {d['b']}"]
    if d["mode"] == "same":
        return _render_same(d)
    return _render_variants(d)


def _render_same(d: dict[str, Any]) -> list[str]:
    where = f"seq {d['seq']}, turn {d['turn']}"
    where += f", phase {d['phase']}" if d["phase"] else ""
    where += f", unit {d['unit']}" if d["unit"] else ""
    out = [f"same scenario and seed; first divergent event at {where}"]
    if d["event_a"] is None or d["event_b"] is None:
        longer = "b" if d["event_a"] is None else "a"
        out.append(
            f"  {longer} goes on past the other's end "
            f"({d['events']['a']} vs {d['events']['b']} events)"
        )
    for c in d["changes"]:
        out.append(f"  {c['kind']:<8} {c['path']}: {c['a']!r} -> {c['b']!r}")
    if d["first_turn_apart"] is not None:
        out.append(f"first turn whose state differs: {d['first_turn_apart']}")
    if d["context_before"]:
        out.append("before:")
        out += [_event_line(e) for e in d["context_before"]]
    for side in ("a", "b"):
        if d[f"context_after_{side}"]:
            out.append(f"after, in {side}:")
            out += [_event_line(e) for e in d[f"context_after_{side}"]]
    out.append("random-stream draws before it (stream: count):")
    out += [f"  {k}: {v}" for k, v in d["draw_counts"].items()] or ["  (none)"]
    for side in ("a", "b"):
        taken = ", ".join(f"{k} x{v}" for k, v in d[f"draws_in_{side}"].items()) or "none"
        out.append(f"draws in {side}'s event: {taken}")
    return out


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def _render_variants(d: dict[str, Any]) -> list[str]:
    out = ["different inputs:" if d["inputs"] else "same inputs:"]
    out += [f"  {c['kind']:<8} {c['path']}: {c['a']!r} -> {c['b']!r}" for c in d["inputs"]]
    out.append("outcome (a | b):")
    out += [f"  {k:<12} {v[0]!s} | {v[1]!s}" for k, v in d["outcome"].items()]
    out.append("losses by side (a | b):")
    out += [f"  {sid:<12} {v['losses'][0]} | {v['losses'][1]}" for sid, v in d["sides"].items()]
    out.append("final state by unit (a | b), where it differs:")
    for uid, fields in d["units"].items():
        moved = {k: v for k, v in fields.items() if v[0] != v[1]}
        if moved:
            out.append(
                f"  {uid:<12} " + "; ".join(f"{k} {v[0]} | {v[1]}" for k, v in moved.items())
            )
    out.append("strength by turn, units' own measure summed (a | b; - after a battle ended):")
    for t, sides in d["strength_by_turn"].items():
        cells = "  ".join(f"{s} {_cell(v[0])} | {_cell(v[1])}" for s, v in sides.items())
        out.append(f"  turn {t:>3}: {cells}")
    return out

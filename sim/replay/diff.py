"""Compare two battles: where the same battle parts, or how two variants differ.

Two replays of the same scenario and seed (before and after a code change, or
a fork and its parent) are compared event by event: the first divergent
event, a field-level diff, context, and the draw counts of every random
stream at that point.  Replays of different seeds or scenario variants are
compared by their inputs (scenario diff by field path) and their outcomes.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from engine.comparison.jsondiff import diff
from engine.events import Draw, Event, Snapshot, TurnEnded
from sim.contract import headline
from sim.replay.file import ReplayLike
from sim.replay.stored import upcast_made
from sim.text.grammar import count, plural
from sim.text.values import in_words, is_point, shortened

__all__ = ["SUMMARY_ROWS", "diff_replays", "draw_counts", "render"]

SUMMARY_ROWS = 20
"""Rows per section the text summary prints at most (``--verbose``: all of them)."""
VALUE_WIDTH = 60
"""Characters of one value the text shows at most (a description, a map)."""


def _draws(value: Any, out: dict[str, int], wanted: Collection[str] | None) -> None:
    """Count the :class:`Draw` records in an event's fields, however nested."""
    if isinstance(value, Draw):
        if wanted is None or value.stream in wanted:
            out[value.stream] = max(out.get(value.stream, 0), value.i + 1)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _draws(getattr(value, name), out, wanted)
    elif isinstance(value, dict):
        for v in value.values():
            _draws(v, out, wanted)
    elif isinstance(value, list | tuple):
        for v in value:
            _draws(v, out, wanted)


def _indices(value: Any, out: dict[str, list[int]]) -> None:
    """The index of every :class:`Draw` record in an event's fields, by stream, however nested."""
    if isinstance(value, Draw):
        out.setdefault(value.stream, []).append(value.i)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _indices(getattr(value, name), out)
    elif isinstance(value, dict):
        for v in value.values():
            _indices(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _indices(v, out)


def _unrecorded(event: Event | None, before: dict[str, int]) -> dict[str, list[int]]:
    """The draws of each stream the event skips (stream → indices, streams with none left out):
    each index from the stream's count before it up to its last it does not record. Every
    draw is recorded once, in order (``check-ruleset``'s ``draws-are-the-streams``), so each is
    a draw taken and not logged, in this event or an earlier one."""
    found: dict[str, list[int]] = {}
    if event is not None:
        _indices(event, found)
    gaps = {
        stream: sorted(set(range(before.get(stream, 0), max(taken) + 1)) - set(taken))
        for stream, taken in sorted(found.items())
    }
    return {stream: skipped for stream, skipped in gaps.items() if skipped}


def draw_counts(
    events: Iterator[Event] | list[Event], streams: Collection[str] | None = None
) -> dict[str, int]:
    """Draws taken from each random stream by these events (stream name → count).

    Args:
        streams: only these streams (each counted, 0 when never drawn); default every one.
    """
    out: dict[str, int] = dict.fromkeys(streams, 0) if streams is not None else {}
    for event in events:
        _draws(event, out, streams)
    return dict(sorted(out.items()))


def _brief(event: Event, ids: set[str], sides: set[str]) -> dict[str, Any]:
    """The event's seq, turn, type, and its ``phase``, ``unit`` and ``target`` when it has
    them; its ``side`` when that names a side of the battle (:func:`_side`); without a
    ``unit``, its ``units`` (:func:`_named`: flattop's strike and ship)."""
    data = event.model_dump(mode="json")
    keys = ("seq", "turn", "type", "phase", "unit", "target")
    out: dict[str, Any] = {k: data[k] for k in keys if k in data}
    if (side := _side(data, sides)) is not None:
        out["side"] = side
    if "unit" not in data and (named := _named(data, ids)):
        out["units"] = named
    return out


def _side(data: dict[str, Any] | None, sides: set[str]) -> str | None:
    """The side (its id in the scenario) an event's top-level ``side`` field names, or None:
    becmi's morale check, musket's side_broken, as a musket morale test names its ``unit``."""
    side = None if data is None else data.get("side")
    return side if isinstance(side, str) and side in sides else None


def _first_apart(da: dict[int, str], db: dict[int, str]) -> int | None:
    return next((t for t in sorted(set(da) | set(db)) if da.get(t) != db.get(t)), None)


def _rest(
    events: Iterator[Event], first: Event | None, context: int
) -> tuple[list[Event], dict[int, str], int]:
    """One pass from the divergent event ``first`` to the end, keeping little.

    Returns the next ``context`` events, the turn digests from ``first`` on
    and how many events there were from ``first`` to the end.
    """
    after: list[Event] = []
    digests: dict[int, str] = {}
    count = 0
    for event in [first] if first is not None else []:
        count += 1
        if isinstance(event, TurnEnded):
            digests[event.turn] = event.state_digest
    for event in events:
        count += 1
        if len(after) < context:
            after.append(event)
        if isinstance(event, TurnEnded):
            digests[event.turn] = event.state_digest
    return after, digests, count


def _events(r: ReplayLike, since: int) -> Iterator[Event]:
    """``r``'s events as a file of format ``since`` holds them: without the types that format
    did not have (format 1: ``engine.snapshot``), ``seq`` and ``cause`` renumbered to match
    (a cause naming an event left out is -1), as ``verify`` compares an older format's."""
    left_out: list[int] = []
    for event in r.iter_events():
        if type(event).since_format > since:
            left_out.append(event.seq)
        elif not left_out:
            yield event
        else:
            cause = event.cause
            if cause is not None:
                i = bisect_left(left_out, cause)
                cause = -1 if i < len(left_out) and left_out[i] == cause else cause - i
            yield event.model_copy(update={"seq": event.seq - len(left_out), "cause": cause})


def _own_seqs(r: ReplayLike, since: int, i: int) -> tuple[int, int]:
    """``r``'s own seq of the ``i``-th event as a file of format ``since`` holds it (its
    count of events when ``i`` is past the end), and its count: what :func:`_events`
    renumbered, numbered again as ``r`` numbers it."""
    if r.header.format_version <= since:
        return i, -1  # nothing left out: the caller's count stands
    own, kept, count = None, 0, 0
    for event in r.iter_events():
        count += 1
        if type(event).since_format > since:
            continue
        if kept == i and own is None:
            own = event.seq
        kept += 1
    return (count if own is None else own), count


def _divergence(
    a: ReplayLike, b: ReplayLike, context: int, since: int
) -> tuple[int, Event | None, Event | None, list[Event], Iterator[Event], Iterator[Event]]:
    """Walk both logs in step to the first event that differs (one event of each in memory),
    each as a file of format ``since`` holds it (:func:`_events`)."""
    ia, ib = _events(a, since), _events(b, since)
    before: deque[Event] = deque(maxlen=context or 1)
    i = 0
    while True:
        x, y = next(ia, None), next(ib, None)
        if x is None or y is None or x != y:
            return i, x, y, list(before)[-context:] if context else [], ia, ib
        before.append(x)
        i += 1


def _same_battle(a: ReplayLike, b: ReplayLike, context: int, detail: bool) -> dict[str, Any]:
    since = min(a.header.format_version, b.header.format_version)  # the older file's events
    i, x, y, before, ia, ib = _divergence(a, b, context, since)
    if x is None and y is None:
        return {"mode": "same", "identical": True, "events": i}
    after_a, digests_a, rest_a = _rest(ia, x, context)
    after_b, digests_b, rest_b = _rest(ib, y, context)
    dx = x.model_dump(mode="json") if x is not None else None
    dy = y.model_dump(mode="json") if y is not None else None
    if dx is None or dy is None:
        changes = []
    elif dx["type"] != dy["type"]:
        changes = [{"path": "type", "kind": "changed", "a": dx["type"], "b": dy["type"]}]
    else:
        assert x is not None and y is not None
        changes = [c.as_json() for c in diff(_in_full(x, dx), _in_full(y, dy))]
    first = x if x is not None else y
    assert first is not None
    rows = a.ruleset.units(a.scenario, a.state_at(0))
    ids, sides = {row.id for row in rows}, {row.side for row in rows}
    draws_a = draw_counts([x] if x is not None else [])
    draws_b = draw_counts([y] if y is not None else [])
    streams = None if detail else sorted(set(draws_a) | set(draws_b))
    earlier = (e for e in _events(a, since) if e.seq < i)
    counts = draw_counts(_until(earlier, i), streams)
    if detail:  # every stream drawn before, and those the divergent events draw from (0 too)
        counts = dict(sorted({**dict.fromkeys([*draws_a, *draws_b], 0), **counts}.items()))
    seq_a, count_a = _own_seqs(a, since, i)  # a later format's own numbering (its snapshots)
    seq_b, count_b = _own_seqs(b, since, i)
    return {
        "mode": "same",
        "identical": False,
        "seq": i,
        "seq_in_a": seq_a,
        "seq_in_b": seq_b,
        "turn": first.turn,
        "phase": getattr(first, "phase", None),
        "unit": getattr(first, "unit", None),
        "side": _side(dx if dx is not None else dy, sides),
        "units": _named(dx if dx is not None else dy, ids),
        "subjects": _subjects(a, first),
        "event_a": dx,
        "event_b": dy,
        "changes": changes,
        "context_before": [_brief(e, ids, sides) for e in before],
        "context_after_a": [_brief(e, ids, sides) for e in after_a],
        "context_after_b": [_brief(e, ids, sides) for e in after_b],
        "draw_counts": counts,
        "draw_counts_all": detail,
        "draws_in_a": draws_a,
        "draws_in_b": draws_b,
        "unrecorded_in_a": _unrecorded(x, counts),
        "unrecorded_in_b": _unrecorded(y, counts),
        "upcast_a": upcast_made(a.path, seq_a, x),
        "upcast_b": upcast_made(b.path, seq_b, y),
        "first_turn_apart": _first_apart(digests_a, digests_b),
        "events": {
            "a": i + rest_a if count_a < 0 else count_a,
            "b": i + rest_b if count_b < 0 else count_b,
        },
        **_outcomes(a, b),
    }


def _subjects(r: ReplayLike, event: Event) -> dict[str, list[str]] | None:
    """Who the divergent ``event`` is about in its ruleset's words (its ``subjects`` hook:
    role → unit ids), or None when the ruleset gives none and ``units`` says who."""
    hook = r.ruleset.subjects
    return None if hook is None else hook(r.scenario, event)


def _in_full(model: BaseModel, data: dict[str, Any]) -> dict[str, Any]:
    """``data``, the model as its line holds it, with each field the line leaves out at its
    default (``exclude_if``: musket's ``prisoners`` at 0, flattop's empty ``attack_spoiled``)
    written in at that value, in the fields' order, nested models too: both events have
    the field, so a value that became its default is ``changed  prisoners: 24 -> 0``, not
    a field gone ``missing`` from one of them."""
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if name in data:
            held = data[name]
            nested = isinstance(value, BaseModel) and isinstance(held, dict)
            out[name] = _in_full(value, held) if nested else held
        elif info.exclude_if is not None:
            out[name] = to_jsonable_python(value)
    return {**out, **{k: v for k, v in data.items() if k not in out}}


def _named(data: dict[str, Any] | None, ids: set[str]) -> dict[str, str]:
    """The event's text fields that name a unit of the battle, field → id, in the event's
    order: who it is about, in any ruleset. Its top-level fields (``ship``, ``strike``,
    ``attacker``…), then each unit named only within a field, once, by its dotted path
    (becmi's bout: ``aggressors.members.0.id``; a morale check's ``fled.0``); not within the
    engine's snapshot, which holds every unit."""
    if data is None:
        return {}
    named = {k: v for k, v in data.items() if k != "type" and isinstance(v, str) and v in ids}
    if data.get("type") == Snapshot.model_fields["type"].default:
        return named
    for key, value in data.items():
        if isinstance(value, dict | list):
            for path, text in _texts(value, key):
                if text in ids and text not in named.values():
                    named[path] = text
    return named


def _texts(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every text within ``value``, by its dotted path from ``path`` (list items by index)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _texts(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _texts(v, f"{path}.{i}")


def _outcomes(a: ReplayLike, b: ReplayLike) -> dict[str, Any]:
    """Whether the outcome (winner, reason, turns) and each side's losses changed, and both.

    Keys ``outcome_changed``, ``losses_changed`` and ``outcomes`` (``a`` and ``b``, each
    ``Outcome.as_json()`` with its ``headline``): how a fork ended beside its parent.
    """
    oa = a.ruleset.outcome(a.scenario, a.state_at())
    ob = b.ruleset.outcome(b.scenario, b.state_at())
    return {
        "outcome_changed": (oa.winner, oa.reason, oa.turns) != (ob.winner, ob.reason, ob.turns),
        "losses_changed": oa.losses() != ob.losses(),
        "outcomes": {
            "a": {"headline": headline(a.ruleset, oa), **oa.as_json()},
            "b": {"headline": headline(b.ruleset, ob), **ob.as_json()},
        },
    }


def _until(events: Iterator[Event], seq: int) -> Iterator[Event]:
    """The events before ``seq`` (stops reading there)."""
    for event in events:
        if event.seq >= seq:
            return
        yield event


_ROW_FIXED = ("turn", "id", "name", "side", "side_name", "kind", "strength_unit", "initial")
"""Unit-row columns that never differ between variants of one unit."""


Sums = dict[int, dict[str, dict[str, int | float]]]
"""Turn → side → strength unit → the side's units' strengths summed."""


def _by_turn(r: ReplayLike) -> tuple[Sums, dict[str, dict[str, Any]], Any]:
    """One fold: each side's strength at each turn's end, the last turn's unit rows, the end state.

    Strengths are summed per unit of measure (men; flattop's air factors apart
    from its ships' hits left): a sum of unlike measures means nothing.  The
    end state is the fold's own once it has read every event (``turn_ends``
    shares one state), so the outcome needs no second fold.
    """
    rs, sc = r.ruleset, r.scenario
    axes = rs.space(sc).axes
    strength: Sums = {}
    finals: dict[str, dict[str, Any]] = {}
    end: Any = None
    for turn, state in r.turn_ends():
        end = state
        sums = strength.setdefault(turn, {})
        rows = rs.units(sc, state)
        for row in rows:
            side = sums.setdefault(row.side, {})
            side[row.strength.unit] = side.get(row.strength.unit, 0) + row.strength.value
        finals = {row.id: {"turn": turn, **row.flat(axes)} for row in rows}
    return strength, finals, end


def _in_field_order(data: Any, like: Any) -> Any:
    """``data`` with its mappings' keys in ``like``'s order (the scenario model's fields).

    A header holds its scenario in canonical JSON, keys sorted; a reader
    expects the file's order, ``ruleset`` and ``name`` first.
    """
    if isinstance(data, dict) and isinstance(like, dict):
        keys = [k for k in like if k in data] + [k for k in data if k not in like]
        return {k: _in_field_order(data[k], like.get(k)) for k in keys}
    if isinstance(data, list) and isinstance(like, list):
        return [_in_field_order(x, like[i] if i < len(like) else None) for i, x in enumerate(data)]
    return data


def _scenario_of(r: ReplayLike) -> Any:
    return _in_field_order(r.header.scenario, r.scenario.model_dump(mode="json"))


def _variants(a: ReplayLike, b: ReplayLike) -> dict[str, Any]:
    inputs = [c.as_json() for c in diff(_scenario_of(a), _scenario_of(b))]
    seed = {"path": "seed", "kind": "changed", "a": a.header.seed, "b": b.header.seed}
    if (
        a.header.seed != b.header.seed and seed not in inputs
    ):  # the scenario's own seed, listed once
        inputs.insert(0, seed)
    sa, fa, end_a = _by_turn(a)
    sb, fb, end_b = _by_turn(b)
    oa = a.ruleset.outcome(a.scenario, end_a).as_json()
    ob = b.ruleset.outcome(b.scenario, end_b).as_json()
    units = {}
    for uid in [*fa, *(k for k in fb if k not in fa)]:
        ra, rb = fa.get(uid, {}), fb.get(uid, {})
        keys = [k for k in (*ra, *(k for k in rb if k not in ra)) if k not in _ROW_FIXED]
        units[uid] = {k: [ra.get(k), rb.get(k)] for k in keys}
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
        "strength_by_turn": {t: _strengths(sa.get(t, {}), sb.get(t, {})) for t in turns},
    }


def _strengths(
    a: dict[str, dict[str, int | float]], b: dict[str, dict[str, int | float]]
) -> dict[str, dict[str, list[int | float | None]]]:
    """Side → unit of measure → [a, b] (None where a battle had ended)."""
    out: dict[str, dict[str, list[int | float | None]]] = {}
    for side in sorted(set(a) | set(b)):
        ua, ub = a.get(side, {}), b.get(side, {})
        out[side] = {u: [ua.get(u), ub.get(u)] for u in [*ua, *(k for k in ub if k not in ua)]}
    return out


def diff_replays(
    a: ReplayLike, b: ReplayLike, context: int = 3, *, detail: bool = True
) -> dict[str, Any]:
    """Compare two replays, streaming both; the result is plain JSON data (``diff --json``).

    Args:
        detail: count the draws of every random stream before the divergence
            (``draw_counts_all``); otherwise only of the streams the two
            divergent events draw from, which is all the text summary prints.
    """
    ha, hb = a.header, b.header
    same = (ha.ruleset, ha.seed, ha.scenario) == (hb.ruleset, hb.seed, hb.scenario)
    result = _same_battle(a, b, context, detail) if same else _variants(a, b)
    if same and not result["identical"]:
        result["ruleset_versions"] = {"a": ha.ruleset_version, "b": hb.ruleset_version}
    return {"a": a.path, "b": b.path, **result}


def _event_line(e: dict[str, Any], turn: str = "turn") -> str:
    who = [str(e[k]) for k in ("unit", "target") if e.get(k)]
    if not e.get("unit") and e.get("units"):  # each unit once: flattop's ship is its target
        who = list(dict.fromkeys(e["units"].values()))
    who = [e["side"], *who] if e.get("side") else who  # a side's event: becmi's morale check
    line = f"  seq {e['seq']:>5} {turn} {e['turn']:>3} {e['type']:<24} {' '.join(who)}"
    return line.rstrip()  # an event of no unit (battle_ended, turn_ended) ends at its type


def render(
    d: dict[str, Any],
    *,
    verbose: bool = False,
    turn: str = "turn",
    axes: Sequence[str] = (),
) -> list[str]:
    """Readable text of a :func:`diff_replays` result.

    A bounded summary: at most :data:`SUMMARY_ROWS` rows per section (the
    field changes, the units that differ, the turns), and the draw counts
    of the streams the divergent events draw from only; ``verbose`` prints
    every row and every stream.  Values are in words (:func:`in_words`);
    ``turn`` is the ruleset's word for a turn ("round" in becmi).  Quantities
    (losses, strengths, a unit's whole-number fields) have thousands separators,
    as ``run``'s summary writes them: ``men 1,326 | 1,367``; not a unit's
    position, whose columns are ``axes`` (the battle's space: ``col``, ``row``).
    """
    if d["identical"]:
        return [f"identical: {d['a']} and {d['b']}"]
    if d["mode"] == "same":
        return _render_same(d, verbose, turn)
    return _render_variants(d, verbose, turn, axes)


_ONE = {"changed fields": "changed field", "units differ": "unit differs"}
"""A section's words for one row, where dropping the plural's ``s`` is not it."""


def _bounded(rows: list[str], verbose: bool, what: str) -> list[str]:
    """``rows``, or its first :data:`SUMMARY_ROWS` and a line saying how many more there are
    (``what`` in the plural; one is said in the singular: ``1 more unit differs``)."""
    if verbose or len(rows) <= SUMMARY_ROWS:
        return rows
    more = len(rows) - SUMMARY_ROWS
    if more == 1:
        said = f"1 more {_ONE.get(what, what.removesuffix('s'))} (--verbose or --json lists it)"
    else:
        said = f"{more} more {what} (--verbose or --json lists them)"
    return [*rows[:SUMMARY_ROWS], f"  ... {said}"]


def _value(value: Any) -> str:
    """A value in words on one line, long ones cut (``--json`` has them whole)."""
    return shortened(in_words(value), VALUE_WIDTH)


def _change(c: dict[str, Any]) -> str:
    """One changed field: ``changed  options.fire_hcv: 25 -> 30``; a missing or extra one alone."""
    if c["kind"] == "missing":
        return f"  {'missing':<8} {c['path']} (in a: {_value(c['a'])})"
    if c["kind"] == "extra":
        return f"  {'extra':<8} {c['path']} (in b: {_value(c['b'])})"
    a, b = c["a"], c["b"]
    hexes = is_point(a) and is_point(b)
    if isinstance(a, list) and isinstance(b, list) and a and b and not hexes:
        # a list of values (draws, a route of hexes) changes as one value: shown from its
        # first differing item, so a long shared start does not push the change out of
        # sight; a hex or a position is one value, shown whole: (8, 1) -> (8, 0)
        i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        i = min(len(a), len(b)) if i is None else i
        if i > 0:
            sizes = f"; {count(len(a), 'item')} -> {len(b)}" if len(a) != len(b) else ""
            where = f"{c['path']} from item {i}{sizes}"
            return f"  {c['kind']:<8} {where}: {_value(a[i:])} -> {_value(b[i:])}"
    return f"  {c['kind']:<8} {c['path']}: {_value(a)} -> {_value(b)}"


def _render_same(d: dict[str, Any], verbose: bool, turn: str) -> list[str]:
    where = f"seq {d['seq']}, {turn} {d['turn']}"
    where += f", phase {d['phase']}" if d["phase"] else ""
    where += f", side {d['side']}" if d.get("side") else ""  # becmi's morale check
    if d["unit"]:
        where += f", unit {d['unit']}"
    elif d.get("subjects") is not None:  # the ruleset's words: becmi's aggressor, defender
        where += "".join(f", {role} {_and(ids)}" for role, ids in d["subjects"].items() if ids)
    else:  # a ruleset whose events name their units otherwise (flattop's ship, strike)
        where += "".join(f", {k} {v}" for k, v in d.get("units", {}).items())
    out = [f"same scenario and seed; first divergent event at {where}"]
    versions = d.get("ruleset_versions", {})
    if versions.get("a") != versions.get("b"):  # the rules, not a desync, may part them
        out.append(
            f"  a was fought under rules v{versions['a']}, b under v{versions['b']}: "
            "the rules may be what parts them"
        )
    if d["event_a"] is None or d["event_b"] is None:
        longer = "b" if d["event_a"] is None else "a"
        out.append(
            f"  {longer} goes on past the other's end "
            f"({d['events']['a']} vs {d['events']['b']} events)"
        )
    out += _bounded([_change(c) for c in d["changes"]], verbose, "changed fields")
    out += _upcast_lines(d)
    if d["first_turn_apart"] is not None:
        out.append(f"first {turn} whose state differs: {d['first_turn_apart']}")
    if d["context_before"]:
        out.append("before:")
        out += [_event_line(e, turn) for e in d["context_before"]]
    for side in ("a", "b"):
        if d[f"context_after_{side}"]:
            out.append(f"after, in {side}:")
            out += [_event_line(e, turn) for e in d[f"context_after_{side}"]]
    out += _draws_section(d, verbose)
    for side in ("a", "b"):
        skipped = d.get(f"unrecorded_in_{side}", {})
        taken = ", ".join(
            f"{k} x{v}{_skipped(skipped.get(k))}" for k, v in d[f"draws_in_{side}"].items()
        )
        out.append(f"draws in {side}'s event: {taken or 'none'}")
    return out + _ending(d)


def _and(ids: list[str]) -> str:
    """``snaga``, ``snaga and grub``, ``snaga, grub and ugluk``: a role's units in a line."""
    return ids[0] if len(ids) == 1 else f"{', '.join(ids[:-1])} and {ids[-1]}"


def _upcast_lines(d: dict[str, Any]) -> list[str]:
    """A line for each divergent event read from an older schema version whose upcasters made
    a field that changed: the difference there may be theirs, not the rules'."""
    out = []
    changed = [c["path"] for c in d["changes"]]
    for side in ("a", "b"):
        up, event = d.get(f"upcast_{side}"), d[f"event_{side}"]
        if up is None or event is None:
            continue
        made = [m for m in up["fields"] if any(_overlap(m, p) for p in changed)]
        if made:
            out.append(
                f"{side}'s event was recorded at schema version {up['schema_version']} and "
                f"upcast to {event['schema_version']} on reading, its upcasters making "
                f"{', '.join(made)}: a difference there may be theirs"
            )
    return out


def _overlap(a: str, b: str) -> bool:
    """One dotted path is the other or holds it."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _skipped(indices: list[int] | None) -> str:
    """`` (index 0 drawn, not recorded)`` after a stream's count, when the event skips some."""
    if not indices:
        return ""
    which = "index" if len(indices) == 1 else "indices"
    which += " " + ", ".join(map(str, indices))
    return f" ({which} drawn, not recorded)"


def _ending(d: dict[str, Any]) -> list[str]:
    """Two lines: whether the outcome changed (both headlines when it did), and the losses.

    ``outcome unchanged: Union wins after 4 turns — …`` or ``outcome changed: A -> B``;
    ``losses unchanged`` or ``losses changed: usa men 824 -> 700; …`` (each loss that differs).
    """
    oa, ob = d["outcomes"]["a"], d["outcomes"]["b"]
    if d["outcome_changed"]:
        lines = [f"outcome changed: {oa['headline']} -> {ob['headline']}"]
    else:
        lines = [f"outcome unchanged: {oa['headline']}"]
    if not d["losses_changed"]:
        return [*lines, "losses unchanged"]
    moved = []
    for sid in [*oa["sides"], *(k for k in ob["sides"] if k not in oa["sides"])]:
        la = oa["sides"].get(sid, {}).get("losses", {})
        lb = ob["sides"].get(sid, {}).get("losses", {})
        for name in [*la, *(k for k in lb if k not in la)]:
            if la.get(name) != lb.get(name):
                moved.append(f"{sid} {name} {_amount(la.get(name))} -> {_amount(lb.get(name))}")
    return [*lines, f"losses changed: {'; '.join(moved)}"]


def _draws_section(d: dict[str, Any], verbose: bool) -> list[str]:
    if verbose and d["draw_counts_all"]:
        out = ["random-stream draws before it (stream: count):"]
        counts = d["draw_counts"]
    else:
        out = ["random-stream draws before it, streams the divergent events draw from:"]
        wanted = set(d["draws_in_a"]) | set(d["draws_in_b"])
        counts = {k: v for k, v in d["draw_counts"].items() if k in wanted}
    return out + ([f"  {k}: {v}" for k, v in counts.items()] or ["  (none)"])


def _cell(value: Any) -> str:
    return "-" if value is None else _value(value)


def _amount(value: Any) -> str:
    """A quantity's cell: a whole number with thousands separators (``1,326``), as ``run``'s
    summary writes men; anything else as :func:`_cell` writes it."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return _cell(value)


def _outcome_cell(key: str, value: Any) -> str:
    if value is None and key in ("winner", "winner_name"):
        return "draw"
    return _cell(value)


def _losses_cells(la: Any, lb: Any) -> str:
    """``men 394 | 425, guns 0 | 0``: each kind of a side's losses, a | b (``-`` where a battle
    has no such kind or side), every kind in full, so none that differs is cut from sight."""
    if not isinstance(la, dict | None) or not isinstance(lb, dict | None):
        return f"{_amount(la)} | {_amount(lb)}"
    la, lb = la or {}, lb or {}  # a side one battle has not: each kind "a | -"
    kinds = [*la, *(k for k in lb if k not in la)]
    return ", ".join(f"{k} {_amount(la.get(k))} | {_amount(lb.get(k))}" for k in kinds)


def _strength_cells(sides: dict[str, dict[str, list[Any]]]) -> str:
    """``csa men 924 | 810; usa men 1,236 | 952`` (each side's measures, a | b)."""
    return "; ".join(
        f"{side} "
        + ", ".join(f"{unit} {_amount(v[0])} | {_amount(v[1])}" for unit, v in by.items())
        for side, by in sides.items()
    )


def _unit_cells(moved: dict[str, list[Any]], axes: Sequence[str]) -> str:
    """``strength 1,120 | 950; col 4 | 3``: a unit's fields that differ, a | b, its position
    (the ``axes`` columns) as it is, its other whole numbers as quantities."""
    cell = {k: _cell if k in axes else _amount for k in moved}
    return "; ".join(f"{k} {cell[k](v[0])} | {cell[k](v[1])}" for k, v in moved.items())


def _render_variants(d: dict[str, Any], verbose: bool, turn: str, axes: Sequence[str]) -> list[str]:
    out = ["different inputs:" if d["inputs"] else "same inputs:"]
    changes = [dict(c) for c in d["inputs"]]
    seeds = [c for c in changes if c["path"] == "seed"]
    if len(seeds) == 2:  # the seeds fought with, then the scenario files' own (their default)
        seeds[0]["path"], seeds[1]["path"] = "seed (fought with)", "seed (the scenario's default)"
    out += _bounded([_change(c) for c in changes], verbose, "input changes")
    out.append("outcome (a | b):")
    out += [
        f"  {k:<12} {_outcome_cell(k, v[0])} | {_outcome_cell(k, v[1])}"
        for k, v in d["outcome"].items()
    ]
    out.append("losses by side (a | b):")
    out += [f"  {sid:<12} {_losses_cells(*v['losses'])}" for sid, v in d["sides"].items()]
    out.append("final state by unit (a | b), where it differs:")
    units = []
    for uid, fields in d["units"].items():
        moved = {k: v for k, v in fields.items() if v[0] != v[1]}
        if moved:
            units.append(f"  {uid:<12} {_unit_cells(moved, axes)}")
    out += _bounded(units, verbose, "units differ")
    out.append(f"strength by {turn}, units' own measures summed (a | b; - after a battle ended):")
    turns = list(d["strength_by_turn"].items())
    shown = turns if verbose else _spread(turns, SUMMARY_ROWS)
    for t, sides in shown:
        out.append(f"  {turn} {t:>3}: {_strength_cells(sides)}")
    if len(shown) < len(turns):
        out.append(
            f"  ({len(shown)} of {len(turns)} {plural(turn)}, evenly spaced; --verbose lists all)"
        )
    return out


def _spread(items: list[Any], most: int) -> list[Any]:
    """At most ``most`` items, evenly spaced, the first and the last always among them."""
    if len(items) <= most:
        return items
    step = (len(items) - 1) / (most - 1)
    return [items[round(k * step)] for k in range(most)]

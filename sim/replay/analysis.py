"""Reading a replay in depth: narrative, rows for notebooks, causes, invariants.

Everything here works from the log alone (a fold of its events), never by
re-simulating, so an old battle stays readable after the rules change.

>>> from sim import api
>>> from sim.replay import analysis
>>> r = api.open_replay("replays/stone_wall-s1862.jsonl")
>>> rows = analysis.unit_rows(r)          # one row per unit per turn  # doctest: +SKIP
>>> import pandas as pd; pd.DataFrame(rows)                           # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.events import Draw, Event, Override, Snapshot, TurnEnded
from sim.contract import HookError, Reading
from sim.replay.file import ReplayLike
from sim.replay.follow import fault
from sim.scenario.values import ValueProblem, parse_value

__all__ = [
    "counterfactual_tag",
    "event_rows",
    "involves",
    "measures_by_turn",
    "narrative",
    "narrative_line",
    "plain",
    "side_strength",
    "unit_rows",
    "why",
]


def involves(event: Event, unit: str) -> bool:
    """True when a text field of the event names ``unit``: at its top level (unit, target,
    side...) or within one (a becmi bout's wrestlers, the combatants a morale check put to
    flight). A draw's stream name and the engine's snapshot of the state are not read."""
    if isinstance(event, Snapshot):
        return False
    return any(
        _names(getattr(event, key), unit)
        for key in type(event).model_fields
        if key not in ("type", "phase")
    )


def _names(value: Any, unit: str) -> bool:
    """True when ``value`` is the text ``unit``, or holds it in a field, item or mapping value."""
    if isinstance(value, str):
        return value == unit
    if isinstance(value, Draw):
        return False
    if isinstance(value, BaseModel):
        return any(_names(getattr(value, key), unit) for key in type(value).model_fields)
    if isinstance(value, dict):
        return any(_names(v, unit) for v in value.values())
    if isinstance(value, list | tuple | set | frozenset):
        return any(_names(v, unit) for v in value)
    return False


UNTOLD = (TurnEnded.model_fields["type"].default, Snapshot.model_fields["type"].default)
"""The engine's bookkeeping, which the narrative never tells (a turn's end, a snapshot)."""


def untold(t: str, registered: Sequence[str]) -> str | None:
    """Why ``--type t`` would select nothing where the file holds many: it names only the
    engine's own types (:data:`UNTOLD`), which the narrative never tells; else None."""
    found = [u for u in registered if t == u or u.endswith("." + t)]
    if not found or any(u not in UNTOLD for u in found):
        return None
    return (
        f"{found[0]} is the engine's own record (no rule decided it, nothing happened on "
        "the field), which the narrative never tells"
    )


def _type_matches(event: Event, types: Sequence[str]) -> bool:
    return not types or any(event.type == t or event.type.endswith("." + t) for t in types)


def unit_id(loaded: ReplayLike, unit: str) -> str:
    """The id of the unit ``unit`` names: its id, or its name as ``show`` prints it
    (case aside).

    Raises:
        ValueProblem: no unit has that id or name (the ids, or the one meant, said), or
            several bear that name.
    """
    from sim.text.suggest import did_you_mean, known  # noqa: PLC0415 - only to refuse

    rows = loaded.ruleset.units(loaded.scenario, loaded.state_at(0))
    ids = [r.id for r in rows]
    if unit in ids:
        return unit
    named = [r.id for r in rows if r.name.casefold() == str(unit).casefold()]
    if len(named) == 1:
        return named[0]
    if named:  # "no unit" said of a name two units bear
        raise ValueProblem(
            f"{len(named)} units are named {unit!r} ({', '.join(named)}): name one by its id"
        )
    hint = did_you_mean(str(unit), ids) or f"; units: {known(ids, limit=40)}"
    raise ValueProblem(f"no unit {unit!r} in this battle{hint}")


def narrative(
    loaded: ReplayLike,
    *,
    turn: int | None = None,
    unit: str | None = None,
    types: Sequence[str] = (),
) -> Iterator[tuple[Event, str]]:
    """Yield ``(event, line)`` of the readable narrative, filtered.

    Args:
        turn: only events of this turn.
        unit: only events naming this unit (as actor, target or side; within a field too).
        types: only these event types (``musket.fired`` or just ``fired``).

    With ``turn``, the fold starts from the last snapshot before that turn. One type may be
    given as a string (``types="fired"``); :func:`sim.api.narrative` also refuses a unit or
    type the battle does not have, which here select nothing.
    """
    if isinstance(types, str):
        types = (types,)
    folding = loaded.fold() if turn is None else loaded.fold_before_turn(turn)
    for event, state in folding:
        if turn is not None and event.turn != turn:
            if event.turn > turn:
                return
            continue
        if unit is not None and not involves(event, unit):
            continue
        if not _type_matches(event, types):
            continue
        line = _line(loaded, state, event)
        if line is not None:
            yield event, line


def narrative_line(loaded: ReplayLike, state: Any, event: Event) -> str | None:
    """The narrative line of ``event`` given the state before it (forks and overrides told too)."""
    return _line(loaded, state, event)


def _line(loaded: ReplayLike, state: Any, event: Event) -> str | None:
    """The ruleset's narrative line, with the engine's own events and forks told too."""
    header_fork = loaded.header.fork
    if isinstance(event, Override):
        turn = loaded.ruleset.turn_name.capitalize()
        return f"{turn} {event.turn} — counterfactual: {event.path} set to {plain(event.value)}"
    if isinstance(event, TurnEnded | Snapshot):
        return None  # the engine's bookkeeping: nothing happened on the field
    rs = loaded.ruleset
    # where, as the reader names a line: a plugin's bug, or a forged line the chain allows
    at = f"{Path(str(loaded.path)).name}:{event.seq + 2} (seq {event.seq})"
    try:
        line = rs.narrate(loaded.scenario, state, event)
    except Exception as exc:  # a plugin's narrate may raise anything: one line naming it
        found = fault(rs, loaded.scenario, loaded.path, event, exc)
        if found is not None:  # the line's (or an earlier line's) fault: a forgery
            raise found from None
        raise HookError.raised(rs.name, "narrate", exc, at, rs.narrate) from exc
    if line is not None and not isinstance(line, str):
        raise HookError(
            f"ruleset {rs.name!r}: narrate returned {type(line).__name__} at {at}, "
            "not a line of text or None"
        )
    fork = header_fork.chain().get(event.seq) if header_fork is not None else None
    if line is not None and fork is not None and fork.event:
        line += counterfactual_tag(fork.event)
    return line


def counterfactual_tag(changed: dict[str, Any]) -> str:
    """What a forked event's narrative line ends with: `` [counterfactual: a=x, b=y]``."""
    return f" [counterfactual: {', '.join(f'{k}={plain(v)}' for k, v in sorted(changed.items()))}]"


_QUOTED = frozenset(",=[]{}#'\"")
"""Characters that would make a bare text ambiguous in ``[counterfactual: a=x, b=y]``."""


def plain(value: Any) -> str:
    """A fork's value as ``--set`` takes it: ``true``, ``null``, ``2``, ``routed``, ``[5, 9]``.

    Text is written bare unless ``--set`` would read it as something else
    (``'1861'``, ``'true'``, ``''``) or it holds a separator: then quoted, as YAML
    quotes (``'`` doubled inside).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if _bare(value) else "'" + value.replace("'", "''") + "'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(plain(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {plain(v)}" for k, v in value.items()) + "}"
    return str(value)


def _bare(text: str) -> bool:
    if not text or text != text.strip() or any(c in _QUOTED for c in text):
        return False
    try:
        return bool(parse_value(text) == text)
    except ValueProblem:
        return False


def _record(value: Any) -> bool:
    """An object, or a draw as format 4 writes it (``[stream, i, u]``)."""
    return isinstance(value, dict) or (
        isinstance(value, list) and [type(v) for v in value] == [str, int, float]
    )


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list) and value and all(map(_record, value)):
        out[prefix] = len(value)  # lists of records (draws) become their count
    else:
        out[prefix] = list(value) if isinstance(value, tuple) else value


def event_rows(loaded: ReplayLike) -> list[dict[str, Any]]:
    """One flat row per event (nested fields as dotted columns), pandas-ready."""
    rows = []
    for event in loaded.iter_events():
        row: dict[str, Any] = {}
        _flat("", event.model_dump(mode="json"), row)
        rows.append(row)
    return rows


def unit_rows(loaded: ReplayLike) -> list[dict[str, Any]]:
    """One row per unit per turn (turn 0 is the start), from the ruleset's unit rows.

    Columns: ``turn``, ``id``, ``name``, ``side``, ``side_name``, ``kind``,
    ``strength`` (value), ``strength_unit``, ``initial``, ``status`` (words
    joined by commas), the ruleset's details, then one column per axis of
    its space (musket ``col``/``row``, becmi ``x``/``y``).
    """
    rs, sc = loaded.ruleset, loaded.scenario
    axes = rs.space(sc).axes
    return [
        {"turn": turn, **row.flat(axes)}
        for turn, state in loaded.turn_ends()
        for row in rs.units(sc, state)
    ]


def side_strength(loaded: ReplayLike) -> dict[int, dict[str, dict[str, int | float]]]:
    """Each side's units' strength summed in each unit of measure, at the end of each turn
    (turn 0 is the start): ``{turn: {side: {"men": 4179, "guns": 8}}}``, as ``diff`` sums
    them; a sum of men and guns together would mean nothing. Every unit counts, on the field
    or not (its unit row's strength)."""
    rs, sc = loaded.ruleset, loaded.scenario
    out: dict[int, dict[str, dict[str, int | float]]] = {}
    for turn, state in loaded.turn_ends():
        sums = out.setdefault(turn, {})
        for row in rs.units(sc, state):
            side = sums.setdefault(row.side, {})
            side[row.strength.unit] = side.get(row.strength.unit, 0) + row.strength.value
    return out


def measures_by_turn(loaded: ReplayLike) -> dict[int, list[Reading]]:
    """The ruleset's chart measures (:class:`~sim.contract.Reading`) at the end of each turn."""
    rs, sc = loaded.ruleset, loaded.scenario
    return {turn: rs.measures(sc, state) for turn, state in loaded.turn_ends()}


def _untold(loaded: ReplayLike, event: Event) -> str:
    """A line for an event the narrative does not tell: a turn's end, a snapshot."""
    if event.type == "engine.turn_ended":
        return f"the end of {loaded.ruleset.turn_name} {event.turn} ({event.type})"
    if event.type == "engine.snapshot":
        return (
            f"a snapshot of the state after {loaded.ruleset.turn_name} {event.turn} ({event.type})"
        )
    return f"{event.type} (seq {event.seq})"


def why(loaded: ReplayLike, seq: int) -> list[tuple[Event, str]]:
    """The chain of causes of event ``seq``, root first, each with its narrative line.

    Every link must name an earlier event, so the chain ends at a first cause
    (an event with none) after at most ``seq`` steps.  The lines are told
    from one fold, from the last snapshot before the first cause to ``seq``.

    Raises:
        IndexError: no event ``seq`` in the replay, or a cause that is not an
            earlier event (a damaged replay: it would never end).
    """
    chain = loaded.cause_chain(seq)
    wanted = set(chain)
    found: dict[int, tuple[Event, str]] = {}
    for event, state in loaded.fold_near(chain[-1]):
        if event.seq in wanted:
            line = _line(loaded, state, event) or _untold(loaded, event)
            found[event.seq] = (event, line)
        if event.seq == seq:
            break
    return [found[s] for s in reversed(chain)]

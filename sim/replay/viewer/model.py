"""The data a viewer page embeds for one battle, read through the ruleset contract alone.

One fold of the log gives everything: the narrative line of each event (state
before it), the rows of every unit (:class:`~sim.contract.registry.UnitRow`) after it,
and the chart readings (:class:`~sim.contract.registry.Reading`) at the end of each turn.
A row is stored whole at the start and at the end of every turn (a keyframe);
between keyframes each event carries only the rows it changed, so the page
rebuilds any moment from the keyframe before it plus one turn of changes.

The unit table shows a row's details as the ruleset's ``shown_details`` gives them
(becmi: no cover kind beside no cover), as ``battlesim show``'s table does.  The rows
keep every detail; where the shown details differ from a row's own they are stored
beside it, under ``shown`` in the keyframe or the event record (``[unit index,
details]`` pairs), so a ruleset without the hook gets the same data as before.

A battle with more than :data:`ROW_BUDGET` unit rows to compute (units x
events) gets keyframes only: its map and table change at turn ends, while the
narrative still steps event by event.  The shipped battles are all far below it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.events import Event
from engine.safety.text import escape, one_line
from sim.contract import Engagement, Reading, UnitRow, headline
from sim.replay.analysis import counterfactual_tag, narrative_line
from sim.replay.file import ReplayLike
from sim.replay.header import file_label
from sim.replay.parent import ParentOutcome, parent_outcome
from sim.replay.viewer.spool import Spool, dumps
from sim.text.grammar import one_point

__all__ = [
    "CHART_TURNS",
    "ROW_BUDGET",
    "SIDE_COLOURS",
    "Chart",
    "Series",
    "ViewData",
    "battle_view",
    "row_data",
]

ROW_BUDGET = 500_000
"""Unit rows (units x events) computed per event at most; above it, per turn only."""

CHART_TURNS = 200
"""Turn ends a chart keeps at most: a longer battle's charts read every k-th turn's end
(and the last), so the charts held while the page is built stay small however long it is."""

SIDE_COLOURS = ("#1f5fa8", "#c0392b", "#2e8b57", "#8a2be2", "#d2691e", "#008b8b")
"""Side colours in the order sides first appear (CSS ``--side-N``)."""

_SKIP = frozenset({"type", "phase", "h"})
_ENDINGS = ("battle_ended", "side_broken")


def _escaped(value: Any) -> Any:
    """``value`` with every string in it (keys too) passed through :func:`one_line`.

    A name, a status word or a narrative line comes from a scenario or a plugin: a
    bidirectional control in it would reorder the page's text around it ("28th
    Massachusetts\u202e" makes a narrative line read backwards) and a zero-width
    character would make two names look alike.  The page shows them as ``\\uNNNN``,
    as ``battlesim show`` prints them; the viewer's data is escaped here, once, as it
    is built, and the page's HTML and script show what it holds.
    """
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_escaped(v) for v in value]
    return value


def row_data(row: UnitRow) -> dict[str, Any]:
    """What the page keeps of a unit row that can change: position, strength, status, details."""
    out: dict[str, Any] = {
        "pos": list(row.position) if row.position is not None else None,
        "str": row.strength.value,
        "status": [one_line(word) for word in row.status],
        "details": _escaped(row.details) if row.details else row.details,
    }
    if row.route:
        out["route"] = [list(p) for p in row.route]
    if row.facing is not None:
        out["facing"] = row.facing
    return out


Chart = tuple[str, str, str]
"""A chart's key: (scope, measure name, unit)."""


@dataclass
class Series:
    """Chart readings by (scope, measure, unit): per subject, one value per turn end.

    A measure whose readings come in more than one unit (musket's unit ``strength`` is
    men for a regiment and guns for a battery) is one chart per unit: a line of guns
    drawn against an axis of men would read as a handful of men.
    """

    turns: list[int] = field(default_factory=list)
    every: int = 1
    """Turn ends read: every ``every``-th (and the first and last); 1 below :data:`CHART_TURNS`."""
    names: dict[tuple[str, str], str] = field(default_factory=dict)
    values: dict[Chart, dict[str, list[float | None]]] = field(default_factory=dict)
    """(scope, measure name, unit) → subject → value at each of ``turns``."""

    def add(self, turn: int, readings: Iterable[Reading]) -> None:
        """Record the readings at the end of ``turn``."""
        k = len(self.turns)
        self.turns.append(turn)
        for r in readings:
            key = (r.scope, r.measure.name, r.measure.unit)
            self.names.setdefault((r.scope, r.subject), one_line(r.name))
            line = self.values.setdefault(key, {}).setdefault(r.subject, [])
            line.extend([None] * (k - len(line)))
            line.append(float(r.measure.value))

    def charts(self) -> list[Chart]:
        """The charts in the order their measures were first read, a measure's units together."""
        order: dict[tuple[str, str], int] = {}
        for k, (scope, name, _) in enumerate(self.values):
            order.setdefault((scope, name), k)
        return sorted(self.values, key=lambda c: order[c[0], c[1]])

    def split(self, chart: Chart) -> bool:
        """Whether the chart's measure is read in other units too (a chart for each)."""
        return sum(1 for c in self.values if c[:2] == chart[:2]) > 1


ShownDetails = Callable[[UnitRow], dict[str, Any]]
"""``Ruleset.shown_details``: a unit row's details as a table shows them."""


def _shown(row: UnitRow, shown_details: ShownDetails) -> dict[str, Any] | None:
    """The row's details as the table shows them, when they differ from its own (else None)."""
    shown = shown_details(row)
    return None if shown == row.details else _escaped(shown)


@dataclass
class _Fold:
    """The running fold: rows now, keyframes, changes per event, first status words."""

    index: dict[str, int]
    rows: list[dict[str, Any]]
    info: list[dict[str, Any]]
    shown_details: ShownDetails
    shown: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Unit index → its details as the table shows them now, where they differ from the row's."""
    keyframes: Spool = field(default_factory=Spool)
    seen: set[tuple[int, str]] = field(default_factory=set)

    def start(self, first: list[UnitRow]) -> None:
        """Take the rows at the start (the first keyframe's)."""
        for i, row in enumerate(first):
            shown = _shown(row, self.shown_details)
            if shown is not None:
                self.shown[i] = shown

    def refresh(
        self, fresh: list[UnitRow]
    ) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, dict[str, Any]]]]:
        """Take fresh rows; return the ones that changed as (unit index, row), and the
        shown details of those whose shown details differ from their own."""
        changed, shown = [], []
        for row in fresh:
            i = self.index[row.id]
            data = row_data(row)
            if data != self.rows[i]:
                self.rows[i] = data
                changed.append((i, data))
                details = _shown(row, self.shown_details)
                if details is None:
                    self.shown.pop(i, None)
                else:
                    self.shown[i] = details
                    shown.append((i, details))
        return changed, shown

    def keyframe(self, at: int) -> None:
        """Store every row as the state after ``at`` events (and their shown details)."""
        frame: dict[str, Any] = {"at": at, "rows": self.rows}
        if self.shown:
            frame["shown"] = sorted(self.shown.items())
        self.keyframes.add(frame)


def _involved(event: Event, index: dict[str, int]) -> list[int]:
    """Units the event names in a top-level field (actor, target, ship, strike...).

    Read from the fields' values as they are (a nested model or a mapping
    names no unit at the top level, as in ``model_dump``), never dumped.
    """
    found = set()
    extra = event.__pydantic_extra__
    fields = event.__dict__.items() if not extra else [*event.__dict__.items(), *extra.items()]
    for key, value in fields:
        if key in _SKIP:
            continue
        if type(value) is str:
            if value in index:
                found.add(index[value])
        elif isinstance(value, list | tuple):
            found.update(index[v] for v in value if isinstance(v, str) and v in index)
        elif isinstance(value, str) and value in index:
            found.add(index[value])
    return sorted(found)


def _shots(engagements: list[Engagement], index: dict[str, int]) -> list[list[Any]]:
    """The event's engagements as ``[actor index, target index, kind, result]`` (the page's)."""
    return [
        [index[e.actor], index[e.target], e.kind, one_line(e.result)]
        for e in engagements
        if e.actor in index and e.target in index
    ]


def _key(
    event: Event,
    changed: list[tuple[int, dict[str, Any]]],
    fold: _Fold,
    names: list[str],
    turn_word: str | None = None,
) -> str | None:
    """Why an event is a key event: a unit's first time in a status, leaving, or the end.

    ``turn_word``: the rows are read at turn ends only (a large battle), so a status is
    found at the end of the turn it began in, not at its event: said so ("by the end of
    turn 3: …"), as the last event of the turn holds it."""
    words = []
    for i, row in changed:
        for word in row["status"]:
            if (i, word) not in fold.seen:
                fold.seen.add((i, word))
                words.append(f"{names[i]}: {word}")
    if words and turn_word is not None:
        words[0] = f"by the end of {turn_word} {event.turn}: {words[0]}"
    if event.type.endswith(_ENDINGS):
        words.append(event.type.rsplit(".", 1)[-1].replace("_", " "))
    return "; ".join(words) or None


def _unit_info(rows: list[UnitRow], sides: dict[str, int]) -> list[dict[str, Any]]:
    return [
        {
            "id": r.id,
            "name": one_line(r.name),
            "label": r.id if len(r.id) <= 8 else r.id[:7] + "…",
            "short": r.id if len(r.id) <= 4 else r.id[:3] + "…",
            "side": r.side,
            "sidex": sides[r.side],
            "side_name": one_line(r.side_name),
            "kind": one_line(r.kind),
            "initial": _escaped(r.initial.model_dump()),
        }
        for r in rows
    ]


def _fork(loaded: ReplayLike, walk: _Walk, parent: ParentOutcome | None) -> dict[str, Any] | None:
    """The "what if" of a forked battle: each changed event, named, with its changes, and
    how its parent ended (``parent_outcome``: its headline, or ``parent_note``, why not)."""
    fork = loaded.header.fork
    if fork is None or parent is None:
        return None
    changes = []
    for seq, f in sorted(fork.chain().items()):
        event = walk.forked.get(seq)
        line = walk.lines.get(seq)
        if line is not None and f.event:  # the change is listed beside the line: said once
            line = line.removesuffix(counterfactual_tag(f.event))
        changes.append(
            {
                "seq": seq,
                "type": event.type if event is not None else None,
                "turn": event.turn if event is not None else None,
                "line": line,
                "event": f.event,
                "state": f.state,
            }
        )
    return {
        "parent": one_line(fork.parent),
        "changes": _escaped(changes),
        "parent_outcome": None if parent.headline is None else one_line(parent.headline),
        "parent_note": None if parent.note is None else one_line(parent.note),
    }


_LISTS = ("keyframes", "events", "detail_json")
"""The large lists of the page's data, kept in spools, in the order the page embeds them."""


@dataclass(frozen=True)
class ViewData:
    """One battle as the page shows it: the embedded data, chart series, first and last rows.

    The small parts of the data (``meta``, ``space``, ``sides``, ``units``)
    are in ``head``; the lists that grow with the battle (``keyframes``,
    ``events``, ``detail_json``) in compressed spools.  :attr:`data` gives
    the whole as plain JSON data (for tests and small battles);
    :meth:`json_chunks` streams its JSON text to the page.
    """

    head: dict[str, Any]
    lists: dict[str, Spool]
    series: Series
    first: list[UnitRow]
    last: list[UnitRow]
    keys: list[tuple[int, dict[str, Any]]]
    """The key events: (index in ``events``, the event's record)."""

    @property
    def data(self) -> dict[str, Any]:
        """Plain JSON data, embedded in the page (``viewer.js`` reads it); built on each call."""
        return {**self.head, **{k: list(self.lists[k].items()) for k in _LISTS}}

    @property
    def meta(self) -> dict[str, Any]:
        """The battle's title, outcome, event count and more (``data["meta"]``)."""
        meta: dict[str, Any] = self.head["meta"]
        return meta

    def events(self) -> Iterator[dict[str, Any]]:
        """The page's record of each event, in order (``data["events"]``)."""
        return self.lists["events"].items()

    def json_chunks(self) -> Iterator[str]:
        """The JSON text of :attr:`data` in pieces (``json.dumps``'s bytes, compact)."""
        yield "{"
        for i, (key, value) in enumerate(self.head.items()):
            yield f"{',' if i else ''}{dumps(key)}:{dumps(value)}"
        for key in _LISTS:
            yield f",{dumps(key)}:"
            yield from self.lists[key].chunks()
        yield "}"


Step = tuple[Event, str | None, Any, Event | None]


def _steps(loaded: ReplayLike, state: Any) -> Iterator[Step]:
    """Each event with its narrative line (told from the state before it), the state after
    it and the next event (None after the last): one event of look-ahead, never more."""
    previous: tuple[Event, str | None] | None = None
    for event, before in loaded.fold(state=state):
        if previous is not None:
            yield *previous, before, event  # the shared state, now past the previous event
        line = narrative_line(loaded, before, event)
        previous = event, None if line is None else one_line(line)
    if previous is not None:
        yield *previous, state, None


@dataclass
class _Walk:
    """What one pass over the events collects."""

    events: Spool = field(default_factory=Spool)
    details: Spool = field(default_factory=Spool)
    keys: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """The key events: (index, record)."""
    lines: dict[int, str | None] = field(default_factory=dict)
    """Narrative lines of the forked events (a fork's banner names them)."""
    forked: dict[int, Event] = field(default_factory=dict)
    """The events a fork changed, by seq."""


def _detail(event: Event) -> str:
    """The event's JSON for the Details panel, any string in it :func:`_escaped` (a fork's
    value, a plugin's text); the JSON as the replay's model dumps it when none needs it."""
    text = event.model_dump_json()
    if escape(text) == text:  # the common case: nothing to show escaped
        return text
    return dumps(_escaped(json.loads(text)))


def _walk(loaded: ReplayLike, state: Any, fold: _Fold, series: Series, per_event: bool) -> _Walk:
    rs, sc = loaded.ruleset, loaded.scenario
    forks = loaded.header.fork.chain() if loaded.header.fork is not None else {}
    walk = _Walk()
    names = [row["name"] for row in fold.info]
    for i, (event, line, after, following) in enumerate(_steps(loaded, state)):
        if event.seq in forks:
            walk.lines[event.seq], walk.forked[event.seq] = line, event
        turn_end = following is None or following.turn != event.turn
        fresh = rs.units(sc, after) if per_event or turn_end else []
        changed, shown = fold.refresh(fresh)
        record = {
            "seq": event.seq,
            "turn": event.turn,
            "time": event.time,
            "type": event.type,
            "line": line,
            "cause": event.cause,
            "units": _involved(event, fold.index),
            "delta": [] if turn_end else changed,
            "key": _key(event, changed, fold, names, None if per_event else rs.turn_name),
        }
        if shown and not turn_end:  # at a turn's end the keyframe holds them
            record["shown"] = shown
        shots = _shots(rs.engagements(sc, event), fold.index)
        if shots:
            record["shots"] = shots
        if record["key"]:
            walk.keys.append((i, record))
        walk.events.add(record)
        walk.details.add(_detail(event))
        if turn_end:
            fold.keyframe(i + 1)
            if following is None or event.turn % series.every == 0:
                series.add(event.turn, rs.measures(sc, after))
    return walk


def _meta(
    loaded: ReplayLike,
    state: Any,
    walk: _Walk,
    view: tuple[bool, int],
    parent: ParentOutcome | None,
) -> dict[str, Any]:
    """The battle's title, outcome and more; ``replay`` is the file's name, not its path
    (as a fork's header names its parent): a page posted elsewhere tells no local folder,
    and the same replay gives the same page however its path was typed."""
    rs, header = loaded.ruleset, loaded.header
    per_event, every = view
    outcome = rs.outcome(loaded.scenario, state)
    return {
        "title": one_line(loaded.scenario.name),
        "ruleset": header.ruleset,
        "seed": header.seed,
        "replay": one_line(file_label(Path(str(loaded.path)).name)),
        "events": walk.events.count,
        "turn_name": rs.turn_name,
        "headline": one_line(headline(rs, outcome, reason=False)),
        "reason": one_line(one_point(outcome.reason)),  # shown: "Allied 1 point"
        "summary": [one_line(line) for line in rs.summary(outcome)],
        "frames": "event" if per_event else "turn",
        "chart_every": every,
        "fork": _fork(loaded, walk, parent),
    }


def battle_view(
    loaded: ReplayLike, *, row_budget: int = ROW_BUDGET, parent: ReplayLike | None = None
) -> ViewData:
    """Fold a replay once into what its viewer needs (see the module docstring).

    Args:
        parent: a fork's parent, whose outcome the What if banner shows beside the fork's;
            by default the file beside the fork its header names, when it is the parent
            (:func:`sim.replay.parent.parent_outcome`).

    Raises:
        NotTheParent: ``parent`` is given and is not the fork's parent (nothing is folded).
    """
    found = parent_outcome(loaded, parent)  # before the fold: a wrong --parent costs nothing
    rs, sc = loaded.ruleset, loaded.scenario
    state = rs.initial_state(sc)
    first = rs.units(sc, state)
    sides = {s: i for i, s in enumerate(dict.fromkeys(r.side for r in first))}
    info = _unit_info(first, sides)
    fold = _Fold(
        {r.id: i for i, r in enumerate(first)}, [row_data(r) for r in first], info, rs.shown_details
    )
    fold.start(first)
    fold.keyframe(0)
    series = Series(every=-(-loaded.last_turn // CHART_TURNS) or 1)
    series.add(0, rs.measures(sc, state))
    per_event = len(first) * max(loaded.count, 1) <= row_budget
    walk = _walk(loaded, state, fold, series, per_event)  # advances ``state`` to the end
    head = {
        "meta": _meta(loaded, state, walk, (per_event, series.every), found),
        "space": _escaped(rs.space(sc).model_dump(mode="json")),
        "sides": [
            {"id": s, "name": one_line(next(r.side_name for r in first if r.side == s)), "index": k}
            for s, k in sides.items()
        ],
        "units": info,
    }
    lists = {"keyframes": fold.keyframes, "events": walk.events, "detail_json": walk.details}
    for spool in lists.values():
        spool.close()
    last = rs.units(sc, state)
    return ViewData(head, lists, series, _escaped_rows(first), _escaped_rows(last), walk.keys)


def _escaped_rows(rows: list[UnitRow]) -> list[UnitRow]:
    """The first or last rows as the page's static tables show them (names :func:`_escaped`)."""
    return [
        r.model_copy(
            update={
                "name": one_line(r.name),
                "side_name": one_line(r.side_name),
                "kind": one_line(r.kind),
                "status": [one_line(w) for w in r.status],
            }
        )
        for r in rows
    ]

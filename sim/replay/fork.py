"""Counterfactuals: fork a battle at an event, change one thing, fight on.

``fork(parent, at_seq, event_fields, state_fields)`` re-simulates the parent
from its header with the same seed, so every random stream is the same; at
``at_seq`` the event's named fields are replaced, and each named state path
is set right after it (an ``engine.override`` event).  The new replay's
header names its parent and the change, so ``verify`` re-simulates the fork
itself and ``diff`` against the parent shows what followed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal, get_origin

from pydantic import TypeAdapter, ValidationError

from engine.events import Event, Snapshot, TurnEnded, whole_dump
from engine.log import FileSink, Footer, Fork, Header
from engine.projection import PathError, get_path, set_path
from engine.recorder import SNAPSHOT_EVERY
from engine.replayfile.checks import ReplayError
from engine.replayfile.formats import WRITTEN, resimulation_format
from sim.contract import headline
from sim.contract.models import typed
from sim.contract.parts import bounds_of, fields_of, outs_of
from sim.replay import analysis, lineage
from sim.replay.file import ReplayFile, ReplayLike
from sim.replay.header import file_label, fought_under, make_header
from sim.scenario.values import (
    ValueProblem,
    check_name,
    for_the_shell,
    parse_value,
    shown_typed,
)
from sim.text.suggest import did_you_mean, known

__all__ = ["FIXED", "ForkError", "Forked", "fork", "fork_battle", "parse_assignment"]

FIXED = ("type", "schema_version", "seq", "turn", "time", "cause")
"""Event fields a fork never changes: the log's and the clock's, not the rules'."""


class ForkError(ValueError):
    """A fork that cannot be made: bad seq, field, path or value."""


def parse_assignment(text: str) -> tuple[str, Any]:
    """``FIELD=VALUE`` → (field, value); the value is read as a YAML scalar or list.

    The value goes through the one check of every command-line value
    (:func:`sim.scenario.values.parse_value`: plain data, no aliases, bounded).

    Raises:
        ForkError: no ``=``, a control character in the field, a mapping, or a
            value that is not bounded plain data (an alias, an integer beyond a
            replay's range).
    """
    field, sep, raw = text.partition("=")
    if not sep or not field:
        raise ForkError(f"--set {text!r}: expected FIELD=VALUE")
    try:
        check_name(field)
        value = parse_value(raw) if raw.strip() else ""
    except ValueProblem as exc:
        said = for_the_shell(str(exc), f"--set {field}", raw)  # typed in a shell, not a file
        raise ForkError(f"--set {shown_typed(text)}: {said}") from None
    if isinstance(value, dict):
        raise ForkError(f"--set {text!r}: set one field at a time, not a mapping")
    return field, value


def _check_event(
    loaded: ReplayLike, at_seq: int, fields: dict[str, Any], texts: Mapping[str, str]
) -> list[str]:
    """Refuse an event field that cannot be set so; the fields the change leaves as they
    were (each ``field=value`` as given; ``texts``: a number's text as typed)."""
    event = loaded.event(at_seq)
    if fields and event.type.startswith("engine."):
        raise ForkError(
            f"--set {', '.join(fields)}: seq {at_seq} is {event.type}, the engine's own record "
            "(no rule decided it): change an event of the battle, or the state after this one "
            "with state.…"
        )
    data = whole_dump(event)  # with the fields its line leaves out at their defaults
    kept: list[str] = []
    for path, given in list(fields.items()):
        if path.split(".")[0] in FIXED:
            raise ForkError(f"--set {path}: the event's {path.split('.')[0]} cannot change")
        try:
            was = get_path(data, path)
            refused = _not_text(f"--set {path}", was, given, texts.get(path))
            refused = refused or _not_its_type(f"--set {path}", was, given, texts.get(path))
            refused = refused or _not_its_shape(f"--set {path}", was, given, texts.get(path))
            if refused is not None:
                raise refused
            value = fields[path] = _unit_ids(loaded, path, was, given)
            set_path(data, path, value, allow_none=True)
            if typed(get_path(data, path)) == typed(was):
                kept.append(f"{path}={_shown(value)}")
        except PathError as exc:
            what, more = _missing(exc, FIXED if "." not in path else ())
            raise ForkError(
                f"--set {path}: {what} in event {event.type} (seq {at_seq}){more}"
            ) from None
    try:
        type(event).model_validate(data)
    except ValidationError as exc:
        from sim.scenario.load import error_message  # noqa: PLC0415 - yaml, with an error only

        err: dict[str, Any] = dict(exc.errors()[0])
        where = ".".join(str(p) for p in err["loc"])
        if where in texts:  # a number where text goes (a text or None): said as typed, '08'
            err["text"] = texts[where]
        # the loader's words, the value as given: "7 is more than 6, the most it may be"
        said = for_the_shell(error_message(err), f"--set {where}", err.get("input"))
        raise ForkError(f"--set {where}: {said}") from None
    return kept


def _not_text(flag: str, was: Any, value: Any, text: str | None) -> ForkError | None:
    """A number, true/false or a list given for a text field, refused as ``run --set``
    refuses it: in the text typed (``08 is a number``, not 8; ``[1] is a list, not text``),
    with the flag that sets that text. None for anything else (a value of the field's own
    type, or one set_path names)."""
    if not isinstance(was, str) or not isinstance(value, bool | int | float | list):
        return None
    from sim.scenario.load import error_message  # noqa: PLC0415 - yaml, with an error only

    err = {"type": "string_type", "input": value, "loc": (), "msg": ""}
    said = error_message({**err, "text": text} if text is not None else err)
    return ForkError(f"{flag}: {for_the_shell(said, flag, value)}")


def _check_lawful(loaded: ReplayLike, at_seq: int, fields: dict[str, Any]) -> None:
    """Refuse a changed event the ruleset's ``audit_change`` names against the state before
    it: what no dice could make so (a unit firing on its own side, a winner the battle does
    not give). Its ``audit`` is not run: a counterfactual breaks its dice on purpose.

    A hook that raises is left to the fight and the read-back, which name the change."""
    if loaded.ruleset.audit_change is None or not fields:
        return
    event = loaded.event(at_seq)
    problem = lineage.audit_problem(loaded, lineage.with_fields(event, fields))
    if problem is not None:
        raise ForkError(
            f"--set {_changed(list(fields.items()))}: the rules could not make "
            f"{event.type} (seq {at_seq}) so: {problem}"
        )


def _check_inherited(loaded: ReplayLike, at_seq: int, own_event: bool) -> None:
    """Refuse a fork keeping a change of its parent's that the rules could not make (a fork
    written before its ruleset's ``audit_change`` held it): the fork's own change is held
    to it, and so is every change it inherits."""
    problem = lineage.inherited_problem(loaded, at_seq, own_event)
    if problem is not None:
        raise ForkError(f"--at {at_seq}: {problem}")


def _unit_ids(loaded: ReplayLike, path: str, was: Any, value: Any) -> Any:
    """``value`` for an event field that named a unit of the battle (``unit``, ``target``,
    a list of units fled), each unit as ``show --unit`` takes it: its id, or its name (the
    id is set); a unit the battle lacks is refused as ``show --unit`` refuses it, not
    by the rules failing on it later."""
    rows = loaded.ruleset.units(loaded.scenario, loaded.state_at(0))
    ids, sides = {r.id for r in rows}, {r.side for r in rows}

    def one(v: Any) -> Any:
        if not isinstance(v, str) or v in ids or (isinstance(was, str) and {was, v} <= sides):
            return v  # a side's id may be a unit's too (becmi's lone hero): either is taken
        try:
            return analysis.unit_id(loaded, v)
        except ValueProblem as exc:
            raise ForkError(f"--set {path}: {exc}") from None

    if isinstance(was, str) and was in ids:
        return one(value)
    if isinstance(was, list) and was and all(isinstance(w, str) and w in ids for w in was):
        return [one(v) for v in value] if isinstance(value, list) else value
    return value


def _check_state(
    loaded: ReplayLike, at_seq: int, fields: dict[str, Any], texts: Mapping[str, str]
) -> list[str]:
    """Refuse a state field that cannot be set so; those the change leaves as they were
    (``texts``: a number's text as typed, by ``state.<path>``)."""
    derived = loaded.ruleset.derived_fields
    state = loaded.after(at_seq)
    kept: list[str] = []
    for path, value in fields.items():
        parts = path.split(".")
        if parts[0] in derived or parts[-1] in derived:
            held = parts[0] if parts[0] in derived else parts[-1]
            raise ForkError(
                f"--set state.{path}: {held} cannot be forked (this ruleset keeps "
                f"{', '.join(derived)} in step with its events); fork a unit's own measures"
            )
        text = texts.get(f"state.{path}")
        current: Any = None
        was: Any = None
        try:
            current = get_path(state, path)
            was = typed(current)
        except PathError:  # a count not kept yet (set_path makes it), or no such path
            pass
        refused = _not_text(f"--set state.{path}", current, value, text)
        refused = refused or _not_its_type(
            f"--set state.{path}", current, value, text, null=False
        )  # a state field keeps its type: null too is another
        refused = refused or _not_its_shape(f"--set state.{path}", current, value, text, null=False)
        if refused is not None:
            raise refused
        try:
            set_path(state, path, value, counts=True)
        except PathError as exc:
            unit = _no_unit(loaded, exc)  # a unit's id where the state keeps its units
            what, more = (unit, "") if unit else _missing(exc, derived)  # (not derived ones)
            raise ForkError(f"--set state.{path}: {what}{more}") from None
        _check_kept(state, path)
        _check_declared(state, path, value, text)
        _check_bounds(state, path, value)
        if typed(get_path(state, path)) == was:
            kept.append(f"state.{path}={_shown(value)}")
    for path in fields:
        _check_out(state, path, fields)
    return kept


def _no_unit(loaded: ReplayLike, exc: PathError) -> str | None:
    """A path's missing name where the state keeps its units by id (every name there is a
    unit's), said as ``show --unit`` says a unit the battle lacks: ``no unit 'nosuch' in this
    battle; units: …``, or the id meant; None elsewhere (a field, a count)."""
    if not exc.missing or not exc.choices:
        return None
    ids = {r.id for r in loaded.ruleset.units(loaded.scenario, loaded.state_at(0))}
    if not set(exc.choices) <= ids:
        return None
    try:
        meant = analysis.unit_id(loaded, exc.missing)
    except ValueProblem as problem:
        return str(problem)
    # its name as show prints it: the state keeps the unit by its id
    return f"no unit {exc.missing!r} in this battle; did you mean its id, {meant!r}?"


def _not_its_type(
    flag: str, was: Any, value: Any, text: str | None, *, null: bool = True
) -> ForkError | None:
    """A value of another type for a true-or-false or number field, refused in the scenario
    loader's words, as ``run --set`` refuses it (``'maybe' is not true or false (write true
    or false)``, ``'abc' is not an integer``), not as Python names types (``is a bool, not a
    str``). None for a value the field takes (a whole number for a decimal), for another
    field, and for null where ``null`` (an event field: its event says whether it takes it)."""
    kinds = {bool: "bool_type", int: "int_type", float: "float_type"}
    kind = kinds.get(type(was))
    if kind is None or (value is None and null) or type(value) is type(was):
        return None
    if type(was) is float and type(value) is int:
        return None
    from sim.scenario.load import error_message  # noqa: PLC0415 - yaml, with an error only

    err = {"type": kind, "input": value, "loc": (), "msg": ""}
    said = error_message({**err, "text": text} if text is not None else err)
    return ForkError(f"{flag}: {for_the_shell(said, flag, value)}")


def _not_its_shape(
    flag: str, was: Any, value: Any, text: str | None, *, null: bool = True
) -> ForkError | None:
    """A value that is not of the shape of what its field holds, refused in the scenario
    loader's words, as ``run --set`` refuses it: one value for fields (a unit's state, a
    fire's result: ``3 is not a mapping of fields``), or for a list (a move's path: ``3 is
    not a list``); not as Python names its classes (``units.wash is a UnitState, not an
    int``). None for a value of the field's shape, for any other field, and for null where
    ``null`` (an event field: its event says whether it takes it)."""
    if value is None and null:
        return None
    if (isinstance(was, dict) or fields_of(type(was))) and not isinstance(value, dict):
        kind = "model_type"
    elif isinstance(was, list | tuple) and not isinstance(value, list | tuple):
        kind = "list_type"
    else:
        return None
    from sim.scenario.load import error_message  # noqa: PLC0415 - yaml, with an error only

    err = {"type": kind, "input": value, "loc": (), "msg": ""}
    said = error_message({**err, "text": text} if text is not None else err)
    return ForkError(f"{flag}: {for_the_shell(said, flag, value)}")


def _missing(exc: PathError, cannot: tuple[str, ...]) -> tuple[str, str]:
    """What a ``--set`` path named that is not there, and what follows it: the names closest
    to it, else the names there are (those it may set: not ``cannot``)."""
    if not exc.missing:
        return str(exc), ""
    hint = did_you_mean(exc.missing, exc.choices)
    names = [c for c in exc.choices if c not in cannot]
    return f"no field {exc.missing!r}", hint or (f"; it has {known(names, 20)}" if names else "")


def _shown(value: Any) -> str:
    """A value as --set takes it."""
    return json.dumps(value) if not isinstance(value, str) else value


def _declared(state: Any, path: str) -> Any:
    """The declared field (pydantic ``FieldInfo``) at ``path`` of a state part, or None: a
    mapping's item, or anything else that is not a part's field."""
    parent_path, _, last = path.rpartition(".")
    parent = get_path(state, parent_path) if parent_path else state
    return fields_of(type(parent)).get(last)


def _check_kept(state: Any, path: str) -> None:
    """Refuse a :func:`~sim.contract.parts.fixed` field: the scenario gives it and no event
    changes it, so a snapshot leaves it out and a reader restoring from one takes the
    scenario's value again; forked, it would hold one value before the next snapshot and
    another after it (``show --turn``)."""
    info = _declared(state, path)
    if info is not None and info.exclude:
        last = path.rpartition(".")[2]
        raise ForkError(
            f"--set state.{path}: {last} is fixed by the scenario (no event changes it, and "
            "the replay's snapshots do not keep it): fork what the battle changes, or run "
            "an edited scenario"
        )


def _check_declared(state: Any, path: str, value: Any, text: str | None = None) -> None:
    """Refuse a value its field's declared type does not take, strictly.

    ``set_path`` holds a value to the type of the one it replaces, which it cannot
    know when that is None: ``morale_cause=2.0`` or ``=abc`` over a unit's ``None``
    (an ``int | None``) would go into the battle as they are, and into the events
    that name the unit's morale cause.  A field of a state part (a pydantic model or
    a :func:`~sim.contract.parts.row`) is checked against its annotation (a whole
    number for a float, as the part's own validation takes it); a mapping's item has
    no declared type here and is left to ``set_path``.
    """
    info = _declared(state, path)
    if info is None or info.annotation is None:
        return
    try:  # the value as set_path stored it (a list given for a tuple is kept as a tuple)
        TypeAdapter(info.annotation).validate_python(get_path(state, path), strict=True)
    except ValidationError as exc:
        err = exc.errors()[0]
        if err["type"] == "string_type" and isinstance(value, bool | int | float):
            refused = _not_text(f"--set state.{path}", "", value, text)  # a text or None
            raise refused or ForkError(f"--set state.{path}: {err['msg']}") from None
        if get_origin(info.annotation) is Literal:  # the words an event field's are said in
            from sim.scenario.load import error_message  # noqa: PLC0415 - yaml, on error only

            raise ForkError(f"--set state.{path}: {error_message(err)}") from None
        want = getattr(info.annotation, "__name__", None) or str(info.annotation)
        msg = err["msg"]
        raise ForkError(
            f"--set state.{path}: {msg[:1].lower()}{msg[1:]} (the field is {want}), "
            f"not {json.dumps(value)}"
        ) from None


def _check_bounds(state: Any, path: str, value: Any) -> None:
    """Refuse a value above the bound its field declares by another field of the same part
    (:class:`~sim.contract.parts.AtMost`: a unit's strength, at most its initial), a
    value the rules could never give it; a bounding field set above its bounded one is
    refused too (a unit's initial below its strength)."""
    parent_path, _, last = path.rpartition(".")
    parent = get_path(state, parent_path) if parent_path else state
    owner = parent_path.rpartition(".")[2] or "the state"
    for name, info in fields_of(type(parent)).items():
        for bound in bounds_of(info):
            if last not in (name, bound.field):
                continue
            held, most = getattr(parent, name), getattr(parent, bound.field)
            if type(held) in (int, float) and type(most) in (int, float) and held > most:
                raise ForkError(
                    f"--set state.{path}: {_shown(value)} is "
                    + (
                        f"more than {owner}'s {bound.field} {most}"
                        if last == name
                        else f"less than {owner}'s {name} {held}, which it bounds"
                    )
                )


def _check_out(state: Any, path: str, fields: Mapping[str, Any]) -> None:
    """Refuse a state change that leaves a count where the rules put its part out with the
    part not out (:class:`~sim.contract.parts.OutAt`: a becmi combatant at 0 hp or fewer is
    dead): the rules' apply puts it out when an event takes the count there, and an override
    is no event. ``path`` is one ``--set state.…`` made, ``fields`` all of them; the refusal
    names the field to set too: where the count was set, the one that says the part is out,
    else the count."""
    parent_path, _, last = path.rpartition(".")
    parent = get_path(state, parent_path) if parent_path else state
    owner = parent_path.rpartition(".")[2] or "the state"
    where = f"state.{parent_path}." if parent_path else "state."
    for name, info in fields_of(type(parent)).items():
        for out in outs_of(info):
            count, said = getattr(parent, name), getattr(parent, out.field)
            if last not in (name, out.field) or count > out.at or said == out.value:
                continue
            rule, counted = f"at {name} {out.at} or fewer", f"{parent_path}.{name}".lstrip(".")
            if counted in fields:  # named at the count set, whichever --set came first
                raise ForkError(
                    f"--set state.{counted}: {rule}, {owner}'s {out.field} is {out.value}, not "
                    f"{said}: set {where}{out.field}={out.value} too"
                )
            raise ForkError(
                f"--set state.{path}: {owner}'s {name} is {count}, and {rule} its {out.field} "
                f"is {out.value}, not {said}: set {where}{name} above {out.at} too"
            )


@dataclass(frozen=True)
class Forked:
    """A forked battle written: its replay, final state and event count, and the parent's
    changes it left out, made after its seq ``at`` (:func:`sim.replay.lineage.left_out`)."""

    path: Path
    state: Any = field(repr=False)
    events: int
    at: int = field(default=0, repr=False)
    left_out: Mapping[int, Fork] = field(default_factory=dict, repr=False)

    @property
    def note(self) -> str | None:
        """One line naming the parent's changes left out (None: none was)."""
        return lineage.left_out_note(self.left_out, self.at)


class _Apart(Exception):
    """Raised by :class:`_SamePrefix` once the child leaves its parent's battle.

    Carries no arguments: SimPy re-creates a process's exception from its type and args.
    """


Recorded = Iterator[tuple[str | None, Callable[[], Event]]]
"""The parent's events in order: each line's body as written (None: not in
today's exact form) and a function that parses the event."""


def _same(event: Event) -> Event:
    return event


def _values(recorded: tuple[str | None, Callable[[], Event]]) -> Any:
    """A parent's event as JSON values (an older format's as upcast)."""
    return json.loads(recorded[1]().model_dump_json())


def _final_digest(line: str) -> Any:
    """A footer line's ``final_state_digest``."""
    return json.loads(line).get("final_state_digest")


def _recorded(loaded: ReplayLike) -> Recorded:
    """The parent's events, by their text where the file is in a format the writer writes."""
    if isinstance(loaded, ReplayFile) and loaded.header.format_version in WRITTEN:
        stream = loaded.stream
        return ((line.body, partial(stream.parse, line)) for line in stream.lines())
    return ((None, partial(_same, e)) for e in loaded.iter_events())


class _SamePrefix:
    """A sink that writes through to ``inner`` and checks each event before ``at_seq``
    against the parent's: a fork must be its parent's battle up to the change.

    A line equal in text to the parent's (without the chain hash: the child's
    header differs, so its chain does) is the same event; any other is
    compared as JSON values with the parent's event as read, so an older
    format's upcast events compare too.  The first difference is kept in
    :attr:`reason` and ends the fight (:class:`_Apart`).
    """

    def __init__(self, inner: FileSink, parent: Recorded, at_seq: int) -> None:
        self.inner, self._parent, self._at = inner, parent, at_seq
        self._lines = 0
        self.reason = ""
        self.parent_footer: Callable[[], Footer | None] = lambda: None
        self.same_after = False
        """Every line after the change, the footer's digest too, is the parent's text: the
        change made no difference to the battle (watched only after :meth:`follow`)."""
        self._tail: lineage.Tail | None = None
        self._reference: Callable[[], tuple[str, Any]] = lambda: ("", None)
        self._left: str | None = None

    def follow(self, parent: ReplayLike, state_changed: bool) -> None:
        """Watch whether the battle after an event's change stays the parent's (a state
        change always acts). The footer's digest is compared where the parent's lines are
        in a format the writer writes; an older one's digest may be of an older snapshot."""
        if state_changed:
            return
        self.same_after = True
        if isinstance(parent, ReplayFile) and parent.header.format_version in WRITTEN:
            self.parent_footer = lambda: parent.stream.footer  # read once its events are

    def follow_without(
        self, reference: Callable[[], tuple[str, Any]], left: Mapping[int, Fork]
    ) -> None:
        """Watch whether the battle after an event's change is the one its parent makes
        without the changes it made after this fork's seq (``left``, left out): the
        parent's file is not that battle, ``reference`` fights it (its
        :class:`~sim.replay.lineage.Tail`, asked for once the fork is fought)."""
        self.same_after = True
        self._tail, self._reference = lineage.Tail(self._at), reference
        seqs = " and ".join(str(at) for at in left)
        self._left = f"change{'s' if len(left) > 1 else ''} at seq {seqs}"

    @property
    def written(self) -> int:
        """Events written so far (the header and footer not counted)."""
        return max(self._lines - 1, 0)

    def write(self, line: str) -> None:
        seq, self._lines = self._lines - 1, self._lines + 1  # line 0 is the header
        if 0 <= seq <= self._at:
            self._check(seq, line)
        elif seq > self._at and self.same_after:
            if self._tail is not None:
                self._tail.add(line)
            else:
                self._follow(line)
        self.inner.write(line)

    def _follow(self, line: str) -> None:
        """After the change: is this line the parent's (an event's text, or as JSON values
        where the parent is in an older format; the footer: no parent event left, and its
        final state digest where the parent's footer is today's kind)?"""
        recorded = next(self._parent, None)
        if line.startswith('{"footer":'):
            footer = self.parent_footer() if recorded is None else None
            self.same_after = recorded is None and (
                footer is None or footer.final_state_digest == _final_digest(line)
            )
            return
        body = line[: line.rindex(',"h":')] + "}"
        if recorded is None:
            self.same_after = False
        elif recorded[0] is not None:
            self.same_after = recorded[0] == body
        else:  # an older format's event, upcast: compared as values, as _check does
            self.same_after = json.loads(body) == _values(recorded)

    def _check(self, seq: int, line: str) -> None:
        """The event at ``seq`` is the parent's; at the fork's seq, of the parent's type
        (its fields are the change's): a re-simulation that numbers events otherwise
        (a format-1 parent past its first snapshot) would change another event."""
        recorded = next(self._parent, None)
        body = line[: line.rindex(',"h":')] + "}"
        if recorded is not None and recorded[0] == body:
            return
        mine: dict[str, Any] = json.loads(body)
        theirs: dict[str, Any] = {} if recorded is None else _values(recorded)
        if seq == self._at:
            mine, theirs = {"type": mine.get("type")}, {"type": theirs.get("type")}
        if mine != theirs:
            keys = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
            self.reason = f"event {seq} ({mine.get('type')}) differs in: {', '.join(keys[:6])}"
            raise _Apart

    def flush(self) -> None:
        self.inner.flush()

    def close(self) -> None:
        """Read the finished file back as every tool reads a replay, then commit it.

        A fork's change goes into the battle as it is, and a value the rules carry into
        later events (a morale word, a seq named as a cause) can make events the format
        refuses; such a file would verify, since re-simulating makes it again, but
        ``show``, ``why``, ``report`` and ``diff`` would refuse it.  It is refused here
        instead (:class:`_Unreadable`), and the partial file removed by the caller.
        """
        self.inner.finish()
        try:
            _every_tool_reads(ReplayFile(self.inner.partial))
        except ReplayError as exc:
            if exc.line == 0:  # the file as a whole: not read, no line of it refused
                raise _ReadBack(_read_error(exc)) from None
            where = str(exc).removeprefix(f"{self.inner.partial}:")
            raise _Unreadable(f"writes an event no reader takes (line {where})") from None
        except OSError as exc:  # the system's, not the battle's
            raise _ReadBack(exc.strerror or _one_error(exc)) from None
        except Exception as exc:  # a hook of the ruleset, given the changed battle
            said = str(exc).replace(f"{Path(self.inner.partial).name}:", "line ")
            raise _Unreadable(f"is one its ruleset's tools cannot read: {said}") from None
        if self.same_after and self._tail is not None:
            self.same_after = self._tail.value == self._reference()
        if self.same_after:
            whose, theirs = "its parent's", "the parent's"
            if self._left is not None:
                whose = f"the one its parent makes without its {self._left} (left out)"
                theirs = "that battle's"
            raise _NoEffect(
                f"is {whose}: the rules do not act on the change (every event after seq "
                f"{self._at} and the final state are {theirs}), so the fork would tell of "
                "a change that did not happen; change what the event's result does to the units "
                "(its fields that `battlesim show --events` narrates as the outcome), or a state "
                "field with state.…"
            )
        self.inner.close()


def _every_tool_reads(readback: ReplayFile) -> None:
    """Read ``readback`` as ``show --events``, ``why``, ``report`` and ``diff`` do: every
    event parsed strictly and told (``narrate``), and at each turn's end and the battle's
    the unit rows and the outcome (``units``, ``outcome``, the headline ``run`` and
    ``fork`` print)."""
    rs, sc = readback.ruleset, readback.scenario
    state = rs.initial_state(sc)  # advanced in place by the one fold
    rs.units(sc, state)
    for event, before in readback.fold(state=state):
        analysis.narrative_line(readback, before, event)
        if isinstance(event, TurnEnded):
            rs.units(sc, before)
    rs.units(sc, state)  # the battle's end: every event applied
    headline(rs, rs.outcome(sc, state))


class _Unreadable(Exception):
    """The forked battle, read back as every tool reads it, is refused: why."""

    def refusal(self, assignments: list[tuple[str, Any]], out: str | Path) -> ForkError:
        """The one line ``fork`` refuses with (the change made the battle so)."""
        return ForkError(
            f"--set {_changed(assignments)}: the battle it makes {self}; nothing was written"
        )


class _ReadBack(_Unreadable):
    """The forked battle's file could not be read back at all (the system's error, a file
    changed under it): why, in the system's words. Not the change's doing: the refusal
    names the output as the user gave it, not the change."""

    def refusal(self, assignments: list[tuple[str, Any]], out: str | Path) -> ForkError:
        return ForkError(f"cannot read {out} back after writing it: {self}; the fork was not kept")


def _read_error(exc: ReplayError) -> str:
    """What kept the reader from a whole file: the system's error behind its words (``cannot
    read: Input/output error`` is the reader's for EIO), else its words."""
    cause = exc.__context__
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__context__
    return cause.strerror if isinstance(cause, OSError) and cause.strerror else exc.message


class _NoEffect(_Unreadable):
    """The change made no difference: every event after it, and the final state, are the
    parent's (the rules do not act on the changed field); refused as an unreadable battle
    is, with its own words."""


def _fork_header(
    loaded: ReplayLike, at_seq: int, event_fields: dict[str, Any], state_fields: dict[str, Any]
) -> Header:
    """The child's header: today's code, the parent's seed, source, dice and rules, and the fork.

    A parent of formats 1–4 has the dice of random derivation 1: its child is
    written in format 4, so it shares the parent's battle up to the change.
    """
    parent = loaded.header
    again = resimulation_format(parent.format_version)
    version = fought_under(loaded.ruleset, parent)
    return make_header(
        loaded.ruleset, loaded.scenario, parent.seed, parent.source, again, ruleset_version=version
    ).model_copy(
        update={
            "fork": Fork(
                parent=file_label(Path(loaded.path).name),
                parent_digest="sha256:" + hashlib.sha256(parent.body().encode()).hexdigest(),
                at_seq=at_seq,
                event=event_fields,
                state=state_fields,
                earlier=parent.fork,
            )
        }
    )


def _watch(
    same: _SamePrefix, loaded: ReplayLike, at_seq: int, state_changed: bool
) -> dict[int, Fork]:
    """Set ``same`` to watch whether the change acts; return the parent's changes the fork
    leaves out. When it leaves one out, the battle without the change is not the parent's
    file but the one its parent's battle before the change makes (fought once, if need be)."""
    left = lineage.left_out(loaded, at_seq)
    if left and not state_changed:
        unchanged = _fork_header(loaded, at_seq, {}, {})
        same.follow_without(partial(lineage.tail_of, loaded, unchanged, at_seq), left)
    else:
        same.follow(loaded, state_changed)
    return left


def _changed(assignments: list[tuple[str, Any]]) -> str:
    """The ``--set`` assignments as the user gave them, for a message."""
    return ", ".join(f"{f}={json.dumps(v)}" for f, v in assignments)


def fork(
    loaded: ReplayLike,
    at_seq: int,
    assignments: list[tuple[str, Any]],
    out: str | Path,
) -> Path:
    """Write the forked battle's replay to ``out`` and return its path (see :func:`fork_battle`)."""
    return fork_battle(loaded, at_seq, assignments, out).path


def _battle_event(loaded: ReplayLike, seqs: range) -> int | None:
    """The first of ``seqs`` that is an event of the battle, not the engine's record of a
    turn's end (``engine.turn_ended``, ``engine.snapshot``); None if none is."""
    return next((n for n in seqs if not isinstance(loaded.event(n), TurnEnded | Snapshot)), None)


def _refuse_state_at_a_turns_end(loaded: ReplayLike, at_seq: int) -> None:
    """A state change at a turn's end or snapshot would be in no turn's end: refused."""
    at_event = loaded.event(at_seq)
    if not isinstance(at_event, TurnEnded | Snapshot):
        return
    last = _last_forkable(loaded)
    end = loaded.count if last is None else last + 1  # a format-1 replay's later ones refused
    near = [_battle_event(loaded, range(at_seq - 1, -1, -1))]
    near.append(_battle_event(loaded, range(at_seq + 1, end)))
    seqs = " or ".join(str(n) for n in near if n is not None) or "none: the battle has none"
    turn = loaded.ruleset.turn_name  # becmi's round
    raise ForkError(
        f"--at {at_seq}: {at_event.type} is the engine's record of {turn} "
        f"{at_event.turn}'s end, after the {turn}'s state digest, so a state change there "
        f"would be in no {turn}'s end (show --turn and show --unit would disagree): fork "
        f"the state at an event of the battle (the nearest: seq {seqs})"
    )


def _last_forkable(loaded: ReplayLike) -> int | None:
    """The last seq a replay of a format before snapshots (format 1) forks at: the end of
    turn :data:`SNAPSHOT_EVERY`, after which today's re-simulation writes the first snapshot
    it lacks and numbers every later event one higher; None for a later format, or a
    format-1 battle that ends sooner."""
    if loaded.header.format_version >= Snapshot.since_format:
        return None
    return next(
        (
            event.seq
            for event in loaded.iter_events()
            if isinstance(event, TurnEnded) and event.turn % SNAPSHOT_EVERY == 0
        ),
        None,
    )


def _refuse_past_a_snapshot_it_lacks(loaded: ReplayLike, at_seq: int) -> None:
    """A replay of a format before snapshots (format 1) forks only up to
    :func:`_last_forkable`: past it, the fork would change another event."""
    last = _last_forkable(loaded)
    if last is not None and at_seq > last:
        turn = loaded.event(last).turn
        raise ForkError(
            f"--at {at_seq}: a format-{loaded.header.format_version} replay, written before "
            f"snapshots, forks only before seq {last + 1}, where today's re-simulation writes "
            f"the {loaded.ruleset.turn_name}-{turn} snapshot it lacks and numbers every later "
            "event one higher"
        )


def _not_built(
    exc: Exception, past: bool, at_seq: int, assignments: list[tuple[str, Any]]
) -> ForkError:
    """An event the fight could not build: past the change (``past``), the battle the change
    made built it; before it, the parent's battle is not the rules' any more."""
    said = _one_error(exc)
    if past:
        return ForkError(
            f"--set {_changed(assignments)}: the battle it makes builds an event its class "
            f"refuses ({said}); nothing was written"
        )
    return ForkError(
        f"--at {at_seq}: re-simulating the parent does not reach the same event there "
        f"(the rules changed since it was written?): {said}"
    )


def _one_error(exc: Exception) -> str:
    """An error in one line: a pydantic error's first problem as ``Model field: message``
    (its full text runs over lines and ends with a web address)."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{exc.title} {where}: {first['msg']}" if where else f"{exc.title}: {first['msg']}"
    return " ".join(str(exc).split())


def fork_battle(
    loaded: ReplayLike,
    at_seq: int,
    assignments: list[tuple[str, Any]],
    out: str | Path,
    texts: Mapping[str, str] | None = None,
) -> Forked:
    """Write the forked battle's replay to ``out``; return it with its final state.

    The parent is read as a stream: its event at ``at_seq`` and the state
    after it come from the nearest snapshot before it.

    Args:
        loaded: the parent replay.
        at_seq: the event to change, or after which to change the state.
        assignments: ``(field, value)``; ``state.<path>`` sets a state field
            (e.g. ``state.units.1ri.strength``), anything else an event field
            (e.g. ``passed`` or ``result.casualties``).
        texts: by field as in ``assignments``, the text a number was typed in
            (:func:`sim.scenario.values.typed_number`: ``08``), for a refusal that quotes it.

    Raises:
        ForkError: the seq, a field, a path or a value is not usable.
    """
    if not 0 <= at_seq < loaded.count:
        raise ForkError(f"--at {at_seq}: {loaded.path} has seq 0..{loaded.count - 1}")
    version = loaded.header.ruleset_version
    if not loaded.ruleset.fights(version):
        raise ForkError(
            f"{Path(loaded.path).name} was fought under {loaded.ruleset.name} rules version "
            f"{version!r}, which this battlesim cannot fight again (its rules are version "
            f"{loaded.ruleset.version!r}): a fork of it would be another battle's"
        )
    _refuse_past_a_snapshot_it_lacks(loaded, at_seq)
    event_fields = {f: v for f, v in assignments if not f.startswith("state.")}
    state_fields = {f.removeprefix("state."): v for f, v in assignments if f.startswith("state.")}
    if state_fields:
        _refuse_state_at_a_turns_end(loaded, at_seq)
    texts = texts or {}
    kept = _check_event(loaded, at_seq, event_fields, texts)
    _check_lawful(loaded, at_seq, event_fields)
    _check_inherited(loaded, at_seq, bool(event_fields))
    kept += _check_state(loaded, at_seq, state_fields, texts)
    if kept and len(kept) == len(event_fields) + len(state_fields):  # nothing would differ
        raise ForkError(
            f"--set {', '.join(kept)}: already so at seq {at_seq}: the fork would be its "
            "parent; nothing was written"
        )
    header = _fork_header(loaded, at_seq, event_fields, state_fields)
    path = Path(out)
    if path.resolve() == Path(loaded.path).resolve():
        raise ForkError(f"--out {str(path)!r} is the parent replay itself")
    sink = FileSink(path)
    same = _SamePrefix(sink, _recorded(loaded), at_seq)
    left = _watch(same, loaded, at_seq, bool(state_fields))
    try:
        state = loaded.ruleset.simulate(loaded.scenario, header, same)
    except _Apart:
        sink.abandon()
        raise ForkError(
            f"--at {at_seq}: re-simulating {Path(loaded.path).name} does not give its battle "
            f"before seq {at_seq}: {same.reason} (is it intact? `battlesim verify` it)"
        ) from None
    except (PathError, ValidationError) as exc:
        sink.abandon()
        raise _not_built(exc, same.written > at_seq, at_seq, assignments) from None
    except _Unreadable as exc:
        sink.abandon()
        raise exc.refusal(assignments, out) from None
    except OSError:  # the file cannot be written (disk full, too large): not the change's
        sink.abandon()
        raise
    except Exception as exc:  # the parent's battle was re-made up to at_seq: the change did it
        sink.abandon()
        if same.written < at_seq or (same.written == at_seq and not event_fields):
            raise  # raised before the change took effect (the changed event, or after it)
        raise ForkError(
            f"--set {_changed(assignments)}: the rules cannot fight on with it "
            f"({type(exc).__name__}: {exc}); nothing was written"
        ) from None
    except BaseException:  # Ctrl-C and SIGTERM too: no .partial is left
        sink.abandon()
        raise
    return Forked(path, state, sink.count - 2, at_seq, left)

"""The recorder refuses an event its registry does not list, before applying or writing it."""

from __future__ import annotations

from typing import ClassVar, Literal

import pytest

from engine.events import Event, EventRegistry
from engine.log import EventLog, MemorySink
from engine.projection import Projection
from engine.recorder import Recorder, UnlawfulCause, UnreadableVersion, UnregisteredEvent
from engine.replayfile.formats import schema_version_in
from engine.version import FORMAT_VERSION
from tests.engine.conftest import REGISTRY, Ping, make_header


class Pong(Event):
    """An event class no registry of these tests lists."""

    type: Literal["test.pong"] = "test.pong"


class FalsePing(Event):
    """Another class with Ping's tag: not the registered one."""

    type: Literal["test.ping"] = "test.ping"
    n: int


class Raised(Event):
    """Raised to schema version 2 while saying today's format holds it at 1."""

    type: Literal["test.raised"] = "test.raised"
    schema_version: int = 2
    older_formats: ClassVar[dict[int, int]] = {FORMAT_VERSION: 1}


class RaisedWithAFormat(Event):
    """Version 2, held at 1 only by the formats before today's: what a new format makes."""

    type: Literal["test.raised_ok"] = "test.raised_ok"
    schema_version: int = 2
    older_formats: ClassVar[dict[int, int]] = {FORMAT_VERSION - 1: 1}


def _recorder(registry: EventRegistry | None) -> tuple[Recorder[list[str]], MemorySink]:
    sink = MemorySink()
    applied: list[str] = []
    projection = Projection(applied, lambda state, e: state.append(e.type))
    return Recorder(EventLog(make_header(), sink), projection, lambda s: s, None, registry), sink


def test_an_unregistered_event_is_refused_naming_ruleset_class_and_fix() -> None:
    """Ping (seq 0) is recorded; Pong at seq 1 is refused: not applied, not written."""
    rec, sink = _recorder(REGISTRY)
    rec.emit(Ping(turn=1, time=0.0, n=1))
    with pytest.raises(UnregisteredEvent) as err:
        rec.emit(Pong(turn=1, time=0.0))
    assert str(err.value) == (
        "ruleset 'test' records event 'test.pong' at seq 1 "
        f"({__name__}.Pong), which its EventRegistry does not list: give its state an "
        "@applies(Pong) method when the registry is made from the state's applied events "
        "(EventRegistry(State.applied_events())), or else add Pong to the registry of its "
        "Ruleset (its replay could not be read back)"
    )
    assert rec.state == ["test.ping"]
    assert (len(sink.lines), rec.next_seq) == (2, 1)  # the header and Ping only


def test_a_class_with_a_registered_tag_is_not_the_registered_class() -> None:
    """FalsePing shares Ping's tag, but the registry parses lines into Ping: refused."""
    rec, _ = _recorder(REGISTRY)
    with pytest.raises(UnregisteredEvent, match=r"'test.ping' at seq 0 \("):
        rec.emit(FalsePing(turn=1, time=0.0, n=1))
    assert REGISTRY.knows(Ping) and not REGISTRY.knows(FalsePing)


def test_without_a_registry_every_event_is_recorded() -> None:
    """A recorder given no registry (engine tests, tools) records any class."""
    rec, sink = _recorder(None)
    rec.emit(Pong(turn=1, time=0.0))
    assert (rec.state, len(sink.lines)) == (["test.pong"], 2)


@pytest.mark.parametrize("cause", [1, 5, -1])
def test_a_cause_that_is_no_earlier_seq_is_refused_before_it_is_applied_or_written(
    cause: int,
) -> None:
    """Ping at seq 0 records; one at seq 1 whose cause is itself, a later seq or negative is
    refused, naming the ruleset, the event, the seq and the cause (every reader refused the
    line, and verify called the replay damaged, though run had exited 0)."""
    rec, sink = _recorder(REGISTRY)
    rec.emit(Ping(turn=1, time=0.0, n=1))
    with pytest.raises(UnlawfulCause) as err:
        rec.emit(Ping(turn=1, time=0.0, n=2, cause=cause))
    assert str(err.value) == (
        f"ruleset 'test' records event 'test.ping' at seq 1 with cause {cause}, which is not "
        "an earlier event's seq: a cause names the event, already recorded, that brought this "
        "one about (its replay would not verify)"
    )
    assert rec.state == ["test.ping"]
    assert (len(sink.lines), rec.next_seq) == (2, 1)
    rec.emit(Ping(turn=1, time=0.0, n=3, cause=0))  # an earlier seq: recorded
    assert rec.next_seq == 2


def test_an_event_at_a_schema_version_its_format_does_not_hold_is_refused_before_writing() -> None:
    """Every reader refuses a line whose schema version is not its format's (``schema_version
    N: format F writes T at schema version V``), and verify, re-making the same line, would
    pass it: the recorder refuses the class's first event instead, naming the class."""
    assert schema_version_in(FORMAT_VERSION, Raised) == 1
    rec, sink = _recorder(None)
    rec.emit(Ping(turn=1, time=0.0, n=1))
    with pytest.raises(UnreadableVersion) as err:
        rec.emit(Raised(turn=1, time=0.0))
    assert str(err.value) == (
        f"ruleset 'test' records event 'test.raised' at schema version 2 ({__name__}.Raised), "
        f"but a format-{FORMAT_VERSION} replay holds it at version 1, so no reader would take "
        "the line: name the rules versions whose replays hold the old one in the class's "
        "older_rules, not today's format in older_formats (docs/replay-tools.md, *When a rule "
        "really changes an event's shape*)"
    )
    assert isinstance(err.value, UnregisteredEvent)  # caught where an unlisted class is
    assert (len(sink.lines), rec.next_seq) == (2, 1)
    rec.emit(RaisedWithAFormat(turn=1, time=0.0))  # today's format holds its version: written
    assert len(sink.lines) == 3


def test_a_re_simulation_in_an_older_format_is_not_held_to_it() -> None:
    """An older format's file is written only as a re-simulation (a fork's child, verify's
    in memory), whose lines are compared as upcast: a class raised since is recorded."""
    sink = MemorySink()
    header = make_header().model_copy(update={"format_version": FORMAT_VERSION - 1})
    projection = Projection([], lambda state, e: state.append(e.type))
    rec = Recorder(EventLog(header, sink), projection, lambda s: s, None, None)
    assert schema_version_in(FORMAT_VERSION - 1, RaisedWithAFormat) == 1
    rec.emit(RaisedWithAFormat(turn=1, time=0.0))
    assert len(sink.lines) == 2

"""The append-only event log and the hash chain over its lines.

Its sinks are in :mod:`engine.replayfile.sinks`.

A replay is JSON Lines: a header line, one line per event, a footer line.
Every line ends with ``"h"``, a link of a hash chain: the BLAKE2b-128 hex of
the previous line's ``h`` followed by this line's text without its ``h``.
Editing, dropping or reordering any line breaks the chain at that line.
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from engine.canonical import canonical_json
from engine.events import Event
from engine.replayfile.decoders import FastEvent, check_exact, compile_event
from engine.replayfile.sinks import DiscardSink, FileSink, MemorySink, Sink
from engine.version import ENGINE_VERSION, FORMAT_VERSION

__all__ = [
    "FORMAT",
    "DiscardSink",
    "EventLog",
    "FileSink",
    "Footer",
    "Fork",
    "Header",
    "MemorySink",
    "Sink",
    "UntrustedLine",
    "chain_link",
    "check_line",
    "line_body",
    "seal",
    "seal_bytes",
]

FORMAT = "battlesim-replay"
GENESIS = "0" * 32


class Fork(BaseModel):
    """A counterfactual: where a battle was forked from its parent, and how.

    At ``at_seq`` the event's fields named in ``event`` are replaced, then
    each ``state`` path is set (an ``engine.override`` event per path).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    parent: str
    """The parent replay's file name."""
    parent_digest: str
    """``sha256:`` of the parent's header line, so the parent can be recognised."""
    at_seq: int
    event: dict[str, Any] = {}
    state: dict[str, Any] = {}
    earlier: Fork | None = None
    """The parent's own fork, when a forked battle is forked again."""

    def chain(self) -> dict[int, Fork]:
        """The changes of the lineage that apply, by ``at_seq``, the oldest applied first.

        A fork re-makes its parent's battle from its ``at_seq`` on, so a change the
        parent's lineage made at a later seq is left out (:meth:`left_out`): it was made
        on an event of the parent's battle, which this one need not have there (an
        override shifts every later seq by one; any change may alter what follows).
        Two forks at one event merge their changes, the later winning a field both set.
        """
        found = self.earlier.chain() if self.earlier is not None else {}
        found = {at: fork for at, fork in found.items() if at <= self.at_seq}
        before = found.get(self.at_seq)
        if before is not None:  # two forks at one event: both changes, the later wins a tie
            found[self.at_seq] = self.model_copy(
                update={
                    "event": {**before.event, **self.event},
                    "state": {**before.state, **self.state},
                }
            )
        else:
            found[self.at_seq] = self
        return found

    def left_out(self) -> dict[int, tuple[Fork, int]]:
        """The changes of the lineage :meth:`chain` leaves out, by ``at_seq``: each with the
        ``at_seq`` of the later fork that left it out, the battle changed before it."""
        if self.earlier is None:
            return {}
        found = self.earlier.left_out()
        for at, fork in self.earlier.chain().items():
            if at > self.at_seq:
                found[at] = (fork, self.at_seq)
        return found


class Header(BaseModel):
    """First line of a replay: everything needed to re-simulate and check it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    engine_version: str = ENGINE_VERSION
    ruleset: str
    ruleset_version: str
    seed: int
    scenario: dict[str, Any]
    scenario_digest: str
    rules_digest: str
    source: str | None = None
    fork: Fork | None = None
    """Set when this battle was forked from another (``battlesim fork``)."""

    def body(self) -> str:
        """The header's canonical JSON (a ``fork`` of None is left out).

        The last header's text is kept (a battle asks twice: the check that
        it reads back, then the log's first line; a large scenario's text
        costs as much as several turns).  The header is frozen, so its text
        cannot change; a header that is not the same object is serialised.
        """
        global _LAST_BODY  # noqa: PLW0603 - one slot, replaced whole
        kept = _LAST_BODY
        if kept is not None and kept[0]() is self:
            return kept[1]
        data = self.model_dump(mode="json")
        if data["fork"] is None:
            del data["fork"]
        text = canonical_json(data)
        _LAST_BODY = (weakref.ref(self), text)
        return text


_LAST_BODY: tuple[weakref.ref[Header], str] | None = None
"""The last header :meth:`Header.body` wrote (a weak reference to it) and its text."""


class Footer(BaseModel):
    """Last line of a complete replay."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    footer: bool = True
    events: int
    final_turn: int
    final_state_digest: str


def chain_link(previous: str, body: str) -> str:
    """Return the chain hash of a line ``body`` that follows hash ``previous``."""
    return hashlib.blake2b((previous + body).encode("utf-8"), digest_size=16).hexdigest()


def seal(previous: str, body: str) -> tuple[str, str]:
    """Append the chain hash to a JSON object text.

    Returns:
        (line, h): the line to write (without newline) and its hash.
    """
    h = chain_link(previous, body)
    return f'{body[:-1]},"h":"{h}"}}', h


def seal_bytes(previous: bytes, body: bytes) -> tuple[bytes, bytes]:
    """:func:`seal` on UTF-8 bytes, as the log writes lines: the same line, encoded.

    Returns:
        (line, h): the line's bytes (without newline) and its hash (ASCII hex).
    """
    hasher = _BLAKE2B_128.copy()  # a copy costs less than a new hasher's keyword set-up
    hasher.update(previous)
    hasher.update(body)
    h = hasher.hexdigest().encode()
    return _join((body[:-1], b',"h":"', h, b'"}')), h


_BLAKE2B_128 = hashlib.blake2b(digest_size=16)
"""An empty BLAKE2b-128 hasher, copied for each line."""
_join = b"".join  # a sealed line's parts: a little cheaper than %-formatting them


def line_body(event: Event) -> bytes:
    """The event's line without its hash: exactly ``event.model_dump_json()``, encoded.

    The model's serializer is called directly (``model_dump_json`` passes its
    every default again, then decodes what the log would encode again).
    """
    cls = type(event)
    serializer = _SERIALIZERS.get(cls)
    if serializer is None:
        serializer = cls.__pydantic_serializer__
        if cls.__pydantic_complete__:  # never keep the placeholder of a class not yet built
            _SERIALIZERS[cls] = serializer
    return serializer.to_json(event)


_SERIALIZERS: dict[type[Event], Any] = {}
"""Each built event class's ``__pydantic_serializer__``, kept by :func:`line_body` (a model
class's attribute read passes through its metaclass's ``__getattr__`` hook; a class is never
given another serializer once built)."""


class UntrustedLine(AssertionError):
    """An event's line is not what validating the event again writes (a trusted build's bug)."""


_CHECKERS: dict[type[Event], FastEvent | None] = {}


def check_line(event: Event, body: str | bytes) -> None:
    """Validate ``event`` again from its line ``body``; it must write the same line back.

    Built with :func:`engine.events.trusted`, an event skips validation; a
    value of a wrong type (``3.0`` in an int field, text outside its
    ``Literal``, a die of 7) would write a line no reader accepts, or one
    that reads back as another.  This catches any such event.

    A class the reader's compiled decoder takes (:mod:`engine.replayfile.decoders`) is
    checked by it first (:func:`~engine.replayfile.decoders.check_exact`, which builds no
    event): it accepts a body only when the body decodes with the model's own
    types, tags and bounds and encodes back to the same bytes, which is what
    the strict pydantic round trip below demands (the reader's tests prove the
    two agree on every golden line); anything it does not accept is judged,
    and any refusal worded, by pydantic.  ``body`` is the line's text or its
    UTF-8 bytes (the log passes the bytes it writes).

    Raises:
        UntrustedLine: the line reads back as a different line, or not at all.
    """
    cls = type(event)
    if cls not in _CHECKERS:
        _CHECKERS[cls] = compile_event(cls)
    fast = _CHECKERS[cls]
    raw = body if isinstance(body, bytes) else body.encode()
    if fast is not None and check_exact(fast, raw):
        return  # read back strictly and written again byte for byte, at msgspec's speed
    body = raw.decode() if isinstance(body, bytes) else body
    try:
        model = cls.model_validate_json(body, strict=True)
        # the serializer itself: a test counting model_dump_json counts lines
        again = cls.__pydantic_serializer__.to_json(model).decode()
    except ValueError as exc:
        raise UntrustedLine(f"{cls.__name__} seq {event.seq} does not validate: {exc}") from None
    if again != body:
        raise UntrustedLine(f"{cls.__name__} seq {event.seq} wrote {body}, validated {again}")


class EventLog:
    """Append-only log: stamps each event's ``seq`` and writes chained lines.

    Args:
        header: the replay header (line 1).
        sink: where lines go.
    """

    check_lines: ClassVar[bool] = os.environ.get("BATTLESIM_CHECK_LINES") == "1"
    """Check every event's line with :func:`check_line` as it is built (the test
    suite turns this on, or ``BATTLESIM_CHECK_LINES=1``); off, nothing is
    checked.  A :class:`DiscardSink` gets no line, so nothing to check."""

    def __init__(self, header: Header, sink: Sink) -> None:
        self.header = header
        self.sink = sink
        self.count = 0
        self.discards: bool = getattr(sink, "discards", False) is True
        """The sink drops lines: none is serialised or hashed (see :class:`DiscardSink`)."""
        self._put: Callable[[bytes], None] = (
            sink.write  # type: ignore[assignment]  # a sink that says it takes bytes
            if getattr(sink, "takes_bytes", False) is True
            else lambda line: sink.write(line.decode())
        )
        self._put_event: Callable[[bytes, Event], None] | None = (
            sink.write_event  # type: ignore[attr-defined]  # a sink that says it takes events
            if getattr(sink, "takes_events", False) is True
            and (self.discards or getattr(sink, "takes_bytes", False) is True)
            else None
        )
        """An event line's bytes and the event itself, for a sink that asks (``takes_events``);
        to a discarding sink, the event with an empty line (none is built)."""
        self._h = GENESIS.encode()
        self._line(header.body)

    def stamp(self, event: Event) -> Event:
        """Return ``event`` with the next ``seq`` (the log assigns it).

        A fresh event (``seq`` still -1) is stamped in place (as
        :meth:`engine.events.Event.stamped` does): it has not been logged or
        shared yet, and a copy would cost more than building it.  An event
        that already has a seq is copied.
        """
        data = event.__dict__
        if data["seq"] != -1:
            return event.model_copy(update={"seq": self.count})
        data["seq"] = self.count
        event.__pydantic_fields_set__.add("seq")
        return event

    def write(self, event: Event) -> None:
        """Write a stamped event as the next line.

        A sink whose ``takes_events`` is true (and ``takes_bytes``) is handed
        the event with its line (``write_event(line, event)``): ``verify``'s
        comparing sink (:class:`engine.comparison.compare.Compare`) gives it to the
        auditor when the recorded line is byte for byte this one, instead of
        building the same event again from the file's bytes.  A discarding
        sink (``discards``) that asks is handed each event with ``b""``, as no
        line is built: ``battlesim history`` reads a battle's events so.

        Raises:
            ValueError: the event's ``seq`` is not the next one.
        """
        if event.seq != self.count:
            raise ValueError(f"event seq {event.seq} out of order: expected {self.count}")
        self.append(event)

    def append(self, event: Event) -> None:
        """:meth:`write` for a caller that stamped ``event`` with the log's next seq itself
        (:class:`~engine.recorder.Recorder`): the same line, without reading the seq back."""
        if self.discards:
            if self._put_event is None:
                self.sink.write("")
            else:
                self._put_event(b"", event)
        else:
            body = line_body(event)
            if self.check_lines:
                check_line(event, body)
            line, self._h = seal_bytes(self._h, body)
            if self._put_event is None:
                self._put(line)
            else:
                self._put_event(line, event)
        self.count += 1

    def _line(self, body: Callable[[], str]) -> None:
        """Seal and write a header or footer line; to a discarding sink, pass an empty one."""
        if self.discards:
            self.sink.write("")
            return
        line, self._h = seal_bytes(self._h, body().encode())
        self._put(line)

    def flush(self) -> None:
        """Flush the sink (the kernel calls this once a turn)."""
        self.sink.flush()

    def close(self, final_turn: int, final_state_digest: str) -> Footer:
        """Write the footer and close the sink."""
        footer = Footer(
            events=self.count, final_turn=final_turn, final_state_digest=final_state_digest
        )
        self._line(lambda: json.dumps(footer.model_dump(), separators=(",", ":")))
        self.sink.flush()
        self.sink.close()
        return footer

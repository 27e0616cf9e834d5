"""The one path by which a live simulation changes state.

:meth:`Recorder.emit` stamps an event with the log's next ``seq``, applies
it to the projection (the same apply function replay folds with) and only
then writes it, so a rejected event is never logged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from engine.canonical import NotCanonical, RowDigest, canonical_json, text_digest
from engine.events import Event, EventRegistry, Override, Snapshot, TurnEnded, whole_dump
from engine.log import EventLog, Footer, Fork
from engine.projection import Projection, set_path
from engine.replayfile.formats import schema_version_in
from engine.version import FORMAT_VERSION

__all__ = [
    "SNAPSHOT_EVERY",
    "LateEvent",
    "Recorder",
    "UnlawfulCause",
    "UnreadableVersion",
    "UnregisteredEvent",
]

SNAPSHOT_EVERY = 10
"""An ``engine.snapshot`` of the whole state follows every 10th turn's end."""

S = TypeVar("S")
E = TypeVar("E", bound=Event)


class UnregisteredEvent(TypeError):
    """An event whose class the ruleset's registry does not list was about to be recorded.

    Its replay could never be read back (a reader parses lines through the
    registry), so the battle stops at that event instead of writing it.
    """


class UnreadableVersion(UnregisteredEvent):
    """An event class whose schema version is not the one its replay's format holds it at
    (``Event.older_formats``, ``engine.replayfile.formats.schema_version_in``).

    Every reader refuses such a line (``schema_version N: format F writes T at schema
    version V``), so the battle stops at the class's first event instead of writing a
    replay that only ``verify``, which re-makes the same lines, would pass.
    """


class LateEvent(RuntimeError):
    """An event emitted after the battle's log was closed: by a process's clean-up code (a
    ``finally``, or a ``with`` around a ``yield``), which runs when the battle's processes
    are closed at its end.  It is refused before it is applied, so the battle's state and
    outcome stay those its replay holds; :meth:`engine.kernel.TurnKernel.close` raises it
    (``after_the_end``) once every process is closed."""

    after_the_end = True


class UnlawfulCause(ValueError):
    """An event about to be recorded names as its cause no earlier event's seq.

    Every reader refuses such a line (``cause … is not an earlier seq``): the replay
    would look tampered with, so the battle stops at that event instead of writing it.
    """


class Recorder(Generic[S]):
    """Log + projection: decide elsewhere, then ``emit`` here.

    Args:
        log: the event log.
        projection: current state and its apply function.
        snapshot: returns the plain-JSON form of the state (for digests).
        snapshot_json: returns :func:`~engine.canonical.canonical_json` of
            ``snapshot(state)`` written straight from the state, or None to
            serialise the snapshot (the digest is the same; see :meth:`_text`).
        registry: the ruleset's event registry: an event of a class it does
            not list is refused when emitted (:class:`UnregisteredEvent`),
            checked once per class; None records any event.
    """

    def __init__(
        self,
        log: EventLog,
        projection: Projection[S],
        snapshot: Callable[[S], object],
        snapshot_json: Callable[[S], str] | None = None,
        registry: EventRegistry | None = None,
    ) -> None:
        self.log = log
        self.projection = projection
        self.snapshot = snapshot
        self.snapshot_json = snapshot_json
        self.registry = registry
        self._admitted: set[type[Event]] = {TurnEnded, Snapshot, Override}
        self._closed = False
        self._digests = RowDigest()
        fork = log.header.fork
        self._forks: dict[int, Fork] = fork.chain() if fork is not None else {}

    @property
    def state(self) -> S:
        """The current state (read it; never write it)."""
        return self.projection.state

    @property
    def next_seq(self) -> int:
        """The seq the next emitted event will get."""
        return self.log.count

    def emit(self, event: E) -> E:
        """Stamp, apply and log one event; return the stamped event.

        In a forked battle (header ``fork``) the event at each fork's
        ``at_seq`` has that fork's fields replaced, and its state overrides
        follow it as ``engine.override`` events.

        Raises:
            UnregisteredEvent: the registry does not list the event's class.
            UnlawfulCause: its ``cause`` is no earlier event's seq.
            LateEvent: the log is closed (the battle is over).
        """
        if type(event) not in self._admitted:
            self._admit(type(event))
        data = event.__dict__
        if data["seq"] == -1:  # a fresh event: stamped in place, as EventLog.stamp does
            data["seq"] = seq = self.log.count
            cause = data["cause"]
            if cause is not None and not 0 <= cause < seq:
                data["seq"] = -1
                raise self._unlawful(event, seq)
            event.__pydantic_fields_set__.add("seq")
            if not self._forks:  # the commonest path: the seq just given, not read back
                self.projection.apply_seq(event, seq)
                self.log.append(event)
                return event
            stamped: Event = event
        else:
            stamped = self.log.stamp(event)
            if stamped.cause is not None and not 0 <= stamped.cause < stamped.seq:
                raise self._unlawful(stamped, stamped.seq)
        if not self._forks:
            self.projection.apply(stamped)
            self.log.write(stamped)
            return stamped  # type: ignore[return-value]
        fork = self._forks.get(stamped.seq)
        if fork is not None:
            stamped = self._forked(stamped, fork)
        self.projection.apply(stamped)
        self.log.write(stamped)
        if fork is not None:
            for path, value in sorted(fork.state.items()):
                self.emit(
                    Override(
                        turn=event.turn, time=event.time, cause=stamped.seq, path=path, value=value
                    )
                )
        return stamped  # type: ignore[return-value]

    def _admit(self, cls: type[Event]) -> None:
        """Let events of ``cls`` be recorded from now on, if the registry lists it.

        Raises:
            UnregisteredEvent: it does not.
            UnreadableVersion: its schema version is not the one the replay's format holds.
        """
        if self._closed:
            tag = cls.model_fields["type"].default
            raise LateEvent(
                f"ruleset {self.log.header.ruleset!r} records event {tag!r} after the battle "
                "ended, in a process's clean-up code (a finally, or a with around a yield, "
                "run as the battle's processes are closed): the replay is written, so "
                "record nothing once the battle is over (docs/rulesets.md, 'The battle runner')"
            )
        if self.registry is not None and not self.registry.knows(cls):
            tag = cls.model_fields["type"].default
            raise UnregisteredEvent(
                f"ruleset {self.log.header.ruleset!r} records event {tag!r} at seq "
                f"{self.log.count} ({cls.__module__}.{cls.__qualname__}), which its "
                f"EventRegistry does not list: give its state an @applies({cls.__name__}) "
                "method when the registry is made from the state's applied events "
                "(EventRegistry(State.applied_events())), or else add "
                f"{cls.__name__} to the registry of its Ruleset (its replay could not be read "
                "back)"
            )
        written, version = self.log.header.format_version, cls.model_fields["schema_version"]
        held = schema_version_in(written, cls)
        if written == FORMAT_VERSION and version.default != held:  # an older format's file is
            # a re-simulation (a fork's child, verify's), whose lines are compared as upcast
            tag = cls.model_fields["type"].default
            raise UnreadableVersion(
                f"ruleset {self.log.header.ruleset!r} records event {tag!r} at schema version "
                f"{version.default} ({cls.__module__}.{cls.__qualname__}), but a format-"
                f"{written} replay holds it at version {held}, so no reader would take the "
                "line: name the rules versions whose replays hold the old one in the class's "
                "older_rules, not today's format in older_formats (docs/replay-tools.md, *When a "
                "rule really changes an event's shape*)"
            )
        self._admitted.add(cls)

    def _unlawful(self, event: Event, seq: int) -> UnlawfulCause:
        tag = type(event).model_fields["type"].default
        return UnlawfulCause(
            f"ruleset {self.log.header.ruleset!r} records event {tag!r} at seq {seq} with cause "
            f"{event.cause}, which is not an earlier event's seq: a cause names the event, "
            "already recorded, that brought this one about (its replay would not verify)"
        )

    @staticmethod
    def _forked(event: Event, fork: Fork) -> Event:
        """The event with the fork's field overrides (validated as a whole)."""
        if not fork.event:
            return event
        data = whole_dump(event)
        for path, value in sorted(fork.event.items()):
            set_path(data, path, value, allow_none=True)
        return type(event).model_validate(data)

    def end_turn(self, turn: int, time: float) -> TurnEnded:
        """Log the digest of the state at the end of ``turn`` and flush the file.

        The projection applies :class:`TurnEnded` as a no-op (rulesets never
        see it), so the digest is also that of the state after it.
        """
        event = self.emit(TurnEnded(turn=turn, time=time, state_digest=self._digest()))
        if turn % SNAPSHOT_EVERY == 0:
            # taken after the turn's end, so a fork's override made there is in it
            state = {} if self.log.discards else self.snapshot(self.state)
            self.emit(Snapshot(turn=turn, time=time, state=state))
        self.log.flush()
        return event

    def _digest(self) -> str:
        """The state's digest; none (``""``) when nobody will read the log.

        The turn-end and snapshot events are still emitted (applying them
        changes nothing), so every later event keeps its seq.
        """
        return "" if self.log.discards else text_digest(self._text())

    def _text(self) -> str:
        """The canonical JSON of the state's snapshot: the text its digest hashes.

        From ``snapshot_json`` when given; with :attr:`EventLog.check_lines`
        on (the test suite), it is compared with the snapshot serialised.

        Raises:
            NotCanonical: ``snapshot_json`` wrote another text (line check on).
        """
        if self.snapshot_json is None:
            return self._digests.canonical_json(self.snapshot(self.state))
        text = self.snapshot_json(self.state)
        if self.log.check_lines:
            expected = canonical_json(self.snapshot(self.state))
            if text != expected:
                raise NotCanonical(_difference(text, expected))
        return text

    def close(self, final_turn: int) -> Footer:
        """Write the footer with the final state's digest; no event is taken after it
        (:class:`LateEvent`: every emit is checked again, at no cost before)."""
        footer = self.log.close(final_turn, self._digest())
        self._closed = True
        self._admitted = set()  # each emit now goes through _admit, which refuses it
        return footer


def _difference(text: str, expected: str) -> str:
    """Where ``text`` first differs from ``expected``, with some context of each."""
    at = next(
        (i for i, (a, b) in enumerate(zip(text, expected, strict=False)) if a != b),
        min(len(text), len(expected)),
    )
    start = max(0, at - 60)
    return (
        f"snapshot_json wrote {text[start : at + 60]!r} at {at}, "
        f"where the snapshot's canonical JSON is {expected[start : at + 60]!r}"
    )

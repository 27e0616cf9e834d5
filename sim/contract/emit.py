"""What a rule makes its events with: the stamp, the dice record, the cause base, the end rule.

Every event a rule decides carries the battle's moment (``turn``, ``time``)
and, when an earlier event led to it, that event's ``cause``; :func:`stamp`
reads them from the battle view, one way for every ruleset::

    return Moved(**stamp(b, cause=unit.morale_cause), unit=unit.id, path=path)

An event type that began to record its ``cause`` after replays were written
derives from :class:`RecordsCause`; :func:`cause_upcasters` gives the
registry the upcasters of its older records.  A plan whose only end-of-turn
rule is the battle's end takes :func:`turn_end_from` as its ``turn_end``.
:class:`Rolls` rolls dice on a stream and keeps each roll's draw for the event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar, Protocol, TypedDict, TypeVar

from engine.events import Draw, Event, Upcaster, same_shape
from engine.rng import Stream

__all__ = [
    "Clock",
    "RecordsCause",
    "Rolls",
    "Stamp",
    "cause_upcasters",
    "stamp",
    "turn_end_from",
]

V = TypeVar("V")


class Clock(Protocol):
    """What :func:`stamp` reads of a battle view (every :class:`sim.runner.BattleView` has it)."""

    @property
    def turn(self) -> int:
        """The turn in progress (1-based)."""

    @property
    def now(self) -> float:
        """The simulation time."""


class Stamp(TypedDict):
    """The fields of :class:`engine.events.Event` a rule fills: when, and what led to it."""

    turn: int
    time: float
    cause: int | None


def stamp(b: Clock, cause: int | None = None) -> Stamp:
    """The moment ``b`` is at — its turn and time — and the ``cause`` (a seq, or None).

    Spread it into the event's fields, validated (``Moved(**stamp(b), unit=...)``)
    or trusted (``trusted(Fired, {**stamp(b), "phase": ...})``): it holds them in
    the event's declaration order.
    """
    return {"turn": b.turn, "time": b.now, "cause": cause}


class Rolls:
    """Dice rolled on one random stream, each roll's :class:`~engine.events.Draw` kept in
    ``draws`` in the order rolled: the record an event carries of its dice.

    Several may share one ``draws`` list (one event's dice from more than one stream)::

        draws: list[Draw] = []
        for side in sides:
            rolls[side.id] = Rolls(b.streams.stream(b.turn, "initiative", side.id), draws).roll(6)
    """

    __slots__ = ("draws", "stream")

    def __init__(self, stream: Stream, draws: list[Draw] | None = None) -> None:
        self.stream = stream
        self.draws: list[Draw] = [] if draws is None else draws
        """The draws taken, in order (the list given, appended to)."""

    def roll(self, sides: int) -> int:
        """A die of ``sides`` faces, 1 to ``sides`` (:meth:`engine.rng.Stream.roll`); its
        draw is recorded."""
        value, draw = self.stream.roll(sides)
        self.draws.append(draw)
        return value


class RecordsCause(Event):
    """Base of an event type whose schema version 2 began to record its ``cause``.

    Replay formats 1 and 2 hold it at version 1 (``older_formats``), with the cause
    it had then (none, mostly); the shape is the same, so the upcaster of a
    version-1 record is :func:`engine.events.same_shape` (:func:`cause_upcasters`).
    A class that raises its version again sets ``schema_version`` and
    ``older_formats`` itself.
    """

    older_formats: ClassVar[dict[int, int]] = {2: 1}
    schema_version: int = 2


def cause_upcasters(classes: Iterable[type[RecordsCause]]) -> dict[tuple[str, int], Upcaster]:
    """The registry's upcasters of each class's version-1 records: the same shape.

    Raises:
        ValueError: a class has no ``Literal`` type tag.
    """
    upcasters: dict[tuple[str, int], Upcaster] = {}
    for cls in classes:
        tag = cls.model_fields["type"].default
        if not isinstance(tag, str):
            raise ValueError(f"event class {cls.__name__} needs a type tag")
        upcasters[(tag, 1)] = same_shape
    return upcasters


def turn_end_from(
    decide: Callable[[V, bool], Event | None],
) -> Callable[[V, int, bool], list[Event]]:
    """A plan's ``turn_end`` whose one rule is the battle's end.

    Args:
        decide: ``decide(view, last)`` — the battle-ended event at this turn's
            close (``last``: the turn limit is reached), or None while it goes on.
    """

    def turn_end(b: V, turn: int, last: bool) -> list[Event]:
        ended = decide(b, last)
        return [] if ended is None else [ended]

    return turn_end

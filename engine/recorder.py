"""The one path by which a live simulation changes state.

:meth:`Recorder.emit` stamps an event with the log's next ``seq``, applies
it to the projection (the same apply function replay folds with) and only
then writes it, so a rejected event is never logged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from engine.canonical import digest
from engine.events import Event, TurnEnded
from engine.log import EventLog, Footer
from engine.projection import Projection

__all__ = ["Recorder"]

S = TypeVar("S")
E = TypeVar("E", bound=Event)


class Recorder(Generic[S]):
    """Log + projection: decide elsewhere, then ``emit`` here.

    Args:
        log: the event log.
        projection: current state and its apply function.
        snapshot: returns the plain-JSON form of the state (for digests).
    """

    def __init__(
        self, log: EventLog, projection: Projection[S], snapshot: Callable[[S], object]
    ) -> None:
        self.log = log
        self.projection = projection
        self.snapshot = snapshot

    @property
    def state(self) -> S:
        """The current state (read it; never write it)."""
        return self.projection.state

    @property
    def next_seq(self) -> int:
        """The seq the next emitted event will get."""
        return self.log.count

    def emit(self, event: E) -> E:
        """Stamp, apply and log one event; return the stamped event."""
        stamped = self.log.stamp(event)
        self.projection.apply(stamped)
        self.log.write(stamped)
        return stamped  # type: ignore[return-value]

    def end_turn(self, turn: int, time: float) -> TurnEnded:
        """Log the digest of the state at the end of ``turn`` and flush the file.

        Rulesets apply :class:`TurnEnded` as a no-op, so the digest is also
        that of the state after it.
        """
        event = self.emit(
            TurnEnded(turn=turn, time=time, state_digest=digest(self.snapshot(self.state)))
        )
        self.log.flush()
        return event

    def close(self, final_turn: int) -> Footer:
        """Write the footer with the final state's digest."""
        return self.log.close(final_turn, digest(self.snapshot(self.state)))

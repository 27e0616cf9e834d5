"""Projection: state is the fold of events through one apply function.

The live simulation applies each event through a :class:`Projection` as it
is logged; replay folds the logged events through the same function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from engine.events import Event

__all__ = ["Apply", "OutOfOrder", "Projection", "fold"]

S = TypeVar("S")
Apply = Callable[[S, Event], None]


class OutOfOrder(ValueError):
    """An event arrived whose seq is not the next one."""


class Projection(Generic[S]):
    """Current state plus the seq of the last event applied to it.

    Args:
        state: the initial state (mutated in place by ``apply``).
        apply: the ruleset's one apply function.
    """

    __slots__ = ("_apply", "last_seq", "state")

    def __init__(self, state: S, apply: Apply[S]) -> None:
        self.state = state
        self._apply = apply
        self.last_seq = -1

    def apply(self, event: Event) -> None:
        """Apply the next event; refuse one out of order."""
        if event.seq != self.last_seq + 1:
            raise OutOfOrder(f"event seq {event.seq} applied after {self.last_seq}")
        self._apply(self.state, event)
        self.last_seq = event.seq


def fold(
    state: S, events: Iterable[Event], apply: Apply[S], until: Callable[[Event], bool] | None = None
) -> S:
    """Apply ``events`` in order to ``state``; stop before the first where ``until`` holds.

    Returns:
        The same ``state`` object, advanced.
    """
    projection = Projection(state, apply)
    for event in events:
        if until is not None and until(event):
            break
        projection.apply(event)
    return projection.state

"""Immutable events, and the registry that parses any logged line into one.

Every event is a frozen pydantic model with a ``Literal`` ``type`` tag, a
``schema_version``, the ``seq`` the log gave it, the ``turn`` and simulation
``time`` it happened at, and, when another event caused it, that event's
``cause`` seq.  Rulesets subclass :class:`Event` and register their classes
with an :class:`EventRegistry`, which parses lines through one
discriminated union.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "Draw",
    "Event",
    "EventRegistry",
    "TurnEnded",
    "UnknownEventType",
]


class Draw(BaseModel):
    """One uniform draw taken from a named stream: its name, index and value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stream: str
    i: int
    u: float


class Event(BaseModel):
    """Base of every logged event.

    Subclasses set ``type`` to a ``Literal`` tag (``"<ruleset>.<name>"``)
    and may raise ``schema_version`` when their shape changes.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    schema_version: int = 1
    seq: int = -1
    turn: int
    time: float
    cause: int | None = None


class TurnEnded(Event):
    """Engine event closing a turn: the digest of the whole state at that point.

    Readers use it to name the first turn whose state differs and to flush
    the file once a turn.
    """

    type: Literal["engine.turn_ended"] = "engine.turn_ended"
    state_digest: str


class UnknownEventType(ValueError):
    """Raised when a line names an event type no registry knows."""


class EventRegistry:
    """The set of event classes one ruleset may log, and their parser.

    Args:
        classes: event classes, each with a distinct ``Literal`` ``type``.
    """

    def __init__(self, classes: Iterable[type[Event]]) -> None:
        self._classes: dict[str, type[Event]] = {}
        every: tuple[type[Event], ...] = (TurnEnded, *classes)
        for cls in every:
            tag = cls.model_fields["type"].default
            if not isinstance(tag, str) or tag in self._classes:
                raise ValueError(f"event class {cls.__name__} needs a unique type tag")
            self._classes[tag] = cls
        union: Any = Union[tuple(self._classes.values())]  # noqa: UP007
        self._adapter: TypeAdapter[Event] = TypeAdapter(
            Annotated[union, Field(discriminator="type")]
        )

    @property
    def types(self) -> tuple[str, ...]:
        """Return the registered type tags, sorted."""
        return tuple(sorted(self._classes))

    def cls(self, tag: str) -> type[Event]:
        """Return the class registered for ``tag``."""
        try:
            return self._classes[tag]
        except KeyError:
            raise UnknownEventType(f"unknown event type {tag!r}") from None

    def parse(self, data: dict[str, Any]) -> Event:
        """Validate one decoded line into its event class.

        Raises:
            UnknownEventType: the ``type`` is not registered.
            pydantic.ValidationError: the fields do not fit the class.
        """
        tag = data.get("type")
        if not isinstance(tag, str) or tag not in self._classes:
            raise UnknownEventType(f"unknown event type {tag!r}")
        return self._adapter.validate_python(data)

"""A base for a ruleset's state from which ``snapshot``, ``restore`` and ``apply`` come for free.

A ruleset's state is what its events change.  Derive it from
:class:`StateBase` — a mutable pydantic model with the ``ended`` flag the
runner reads — and mark one method per event class with :func:`applies`::

    class State(StateBase):
        health: dict[str, int]

        @applies(Struck)
        def struck(self, e: Struck) -> None:
            self.health[e.target] -= e.damage

Then :class:`~sim.contract.Ruleset` needs no ``apply``, ``snapshot`` or
``restore``: ``apply(state, event)`` calls the method marked for the
event's class (an event with none is refused with :class:`TypeError`, so a
forgotten event type fails the first battle that logs it, never silently);
``snapshot`` is the model's JSON data; ``restore`` validates it back, so
``restore(sc, snapshot(s)) == s`` holds by construction for any fields
pydantic round-trips through JSON (ints, text, booleans, lists, dicts keyed
by text, nested models; not floats that must keep their exact type in
``dict[str, float | int]``-style unions, nor sets).

The engine's own events (``engine.turn_ended``, ``engine.snapshot``,
``engine.override``) never reach ``apply``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from engine.events import Event

__all__ = ["StateBase", "applies"]

_E = TypeVar("_E", bound=Event)
_S = TypeVar("_S", bound="StateBase")
Method = Callable[[Any, Any], None]

_MARK = "__battlesim_applies__"


def applies(*events: type[Event]) -> Callable[[Callable[[_S, _E], None]], Callable[[_S, _E], None]]:
    """Mark a :class:`StateBase` method as the one that applies ``events`` (one or more classes).

    Raises:
        TypeError: at class creation, when two methods claim the same event class.
    """

    def mark(method: Callable[[_S, _E], None]) -> Callable[[_S, _E], None]:
        setattr(method, _MARK, (*getattr(method, _MARK, ()), *events))
        return method

    return mark


class StateBase(BaseModel):
    """A ruleset's battle state: fields, plus one :func:`applies` method per event class.

    Mutable (apply changes it in place), unknown fields refused.  Subclass
    fields of the usual pydantic kinds; nested models may be plain
    :class:`pydantic.BaseModel` subclasses (mutable too).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    ended: bool = False
    """True once the battle is over: the runner stops at the end of that turn."""

    appliers: ClassVar[dict[type[Event], Method]] = {}
    """Event class → the method applying it, collected from the class and its bases."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Collect the :func:`applies` methods of the new class and its bases."""
        super().__pydantic_init_subclass__(**kwargs)
        found: dict[type[Event], tuple[str, Method]] = {}
        for klass in reversed(cls.__mro__):
            own = vars(klass)
            # a method redefined lower down replaces what its name applied higher up
            found = {e: (n, m) for e, (n, m) in found.items() if n not in own}
            level: dict[type[Event], tuple[str, Method]] = {}
            for name, member in own.items():
                for event in getattr(member, _MARK, ()):
                    if event in level:
                        raise TypeError(
                            f"{klass.__name__}: {name} and {level[event][0]} both apply "
                            f"{event.__name__}"
                        )
                    level[event] = (name, member)
            found.update(level)
        cls.appliers = {event: method for event, (_, method) in found.items()}

    def apply(self, event: Event) -> None:
        """Change this state by ``event`` through its class's :func:`applies` method.

        Raises:
            TypeError: no method applies the event's class.
        """
        method = self.appliers.get(type(event))
        if method is None:
            raise TypeError(
                f"{type(self).__name__} has no @applies({type(event).__name__}) method "
                f"for {event.type!r}"
            )
        method(self, event)

    def snapshot(self) -> dict[str, Any]:
        """The state as plain JSON data (what ``engine.snapshot`` stores and each turn digests)."""
        return self.model_dump(mode="json")

    @classmethod
    def restore(cls: type[_S], data: dict[str, Any]) -> _S:
        """The state a :meth:`snapshot` was taken of."""
        return cls.model_validate(data)

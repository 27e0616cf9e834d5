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
``snapshot`` is the model's JSON data (:data:`~sim.contract.parts.ById` rows
as lists, :func:`~sim.contract.parts.fixed` fields left out); ``restore``
validates it back (fixed fields from the scenario's initial state), so
``restore(sc, snapshot(s)) == s`` holds by construction for any fields
pydantic round-trips through JSON (ints, text, booleans, lists, dicts,
nested models; not floats that must keep their exact type in
``float | int``-style unions).  A ``set`` or ``frozenset`` field (nested
models included) is refused when the class is made: its JSON order follows
string hashing, which changes from process to process, so the state digest
would too.

The engine's own events (``engine.turn_ended``, ``engine.snapshot``,
``engine.override``) never reach ``apply``.
"""

from __future__ import annotations

from collections.abc import Callable, MutableSet
from collections.abc import Set as AbstractSet
from typing import Any, ClassVar, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict

from engine.events import Event
from sim.contract import parts

__all__ = ["StateBase", "applies"]

_E = TypeVar("_E", bound=Event)
_S = TypeVar("_S", bound="StateBase")

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


def _unordered(annotation: Any, seen: set[type]) -> str | None:
    """``set`` or ``frozenset`` when the annotation holds one anywhere (nested models too)."""
    origin = get_origin(annotation) or annotation
    if origin in (set, frozenset, AbstractSet, MutableSet):
        return getattr(origin, "__name__", "set")
    if isinstance(origin, type) and issubclass(origin, BaseModel) and origin not in seen:
        seen.add(origin)
        return next(
            (u for f in origin.model_fields.values() if (u := _unordered(f.annotation, seen))),
            None,
        )
    return next((u for a in get_args(annotation) if (u := _unordered(a, seen))), None)


def _appliers(cls: type) -> dict[type[Event], str]:
    """Event class → method name, from the bases down to ``cls``.

    A method redefined lower down with marks of its own applies those events
    instead of its base's; redefined without marks, it applies what the
    base's did (it is called by name, so the override runs).

    Raises:
        TypeError: two methods of one class claim the same event class.
    """
    found: dict[type[Event], str] = {}
    for klass in reversed(cls.__mro__):
        level: dict[type[Event], str] = {}
        for name, member in vars(klass).items():
            marks = getattr(member, _MARK, ())
            if marks:
                found = {e: n for e, n in found.items() if n != name}
            for event in marks:
                if event in level:
                    raise TypeError(
                        f"{klass.__name__}: {name} and {level[event]} both apply {event.__name__}"
                    )
                level[event] = name
        found.update(level)
    return found


class StateBase(BaseModel):
    """A ruleset's battle state: fields, plus one :func:`applies` method per event class.

    Mutable (apply changes it in place), unknown fields refused.  Subclass
    fields of the usual pydantic kinds; nested models may be plain
    :class:`pydantic.BaseModel` subclasses (mutable too).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    ended: bool = False
    """True once the battle is over: the runner stops at the end of that turn."""

    appliers: ClassVar[dict[type[Event], str]] = {}
    """Event class → the name of the method applying it, from the class and its bases."""

    apply_functions: ClassVar[dict[type[Event], Callable[[Any, Any], None]]] = {}
    """Event class → the function applying it (``appliers`` looked up once, for speed)."""

    snapshot_order: ClassVar[tuple[str, ...]] = ()
    """The snapshot's keys in this order, when given (default: the fields' order, ``ended``
    first).  The key order shows only in an ``engine.snapshot`` event's line (digests sort
    keys): a ruleset whose replays were written before it used the base keeps their order."""

    rows_paths: ClassVar[list[tuple[str, ...]]] = []
    """Where the dump holds :data:`~sim.contract.parts.ById` rows (made lists in the snapshot)."""

    has_fixed: ClassVar[bool] = False
    """True when a field (nested parts included) is :func:`~sim.contract.parts.fixed`."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Collect the :func:`applies` methods of the new class and its bases."""
        super().__pydantic_init_subclass__(**kwargs)
        for name, info in cls.model_fields.items():
            unordered = _unordered(info.annotation, set())
            if unordered:
                raise TypeError(
                    f"{cls.__name__}.{name}: a {unordered} has no fixed order, so its snapshot "
                    "(and the state digest) would change with the process: keep a sorted list"
                )
        cls.appliers = _appliers(cls)
        cls.apply_functions = {e: getattr(cls, name) for e, name in cls.appliers.items()}
        cls.has_fixed = parts.has_fixed(cls)
        cls.rows_paths = parts.rows_paths(cls)
        kept = [n for n, info in cls.model_fields.items() if not info.exclude]
        if cls.snapshot_order and sorted(cls.snapshot_order) != sorted(kept):
            raise TypeError(
                f"{cls.__name__}.snapshot_order must name each snapshot field once: "
                f"expected {sorted(kept)}, got {sorted(cls.snapshot_order)}"
            )

    @classmethod
    def applied_events(cls) -> tuple[type[Event], ...]:
        """The event classes its :func:`applies` methods apply, bases' first, in mark order.

        ``EventRegistry(State.applied_events())`` is the registry of a ruleset whose
        state applies every event it records (``check-ruleset``'s ``events-are-registered``
        holds by construction).
        """
        return tuple(cls.appliers)

    def apply(self, event: Event) -> None:
        """Change this state by ``event`` through its class's :func:`applies` method.

        Raises:
            TypeError: no method applies the event's class.
        """
        function = self.apply_functions.get(type(event))
        if function is None:
            raise TypeError(
                f"{type(self).__name__} has no @applies({type(event).__name__}) method "
                f"for {event.type!r}"
            )
        function(self, event)

    def snapshot(self) -> dict[str, Any]:
        """The state as plain JSON data (what ``engine.snapshot`` stores and each turn digests)."""
        # warnings=False: a field an override set to another type while it was None
        # (engine.projection.set_path allows it) is written as it is, without a warning.
        data = parts.as_rows(self.model_dump(mode="json", warnings=False), self.rows_paths)
        if self.snapshot_order:
            return {key: data[key] for key in self.snapshot_order}
        return data

    @classmethod
    def restore(cls: type[_S], data: dict[str, Any], start: _S | None = None) -> _S:
        """The state a :meth:`snapshot` was taken of.

        ``start`` is the scenario's initial state: a :func:`~sim.contract.parts.fixed`
        field, which the snapshot leaves out, is taken from it.
        """
        if cls.has_fixed and start is not None:
            return cls.model_validate(parts.overlay(start, data))
        return cls.model_validate(data)

    def __eq__(self, other: object) -> bool:
        """Equal class and equal snapshot fields (a ``fixed`` field is left out)."""
        return parts.same_snapshot(self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable

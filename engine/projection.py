"""Projection: state is the fold of events through one apply function.

The live simulation applies each event through a :class:`Projection` as it
is logged; replay folds the logged events through the same function.  The
engine's own events are applied here for every ruleset, never passed to the
ruleset's apply: ``engine.turn_ended`` and ``engine.snapshot`` change
nothing, and ``engine.override`` (a counterfactual) sets one state field by
path.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar, cast

from engine.events import Event, Override, Snapshot, TurnEnded

__all__ = ["Apply", "OutOfOrder", "PathError", "Projection", "fold", "get_path", "set_path"]

S = TypeVar("S")
Apply = Callable[[S, Event], None]


class OutOfOrder(ValueError):
    """An event arrived whose seq is not the next one."""


class PathError(ValueError):
    """A state path that does not exist, or a value of the wrong type for it.

    Attributes:
        missing: the segment that named nothing ("" for a wrong value).
        choices: the keys or fields that were there instead, for a "did you mean".
    """

    def __init__(self, message: str, missing: str = "", choices: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.missing = missing
        self.choices = choices


def _fields_of(obj: Any) -> tuple[str, ...]:
    """The public field names of a dataclass or pydantic object (for a suggestion)."""
    if dataclasses.is_dataclass(obj):
        return tuple(f.name for f in dataclasses.fields(obj))
    names = getattr(type(obj), "model_fields", None)
    return tuple(names) if isinstance(names, dict) else ()


def _step(obj: Any, part: str) -> Any:
    if isinstance(obj, dict):
        if part in obj:
            return obj[part]
        keys = tuple(map(str, obj))
        raise PathError(f"no key {part!r}; has: {', '.join(keys[:12])}", part, keys)
    if isinstance(obj, list):
        try:
            return obj[int(part)]
        except (ValueError, IndexError):
            raise PathError(f"no item {part!r}") from None
    if hasattr(obj, part) and not part.startswith("_"):
        return getattr(obj, part)
    raise PathError(f"no field {part!r}", part, _fields_of(obj))


def _a(name: str) -> str:
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def get_path(state: Any, path: str) -> Any:
    """Return the value at a dotted path: attributes, mapping keys, list indices."""
    obj = state
    for part in path.split("."):
        obj = _step(obj, part)
    return obj


def _check_number(path: str, old: Any, value: Any, counts: bool) -> None:
    """No NaN or infinity; with ``counts``, no negative where the value was not negative."""
    if type(value) not in (int, float):
        return
    if not math.isfinite(value):
        raise PathError(f"{path} must be a finite number, not {value!r}")
    if counts and type(old) in (int, float) and old >= 0 and value < 0:
        raise PathError(f"{path} cannot be negative ({value!r}); it counts something (was {old})")


def set_path(
    state: Any, path: str, value: Any, *, allow_none: bool = False, counts: bool = False
) -> None:
    """Set the value at a dotted path, refusing a value of another type.

    ``allow_none`` lets a value become None (for event data that a model
    validates afterwards); state fields keep their type.  A field that is
    None now takes a value of any type: its type cannot be known here.
    ``counts`` (state overrides): a number that was not negative (strength,
    fatigue, losses) may not become negative.  NaN and infinity never pass.

    Raises:
        PathError: the path does not exist or the value's type differs.
    """
    parent_path, _, last = path.rpartition(".")
    parent = get_path(state, parent_path) if parent_path else state
    old = _step(parent, last)
    if isinstance(old, tuple) and isinstance(value, list):
        value = tuple(value)
    same = type(old) is type(value) or (type(old) is float and type(value) is int)
    if old is not None and not same and not (allow_none and value is None):
        raise PathError(f"{path} is {_a(type(old).__name__)}, not {_a(type(value).__name__)}")
    _check_number(path, old, value, counts)
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent[int(last)] = value
    else:
        setattr(parent, last, value)


_RULESET, _SKIP, _OVERRIDE = 0, 1, 2
_ROUTES: dict[type[Event], int] = {}
"""Event class → who applies it, decided by ``isinstance`` once per class."""


def _route(kind: type[Event]) -> int:
    if issubclass(kind, Override):
        route = _OVERRIDE
    elif issubclass(kind, Snapshot | TurnEnded):
        route = _SKIP
    else:
        route = _RULESET
    _ROUTES[kind] = route
    return route


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
        self.apply_seq(event, event.seq)

    def apply_seq(self, event: Event, seq: int) -> None:
        """:meth:`apply` of an event whose ``seq`` the caller holds (it has just stamped it:
        a pydantic model's field read costs several times an argument's)."""
        if seq != self.last_seq + 1:
            raise OutOfOrder(f"event seq {seq} applied after {self.last_seq}")
        route = _ROUTES.get(type(event))
        if route is None:
            route = _route(type(event))
        if route == _RULESET:
            self._apply(self.state, event)
        elif route == _OVERRIDE:
            override = cast(Override, event)
            set_path(self.state, override.path, override.value, counts=True)
        self.last_seq = seq


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

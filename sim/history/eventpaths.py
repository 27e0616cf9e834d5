"""What a case's event measures name, checked against the ruleset's event classes.

An ``events`` or ``loss_from`` measure reads events by their ``type`` and by dotted
field paths into their JSON (``result.casualties``, ``where: {winner: ...}``). A
misspelt type or path would read nothing in every run — a count of 0, a loss of 0 —
and such a measure can pass, so each is checked when the case is read: the type
against the ruleset's event registry, each path against the fields of the event's
class (its models, lists by index, mappings by any key), and what the path must end
at — a number for an ``amount``, text for a unit id.
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel

__all__ = ["path_problem", "value_problem"]

_UNIONS = (Union, types.UnionType)
_NUMBERS = (int, float)


def _leaves(annotation: Any, parts: Sequence[str], fixed: bool = False) -> list[Any]:
    """The annotations a dotted path can end at under ``annotation`` (none: it has no
    such field). ``Any`` (or an unannotated value) takes every path. ``fixed``: a path
    through an optional field, an index into a list of any length or a key of a mapping
    (which an event may not hold) is no path."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _leaves(get_args(annotation)[0], parts, fixed)
    if origin in _UNIONS:
        members = [a for a in get_args(annotation) if a is not type(None)]
        if fixed and len(members) < len(get_args(annotation)):
            return []  # an optional field: null, or left out of the line
        return [leaf for arg in members for leaf in _leaves(arg, parts, fixed)]
    if annotation is Any or annotation is object:
        return [Any]
    if not parts:
        return [annotation]
    head, rest = parts[0], parts[1:]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        info = annotation.model_fields.get(head)
        if info is None:
            return []
        if fixed and info.exclude_if is not None and (rest or not _zero(info.default)):
            return []  # left out of its line at a default the reader does not take as 0
        return _leaves(info.annotation, rest, fixed)
    if (
        isinstance(annotation, type)
        and issubclass(annotation, tuple)
        and hasattr(annotation, "_fields")
    ):  # a NamedTuple (a draw) is written as a list of its fields
        hints = get_type_hints(annotation)
        return _items(tuple, tuple(hints[name] for name in annotation._fields), parts, fixed)
    return _items(origin or annotation, get_args(annotation), parts, fixed)


def _zero(default: Any) -> bool:
    """Whether a field left out of an event's line at ``default`` reads as 0 where it is
    summed (:func:`sim.history.measures._path` takes a missing last field as 0)."""
    return isinstance(default, _NUMBERS) and not isinstance(default, bool) and default == 0


def _items(kind: Any, args: tuple[Any, ...], parts: Sequence[str], fixed: bool) -> list[Any]:
    """:func:`_leaves` into a container: ``kind`` its origin (``tuple``, ``list``, ``dict``)
    and ``args`` its parameters."""
    head, rest = parts[0], parts[1:]
    if kind in (tuple, list, Sequence) and not head.isdigit():
        return []
    if kind is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        index = int(head)
        if not args:
            return [] if fixed else [Any]
        return _leaves(args[index], rest, fixed) if index < len(args) else []
    if kind in (tuple, list, Sequence):
        return [] if fixed else _leaves(args[0] if args else Any, rest, fixed)
    if kind in (dict, Mapping):
        return [] if fixed else _leaves(args[1] if len(args) == 2 else Any, rest, fixed)
    return []


def _is(leaf: Any, kinds: tuple[type, ...]) -> bool:
    """Whether a value of annotation ``leaf`` can be of one of ``kinds``."""
    if leaf is Any:
        return True
    if get_origin(leaf) is Literal:
        return any(isinstance(v, kinds) and not isinstance(v, bool) for v in get_args(leaf))
    return isinstance(leaf, type) and issubclass(leaf, kinds) and leaf is not bool


def path_problem(event: type[BaseModel], dotted: str, ends_at: str | None = None) -> str | None:
    """What is wrong with ``dotted`` as a path into an ``event`` of this class, or None.

    Args:
        ends_at: ``"number"`` (an amount summed), ``"text"`` (a unit id), or None (any
            value: a ``where`` compares it).
    """
    tag = event.model_fields["type"].default
    parts = dotted.split(".")
    leaves = _leaves(event, parts)
    if not leaves:
        return f"no field {dotted!r} in {tag} events"
    kinds = {"number": _NUMBERS, "text": (str,)}.get(ends_at or "")
    if kinds is not None and not any(_is(leaf, kinds) for leaf in leaves):
        return f"{dotted!r} of {tag} events is not {'a number' if ends_at == 'number' else 'text'}"
    if ends_at == "number" and not _leaves(event, parts, fixed=True):
        return (
            f"{dotted!r} of {tag} events is optional or an item of a list or mapping, which "
            "an event may not hold: name a field every such event has"
        )
    return None


def _holds(leaf: Any, value: Any) -> bool:
    """Whether a field of annotation ``leaf`` can equal ``value`` as a ``where`` compares
    them (``true`` is not ``1``; ``2`` is ``2.0``)."""
    if leaf is Any or value is None:
        return True
    if get_origin(leaf) is Literal:
        return any(type(v) is type(value) and v == value for v in get_args(leaf)) or any(
            isinstance(v, _NUMBERS)
            and not isinstance(v, bool)
            and _is(type(value), _NUMBERS)
            and float(v) == float(value)
            for v in get_args(leaf)
        )
    if not isinstance(leaf, type):
        return True
    if isinstance(value, bool):
        return leaf is bool
    if isinstance(value, _NUMBERS):
        return leaf in _NUMBERS
    if isinstance(value, str):
        return issubclass(leaf, str)
    return True


def value_problem(event: type[BaseModel], dotted: str, value: Any) -> str | None:
    """What is wrong with ``where: {dotted: value}`` for an ``event`` of this class: no
    such field, or a field that never holds such a value (a count of 0 in every run)."""
    problem = path_problem(event, dotted)
    if problem is not None:
        return problem
    if not any(_holds(leaf, value) for leaf in _leaves(event, dotted.split("."))):
        tag = event.model_fields["type"].default
        return f"{dotted!r} of {tag} events never holds {value!r}"
    return None

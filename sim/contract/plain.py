"""Plain JSON data: what a hook returning data to be digested may hold, and what it may not."""

from __future__ import annotations

import math
from typing import Any

from engine.canonical import canonical_json

__all__ = ["not_plain_json"]

_DEEPEST = 100
"""Nesting past which the search for the culprit stops (a value holding itself)."""


def not_plain_json(value: Any) -> str | None:
    """Why :func:`~engine.canonical.canonical_json` cannot write ``value``, found where it
    is (``a set at 'dice'``, ``the float nan at 'tables.fire.2'``), or None when it can.

    Whatever it writes today passes (a tuple, written as a list), so no digest it gave
    before is refused now.
    """
    try:
        canonical_json(value)
    except (TypeError, ValueError, RecursionError) as exc:
        return _culprit(value) or f"data JSON cannot write ({' '.join(str(exc).split())})"
    return None


def _culprit(value: Any) -> str | None:
    """The first value, in the data's own order, that is not plain JSON, with its path."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > _DEEPEST:
            return None
        if isinstance(item, float) and not math.isfinite(item):
            return f"the float {item!r}{_at(path)}"
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str | int | float | bool | None):
                    return f"{_a(type(key).__name__)} key{_at(path)}"
            stack.extend((v, (*path, k)) for k, v in reversed(item.items()))
        elif isinstance(item, list | tuple):
            stack.extend((v, (*path, i)) for i, v in reversed(list(enumerate(item))))
        elif not isinstance(item, str | int | float | bool | None):
            return f"{_a(type(item).__name__)}{_at(path)}"
    return None


def _at(path: tuple[Any, ...]) -> str:
    return f" at {'.'.join(map(str, path))!r}" if path else ""


def _a(name: str) -> str:
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"

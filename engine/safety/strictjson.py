"""Strict JSON for files that may have been forged: one meaning per text, or refusal.

:func:`loads` is :func:`json.loads` with every leniency removed: a key
given twice, ``NaN``/``Infinity`` (or a number that overflows to one), an
integer outside the 64-bit range and nesting deeper than :data:`MAX_DEPTH`
are refused with a :class:`StrictJSONError`, never a ``RecursionError``,
``OverflowError`` or a silent "last key wins".
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["INT_MAX", "INT_MIN", "MAX_DEPTH", "StrictJSONError", "check_depth", "loads"]

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects any battlesim file needs (a replay line is < 10)."""
INT_MIN = -(2**63)
INT_MAX = 2**64 - 1
"""Integers outside [INT_MIN, INT_MAX] are refused: no field of a replay needs more."""
_INT_DIGITS = 21


class StrictJSONError(ValueError):
    """Text that is not strict JSON; the message says why."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StrictJSONError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a number JSON allows")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"number {text[:24]!r} is out of range")
    return value


def _int(text: str) -> int:
    if len(text) > _INT_DIGITS:
        raise StrictJSONError(f"integer of {len(text)} digits is out of range")
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise StrictJSONError(f"integer {text} is out of range")
    return value


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Refuse a decoded value nested deeper than ``limit`` (iteratively: no recursion).

    Raises:
        StrictJSONError: the value is nested too deeply.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            raise StrictJSONError(f"nested deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children)


def loads(text: str) -> Any:
    """Decode ``text`` strictly.

    Raises:
        StrictJSONError: not JSON, or JSON that is ambiguous or out of range.
    """
    try:
        value = json.loads(
            text,
            object_pairs_hook=_object,
            parse_constant=_constant,
            parse_float=_float,
            parse_int=_int,
        )
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"not JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise StrictJSONError(f"nested deeper than {MAX_DEPTH} levels") from None
    # Cheap first: a text with few brackets cannot be deep.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        check_depth(value)
    return value

"""Plain data in words, for text output: no Python reprs (``{'men': 584}``, ``None``, ``['a']``).

>>> in_words({"men": 584, "guns": 0}), in_words(None), in_words(["lexington", "yorktown"])
('men 584, guns 0', 'none', 'lexington, yorktown')
>>> in_words([3, 4]), in_words({"at": [3, 4], "cover": {"amount": "light"}})
('(3, 4)', 'at (3, 4), cover (amount light)')
"""

from __future__ import annotations

from typing import Any

__all__ = ["SHOWN_CHARS", "clipped", "in_words", "is_point", "shortened"]


def _number(x: int | float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _inner(value: Any) -> str:
    """A nested list or mapping in parentheses, so its commas stay apart from the outer ones."""
    text = in_words(value)
    return f"({text})" if isinstance(value, (list, dict)) and not text.startswith("(") else text


def is_point(value: Any) -> bool:
    """A short list of numbers, a hex or a position: one value, written ``(3, 4)``."""
    return (
        isinstance(value, (list, tuple))
        and 0 < len(value) <= 3
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)
    )


def in_words(value: Any) -> str:
    """``value`` (plain JSON data) as a reader would write it.

    None is "none", booleans "true"/"false", a mapping "key value, key value",
    a list "a, b" — a short list of numbers (a hex, a position) "(3, 4)" —
    and an empty text, list or mapping "(empty)"; nested lists and mappings
    go in parentheses.
    """
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        return value if value else "(empty)"
    if isinstance(value, dict):
        if not value:
            return "(empty)"
        return ", ".join(f"{k} {_inner(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        if not value:
            return "(empty)"
        if is_point(value):
            return f"({', '.join(_number(x) for x in value)})"
        return ", ".join(_inner(x) for x in value)
    return str(value)


def shortened(text: str, most: int = 100) -> str:
    """``text`` on one line (runs of white space made one space), cut to ``most`` characters.

    >>> shortened("A Civil War fight:\\n  Union infantry", 24)
    'A Civil War fight: Unio…'
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


SHOWN_CHARS = 60
"""The most of a wrong value a message echoes: a 5,000-character id or a list of 20,000
numbers is shown by its start and its length, and the message stays one readable line."""


def clipped(text: str) -> str:
    """``text`` as a message echoes it: whole, or its start and how long it is."""
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[: SHOWN_CHARS - 1]}… ({len(text):,} characters)"

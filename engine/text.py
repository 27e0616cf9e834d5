"""Control characters: refused in names read from files, escaped in anything printed.

A name holding ESC can drive the terminal that prints it (colours, cursor
moves, a rewritten line).  Text read from a scenario or replay may contain
newlines and tabs; every other C0 control, DEL and the C1 controls are
refused, and :func:`escape` makes any text safe to print.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["CONTROL", "escape", "find_control"]

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Characters never allowed in text from a file (newline and tab are)."""
_OUTPUT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""Characters escaped on output (newline, tab and carriage return pass)."""


def escape(text: str) -> str:
    """``text`` with every control character but newline, tab and CR shown as ``\\xNN``."""
    return _OUTPUT.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def find_control(value: Any, path: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    """The path of the first string (key or value) in ``value`` holding a control character.

    Iterative, so any depth is safe; None when there is none.
    """
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if CONTROL.search(item):
                return where
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and CONTROL.search(key):
                    return (*where, key)
                stack.append((child, (*where, key)))
        elif isinstance(item, list | tuple):
            stack.extend((child, (*where, i)) for i, child in enumerate(item))
    return None

"""Control characters: refused in names read from files, escaped in anything printed.

A name holding ESC can drive the terminal that prints it (colours, cursor
moves, a rewritten line).  Text read from a scenario or replay may contain
newlines and tabs; every other C0 control, DEL and the C1 controls are
refused, and :func:`escape` makes any text safe to print.

Some characters forge what a reader sees without driving the terminal: the
bidirectional controls (U+202E turns ``txt.exe`` into what looks like
``exe.txt``), zero-width characters (two names that look the same) and the
Unicode line and paragraph separators.  :func:`escape` shows those as
``\\uNNNN`` too.  A newline in a *value* forges a line of its own ("FAKE:
Union wins"); :func:`one_line` escapes it (and tab and CR) for text that is
printed as one line of output: a name, a narrative line, a file name, an
error message.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["CONTROL", "escape", "find_control", "one_line"]

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Characters never allowed in text from a file (newline and tab are)."""
_INVISIBLE = (
    "\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\u3164\ufeff\uffa0\ufff9-\ufffb"
)
"""Bidirectional controls, zero-width and other invisible characters, line/paragraph separators."""
_OUTPUT = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_INVISIBLE}]")
"""Characters escaped on output (newline, tab and carriage return pass)."""
_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}]")
"""Characters escaped in one line of output: every control, newline, tab and CR too."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(m: re.Match[str]) -> str:
    c = m.group()
    if c in _NAMED:
        return _NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def escape(text: str) -> str:
    """``text`` with every control character but newline, tab and CR shown as ``\\xNN``, and
    bidirectional controls, zero-width characters and line separators as ``\\uNNNN``."""
    return _OUTPUT.sub(_shown, text)


def one_line(text: str) -> str:
    """``text`` safe to print as (part of) one line: :func:`escape`, and newline, CR and
    tab shown as ``\\n``, ``\\r``, ``\\t``."""
    return _LINE.sub(_shown, text)


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

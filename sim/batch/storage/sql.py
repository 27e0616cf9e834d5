"""SQL text from Python values: a quoted identifier, a quoted string literal.

One place for both, so that every name and literal a study's SQL holds is
quoted the same way (the store, its unit rows and the ``runs_wide`` view).
"""

from __future__ import annotations

__all__ = ["literal", "quote"]


def quote(name: str) -> str:
    """A SQL identifier, double-quoted (a ``"`` in it doubled)."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A SQL string literal, single-quoted (a ``'`` in it doubled)."""
    return "'" + text.replace("'", "''") + "'"

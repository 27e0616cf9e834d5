"""Shared helper for ruleset options added after replays were first written.

A scenario is stored in each replay header as its canonical dump, defaults
included.  An option added later would change that dump for every scenario,
so a replay written before it would no longer match its own re-simulation
(and every golden replay would change without any event changing).  An
option made with :func:`later_option` keeps today's behaviour at its default
and is left out of the dump while it has that default: a scenario that sets
it differently carries it in its header, and one that does not reads as it
always did.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

__all__ = ["later_option"]


def later_option(default: Any, description: str, **constraints: Any) -> Any:
    """A pydantic ``Field`` for an option added later: omitted from dumps at its default."""
    return Field(
        default,
        description=description,
        exclude_if=lambda value: bool(value == default),
        **constraints,
    )

"""The interface a rule system implements to plug into battlesim.

The engine and the CLI see a ruleset only through :class:`Ruleset`; the
registry maps the ``ruleset:`` key of a scenario file to one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine.events import Event, EventRegistry
from engine.log import Header, Sink

__all__ = ["Problem", "Ruleset", "get_ruleset", "ruleset_names"]

Problem = tuple[tuple[str | int, ...], str]


@dataclass(frozen=True)
class Ruleset:
    """Everything battlesim needs from one rule system.

    Attributes:
        name: the ``ruleset:`` key.
        version: bumped when the rules change what a battle produces.
        scenario_model: pydantic model of a scenario file.
        registry: the ruleset's event classes.
        cross_check: problems spanning fields, each with its field path.
        rules_data: the rules tables as plain data (digested into headers).
        simulate: fight a battle, writing its replay; returns the final state.
        initial_state: state before the first event.
        apply: the one apply function, ``apply(state, event)``.
        snapshot: the state as plain JSON data.
        outcome: winner, turns, losses as plain data.
        render_state: a text table of the state.
        narrate: one line of text for an event (state before it), or None.
    """

    name: str
    version: str
    scenario_model: type[BaseModel]
    registry: EventRegistry
    cross_check: Callable[[Any], list[Problem]]
    rules_data: Callable[[], dict[str, Any]]
    simulate: Callable[[Any, Header, Sink], Any]
    initial_state: Callable[[Any], Any]
    apply: Callable[[Any, Event], None]
    snapshot: Callable[[Any], dict[str, Any]]
    outcome: Callable[[Any, Any], dict[str, Any]]
    render_state: Callable[[Any, Any], str]
    narrate: Callable[[Any, Any, Event], str | None]


def _registry() -> dict[str, Ruleset]:
    from sim.musket import RULESET as MUSKET  # noqa: PLC0415 (rulesets import this module)

    return {MUSKET.name: MUSKET}


def ruleset_names() -> list[str]:
    """Names of the installed rulesets, sorted."""
    return sorted(_registry())


def get_ruleset(name: str) -> Ruleset:
    """Return the ruleset called ``name``.

    Raises:
        LookupError: no such ruleset is installed.
    """
    found = _registry().get(name)
    if found is None:
        raise LookupError(f"unknown ruleset {name!r}; installed: {', '.join(ruleset_names())}")
    return found

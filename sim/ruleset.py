"""The interface a rule system implements to plug into battlesim.

The engine and the CLI see a ruleset only through :class:`Ruleset`; the
registry maps the ``ruleset:`` key of a scenario file to one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from pydantic import BaseModel

from engine.events import Event, EventRegistry
from engine.log import Header, Sink
from sim.grammar import agree, count

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "Problem",
    "Ruleset",
    "get_ruleset",
    "headline",
    "ruleset_names",
]

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
        outcome: plain data with at least ``winner`` (side id or None),
            ``winner_name``, ``reason``, ``turns`` and ``sides``: side id →
            ``{"name": ..., "losses": {what: count}, ...}``.
        summary: readable lines for an outcome, one per side (``run`` prints them).
        render_state: a text table of the state.
        narrate: one line of text for an event (state before it), or None.
        restore: rebuild a state from its ``snapshot`` data, so reading can
            start from an ``engine.snapshot``; None to always fold from the start.
        audit: ``audit(scenario, state, event)`` checks the event against the
            state before it (legal transitions, arithmetic, no negative
            strength after it) and returns a message when broken, else None;
            ``verify`` runs it over every log.
        turn_name: what one turn is called in this game ("turn", "round").
        carry_over: for campaigns, ``carry_over(scenario, final_state, next_data,
            settings)`` returns the next battle's scenario data (plain dict) with
            the survivors of this battle carried into it by unit id; None when the
            ruleset has no campaigns.
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
    summary: Callable[[dict[str, Any]], list[str]]
    render_state: Callable[[Any, Any], str]
    narrate: Callable[[Any, Any, Event], str | None]
    restore: Callable[[Any, dict[str, Any]], Any] | None = None
    turn_name: str = "turn"
    audit: Callable[[Any, Any, Event], str | None] | None = None
    carry_over: Callable[[Any, Any, dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None


ENTRY_POINT_GROUP = "battlesim.rulesets"
"""Entry-point group through which a package ships a ruleset (docs/rulesets.md)."""

BUILTIN: dict[str, str] = {
    "musket": "sim.musket:RULESET",
    "becmi": "sim.becmi:RULESET",
    "flattop": "sim.flattop:RULESET",
}
"""The rulesets that come with battlesim, by ``module:attribute``."""

_loaded: dict[str, Ruleset] = {}


def headline(ruleset: Ruleset, outcome: dict[str, Any], *, reason: bool = True) -> str:
    """One line for an outcome: ``Union wins after 4 turns — <reason>``."""
    turns = count(outcome["turns"], ruleset.turn_name)
    who = agree(outcome["winner_name"], "wins") if outcome["winner"] else "Draw"
    return f"{who} after {turns} — {outcome['reason']}" if reason else f"{who} after {turns}"


def _sources() -> dict[str, str]:
    """``name -> module:attribute`` of every ruleset: built in, then entry points."""
    found = dict(BUILTIN)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        found.setdefault(ep.name, ep.value)
    return found


def _load(name: str, target: str) -> Ruleset:
    module, _, attr = target.partition(":")
    obj = getattr(import_module(module), attr)
    if not isinstance(obj, Ruleset) or obj.name != name:
        raise LookupError(
            f"ruleset entry point {name!r} ({target}) is not a Ruleset named {name!r}"
        )
    return obj


def ruleset_names() -> list[str]:
    """Names of the installed rulesets, sorted (nothing is imported)."""
    return sorted(_sources())


def get_ruleset(name: str) -> Ruleset:
    """Return the ruleset called ``name``, importing it on first use.

    Raises:
        LookupError: no such ruleset is installed, or its entry point is broken.
    """
    if name not in _loaded:
        target = _sources().get(name)
        if target is None:
            raise LookupError(f"unknown ruleset {name!r}; installed: {', '.join(ruleset_names())}")
        _loaded[name] = _load(name, target)
    return _loaded[name]

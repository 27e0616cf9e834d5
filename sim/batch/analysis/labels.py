"""Words for a study's measures, as a reader says them: "ships sunk", "dead", "men lost".

A loss kind is a ruleset's own key in its outcome (``men``, ``ships_sunk``,
``dead``).  The ruleset may give the words for a kind (``Ruleset.loss_words``:
flattop's ``air_factors_air_combat`` is "air factors lost in air combat");
otherwise a key that already says what happened (sunk, dead, fled, …) is read
as it is, any other is a count of things lost.  Only the words change: JSON
keys and database columns keep the kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.contract import get_ruleset

__all__ = ["loss_label", "loss_words", "measure_label"]

_SAID = ("sunk", "crippled", "dead", "out", "fled", "lost", "killed", "destroyed", "captured")
"""Last words of a loss kind that already name the loss."""

_NONE: Mapping[str, str] = {}


def loss_words(summary: Mapping[str, Any]) -> dict[str, str]:
    """The study's ruleset's own words for its loss kinds (``Ruleset.loss_words``), by kind;
    none when the ruleset is unknown or not installed."""
    try:
        return dict(get_ruleset(str(summary["study"].get("ruleset"))).loss_words)
    except LookupError:
        return {}


def loss_label(kind: str, words: Mapping[str, str] = _NONE) -> str:
    """``ships_sunk`` → "ships sunk", ``dead`` → "dead", ``men`` → "men lost"; a kind
    ``words`` names (the ruleset's :func:`loss_words`) → its words."""
    if kind in words:
        return words[kind]
    said = kind.replace("_", " ").strip()
    return said if said.split(" ")[-1] in _SAID else f"{said} lost"


def measure_label(side_name: str | None, measure: str, words: Mapping[str, str] = _NONE) -> str:
    """A compared measure in words: "Union win rate", "Union men lost", "Union random draws"."""
    if side_name is None:
        return measure  # a measure of the run: "turns"
    if measure == "win_rate":
        return f"{side_name} win rate"
    if measure == "draws":
        return f"{side_name} random draws"
    kind = measure.removeprefix("losses.")
    return f"{side_name} {loss_label(kind, words)}"

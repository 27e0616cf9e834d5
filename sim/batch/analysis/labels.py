"""Words for a study's measures, as a reader says them: "ships sunk", "dead", "men lost".

A loss kind is a ruleset's own key in its outcome (``men``, ``ships_sunk``,
``dead``); a key that already says what happened (sunk, dead, fled, …) is
read as it is, any other is a count of things lost.
"""

from __future__ import annotations

__all__ = ["loss_label", "measure_label"]

_SAID = ("sunk", "crippled", "dead", "out", "fled", "lost", "killed", "destroyed", "captured")
"""Last words of a loss kind that already name the loss."""


def loss_label(kind: str) -> str:
    """``ships_sunk`` → "ships sunk", ``dead`` → "dead", ``men`` → "men lost"."""
    words = kind.replace("_", " ").strip()
    return words if words.split(" ")[-1] in _SAID else f"{words} lost"


def measure_label(side_name: str | None, measure: str) -> str:
    """A compared measure in words: "Union win rate", "Union men lost", "Union random draws"."""
    if side_name is None:
        return measure  # a measure of the run: "turns"
    if measure == "win_rate":
        return f"{side_name} win rate"
    if measure == "draws":
        return f"{side_name} random draws"
    kind = measure.removeprefix("losses.")
    return f"{side_name} {loss_label(kind)}"

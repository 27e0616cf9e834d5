""" "Did you mean …?" for a misspelt name, from the names that would have been accepted."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

__all__ = ["did_you_mean", "known"]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest choice to ``word``, else ``""``.

    Close means difflib's ratio of at least 0.6, case ignored; ties go to
    the first choice in sorted order, so the suggestion is deterministic.
    """
    pool = sorted(set(choices))
    by_lower = {c.lower(): c for c in reversed(pool)}
    found = get_close_matches(word.lower(), sorted(by_lower), n=1, cutoff=0.6)
    return f"; did you mean {by_lower[found[0]]!r}?" if found else ""


def known(choices: Iterable[str], limit: int = 12) -> str:
    """The accepted names, sorted and comma-separated (at most ``limit``, then "…")."""
    pool = sorted(set(choices))
    shown = ", ".join(pool[:limit])
    return shown + (", …" if len(pool) > limit else "")

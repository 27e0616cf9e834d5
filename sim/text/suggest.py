""" "Did you mean …?" for a misspelt name, from the names that would have been accepted.

A suggestion must be one a reader would call close, never merely the least
far: ``cruiser`` is not ``carrier`` (three edits in seven letters), but it is
a word of ``heavy_cruiser`` and ``light_cruiser``.  In order, the first rule
that finds anything decides:

1. the same name in another case (``c`` → ``C``);
2. names whose words (split at ``_``, ``-``, ``.``, spaces) include the typed
   name as one word, or that start with it (``cruiser`` → ``heavy_cruiser``
   and ``light_cruiser``; ``restore-invert`` → ``restore-inverts-snapshot``);
3. names within a few edits — a letter added, dropped, changed, or two
   neighbours swapped (``fire_hvc`` → ``fire_hcv``, ``24gaa`` → ``24ga``) —
   at most one edit per three letters of the longer name (so none for a
   name of two letters: ``r9`` is not ``r1``), the nearest kept.

At most three names are offered, in sorted order, so the words are
deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["close_names", "did_you_mean", "edit_distance", "known"]

_WORD_BREAK = re.compile(r"[_\-. /]+")
_MOST = 3


def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) turning ``a`` into ``b``.

    >>> edit_distance("fire_hvc", "fire_hcv"), edit_distance("cruiser", "carrier")
    (1, 3)
    """
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def close_names(word: str, choices: Iterable[str]) -> list[str]:
    """The accepted names a reader of ``word`` most likely meant (at most three), sorted."""
    pool = sorted({str(c) for c in choices})
    low = word.lower().strip()
    if not low or not pool:
        return []
    same = [c for c in pool if c.lower() == low]
    if same:
        return same[:1]
    if len(low) >= 3:
        worded = [
            c for c in pool if low in _WORD_BREAK.split(c.lower()) or c.lower().startswith(low)
        ]
        if worded:
            return worded[:_MOST]
    scored = [(edit_distance(low, c.lower()), c) for c in pool]
    near = [(d, c) for d, c in scored if d <= max(len(low), len(c)) // 3]
    if not near:
        return []
    best = min(d for d, _ in near)
    return [c for d, c in near if d == best][:_MOST]


def _either(names: list[str]) -> str:
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``) for the names closest to ``word``, else ``""``.

    >>> did_you_mean("cruiser", ["carrier", "heavy_cruiser", "light_cruiser"])
    "; did you mean 'heavy_cruiser' or 'light_cruiser'?"
    >>> did_you_mean("cruiser", ["carrier", "destroyer"])
    ''
    """
    found = close_names(word, choices)
    return f"; did you mean {_either(found)}?" if found else ""


def known(choices: Iterable[str], limit: int = 12) -> str:
    """The accepted names, sorted and comma-separated (at most ``limit``, then "…")."""
    pool = sorted(set(choices))
    shown = ", ".join(pool[:limit])
    return shown + (", …" if len(pool) > limit else "")

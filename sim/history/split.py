"""Which cases are held out: the lot rule fixed on 2026-12-03 (docs/history.md, issue 30).

* The seven cases shipped before 2026-12-03 (:data:`ORIGINAL`) were used in
  earlier fits, so they, and any re-cast of them (:data:`RECAST`), are
  ``fitting``.
* For each ruleset separately, its *k* new cases are ranked by the SHA-256
  hex digest of the UTF-8 text ``"battlesim holdout 2026-12-03 " + id``,
  ascending. The first ⌈k/2⌉ are ``held_out``, raised if needed so that at
  least ⌈n/3⌉ of the ruleset's *n* cases are held out (never more than its
  *k* new cases: an original case is never held out). The rest are
  ``fitting``.

The rule reads only the case ids and their rulesets, never a result, so it
could be (and was) fixed before any new case was written.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping

from sim.history.case import Case, Split

__all__ = ["ORIGINAL", "PREFIX", "RECAST", "digest", "expected", "splits"]

ORIGINAL = frozenset(
    {
        "stone_wall_first_hour",
        "marye_heights_day",
        "quatre_bras_hedge",
        "chancellorsville_works",
        "fredericksburg_campaign",
        "coral_sea_shoho",
        "coral_sea_tf17",
    }
)
"""The cases shipped before 2026-12-03: fitting, always."""

RECAST: Mapping[str, str] = {}
"""A re-cast of an original case under a new id: new id → the original's id (fitting too).

A re-cast that keeps its original's id needs no entry."""

PREFIX = "battlesim holdout 2026-12-03 "
"""The text each new case's id is appended to before it is hashed."""


def digest(case_id: str) -> str:
    """The SHA-256 hex digest the rule ranks a new case by."""
    return hashlib.sha256((PREFIX + case_id).encode("utf-8")).hexdigest()


def splits(cases: Iterable[tuple[str, str]]) -> dict[str, Split]:
    """Each case's set by the rule, from (case id, ruleset name) pairs."""
    by_ruleset: dict[str, list[str]] = {}
    for case_id, ruleset in cases:
        by_ruleset.setdefault(ruleset, []).append(case_id)
    out: dict[str, Split] = {}
    for ids in by_ruleset.values():
        new = sorted((i for i in ids if i not in ORIGINAL and i not in RECAST), key=digest)
        held = max(math.ceil(len(new) / 2), math.ceil(len(ids) / 3)) if new else 0
        held = min(held, len(new))
        for i in ids:
            out[i] = "fitting"
        for i in new[:held]:
            out[i] = "held_out"
    return out


def expected(cases: list[Case]) -> dict[str, Split]:
    """Each case's set by the rule, the rulesets read from the cases' targets."""
    return splits((c.id, c.target.ruleset().name) for c in cases)

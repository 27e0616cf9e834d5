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

**Late cases** (added 2026-12-04, issue 30): a case written after the held-out
verdicts were seen, to fit a named option (:data:`LATE`), joins the fitting set
only. It takes no part in the ranking or in the counts *k* and *n* above, so it
never changes an existing case's split: the held-out cases stay exactly those
the rule drew before any late case was written. A late case cannot be held out
(its author had seen the held-out verdicts), and it is not an original case.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Iterable, Mapping

from sim.history.case import Case, Split

__all__ = ["LATE", "ORIGINAL", "PREFIX", "RECAST", "digest", "expected", "splits"]

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

LATE: Mapping[str, str] = {
    "garcia_hernandez": "2026-12-04: the cavalry options (cavalry_vs_formed, cavalry_vs_broken, "
    "cavalry_pursuit_share), docs/rules/musket.md, Cavalry",
    "ceylon_hermes": "2026-12-07: attack_factor_scale and modifier_small_target, "
    "docs/rules/flattop.md, Hits per strike in the record",
    "eastern_solomons_enterprise": "2026-12-07: the flattop AA and CAP options and the attack "
    "scale (table_anti_aircraft, aa_spoiled_per_kill, cap_engagement, attack_factor_scale), "
    "docs/rules/flattop.md, The AA table and the CAP against the suite",
    "pickett_angle": "2026-12-07: the fire options (fire_scale, close_fire_factor, spent_cover): "
    "a short, bloody repulse at close range, docs/rules/musket.md, Options",
    "franklin_carter_house": "2026-12-07: the fire options (fire_scale, close_fire_factor, "
    "spent_cover): an assault on works fought out at close range, both sides losing heavily, "
    "docs/rules/musket.md, Options",
    "salamanca_le_marchant": "2026-12-07: the cavalry options (cavalry_vs_formed, "
    "cavalry_vs_broken, cavalry_pursuit_share, cavalry_charge_home, cavalry_rally_distance, "
    "cavalry_routs_infantry, rout_prisoners_share): a charge that closed on infantry in line "
    "or in disorder and broke it, docs/rules/musket.md, Cavalry",
    "quatre_bras_69th": "2026-12-07: the cavalry options (cavalry_vs_formed, cavalry_vs_broken, "
    "cavalry_pursuit_share, cavalry_charge_home, cavalry_rally_distance, cavalry_routs_infantry, "
    "rout_prisoners_share): a battalion caught in line beside battalions formed, "
    "docs/rules/musket.md, Cavalry",
}
"""The late cases (the rule's addition of 2026-12-04): case id → the date it was written
and the option it was written to fit. Fitting, always; outside the ranking and the counts."""

PREFIX = "battlesim holdout 2026-12-03 "
"""The text each new case's id is appended to before it is hashed."""


def digest(case_id: str) -> str:
    """The SHA-256 hex digest the rule ranks a new case by."""
    return hashlib.sha256((PREFIX + case_id).encode("utf-8")).hexdigest()


def splits(
    cases: Iterable[tuple[str, str]], late: Collection[str] | None = None
) -> dict[str, Split]:
    """Each case's set by the rule, from (case id, ruleset name) pairs. A late case
    (``late``, by default :data:`LATE`'s ids) is fitting and is left out of its ruleset's
    ranking and counts."""
    late = LATE if late is None else late
    by_ruleset: dict[str, list[str]] = {}
    out: dict[str, Split] = {}
    for case_id, ruleset in cases:
        if case_id in late:
            out[case_id] = "fitting"
        else:
            by_ruleset.setdefault(ruleset, []).append(case_id)
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

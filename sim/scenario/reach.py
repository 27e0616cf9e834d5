"""Units that can never reach an enemy: ``validate``'s warnings, from the ``reach`` hook.

The ruleset says, through :meth:`~sim.contract.Ruleset.reach`, whether each
unit moves and which enemies its weapons reach where both start; the
inference is here, once for every ruleset. A unit can never reach an enemy
when it does not move, has no enemy in reach, and no enemy moves either
(an enemy that moves may come into its reach, so then nothing is said).
"""

from __future__ import annotations

from typing import Any

from sim.contract import AnyRuleset, Problem, Reach

__all__ = ["never_in_reach"]


def never_in_reach(ruleset: AnyRuleset, scenario: Any) -> list[Problem]:
    """A warning, at the unit's field path, for each unit that can never reach an enemy."""
    reaches: list[Reach] = ruleset.reach(scenario)
    sides = {r.side for r in reaches}  # membership only: the warnings keep scenario order
    moving = {r.side for r in reaches if r.moves}
    out: list[Problem] = []
    for r in reaches:
        has_enemies = len(sides - {r.side}) > 0
        enemy_moves = len(moving - {r.side}) > 0
        if r.moves or r.in_reach or not has_enemies or enemy_moves:
            continue
        how = f" ({r.why})" if r.why else ""
        out.append(
            (
                r.path,
                f"warning: unit {r.unit!r} can never reach an enemy: it does not move, "
                f"no enemy is in its reach{how} and none moves",
            )
        )
    return out

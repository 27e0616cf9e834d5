"""The reference battle of the benchmarks: two lines of N units a side, all holding and firing.

Every unit is a rifle-musket regiment with a *hold* order, so each turn every
unit in reach fires once in defensive fire; lethality is low and the break
thresholds are 1.0, so the battle runs to its turn limit.  Ranks are four
deep at every size (width ``ceil(N / 4)``), so the distance from a unit to
its nearest enemy is the same at 25 and at 3,200 a side: the army-size
sweep changes the size of the armies, not the geometry of a shot.
"""

from __future__ import annotations

import math
from typing import Any

from sim.rulesets.musket.model.scenario import MusketScenario, cross_check

__all__ = ["DEPTH", "lines_scenario", "turns_for"]

DEPTH = 4
SEED = 1863


def turns_for(per_side: int, resolutions: int = 12_000) -> int:
    """Turns that give about ``resolutions`` fire resolutions (at least 3, at most 1,000)."""
    return max(3, min(1000, math.ceil(resolutions / (2 * per_side))))


def _units(side: int, per_side: int, width: int) -> list[dict[str, Any]]:
    me = "n" if side == 0 else "s"
    out = []
    for i in range(per_side):
        rank, col = divmod(i, width)
        row = DEPTH - 1 - rank if side == 0 else DEPTH + rank
        out.append(
            {
                "id": f"{me}{i}",
                "name": f"Regiment {me}{i}",
                "kind": "infantry",
                "strength": 400 + (i * 37) % 200,
                "quality": "BCDC"[i % 4],
                "weapon": "rifle_musket",
                "at": [col, row],
            }
        )
    return out


def lines_scenario(per_side: int, turns: int | None = None, seed: int = SEED) -> MusketScenario:
    """Two facing lines of ``per_side`` regiments, ``DEPTH`` ranks deep, holding and firing.

    Raises:
        ValueError: the generated scenario fails the ruleset's cross checks.
    """
    width = math.ceil(per_side / DEPTH)
    data = {
        "ruleset": "musket",
        "name": f"Lines: {per_side} a side",
        "seed": seed,
        "map": {"width": max(width, 2), "height": 2 * DEPTH},
        "turns": {"limit": turns or turns_for(per_side), "minutes": 20},
        "options": {"fire_lcv": 1, "fire_hcv": 3},
        "sides": [
            {
                "id": sid,
                "name": f"Army of the {sid.title()}",
                "retreat": sid,
                "break_units": 1.0,
                "break_losses": 1.0,
                "units": _units(k, per_side, width),
            }
            for k, sid in enumerate(("north", "south"))
        ],
    }
    scenario = MusketScenario.model_validate(data)
    problems = cross_check(scenario)
    if problems:
        raise ValueError(f"generated scenario is invalid: {problems[:3]}")
    return scenario

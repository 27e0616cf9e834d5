"""The ``reach`` hook of ``musket``: whether each unit moves and which enemies its weapon reaches.

``validate`` warns of a unit that can never reach an enemy (``sim/scenario/reach.py``):
one that holds, has no enemy within its weapon's range where both start, and
whose enemies all hold too.  A unit moves toward the enemy under an
``advance``, ``engage`` or ``charge`` order, its ``order`` or any of its later
orders (ours); ``hold`` and ``retire`` do not bring it closer.  Its weapon
reaches as far as the farthest hex at which the weapon's fire value is above
zero (the range ``fire`` uses).
"""

from __future__ import annotations

from sim.contract import Reach
from sim.rulesets.musket.model.data import WEAPONS
from sim.rulesets.musket.model.hexmap import distance
from sim.rulesets.musket.model.scenario import MusketScenario

__all__ = ["reach"]

_TOWARD = ("advance", "engage", "charge")
"""Orders that can take a unit toward an enemy."""


def _hexes(weapon: str) -> int:
    """The farthest hex at which ``weapon`` has a fire value above zero (0: none)."""
    values: tuple[int, ...] = WEAPONS[weapon]["values"]  # type: ignore[assignment]
    return max((i + 1 for i, v in enumerate(values) if v > 0), default=0)


def reach(sc: MusketScenario) -> list[Reach]:
    """Each unit's :class:`~sim.contract.Reach` as the scenario sets it up, in scenario order."""
    placed = [(side.id, u.id, (u.at[0], u.at[1])) for side in sc.sides for u in side.units]
    out = []
    for k, side in enumerate(sc.sides):
        for i, u in enumerate(side.units):
            hexes = _hexes(u.weapon)
            at = (u.at[0], u.at[1])
            near = tuple(
                uid for sid, uid, there in placed if sid != side.id and distance(at, there) <= hexes
            )
            out.append(
                Reach(
                    unit=u.id,
                    side=side.id,
                    path=("sides", k, "units", i),
                    moves=any(o.kind in _TOWARD for o in (u.order, *u.later_orders)),
                    in_reach=near,
                    why=f"{u.weapon} reaches {hexes} hex{'es' if hexes != 1 else ''}",
                )
            )
    return out

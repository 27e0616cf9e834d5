"""The ``reach`` hook of ``musket``: whether each unit moves and which enemies its weapon reaches.

``validate`` warns of a unit that can never reach an enemy (``sim/scenario/reach.py``):
one that holds, has no enemy within its weapon's range where both start, and
whose enemies all hold too.  A unit moves under an ``advance``, ``engage``,
``charge`` or ``retire`` order, its ``order`` or any of its later orders (ours):
a ``retire`` goes to its ``to`` hex, which may lie toward the enemy, so it may come
into reach; only ``hold`` keeps it where it is.  Its weapon
reaches as far as the farthest hex at which the weapon's fire value is above
zero (the range ``fire`` uses).
"""

from __future__ import annotations

from sim.contract import Reach
from sim.rulesets.musket.model.data import WEAPONS
from sim.rulesets.musket.model.hexmap import CELL_STRIDE, Hex, cell, distance, ring_steps
from sim.rulesets.musket.model.scenario import MusketScenario

__all__ = ["reach"]

_MOVING = ("advance", "engage", "charge", "retire")
"""Orders that move a unit, and so can take it toward an enemy (a retire's ``to`` hex too)."""


def _hexes(weapon: str) -> int:
    """The farthest hex at which ``weapon`` has a fire value above zero (0: none)."""
    values: tuple[int, ...] = WEAPONS[weapon]["values"]  # type: ignore[assignment]
    return max((i + 1 for i, v in enumerate(values) if v > 0), default=0)


def _within(at: Hex, hexes: int) -> list[int]:
    """The cells of every hex within ``hexes`` of ``at`` (:func:`hexmap.cell`)."""
    odd, base = bool(at[0] & 1), cell(at)
    return [
        base + dc * CELL_STRIDE + dr
        for radius in range(hexes + 1)
        for dc, dr in ring_steps(odd, radius)
    ]


def reach(sc: MusketScenario) -> list[Reach]:
    """Each unit's :class:`~sim.contract.Reach` as the scenario sets it up, in scenario order.

    A unit's enemies in reach are found from the hexes within its weapon's range when
    those are fewer than the enemies (a large battle's lines), else by measuring to each
    enemy; either way they are listed in scenario order.
    """
    placed = [(side.id, u.id, (u.at[0], u.at[1])) for side in sc.sides for u in side.units]
    by_cell: dict[int, list[int]] = {}
    for n, (_sid, _uid, there) in enumerate(placed):
        by_cell.setdefault(cell(there), []).append(n)
    out = []
    for k, side in enumerate(sc.sides):
        enemies = sum(sid != side.id for sid, _uid, _there in placed)
        for i, u in enumerate(side.units):
            hexes = _hexes(u.weapon)
            at = (u.at[0], u.at[1])
            if 3 * hexes * (hexes + 1) + 1 < enemies:
                found = sorted(n for c in _within(at, hexes) for n in by_cell.get(c, ()))
                near = tuple(placed[n][1] for n in found if placed[n][0] != side.id)
            else:
                near = tuple(
                    uid
                    for sid, uid, there in placed
                    if sid != side.id and distance(at, there) <= hexes
                )
            out.append(
                Reach(
                    unit=u.id,
                    side=side.id,
                    path=("sides", k, "units", i),
                    moves=any(o.kind in _MOVING for o in (u.order, *u.later_orders)),
                    in_reach=near,
                    why=f"{u.weapon} reaches {hexes} hex{'es' if hexes != 1 else ''}",
                )
            )
    return out

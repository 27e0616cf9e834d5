"""Targeting: the enemy a unit fires at, read from the spatial index that apply keeps.

The index is ``state.foes``: for each side, the units of every other side on
the map, by hex (as one int, :func:`~sim.rulesets.musket.model.hexmap.cell`).  It
is derived from the units' hexes as ``state.occupant`` is: kept by apply as
units move, retreat, advance, leave or are destroyed, rebuilt whenever a
state is made or restored, and never in an event, a digest or a snapshot.
A shot does not scan the enemy army.  It walks the hexes within its
weapon's reach in the order of the targeting key, and the first hexes of
equal key that hold an enemy give the answer.  The key is:

1. distance in hexes;
2. with option ``enfilade``, how nearly straight ahead the hex lies (the
   cosine to the unit's facing, rounded to 9 places as ``facing_cos`` gives
   it, largest first);
3. scenario order (the unit's rank), between units of equal key.

With option ``spare_routed`` a routed enemy is skipped while an enemy in
better order is in reach, and is the answer only when every enemy in reach is
routed (then the first of them by the key).  This is the answer the battle
gave when it searched per shot (the nearest enemy, then the most nearly
ahead, then a scan of every enemy for one not routed);
``tests/sim/test_targeting_index.py`` compares the two on random layouts.

The order of the walk depends only on the column's parity (odd-q offsets),
the facing and the reach, so it is computed once for each (:func:`walk`).
A cosine computed from a hex's absolute position can differ from the one
computed at the origin in its last bits (at most 5.7e-14 on a 1,000 x 1,000
map, the largest a scenario may have); a ring whose cosines all lie at least
:data:`SAFE_MARGIN` from a rounding boundary at 9 places rounds the same
everywhere, so its order is fixed.  A ring with a cosine nearer a boundary
than that (none within the reach of any weapon today) is ordered per shot,
from the cosines of the hexes that hold enemies, as the search did.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache
from typing import Final, NamedTuple

from sim.rulesets.musket.model.hexmap import CELL_STRIDE, cell, ring_steps
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules.context import Battle, Hex, facing_cos

__all__ = ["SAFE_MARGIN", "Group", "aim", "aim_at", "walk"]

SAFE_MARGIN: Final = 1e-12
"""How far from a rounding boundary (at 9 decimal places) a ring's every cosine must lie
for its order to be fixed once: 17 x the largest difference between a cosine computed
at the origin and at any hex of a 1,000 x 1,000 map (measured: 5.7e-14)."""


class Group(NamedTuple):
    """Hexes of equal targeting key: their offsets from the firer's hex as cells and as
    ``(column, row)``; ``live``: a whole ring whose order by facing is decided per shot
    (see the module's docstring); ``radius``: their distance from the firer's hex (the
    ring they lie on)."""

    cells: tuple[int, ...]
    offsets: tuple[Hex, ...]
    live: bool
    radius: int


def _group(offsets: Iterable[Hex], radius: int, live: bool = False) -> Group:
    offsets = tuple(offsets)
    return Group(tuple(dc * CELL_STRIDE + dr for dc, dr in offsets), offsets, live, radius)


def _rounded(cos: float) -> float:
    return round(cos, 9)


def _safe(cos: float) -> bool:
    """True when ``cos`` lies at least SAFE_MARGIN from a boundary of rounding to 9 places."""
    scaled = cos * 1e9
    return abs(scaled - math.floor(scaled) - 0.5) * 1e-9 >= SAFE_MARGIN


@cache
def walk(odd: bool, facing: str | None, reach: int) -> tuple[Group, ...]:
    """The hexes within ``reach`` (1 and more hexes away) in the order of the targeting
    key, grouped by equal key: by distance, then, facing away from ``facing`` (a retreat
    edge; None: no facing), by the rounded cosine, largest first.

    Args:
        odd: whether the firer's column is odd (odd-q offsets depend on it).
        facing: the firer's retreat edge with option ``enfilade``, else None.
        reach: the weapon's range in hexes.
    """
    centre = (1, 0) if odd else (0, 0)
    groups: list[Group] = []
    for radius in range(1, reach + 1):
        offsets = ring_steps(odd, radius)
        if facing is None:
            groups.append(_group(offsets, radius))
            continue
        cos = {
            off: facing_cos(centre, facing, (centre[0] + off[0], centre[1] + off[1]))
            for off in offsets
        }
        if not all(_safe(c) for c in cos.values()):
            groups.append(_group(offsets, radius, live=True))
            continue
        for key in sorted({_rounded(c) for c in cos.values()}, reverse=True):
            groups.append(_group((o for o in offsets if _rounded(cos[o]) == key), radius))
    return tuple(groups)


Skip = tuple[tuple[int, ...], dict[int, tuple[int, int]], dict[int, tuple[int, ...]]]
"""A walk's cells in order, flat (offsets), the place of each (its group's index, and its
index within the group), and the walk's cells from each hex it was taken from (absolute:
a unit that holds its ground walks the same cells turn after turn)."""
_TAKEN_MAX: Final = 4096
"""The most hexes a walk keeps its absolute cells for (then it starts again)."""
_SKIPS: dict[tuple[bool, str | None, int], tuple[tuple[Group, ...], Skip | None]] = {}
"""By :func:`walk`'s arguments (a column's parity, a facing or None, a reach: a few dozen
keys at most): the walk and its :func:`_skip`, read by :func:`aim_at` without calling
either."""


def _skip(groups: tuple[Group, ...]) -> Skip | None:
    """The cells of a walk in its order, flat, and the place of each: for finding the first
    group that holds an enemy without walking the empty ones group by group.  None when a
    group is ordered per shot (``live``: the walk is then taken as it is).  Offset 0 (the
    firer's own cell, never on a walk) is placed past the last group: no enemy on the walk
    leaves nothing to walk."""
    if any(g.live for g in groups):
        return None
    steps = tuple(step for g in groups for step in g.cells)
    place = {step: (i, k) for i, g in enumerate(groups) for k, step in enumerate(g.cells)}
    place[0] = (len(groups), 0)
    return steps, place, {}


def _kept(key: tuple[bool, str | None, int]) -> tuple[tuple[Group, ...], Skip | None]:
    """The walk of ``walk(*key)`` and its :func:`_skip`, kept in :data:`_SKIPS`."""
    groups = walk(*key)
    kept = _SKIPS[key] = (groups, _skip(groups))
    return kept


def _taken(taken: dict[int, tuple[int, ...]], here: int, steps: tuple[int, ...]) -> tuple[int, ...]:
    """The walk's cells from the cell ``here`` (absolute), kept in ``taken``."""
    if len(taken) >= _TAKEN_MAX:  # a bound on what a long process keeps (a study)
        taken.clear()
    cells = taken[here] = tuple(map(here.__add__, steps))
    return cells


def aim(b: Battle, unit: UnitState, reach: int) -> UnitState | None:
    """The enemy ``unit`` fires at from its hex when no ordered target is in reach: the
    first by the targeting key within ``reach`` hexes; with option ``spare_routed``, the
    first not routed, or, when every enemy in reach is routed, the first of them."""
    found = aim_at(b, unit, reach)
    return None if found is None else found[0]


def aim_at(b: Battle, unit: UnitState, reach: int) -> tuple[UnitState, int] | None:
    """:func:`aim`'s enemy with its distance in hexes (the ring it was found on: a shot
    needs the range, and the walk knows it)."""
    assert unit.hex is not None
    o = b.options
    facing = b.sides[unit.side].retreat if o.enfilade else None
    spare = o.spare_routed
    index, rank = b.state.foes[unit.side], b.rank
    foes = index.get
    col, row = unit.hex
    here = col * CELL_STRIDE + row  # cell(unit.hex), written out
    # The walk from the first group that holds an enemy (none: nothing to walk), from that
    # group's first cell that holds one: the groups and cells before hold none, so they
    # decide nothing.  The walk and its flat cells are kept by walk's arguments (_SKIPS).
    key = (bool(col & 1), facing, reach)
    groups, flat = _SKIPS.get(key) or _kept(key)
    first = 0
    if flat is not None:
        steps, place, taken = flat
        cells = taken.get(here) or _taken(taken, here, steps)
        # no enemy on the walk: the firer's own cell, whose place is past the last group
        group, first = place[next(filter(index.__contains__, cells), here) - here]
        groups = groups[group:]
    fallback: tuple[UnitState, int] | None = None  # the first routed enemy, with spare_routed
    for cells, offsets, live, radius in groups:
        if live:
            assert facing is not None
            found, routed = _live(b, unit, facing, offsets, spare)
        else:
            found = routed = None
            # the first group's cells before its first enemy's hold none
            scan = cells[first:] if first else cells
            first = 0
            for step in scan:
                e = foes(here + step)
                if e is None:
                    continue
                morale = e.morale
                if morale == "eliminated":
                    continue
                if spare and morale == "routed":
                    if routed is None or rank[e.id] < rank[routed.id]:
                        routed = e
                elif found is None or rank[e.id] < rank[found.id]:
                    found = e
        if found is not None:
            return found, radius
        if fallback is None and routed is not None:
            fallback = routed, radius
    return fallback


def _live(
    b: Battle, unit: UnitState, facing: str, offsets: tuple[Hex, ...], spare: bool
) -> tuple[UnitState | None, UnitState | None]:
    """A ring ordered per shot: its first enemy by (rounded cosine, largest first; rank),
    and with ``spare`` its first routed enemy apart."""
    assert unit.hex is not None
    col, row = unit.hex
    foes, rank = b.state.foes[unit.side], b.rank
    found: tuple[tuple[float, int], UnitState] | None = None
    routed: tuple[tuple[float, int], UnitState] | None = None
    for dc, dr in offsets:
        h = (col + dc, row + dr)
        e = foes.get(cell(h))
        if e is None or e.morale == "eliminated":
            continue
        key = (-_rounded(facing_cos(unit.hex, facing, h)), rank[e.id])
        if spare and e.morale == "routed":
            if routed is None or key < routed[0]:
                routed = (key, e)
        elif found is None or key < found[0]:
            found = (key, e)
    return (found[1] if found else None), (routed[1] if routed else None)

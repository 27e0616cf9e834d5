"""Hex geometry: "odd-q" offset coordinates (flat-topped hexes in columns).

A hex is ``(column, row)``; odd columns sit half a hex lower.  Distances
are counted in hexes of 125 yards through cube coordinates.
"""

from __future__ import annotations

from functools import cache
from typing import Final

__all__ = ["CELL_STRIDE", "YARDS_PER_HEX", "cell", "distance", "neighbours", "ring", "ring_steps"]

YARDS_PER_HEX: Final = 125

Hex = tuple[int, int]

CELL_STRIDE: Final = 4096
"""A hex's :func:`cell` is ``column * CELL_STRIDE + row``: one int where a tuple would be
hashed.  A map has at most 1,000 rows, so a hex on it and a hex up to 3,000 rows off it
(an offset within any reach) never share a cell."""


def cell(h: Hex) -> int:
    """The hex as one int key, ``column * CELL_STRIDE + row``; an offset ``(dc, dr)`` adds
    ``dc * CELL_STRIDE + dr`` to it."""
    return h[0] * CELL_STRIDE + h[1]


# Fixed neighbour order (N, NE, SE, S, SW, NW) so every tie-break is stable.
_EVEN: Final = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1))
_ODD: Final = ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))


def _cube(h: Hex) -> tuple[int, int, int]:
    col, row = h
    x = col
    z = row - (col - (col & 1)) // 2
    return x, -x - z, z


_CUBE_DIRECTIONS: Final = ((1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1))


def _offset(x: int, z: int) -> Hex:
    return x, z + (x - (x & 1)) // 2


def ring(center: Hex, radius: int) -> list[Hex]:
    """Return the hexes exactly ``radius`` away from ``center`` (possibly off the map)."""
    if radius == 0:
        return [center]
    x, _, z = _cube(center)
    dx, _, dz = _CUBE_DIRECTIONS[4]
    x, z = x + dx * radius, z + dz * radius
    out = []
    for ddx, _ddy, ddz in _CUBE_DIRECTIONS:
        for _ in range(radius):
            out.append(_offset(x, z))
            x, z = x + ddx, z + ddz
    return out


@cache
def ring_steps(odd: bool, radius: int) -> tuple[Hex, ...]:
    """The ``(column, row)`` offsets from a centre to its ring of ``radius``.

    In odd-q coordinates the offsets depend only on whether the centre's
    column is odd, so they are computed once per (parity, radius):
    targeting then costs a few additions per hex, not a cube conversion.
    """
    center = (1, 0) if odd else (0, 0)
    return tuple((c - center[0], r - center[1]) for c, r in ring(center, radius))


def distance(a: Hex, b: Hex) -> int:
    """Return the number of hexes between ``a`` and ``b``.

    The largest difference of their cube coordinates (see ``_cube``): with
    ``y = -x - z``, the y difference is ``-(dx + dz)``, so two are enough.
    """
    ac, ar = a
    bc, br = b
    dx = ac - bc
    dz = ar - (ac - (ac & 1)) // 2 - br + (bc - (bc & 1)) // 2
    return max(abs(dx), abs(dz), abs(dx + dz))


def neighbours(h: Hex) -> list[Hex]:
    """Return the six hexes next to ``h`` in the fixed order N, NE, SE, S, SW, NW."""
    col, row = h
    steps = _ODD if col & 1 else _EVEN
    return [(col + dc, row + dr) for dc, dr in steps]

"""Hex distance on the strategic map: "odd-q" offset columns, about 20 nautical miles a hex."""

from __future__ import annotations

__all__ = ["distance"]


def _cube(h: tuple[int, int]) -> tuple[int, int, int]:
    col, row = h
    z = row - (col - (col & 1)) // 2
    return col, -col - z, z


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Hexes between ``a`` and ``b`` ([column, row], odd columns shifted down half a hex)."""
    ax, ay, az = _cube(a)
    bx, by, bz = _cube(b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))

"""The generic state table: one line per unit, from the ruleset's unit rows.

``battlesim show`` prints it for a ruleset without its own ``render_state``,
and for ``show --unit`` whatever the ruleset.
"""

from __future__ import annotations

from sim.contract import Space, UnitRow

__all__ = ["render_units"]


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _where(row: UnitRow, space: Space) -> str:
    if row.position is None:
        return "-"
    return ",".join(_number(v) for v in row.position)


def render_units(rows: list[UnitRow], space: Space) -> str:
    """A fixed-width table: unit, side, kind, position, strength / initial with unit, status."""
    at = f"{'/'.join(space.axes)} ({space.unit})"
    cells = [
        (
            r,
            _where(r, space),
            f"{_number(r.strength.value)}/{_number(r.initial.value)} {r.strength.unit}",
        )
        for r in rows
    ]
    w_at = max([len(at)] + [len(c[1]) for c in cells])
    w_s = max([8] + [len(c[2]) for c in cells])
    lines = [f"{'unit':<24} {'side':<12} {'kind':<14} {at:>{w_at}} {'strength':>{w_s}} status"]
    for r, where, strength in cells:
        lines.append(
            f"{r.name[:24]:<24} {r.side[:12]:<12} {r.kind[:14]:<14} {where:>{w_at}} "
            f"{strength:>{w_s}} {', '.join(r.status) or 'ok'}".rstrip()
        )
    return "\n".join(lines)

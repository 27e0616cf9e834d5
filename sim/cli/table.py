"""The generic state table: one line per unit, from the ruleset contract's unit rows.

``battlesim show`` prints it for every ruleset: full names, side names,
the position in the battle's space, strength of initial strength, status
words and the ruleset's scalar details, each in its own column.
"""

from __future__ import annotations

from typing import Any

from engine.text import one_line
from sim.contract import Space, UnitRow

__all__ = ["render_units", "table", "unit_cells"]


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def unit_cells(row: UnitRow, axes: tuple[str, ...]) -> dict[str, Any]:
    """One unit as table cells: full name, side name, position, strength, status, details."""
    pos = ",".join(_number(v) for v in row.position) if row.position is not None else "-"
    strength = f"{_number(row.strength.value)}/{_number(row.initial.value)} {row.strength.unit}"
    return {
        "unit": row.name,
        "side": row.side_name,
        ",".join(axes): pos,
        "strength": strength,
        "status": ", ".join(row.status) or "-",
        # Lists and mappings (a task force's ships) go to --json, not into a column.
        **{k: v for k, v in row.details.items() if not isinstance(v, list | dict)},
    }


def table(rows: list[dict[str, Any]]) -> list[str]:
    """A plain fixed-width table of rows (columns in first-seen order; text left, numbers right)."""
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    numeric = [all(_is_number(row.get(c)) for row in rows) for c in columns]

    def fmt(values: list[str]) -> str:
        parts = [
            v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    return [fmt(columns), *(fmt(r) for r in cells)]


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list | tuple):
        return one_line(",".join(str(v) for v in value))
    return one_line(str(value))  # a name's newline must not start a row of its own


def render_units(rows: list[UnitRow], space: Space) -> str:
    """The table of ``rows`` (see the module docstring), header first."""
    return "\n".join(table([unit_cells(r, space.axes) for r in rows]))

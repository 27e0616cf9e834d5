"""The generic state table: one line per unit, from the ruleset contract's unit rows.

``battlesim show`` prints it for every ruleset: full names, side names,
the position in the battle's space, strength of initial strength, status
words and the ruleset's scalar details, each in its own column. Counts (the
strength, its start, a whole-number detail such as men lost) have thousands
separators, as ``run``'s summary and ``diff`` write them: ``3,909/4,000 men``;
a position and ``--unit``'s turn have none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from typing import Any

from engine.safety.text import one_line
from sim.contract import Space, UnitRow
from sim.contract.defaults import every_detail

__all__ = ["Layout", "render_units", "stream_table", "table", "unit_cells"]


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _amount(value: Any) -> str:
    """A count (men, hit points, men lost) with thousands separators, as ``run`` writes men."""
    return f"{value:,g}" if isinstance(value, float) else f"{value:,}"


class _Count(int):
    """A whole-number detail in a unit's row: right-aligned as a number, written ``1,234``."""


def unit_cells(
    row: UnitRow,
    axes: tuple[str, ...],
    shown_details: Callable[[UnitRow], dict[str, Any]] = every_detail,
) -> dict[str, Any]:
    """One unit as table cells: full name, side name, position, strength, status, details.

    The details are those ``shown_details`` gives of the row (the ruleset's
    ``Ruleset.shown_details``; default: the row's own).
    """
    pos = ",".join(_number(v) for v in row.position) if row.position is not None else "-"
    strength = f"{_amount(row.strength.value)}/{_amount(row.initial.value)} {row.strength.unit}"
    return {
        "unit": row.name,
        "side": row.side_name,
        ",".join(axes): pos,
        "strength": strength,
        "status": ", ".join(row.status) or "-",
        # Lists and mappings (a task force's ships) go to --json, not into a column.
        **{
            k: _Count(v) if _is_whole(v) else v
            for k, v in shown_details(row).items()
            if not isinstance(v, list | dict)
        },
    }


def table(rows: list[dict[str, Any]]) -> list[str]:
    """A plain fixed-width table of rows (columns in first-seen order; text left, numbers right)."""
    layout = Layout()
    for row in rows:
        layout.add(row)
    return [layout.header(), *(layout.line(row) for row in rows)]


class Layout:
    """The columns, widths and alignment of a :func:`table`, measured one row at a time.

    A row without a column shows ``-`` there (and counts as a number).
    """

    def __init__(self) -> None:
        self.columns: list[str] = []
        self.widths: list[int] = []
        self.numeric: list[bool] = []
        self.rows = 0

    def add(self, row: dict[str, Any]) -> None:
        """Measure one row."""
        for key in row:
            if key not in self.columns:
                self.columns.append(key)
                self.widths.append(max(len(key), 1 if self.rows else 0))  # earlier rows: "-"
                self.numeric.append(True)
        for i, column in enumerate(self.columns):
            value = row.get(column)
            self.widths[i] = max(self.widths[i], len(_cell(value)))
            self.numeric[i] = self.numeric[i] and _is_number(value)
        self.rows += 1

    def header(self) -> str:
        """The header line."""
        return self._fmt(self.columns)

    def line(self, row: dict[str, Any]) -> str:
        """One measured row's line."""
        return self._fmt([_cell(row.get(c)) for c in self.columns])

    def _fmt(self, values: list[str]) -> str:
        parts = [
            v.rjust(w) if n else v.ljust(w)
            for v, w, n in zip(values, self.widths, self.numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()


def stream_table(rows: Callable[[], Iterable[dict[str, Any]]], keep: int = 2000) -> Iterator[str]:
    """:func:`table` of the rows ``rows()`` yields, its lines made one at a time.

    Up to ``keep`` rows are held and printed as :func:`table` prints them;
    a longer table is measured in a first pass over ``rows()`` (which then
    meets any error before a line is printed) and printed in a second, so
    memory holds ``keep`` rows at most, whatever the table's length.
    """
    found = iter(rows())
    kept = list(islice(found, keep + 1))
    if len(kept) <= keep:
        yield from table(kept)
        return
    layout = Layout()
    for row in chain(kept, found):
        layout.add(row)
    del kept
    yield layout.header()
    for row in rows():
        yield layout.line(row)


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cell(value: Any) -> str:
    if isinstance(value, _Count):
        return f"{value:,}"
    if value is None:
        return "-"
    if isinstance(value, bool):  # as the report page says it, not Python's True
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return one_line(",".join(str(v) for v in value))
    return one_line(str(value))  # a name's newline must not start a row of its own


def render_units(
    rows: list[UnitRow],
    space: Space,
    shown_details: Callable[[UnitRow], dict[str, Any]] = every_detail,
) -> str:
    """The table of ``rows`` (see the module docstring), header first; each row's details
    as ``shown_details`` gives them (:func:`unit_cells`)."""
    return "\n".join(table([unit_cells(r, space.axes, shown_details) for r in rows]))

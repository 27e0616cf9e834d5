"""Appending many rows to a DuckDB table in one statement, column by column.

The study's process appends every run's rows through here, so the cost per
value matters. A study's workers send their rows in Arrow's column layout,
which the store reads as Arrow record batches (:mod:`sim.batch.execution.columnar`):
:func:`insert_batches` hands them to DuckDB as one Arrow table, which it scans
without touching a Python object.
Rows given as Python columns (:func:`insert_columns`) go as follows. DuckDB
scans NumPy arrays at C speed (about 1.3 µs a unit row here), where a list
passed as a query parameter is converted value by value (about 10 µs a
row; ``executemany`` is a thousand times slower). A column goes to DuckDB
as a NumPy array when its values are plain: ``int`` (with a null mask when
some are None) for an integer column, ``int`` and ``float`` (the same) for a
DOUBLE one, ``str`` for a VARCHAR one. Any other column — a float in an
integer column, a bool, an int beyond 64 bits — sends the whole batch
through the list parameters instead, so DuckDB casts every value exactly as
it always did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.batch.execution.columnar import arrow
from sim.batch.storage.duck import duckdb
from sim.batch.storage.sql import table_columns

__all__ = [
    "column_names",
    "column_types",
    "insert_batches",
    "insert_columns",
    "insert_rows",
    "insert_values",
]

_INTEGERS = frozenset({"BIGINT", "INTEGER"})
_FEW = 256
"""Values bound as parameters by :func:`insert_values` at most; more go as columns."""
_NONE = type(None)
_VIEW = "battlesim_append"


def column_names(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """A table's column names, in order."""
    return [name for name, _ in table_columns(con, table)]


def column_types(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """SQL types of a table's columns, in order."""
    return [sql for _, sql in table_columns(con, table)]


def _array(name: str, col: list[Any], sql: str) -> dict[str, np.ndarray[Any, Any]] | None:
    """NumPy arrays for one column (the values, and a null mask if needed), or None."""
    kinds = set(map(type, col))
    if sql == "VARCHAR" and kinds <= {str, _NONE}:
        values = np.empty(len(col), dtype=object)
        values[:] = col
        return {name: values}
    if sql in _INTEGERS and kinds <= {int, _NONE}:
        dtype: type[np.generic] = np.int64
    elif sql == "DOUBLE" and kinds <= {int, float, _NONE}:
        dtype = np.float64
    else:
        return None
    try:
        if _NONE not in kinds:
            return {name: np.array(col, dtype=dtype)}
        values = np.array([0 if v is None else v for v in col], dtype=dtype)
    except OverflowError:  # beyond 64 bits: DuckDB says what it says of such a value
        return None
    return {name: values, name + "_null": np.array([v is None for v in col], dtype=bool)}


def _frame(
    columns: Sequence[list[Any]], types: Sequence[str]
) -> tuple[dict[str, np.ndarray[Any, Any]], list[str]] | None:
    """The columns as NumPy arrays and the SELECT list that casts them, or None."""
    frame: dict[str, np.ndarray[Any, Any]] = {}
    select: list[str] = []
    for i, (col, sql) in enumerate(zip(columns, types, strict=True)):
        name = f"c{i}"
        arrays = _array(name, col, sql)
        if arrays is None:
            return None
        frame.update(arrays)
        if name + "_null" in arrays:
            select.append(f"CASE WHEN {name}_null THEN NULL ELSE {name} END::{sql}")
        else:
            select.append(f"{name}::{sql}")
    return frame, select


def insert_columns(
    con: duckdb.DuckDBPyConnection,
    table: str,
    columns: Sequence[list[Any]],
    types: Sequence[str] | None = None,
) -> None:
    """Append rows given as one list per column, in one INSERT statement."""
    if not columns or not columns[0]:
        return
    types = list(types or column_types(con, table))
    found = _frame(columns, types)
    if found is None:  # list parameters, unnested: DuckDB casts each value
        select = ", ".join(f"unnest(?::{t}[])" for t in types)
        con.execute(f"INSERT INTO {table} SELECT {select}", [list(c) for c in columns])
        return
    frame, casts = found
    con.register(_VIEW, frame)
    try:
        con.execute(f"INSERT INTO {table} SELECT {', '.join(casts)} FROM {_VIEW}")
    finally:
        con.unregister(_VIEW)


def insert_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: Sequence[tuple[Any, ...]],
    types: Sequence[str] | None = None,
) -> None:
    """Append rows given as tuples, in one INSERT statement."""
    if rows:
        insert_columns(con, table, [list(col) for col in zip(*rows, strict=True)], types)


def insert_values(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: Sequence[tuple[Any, ...]],
    types: Sequence[str],
) -> None:
    """Append a few rows given as tuples (the study row, a few design points) in one
    ``INSERT … VALUES`` statement, each value a parameter cast to its column's SQL type.

    The same values as :func:`insert_rows` stores (DuckDB casts each Python value to
    ``types``' type), without building and registering NumPy arrays for them, which
    costs a few milliseconds a statement; more than a few hundred values go through
    :func:`insert_rows`.
    """
    if not rows:
        return
    if len(rows) * len(types) > _FEW:
        insert_rows(con, table, rows, types)
        return
    row = "(" + ", ".join(f"?::{t}" for t in types) + ")"
    if any(len(values) != len(types) for values in rows):
        raise ValueError(f"rows of {table} do not have {len(types)} values each")
    params = [value for values in rows for value in values]
    con.execute(f"INSERT INTO {table} VALUES " + ", ".join([row] * len(rows)), params)


def insert_batches(
    con: duckdb.DuckDBPyConnection, table: str, batches: Sequence[Any], types: Sequence[str]
) -> None:
    """Append Arrow record batches of columns ``c0, c1, …`` (one per column of ``table``,
    in order) in one INSERT statement, each column cast to its SQL type in ``types``."""
    batches = [b for b in batches if b.num_rows]
    if not batches:
        return
    frame = arrow().Table.from_batches(batches)
    casts = ", ".join(f"c{i}::{sql}" for i, sql in enumerate(types))
    con.register(_VIEW, frame)
    try:
        con.execute(f"INSERT INTO {table} SELECT {casts} FROM {_VIEW}")
    finally:
        con.unregister(_VIEW)

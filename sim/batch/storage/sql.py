"""SQL text from Python values (a quoted identifier, a quoted string literal),
and a table's columns as DuckDB's catalog lists them.

One place for each, so that every name and literal a study's SQL holds is
quoted the same way (the store, its unit rows and the ``runs_wide`` view), and
every reader of a study's columns asks the catalog the same bounded question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.batch.storage.duck import duckdb

__all__ = ["literal", "quote", "table_columns"]

# A study a user received is data: its catalog is read with a bound on what comes back.
_MOST_COLUMNS = 100_000


def quote(name: str) -> str:
    """A SQL identifier, double-quoted (a ``"`` in it doubled)."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A SQL string literal, single-quoted (a ``'`` in it doubled)."""
    return "'" + text.replace("'", "''") + "'"


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """A table's or view's ``(column name, SQL type)`` pairs in column order, from
    ``duckdb_columns()`` (a catalog function: it runs nothing the file holds)."""
    rows = con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
        f"ORDER BY column_index LIMIT {_MOST_COLUMNS}",
        [table],
    ).fetchall()
    return [(str(r[0]), str(r[1])) for r in rows]

"""Spreadsheet-safe CSV: text a spreadsheet would run as a formula is written as text.

A spreadsheet that opens a CSV file runs a cell beginning with ``=``, ``+``,
``-`` or ``@`` as a formula (``=HYPERLINK(...)`` in a side's name), and some
treat a leading tab or carriage return the same way.  As OWASP recommends
for CSV injection, such a cell is written with a single quote in front
(``'=HYPERLINK(...)``), which the spreadsheet shows as text.  Only text
columns are touched: a number column keeps its negative numbers numeric.
Column names get the same treatment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.batch.storage.sql import quote as _quote

if TYPE_CHECKING:
    from sim.batch.storage.duck import duckdb

__all__ = ["FORMULA_START", "csv_select", "neutral"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP)."""

_SQL_START = ", ".join(f"'{c}'" if c.isprintable() else f"chr({ord(c)})" for c in FORMULA_START)


def neutral(text: str) -> str:
    """``text`` with a single quote in front when it begins like a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_select(con: duckdb.DuckDBPyConnection, select: str) -> str:
    """``select`` wrapped so every text cell (and column name) is safe in a spreadsheet."""
    columns = con.execute(f"DESCRIBE {select}").fetchall()
    out = []
    for name, kind, *_ in columns:
        c = _quote(name)
        if str(kind).startswith("VARCHAR"):
            cell = f"CASE WHEN left({c}, 1) IN ({_SQL_START}) THEN '''' || {c} ELSE {c} END"
        else:
            cell = c
        out.append(f"{cell} AS {_quote(neutral(name))}")
    return f"SELECT {', '.join(out)} FROM ({select})"

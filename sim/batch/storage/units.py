"""Units' final rows: the ``unit_rows`` table and the ``unit_finals`` view over it.

``unit_rows`` holds what every ruleset's :class:`~sim.contract.UnitRow` holds
at a battle's end (:data:`~sim.batch.execution.rows.UNIT_COLUMNS`): side, kind, initial
and final strength with the strength's unit, the status words and the
details as canonical JSON. ``unit_finals``, the view users query, adds one
typed column per detail — those the units have at the start of each of the
study's battles, typed by their values there — between ``status`` and
``details``, so a musket study still has ``fatigue``, ``morale``, ``men_lost``
and ``guns_lost``::

    SELECT side, avg(fatigue) FROM unit_finals WHERE status = 'routed' GROUP BY ALL

A study made before ``unit_rows`` existed has ``unit_finals`` as a table of
fixed columns (side, initial, strength, fatigue, morale, men_lost, guns_lost):
it is read as it is, and a ``--resume`` appends rows of that same shape
(:func:`legacy_columns`), each column from the unit row's own field of that
name or its detail (the detail winning, as before).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from sim.batch.execution.digests import UNIT_TYPES
from sim.batch.execution.rows import UNIT_COLUMNS, UNIT_KEYS
from sim.batch.storage.duck import duckdb
from sim.batch.storage.sql import literal as _literal
from sim.batch.storage.sql import quote as _quote
from sim.batch.storage.sql import table_columns
from sim.contract import AnyRuleset, UnitRow

__all__ = [
    "TABLE",
    "VIEW",
    "create_units",
    "detail_columns",
    "detail_select",
    "legacy_columns",
    "legacy_units",
    "start_details",
]

TABLE = "unit_rows"
VIEW = "unit_finals"

_NOT_NULL = frozenset({"run_id", "battle", "unit"})
_TYPES = {c: t + (" NOT NULL" if c in _NOT_NULL else "") for c, t in UNIT_TYPES.items()}
"""The unit_rows table's columns as created: the shared types, its keys NOT NULL."""
assert tuple(_TYPES) == UNIT_KEYS + UNIT_COLUMNS

_OWN = ("side", "initial", "strength")
"""The legacy table's columns a unit row holds itself (its details may hold the rest)."""

DetailColumn = tuple[str, str, str]
"""(detail key, column name, SQL type) of one typed detail column of the view."""


def _sql_type(values: Iterable[Any]) -> str:
    """BIGINT, DOUBLE, BOOLEAN or VARCHAR when every value (nulls aside) fits; else JSON."""
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return "BOOLEAN"
    if kinds == {int}:
        return "BIGINT"
    if kinds and kinds <= {int, float}:
        return "DOUBLE"
    if kinds == {str}:
        return "VARCHAR"
    return "JSON"


def detail_columns(rows: Iterable[UnitRow]) -> list[DetailColumn]:
    """One typed column per detail key of ``rows``, in the order the keys first appear.

    A column is named by its key, or ``detail:<key>`` when another column of
    the view already has that name (DuckDB compares names ignoring case).
    """
    values: dict[str, list[Any]] = {}
    for row in rows:
        for key, value in row.details.items():
            values.setdefault(key, []).append(value)
    used = {c.lower() for c in _TYPES}
    out: list[DetailColumn] = []
    for key, vals in values.items():
        name, n = key, 1
        while name.lower() in used:
            n += 1
            name = f"detail:{key}" if n == 2 else f"detail:{key}_{n - 1}"
        used.add(name.lower())
        out.append((key, name, _sql_type(vals)))
    return out


def start_details(scenarios: Sequence[tuple[AnyRuleset, Any]]) -> list[DetailColumn]:
    """The typed detail columns of the units of each (ruleset, scenario) at its start."""
    rows = [
        row
        for ruleset, scenario in scenarios
        for row in ruleset.units(scenario, ruleset.initial_state(scenario))
    ]
    return detail_columns(rows)


def _detail(key: str, name: str, sql: str) -> str:
    """The view's expression of one detail column (NULL where a row lacks the detail)."""
    pointer = _literal("/" + key.replace("~", "~0").replace("/", "~1"))
    if sql == "JSON":
        value = f"json_extract(details, {pointer})"
    elif sql == "VARCHAR":
        value = f"json_extract_string(details, {pointer})"
    else:
        value = f"TRY_CAST(json_extract_string(details, {pointer}) AS {sql})"
    return f"{value} AS {_quote(name)}"


def create_units(con: duckdb.DuckDBPyConnection, details: Sequence[DetailColumn]) -> None:
    """Create the ``unit_rows`` table and the ``unit_finals`` view with ``details``' columns."""
    columns = ", ".join(f"{_quote(c)} {t}" for c, t in _TYPES.items())
    con.execute(f"CREATE TABLE {TABLE} ({columns})")
    con.execute(f"CREATE VIEW {VIEW} AS {detail_select(details)}")


def detail_select(details: Sequence[DetailColumn]) -> str:
    """The ``unit_finals`` view's SELECT over ``unit_rows``, with ``details``' typed columns."""
    own = [_quote(c) for c in _TYPES if c != "details"]
    typed = [_detail(*d) for d in details]
    return f"SELECT {', '.join([*own, *typed, 'details'])} FROM {TABLE}"


def legacy_columns(con: duckdb.DuckDBPyConnection) -> list[str] | None:
    """The value columns of a study's ``unit_finals`` table made before ``unit_rows``.

    None for a study that has ``unit_rows`` (the view's).
    """
    tables = {
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE table_name IN (?, ?)", [TABLE, VIEW]
        ).fetchall()
    }
    if TABLE in tables or VIEW not in tables:
        return None
    return [name for name, _ in table_columns(con, VIEW)][len(UNIT_KEYS) :]


def legacy_units(units: Sequence[list[Any]], names: Sequence[str]) -> list[list[Any]]:
    """Columns of ``unit_rows`` as the legacy table's: keys, then each of ``names``.

    A name is the unit row's detail of that name, else its own field (side,
    initial, strength), else NULL — what that battlesim stored.
    """
    keys = list(units[: len(UNIT_KEYS)])
    own = dict(zip(UNIT_COLUMNS, units[len(UNIT_KEYS) :], strict=True))
    details = [orjson.loads(d) for d in own["details"]]
    out = []
    for name in names:
        mine = own.get(name) if name in _OWN else None
        if mine is None:
            out.append([d.get(name) for d in details])
        else:
            out.append([d.get(name, v) for d, v in zip(details, mine, strict=True)])
    return keys + out

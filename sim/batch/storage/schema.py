"""A study database is data: its schema checked against battlesim's before anything is read.

A ``study.duckdb`` someone sent is a file of DuckDB's, and DuckDB views run
queries when they are read: a ``runs`` view over ``read_text('FILE')`` would
print FILE, one over ``range(10^12)`` would never end. So before a single row
is read, the catalog alone (``duckdb_tables()``, ``duckdb_views()``,
``duckdb_columns()`` and the other catalog functions, which run nothing the
file holds) must be battlesim's:

* the tables ``study``, ``points``, ``runs`` and ``unit_rows`` (or, in a
  study made before ``unit_rows``, a ``unit_finals`` table of its fixed
  columns), and ``run_digests`` when the study has one — each a base table in
  the ``main`` schema, with battlesim's columns and types;
* no view but ``runs_wide`` and ``unit_finals`` (over ``unit_rows``), each
  with exactly the SQL battlesim makes for them (rebuilt in an empty in-memory
  database from the file's columns, inside a transaction rolled back after, and
  compared as DuckDB writes it);
* nothing else: no other table, view, schema, macro, sequence or type.

The file is opened with DuckDB's external access and extension autoloading
off (:data:`HARDENED`), so even a view missed here could read no file.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from typing import Any

from sim.batch.execution.digests import DIGEST_COLUMNS, RUN_COLUMNS, UNIT_TYPES
from sim.batch.storage.duck import duckdb
from sim.batch.storage.sql import quote as _quote
from sim.batch.storage.sql import table_columns as _columns

__all__ = [
    "DIGEST_COLUMNS",
    "DIGEST_TABLE",
    "HARDENED",
    "SchemaError",
    "check_catalog",
    "check_columns",
]

HARDENED: dict[str, str | bool | int] = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
}
"""DuckDB settings every study connection is opened with: no file, network or extension
reached from SQL (a read-only connection also locks its configuration)."""

DIGEST_TABLE = "run_digests"

_LEGACY = {"run_id", "battle", "battle_id", "unit", "side", "initial", "strength", "fatigue",
           "morale", "men_lost", "guns_lost"}  # fmt: skip
_PLAIN = {"BIGINT", "INTEGER", "DOUBLE", "BOOLEAN", "VARCHAR"}
_VIEWS = ("runs_wide", "unit_finals")


class SchemaError(ValueError):
    """A database whose schema is not a battlesim study's."""


def _others(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Objects a study never holds: other schemas, macros, sequences, types, indexes."""
    found: list[str] = []
    queries = {
        "schema": "SELECT schema_name FROM duckdb_schemas() WHERE NOT internal "
        "AND schema_name <> 'main'",
        "macro": "SELECT function_name FROM duckdb_functions() WHERE NOT internal",
        "sequence": "SELECT sequence_name FROM duckdb_sequences()",
        "type": "SELECT type_name FROM duckdb_types() WHERE NOT internal",
        "index": "SELECT index_name FROM duckdb_indexes()",
    }
    for kind, sql in queries.items():
        found += [f"{kind} {r[0]!r}" for r in con.execute(sql + " LIMIT 3").fetchall()]
    return found


def _expressions(con: duckdb.DuckDBPyConnection) -> str | None:
    """An expression the file would have DuckDB evaluate as its rows are read or written:
    a column's default or generated value (``GENERATED ALWAYS AS (random() …)``, evaluated
    on every read), or a constraint other than a key or NOT NULL (``CHECK``, evaluated on
    every write). A study's tables hold none; the catalog names them without evaluating."""
    column = con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() "
        "WHERE NOT internal AND column_default IS NOT NULL LIMIT 1"
    ).fetchone()
    if column is not None:
        return f"a column {column[0]}.{column[1]} computed by an expression"
    constraint = con.execute(
        "SELECT table_name, constraint_type FROM duckdb_constraints() "
        "WHERE constraint_type NOT IN ('PRIMARY KEY', 'NOT NULL', 'UNIQUE') LIMIT 1"
    ).fetchone()
    if constraint is not None:
        return f"a {constraint[1]} constraint on its {constraint[0]} table"
    return None


def check_catalog(con: duckdb.DuckDBPyConnection) -> None:
    """Refuse a database whose tables and views are not a study's (names, kinds, columns).

    Reads the catalog only; no table or view is read.

    Raises:
        SchemaError: the first thing that is not battlesim's, in one line.
    """
    tables = con.execute(
        "SELECT schema_name, table_name, temporary FROM duckdb_tables() LIMIT 100"
    ).fetchall()
    views = con.execute(
        "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal LIMIT 100"
    ).fetchall()
    names = {str(t[1]) for t in tables}
    for schema, name, _ in tables:
        if schema != "main":
            raise SchemaError(f"it holds a table {schema}.{name}, which a study never has")
    for schema, name in views:
        if name in ("study", "points", "runs", "unit_rows", DIGEST_TABLE):
            raise SchemaError(f"its {name!r} is a view, not a table: a study's tables hold data")
        if schema != "main" or name not in _VIEWS:
            raise SchemaError(f"it holds a view {schema}.{name}, which a study never has")
    legacy = "unit_finals" in names
    wanted = {"study", "points", "runs", "unit_finals" if legacy else "unit_rows"}
    missing, extra = wanted - names, names - wanted - {DIGEST_TABLE}
    if missing:
        raise SchemaError(f"it has no table {sorted(missing)[0]!r}")
    if extra:
        raise SchemaError(f"it holds a table {sorted(extra)[0]!r}, which a study never has")
    others = _others(con)
    if others:
        raise SchemaError(f"it holds a {others[0]}, which a study never has")
    computed = _expressions(con)
    if computed is not None:
        raise SchemaError(f"it holds {computed}, which a study never has")
    _check_tables(con, names, legacy, any(name == "unit_finals" for _, name in views))


def _check_tables(
    con: duckdb.DuckDBPyConnection, names: set[str], legacy: bool, units_view: bool
) -> None:
    """The columns of the tables whose shape does not depend on the study row."""
    _exact(con, "unit_rows" if not legacy else "", UNIT_TYPES)
    if DIGEST_TABLE in names:
        _exact(con, DIGEST_TABLE, DIGEST_COLUMNS)
    if legacy:
        for column, sql in _columns(con, "unit_finals"):
            if column not in _LEGACY or sql not in _PLAIN:
                raise SchemaError(f"its unit_finals table has a column {column!r} ({sql})")
    points = _columns(con, "points")
    if points[:3] != [("point", "INTEGER"), ("label", "VARCHAR"), ("values", "VARCHAR")]:
        raise SchemaError("its points table's columns are not a study's")
    for column, sql in points[3:]:
        if sql not in _PLAIN:
            raise SchemaError(f"its points table's column {column!r} is of type {sql}")
    if legacy and units_view:
        raise SchemaError("its unit_finals is both a table and a view")


def _exact(con: duckdb.DuckDBPyConnection, table: str, wanted: dict[str, str]) -> None:
    if table and _columns(con, table) != list(wanted.items()):
        raise SchemaError(f"its {table} table's columns are not a study's")


def check_columns(
    con: duckdb.DuckDBPyConnection,
    meta: dict[str, Any],
    losses: list[str],
    draws: list[str],
    wide_sql: str | None,
) -> None:
    """Refuse tables and views whose columns are not the ones the study row describes.

    ``losses`` and ``draws`` are the runs table's loss and draw columns as the
    study row names them (a study made before draw columns has none);
    ``wide_sql`` is the ``runs_wide`` view's SELECT battlesim makes for this study
    (None: the view is not checked, because the caller replaces it at once — a
    study reopened to resume, whose view an older battlesim may have made).

    Raises:
        SchemaError: a column, type or view that is not battlesim's.
    """
    runs = _columns(con, "runs")
    wanted = [*RUN_COLUMNS.items(), *((c, "BIGINT") for c in losses)]
    wanted += [(c, "BIGINT") for c in draws]
    if runs[: len(wanted)] != wanted or runs[len(wanted) :] not in ([], [("outcome", "VARCHAR")]):
        extra = [c for c, _ in runs if c not in dict(wanted) and c != "outcome"]
        shown = f": {extra[0]!r}" if extra else ""
        raise SchemaError(f"its runs table's columns are not the study's{shown}")
    factors = [str(f.get("path")) for f in meta.get("factors", []) if isinstance(f, dict)]
    if [c for c, _ in _columns(con, "points")][3:] != factors:
        raise SchemaError("its points table's columns are not the study's factors")
    _check_views(con, wide_sql)


def _check_views(con: duckdb.DuckDBPyConnection, wide_sql: str | None) -> None:
    """Each view's SQL, as DuckDB writes it, must be the one battlesim makes."""
    stored = {
        str(r[0]): str(r[1])
        for r in con.execute(
            "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal LIMIT 10"
        ).fetchall()
    }
    if wide_sql is None:
        stored.pop("runs_wide", None)
    if not stored:
        return
    with _SCRATCH_LOCK:
        scratch = _begin()
        try:
            for table in ("runs", "points", "unit_rows"):
                columns = _columns(con, table)
                if columns:
                    body = ", ".join(f"{_quote(c)} {t}" for c, t in columns)
                    scratch.execute(f"CREATE TABLE {table} ({body})")
            if "runs_wide" in stored and wide_sql is not None:
                scratch.execute(f"CREATE VIEW runs_wide AS {wide_sql}")
            if "unit_finals" in stored:
                scratch.execute(f"CREATE VIEW unit_finals AS {_units_select(con, stored)}")
            again = {
                str(r[0]): str(r[1])
                for r in scratch.execute(
                    "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal"
                ).fetchall()
            }
        except duckdb.Error as exc:
            raise SchemaError(f"its views are not a study's ({str(exc).splitlines()[0]})") from None
        finally:
            _roll_back(scratch)
    for name, sql in stored.items():
        if again.get(name) != sql:
            raise SchemaError(f"its view {name!r} is not the one battlesim makes")


_SCRATCH: list[duckdb.DuckDBPyConnection] = []
"""This process's in-memory database for rebuilding views (none until the first check)."""
_SCRATCH_LOCK = threading.Lock()


def _scratch() -> duckdb.DuckDBPyConnection:
    """The empty in-memory database views are rebuilt in: one a process, opened on first use.

    Opening one costs about 12 ms (DuckDB sets up its catalog of built-in functions), more
    than the whole check; each check works inside a transaction it rolls back, so every
    check starts from an empty database.  DuckDB runs threads of its own while a database
    is open, so it is closed before the process forks (:func:`_before_fork`): no scratch
    database is held across a fork (a study a caller keeps open is the caller's), and
    parent and child each open one again when they next check a study.
    """
    if not _SCRATCH:
        config: dict[str, str | bool | int | float | list[str]]
        config = {**HARDENED, "threads": 1, "lock_configuration": True}
        _SCRATCH.append(duckdb.connect(":memory:", config=config))
    return _SCRATCH[0]


def _drop() -> None:
    """Close this process's scratch database, if it has one (the next check opens another)."""
    if _SCRATCH:
        _SCRATCH.pop().close()


def _begin() -> duckdb.DuckDBPyConnection:
    """The scratch database, in a transaction of its own.

    A check interrupted before its rollback (Ctrl-C in a notebook) leaves a transaction
    open: that database is closed and a fresh one used instead.
    """
    try:
        _scratch().execute("BEGIN TRANSACTION")
    except duckdb.Error:
        _drop()
        _scratch().execute("BEGIN TRANSACTION")
    return _scratch()


def _roll_back(scratch: duckdb.DuckDBPyConnection) -> None:
    """Undo the check's tables and views; a scratch database that cannot is not used again."""
    try:
        scratch.execute("ROLLBACK")
    except duckdb.Error:
        _drop()
    except BaseException:
        _drop()
        raise


def _before_fork() -> None:
    """Take the lock (a check in another thread ends first) and close the scratch database.

    CPython drops an exception raised in a fork handler and forks anyway, so an interrupt
    while this waits or closes must not leave the lock untaken (the handlers after the
    fork release it) or the database open (a child that inherits it crashes as it exits):
    both are retried until done; the interrupt would have been lost with the handler's
    exception in any case.
    """
    taken = False
    while not taken:
        with contextlib.suppress(BaseException):  # see above: the fork goes on regardless
            taken = _SCRATCH_LOCK.acquire()
    while _SCRATCH:
        with contextlib.suppress(BaseException):
            _drop()


os.register_at_fork(
    before=_before_fork,
    after_in_parent=_SCRATCH_LOCK.release,
    after_in_child=_SCRATCH_LOCK.release,
)


def _units_select(con: duckdb.DuckDBPyConnection, stored: dict[str, str]) -> str:
    """The ``unit_finals`` SELECT battlesim makes for the view's own detail columns."""
    from sim.batch.storage.units import detail_select  # noqa: PLC0415

    columns = _columns(con, "unit_finals")
    own = [c for c in UNIT_TYPES if c != "details"]
    if [c for c, _ in columns[: len(own)]] != own or columns[-1:] != [("details", "VARCHAR")]:
        raise SchemaError("its view 'unit_finals' is not the one battlesim makes")
    details = []
    for name, sql in columns[len(own) : -1]:
        key = name
        if name.startswith("detail:"):
            key = name[len("detail:") :]
            short = re.fullmatch(r"(.*)_\d+", key)
            if short and _pointer(short.group(1)) in stored["unit_finals"]:
                key = short.group(1)
        details.append((key, name, sql))
    return detail_select(details)


def _pointer(key: str) -> str:
    return "'/" + key.replace("~", "~0").replace("/", "~1").replace("'", "''") + "'"

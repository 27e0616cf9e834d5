"""The ``runs_wide`` view: one row per run, every factor a typed column named by its path.

Columns: ``run_id, point, replication, seed, status, pilot`` (true for the
runs of a ``--until-ci`` pilot, which the summary leaves out:
:mod:`sim.batch.planning.stopping`), then one column per
factor named by its path (``options.fire_hcv``; ``factor:<path>`` if the
path is also a column of ``runs``, like ``seed``) with the type the
``points`` table gave it (BIGINT, DOUBLE, BOOLEAN or VARCHAR), then
``winner, winner_name, reason, turns, battles``, the loss columns
(``<side>_<kind>_lost``), the draw columns (``<side>_draws``) and
``error``. No join, no quoting of dotted names in a notebook beyond the
column's own name::

    SELECT "options.fire_hcv", avg(usa_men_lost) FROM runs_wide GROUP BY ALL
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from engine.safety.atomic import exporting
from sim.batch.planning.stopping import summarised
from sim.batch.storage.csvsafe import csv_select
from sim.batch.storage.sql import literal, table_columns
from sim.batch.storage.sql import quote as _quote

if TYPE_CHECKING:
    from sim.batch.storage.duck import duckdb

__all__ = [
    "VIEW",
    "create_view",
    "export_wide",
    "runs_export_select",
    "wide_columns",
    "wide_select",
    "wide_sql",
]

VIEW = "runs_wide"
_RUNS = ("run_id", "point", "replication", "seed", "status", "pilot", "error", "winner",
         "winner_name", "reason", "turns", "battles", "outcome")  # fmt: skip


class Store(Protocol):
    """What the view reads of a study's store (:class:`sim.batch.storage.store.Store` has it all).

    A protocol, so that this module never imports the store that creates the view.
    """

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The study database's connection."""

    @property
    def losses(self) -> list[tuple[str, str, str]]:
        """(side, kind, column) of the runs table's loss columns."""

    @property
    def draws(self) -> list[tuple[str, str]]:
        """(side, column) of the runs table's draw columns."""

    def meta(self) -> dict[str, Any]:
        """The study's stored metadata (its ``plan`` among it)."""


def wide_columns(factor_paths: list[str]) -> list[str]:
    """The factor columns' names: the path, or ``factor:<path>`` when a runs column has it."""
    return [f"factor:{p}" if p in _RUNS else p for p in factor_paths]


def _factor_paths(store: Store) -> list[str]:
    # after point, label, values
    return [name for name, _ in table_columns(store.con, "points")][3:]


def wide_select(store: Store) -> str:
    """The view's SELECT (usable where the view is missing: a study opened read-only)."""
    return wide_sql(_factor_paths(store), store.losses, store.draws, store.meta()["plan"])


def wide_sql(
    paths: list[str],
    losses: list[tuple[str, str, str]],
    draws: list[tuple[str, str]],
    plan: dict[str, Any],
) -> str:
    """The view's SELECT for a study of these factor paths, loss and draw columns and
    stored plan (what :func:`wide_select` reads of an open study)."""
    factors = "".join(
        f", p.{_quote(p)} AS {_quote(c)}" for p, c in zip(paths, wide_columns(paths), strict=True)
    )
    loss = "".join(f", r.{_quote(c)}" for _, _, c in losses)
    draw = "".join(f", r.{_quote(c)}" for _, c in draws)
    pilot = f"NOT ({summarised(plan)}) AS pilot"
    return (
        f"SELECT r.run_id, r.point, r.replication, r.seed, r.status, {pilot}{factors}, r.winner, "
        f"r.winner_name, r.reason, r.turns, r.battles{loss}{draw}, r.error "
        "FROM runs r JOIN points p USING (point)"
    )


def runs_export_select(store: Store) -> str:
    """The exported ``runs`` table: every column of ``runs``, then ``pilot`` and each factor.

    ``runs.csv`` (and ``runs.parquet``) keep the table's columns in their order,
    so a script reading them by name or position still works, and gain what a
    reader needs beside them: whether the run was an ``--until-ci`` pilot (left
    out of the summary), and the run's factor values, named as in ``runs_wide``.
    """
    paths = _factor_paths(store)
    factors = "".join(
        f", p.{_quote(p)} AS {_quote(c)}" for p, c in zip(paths, wide_columns(paths), strict=True)
    )
    pilot = f"NOT ({summarised(store.meta()['plan'])}) AS pilot"
    return f"SELECT r.*, {pilot}{factors} FROM runs r JOIN points p USING (point)"


def create_view(store: Store, select: str | None = None) -> None:
    """Create (or replace) the ``runs_wide`` view in the study's database.

    ``select``: the view's SELECT when the caller has it (:func:`wide_sql`), else
    :func:`wide_select` reads it from the study.
    """
    sql = wide_select(store) if select is None else select
    store.con.execute(f"CREATE OR REPLACE VIEW {VIEW} AS {sql}")


def export_wide(store: Store, dest: Path, fmt: str) -> Path:
    """Write ``runs_wide`` ordered by run id to ``dest/runs_wide.<fmt>`` (parquet or csv)."""
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / f"{VIEW}.{fmt}"
    options = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
    with exporting(out) as temp:  # an old export survives a failed one
        select = f"{wide_select(store)} ORDER BY r.run_id"
        if fmt == "csv":  # text a spreadsheet would run as a formula stays text
            select = csv_select(store.con, select)
        store.con.execute(f"COPY ({select}) TO {literal(str(temp))} ({options})")
    return out

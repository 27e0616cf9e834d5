"""Creating a study's database costs little and stores what it always stored.

The study row and the design points go in as parameters of one ``INSERT …
VALUES`` (not NumPy frames registered with DuckDB), the ``runs_wide`` view is
made from what was just written (not read back), the column types a commit
point needs are known from the tables just made, and the study row and the
points are read from the database once per open store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from sim.batch.analysis import summary
from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.storage import append
from sim.batch.storage.opening import fresh_points, open_store
from sim.batch.storage.store import Store
from sim.batch.storage.units import TABLE as UNIT_TABLE
from sim.batch.storage.wide import VIEW, wide_select
from tests.batch.helpers import STONE_WALL

TYPES = ["BIGINT", "INTEGER", "DOUBLE", "BOOLEAN", "VARCHAR"]
ROWS = [
    (1, 2, 3, True, "é"),  # an int in the DOUBLE column: stored as 3.0
    (None, None, 2.5, False, None),
    (2**63 - 1, -(2**31), None, None, "x"),
]
STORED = [
    (1, 2, 3.0, True, "é"),
    (None, None, 2.5, False, None),
    (2**63 - 1, -(2**31), None, None, "x"),
]


def _table(con: duckdb.DuckDBPyConnection, name: str) -> None:
    con.execute(f"CREATE TABLE {name} (a BIGINT, b INTEGER, c DOUBLE, d BOOLEAN, e VARCHAR)")


def test_insert_values_stores_what_insert_rows_stores() -> None:
    con = duckdb.connect()
    _table(con, "by_values")
    _table(con, "by_rows")
    append.insert_values(con, "by_values", ROWS, TYPES)
    append.insert_rows(con, "by_rows", ROWS, TYPES)
    for name in ("by_values", "by_rows"):
        got = con.execute(f"SELECT * FROM {name} ORDER BY a NULLS LAST").fetchall()
        assert got == sorted(STORED, key=lambda r: (r[0] is None, r[0] or 0))
        assert [type(v) for v in got[0]] == [int, int, float, bool, str]


def test_insert_values_refuses_a_short_row_and_sends_many_values_as_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    con = duckdb.connect()
    _table(con, "t")
    with pytest.raises(ValueError, match="do not have 5 values"):
        append.insert_values(con, "t", [(1, 2, 3.0, True)], TYPES)
    columns: list[int] = []
    insert = append.insert_columns

    def counted(con: Any, table: str, cols: Any, types: Any = None) -> None:
        columns.append(len(cols[0]))
        insert(con, table, cols, types)

    monkeypatch.setattr(append, "insert_columns", counted)
    few = append._FEW // len(TYPES)  # rows whose values are just within the bound
    append.insert_values(con, "t", [ROWS[0]] * few, TYPES)
    assert columns == []
    append.insert_values(con, "t", [ROWS[0]] * (few + 1), TYPES)
    assert columns == [few + 1]
    row = con.execute("SELECT count(*), min(c), max(e) FROM t").fetchone()
    assert row == (2 * few + 1, 3.0, "é")


def _plan() -> StudyPlan:
    factors = (
        Factor(path="options.fire_hcv", values=[15, 27.5]),
        Factor(path="turns.limit", values=[3, 4]),
    )
    return StudyPlan(load_target(STONE_WALL), seed=4, replications=3, factors=factors)


def _created(tmp_path: Path) -> Store:
    plan = _plan()
    return open_store(plan, tmp_path, fresh_points(plan, tmp_path))


def test_a_created_study_knows_its_types_and_view_as_the_catalog_has_them(
    tmp_path: Path,
) -> None:
    store = _created(tmp_path)
    try:
        assert store.created
        known = store._types_of()
        assert known == {t: append.column_types(store.con, t) for t in ("runs", UNIT_TABLE)}
        assert known["runs"][-1] == "VARCHAR"  # outcome, after the loss and draw columns
        assert len(known["runs"]) == 11 + len(store.losses) + len(store.draws) + 1
        view = "SELECT sql FROM duckdb_views() WHERE view_name = ?"
        made = store.con.execute(view, [VIEW]).fetchone()
        # the SELECT read back from the catalog and the stored plan makes the same view
        store.con.execute(f"CREATE OR REPLACE VIEW {VIEW} AS {wide_select(store)}")
        assert store.con.execute(view, [VIEW]).fetchone() == made
        points = store.con.execute(
            'SELECT point, label, "values", "options.fire_hcv", "turns.limit" FROM points '
            "ORDER BY point"
        ).fetchall()
        assert points == [
            (
                0,
                "options.fire_hcv=15, turns.limit=3",
                '{"options.fire_hcv":15.0,"turns.limit":3}',
                15.0,
                3,
            ),
            (
                1,
                "options.fire_hcv=15, turns.limit=4",
                '{"options.fire_hcv":15.0,"turns.limit":4}',
                15.0,
                4,
            ),
            (
                2,
                "options.fire_hcv=27.5, turns.limit=3",
                '{"options.fire_hcv":27.5,"turns.limit":3}',
                27.5,
                3,
            ),
            (
                3,
                "options.fire_hcv=27.5, turns.limit=4",
                '{"options.fire_hcv":27.5,"turns.limit":4}',
                27.5,
                4,
            ),
        ]
    finally:
        store.close()
    again = Store.open(tmp_path / "study.duckdb", read_only=True)
    try:
        assert not again.created
        assert again.meta()["replications"] == 3
        assert again.meta()["crn"] is False
    finally:
        again.close()


class _Counting:
    """A connection that counts the statements run through it."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.statements: list[str] = []

    def execute(self, sql: str, *args: Any) -> Any:
        self.statements.append(sql)
        return self.con.execute(sql, *args)


def test_the_study_row_and_points_are_read_once_and_given_afresh(tmp_path: Path) -> None:
    _created(tmp_path).close()
    store = Store.open(tmp_path / "study.duckdb", read_only=True)
    try:
        counting = _Counting(store.con)
        store.con = counting  # type: ignore[assignment]
        store._study = store._points = None  # as a store that has read neither yet
        first, points = store.meta(), store.points()
        first["plan"]["seed"] = -1
        points[0]["turns.limit"] = -1
        assert store.meta()["plan"]["seed"] == 4
        assert store.points()[0] == {"options.fire_hcv": 15.0, "turns.limit": 3}
        assert len(counting.statements) == 2
    finally:
        store.con = counting.con
        store.close()


def test_column_statistics_in_one_query_skip_each_columns_own_nulls() -> None:
    """turns and a loss column over the done runs, by point; NULLs of one column do not
    drop the other's values, and a point whose column is all NULL has no statistics."""
    con = duckdb.connect()
    con.execute("CREATE TABLE runs (point INTEGER, status VARCHAR, turns INTEGER, x_lost BIGINT)")
    con.execute(
        "INSERT INTO runs VALUES (0, 'done', 2, 10), (0, 'done', 4, NULL), (0, 'done', 6, 30), "
        "(0, 'failed', 99, 99), (1, 'done', 5, NULL)"
    )

    class Found:
        pass

    store: Any = Found()
    store.con = con
    got = summary._column_stats(store, ["turns", "x_lost"], "TRUE")
    assert got["turns"][0] == {"mean": 4.0, "sd": 2.0, "median": 4.0, "p5": 2.2, "p95": 5.8}
    # x_lost at point 0: 10 and 30; sd = sqrt((2 * 1000 - 40**2) / 2) = sqrt(200)
    assert got["x_lost"][0]["mean"] == 20.0
    assert got["x_lost"][0]["sd"] == pytest.approx(200**0.5, rel=1e-15)
    assert got["x_lost"][0]["p5"] == pytest.approx(11.0, rel=1e-12)
    assert got["turns"][1] == {"mean": 5.0, "sd": None, "median": 5.0, "p5": 5.0, "p95": 5.0}
    assert got["x_lost"][1] == {"mean": None, "sd": None, "median": None, "p5": None, "p95": None}
    assert summary._column_stats(store, [], "TRUE") == {}

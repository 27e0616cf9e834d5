"""runs_wide, export --wide and api.load_study: every factor a typed column named by its path."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import pytest

from sim import api
from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor, design_points
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from tests.batch.helpers import STONE_WALL, invoke, tables

FACTORS = (
    Factor(path="options.fire_hcv", values=[15, 27.5]),  # an int and a float: DOUBLE
    Factor(path="turns.limit", values=[8, 12]),  # whole numbers: BIGINT
    Factor(path="seed", values=[1, 2]),  # a path that is also a runs column
)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wide")
    plan = StudyPlan(load_target(STONE_WALL), seed=4, replications=2, factors=FACTORS)
    run_study(plan, out, RunOptions(jobs=1, plots=False))
    return out


def test_mixed_numbers_become_floats_in_every_point() -> None:
    """A factor with ints and floats is a float at every point; whole numbers stay ints."""
    points = design_points("grid", list(FACTORS[:2]), None, 1)
    assert [p["options.fire_hcv"] for p in points] == [15.0, 15.0, 27.5, 27.5]
    assert all(isinstance(p["options.fire_hcv"], float) for p in points)
    assert all(type(p["turns.limit"]) is int for p in points)


def test_an_int_range_is_written_as_ints() -> None:
    """summary.json and the study row show an int range as [8, 12], not [8.0, 12.0]."""
    f = Factor(path="turns.limit", range=(8, 12), type="int")
    assert json.dumps(f.model_dump(exclude_none=True)) == (
        '{"path": "turns.limit", "range": [8, 12], "type": "int"}'
    )


def test_runs_wide_is_the_runs_with_typed_factor_columns(study: Path) -> None:
    """One row per run: the point's factor values beside the run's columns, types from points."""
    con = duckdb.connect(str(study / "study.duckdb"), read_only=True)
    try:
        types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE runs_wide)")
                     .fetchall())  # fmt: skip
        rows = con.execute(
            'SELECT run_id, "options.fire_hcv", "turns.limit", "factor:seed", usa_men_lost '
            "FROM runs_wide ORDER BY run_id"
        ).fetchall()
    finally:
        con.close()
    assert types["options.fire_hcv"] == "DOUBLE"
    assert types["turns.limit"] == "BIGINT"
    assert types["factor:seed"] == "BIGINT"
    assert types["seed"] == "BIGINT"  # the run's own seed keeps its name
    t = tables(study)
    points = {p[0]: json.loads(p[2]) for p in t["points"]}
    expected = [
        (r[0], points[r[1]]["options.fire_hcv"], points[r[1]]["turns.limit"],
         points[r[1]]["seed"], r[11])
        for r in t["runs"]
    ]  # fmt: skip
    assert rows == expected
    assert len(rows) == 8 * 2


def test_export_wide_writes_runs_wide_ordered_by_run_id(study: Path, tmp_path: Path) -> None:
    """export --wide --format csv: one file, a header of the view's columns, rows by run id."""
    result = invoke("export", study, "--format", "csv", "--wide", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert result.output == f"Wrote {tmp_path / 'runs_wide.csv'}\n"
    with (tmp_path / "runs_wide.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:9] == [
        "run_id", "point", "replication", "seed", "status", "pilot",
        "options.fire_hcv", "turns.limit", "factor:seed",
    ]  # fmt: skip
    assert {r["pilot"] for r in rows} == {"false"}  # no --until-ci: no pilot
    assert [int(r["run_id"]) for r in rows] == list(range(16))
    assert [r["options.fire_hcv"] for r in rows[:2]] == ["15.0", "15.0"]


def test_load_study_returns_a_typed_dataframe(study: Path) -> None:
    """api.load_study: a pandas DataFrame of runs_wide, ints as int64 and floats as float64."""
    df = api.load_study(study)
    assert len(df) == 16
    assert str(df["turns.limit"].dtype) == "int64"
    assert str(df["options.fire_hcv"].dtype) == "float64"
    assert list(df["run_id"]) == list(range(16))
    wins = df[df["winner"] == "csa"].groupby("turns.limit").size().to_dict()
    runs = tables(study)["runs"]
    points = {p[0]: json.loads(p[2]) for p in tables(study)["points"]}
    by_hand: dict[int, int] = {}
    for r in runs:
        if r[6] == "csa":
            limit = points[r[1]]["turns.limit"]
            by_hand[limit] = by_hand.get(limit, 0) + 1
    assert wins == by_hand

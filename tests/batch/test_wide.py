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
    Factor(path="sides.usa.units.69ny.strength", values=[400, 450]),  # whole numbers: BIGINT
    # a path that is also a runs column (the scenario's seed, which no run reads, may not be
    # a factor): the whole turns mapping, each point's limit its own
    Factor(path="turns", values=[{"limit": 8, "minutes": 20, "start": "12:00"},
                                 {"limit": 12, "minutes": 20, "start": "12:00"}]),
)  # fmt: skip
STRENGTH = "sides.usa.units.69ny.strength"


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
    assert all(type(p[STRENGTH]) is int for p in points)


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
            f'SELECT run_id, "options.fire_hcv", "{STRENGTH}", "factor:turns", usa_men_lost '
            "FROM runs_wide ORDER BY run_id"
        ).fetchall()
    finally:
        con.close()
    assert types["options.fire_hcv"] == "DOUBLE"
    assert types[STRENGTH] == "BIGINT"
    assert types["factor:turns"] == "VARCHAR"  # a mapping: its JSON text
    assert types["turns"] == "INTEGER"  # the run's own turns keep their name
    t = tables(study)
    points = {p[0]: json.loads(p[2]) for p in t["points"]}
    expected = [
        (r[0], points[r[1]]["options.fire_hcv"], points[r[1]][STRENGTH],
         points[r[1]]["turns"], r[11])
        for r in t["runs"]
    ]  # fmt: skip
    assert [(*r[:3], json.loads(r[3]), r[4]) for r in rows] == expected  # a mapping: JSON
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
        "options.fire_hcv", STRENGTH, "factor:turns",
    ]  # fmt: skip
    assert {r["pilot"] for r in rows} == {"false"}  # no --until-ci: no pilot
    assert [int(r["run_id"]) for r in rows] == list(range(16))
    assert [r["options.fire_hcv"] for r in rows[:2]] == ["15.0", "15.0"]


def test_load_study_returns_a_typed_dataframe(study: Path) -> None:
    """api.load_study: a pandas DataFrame of runs_wide, ints as int64 and floats as float64."""
    df = api.load_study(study)
    assert len(df) == 16
    assert str(df[STRENGTH].dtype) == "int64"
    assert str(df["options.fire_hcv"].dtype) == "float64"
    assert list(df["run_id"]) == list(range(16))
    wins = df[df["winner"] == "csa"].groupby(STRENGTH).size().to_dict()
    runs = tables(study)["runs"]
    points = {p[0]: json.loads(p[2]) for p in tables(study)["points"]}
    by_hand: dict[int, int] = {}
    for r in runs:
        if r[6] == "csa":
            strength = points[r[1]][STRENGTH]
            by_hand[strength] = by_hand.get(strength, 0) + 1
    assert wins == by_hand


def test_runs_csv_has_the_pilot_flag_and_the_factor_columns(study: Path, tmp_path: Path) -> None:
    """export --format csv: runs.csv is the runs table's columns in their order, then
    ``pilot`` and each factor named as in runs_wide; each run's factor values are its
    point's, and its other columns are the table's."""
    result = invoke("export", study, "--format", "csv", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    with (tmp_path / "runs.csv").open() as f:
        rows = list(csv.DictReader(f))
    table = tables(study)["runs"]
    con = duckdb.connect(str(study / "study.duckdb"), read_only=True)
    names = [r[0] for r in con.execute("DESCRIBE runs").fetchall()]
    con.close()
    assert list(rows[0]) == [*names, "pilot", "options.fire_hcv", STRENGTH, "factor:turns"]
    assert [int(r["run_id"]) for r in rows] == [t[0] for t in table] == list(range(16))
    points = design_points("grid", list(FACTORS), None, 4)
    for r in rows:
        point = points[int(r["point"])]
        assert float(r["options.fire_hcv"]) == point["options.fire_hcv"]
        assert int(r[STRENGTH]) == point[STRENGTH]
        assert json.loads(r["factor:turns"]) == point["turns"]
        assert r["pilot"] == "false"


def test_runs_csv_marks_the_pilot_runs(tmp_path: Path) -> None:
    """An --until-ci study (W = 0.2, 20 replications, chunks of 5): its pilot is
    replications 0–4 (``pilot_runs(0.2, 20, 5)``), marked true in runs.csv; the rest false."""
    from sim.batch.planning.stopping import PILOT, pilot_runs
    from tests.batch.synthetic import synthetic_study

    assert pilot_runs(0.2, 20, 5) == 5
    factors = [{"path": "options.fire_hcv", "values": [10, 20]}]
    points = [{"options.fire_hcv": 10}, {"options.fire_hcv": 20}]
    folder = synthetic_study(tmp_path / "s", factors, points, lambda p, _v: [("usa", 5)] * 20)
    plan = {"design": "grid", "points": None, "until_ci": 0.2, "replications": 20,
            "chunk_size": 5, "stopping": PILOT}  # fmt: skip
    con = duckdb.connect(str(folder / "study.duckdb"))
    con.execute("UPDATE study SET plan = ?", [json.dumps(plan)])
    con.execute("DROP VIEW runs_wide")  # made for the old plan: a study refuses it now
    con.close()
    result = invoke("export", folder, "--format", "csv", "--out", tmp_path / "x")
    assert result.exit_code == 0, result.output
    with (tmp_path / "x" / "runs.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 40
    for r in rows:
        assert r["pilot"] == ("true" if int(r["replication"]) < 5 else "false")
        assert int(r["options.fire_hcv"]) == (10, 20)[int(r["point"])]

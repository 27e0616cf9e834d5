"""A study made before the draw columns is resumed, verified and read without them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from sim.batch.verification.verify import verify_study
from tests.batch.helpers import STONE_WALL, tables


def _plan() -> StudyPlan:
    return StudyPlan(
        target=load_target(STONE_WALL),
        seed=9,
        replications=4,
        factors=(Factor(path="options.fire_hcv", values=[15, 35]),),
        chunk_size=2,
    )


def _sql(folder: Path, *sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(folder / "study.duckdb")) as con:
        out: list[tuple[Any, ...]] = []
        for s in sql:
            out = con.execute(s).fetchall()
        return out


def test_an_older_study_resumes_into_its_own_columns_and_verifies(tmp_path: Path) -> None:
    """Replications 2 and 3 deleted and the draw columns dropped (a study of an earlier
    battlesim, stopped half-way): --resume fights the 4 missing runs into rows of that
    shape, and the tables are the whole study's less its draw columns."""
    whole, old = tmp_path / "whole", tmp_path / "old"
    run_study(_plan(), whole, RunOptions(jobs=1, plots=False))
    run_study(_plan(), old, RunOptions(jobs=1, plots=False))
    _sql(
        old,
        "DELETE FROM unit_rows WHERE run_id IN (SELECT run_id FROM runs WHERE replication >= 2)",
        "DELETE FROM runs WHERE replication >= 2",
        "DROP VIEW runs_wide",
        "ALTER TABLE runs DROP COLUMN usa_draws",
        "ALTER TABLE runs DROP COLUMN csa_draws",
    )
    result = run_study(_plan(), old, RunOptions(jobs=1, plots=False, resume=True))
    assert (result.committed, result.ran) == (8, 4)
    cut = [(*r[:15], r[17]) for r in tables(whole)["runs"]]  # less usa_draws, csa_draws
    assert tables(old)["runs"] == cut
    assert tables(old)["unit_finals"] == tables(whole)["unit_finals"]
    names = [r[0] for r in _sql(old, "DESCRIBE runs_wide")]
    assert "usa_draws" not in names and "usa_men_lost" in names
    check = verify_study(old, sample=8)
    assert check.ok, check.differences
    assert [c["measure"] for c in result.summary["comparisons"] if c["side"] == "usa"] == [
        "win_rate",
        "losses.men",
        "losses.guns",
    ]

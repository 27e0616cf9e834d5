"""A study's stored plan writes a factor as docs/batch.md lists it: ``{path, values}``, or
``{path, range, type, levels}``. ``type`` is the number type of a range; a values factor's
numbers are its values' own, so its plan has none (it said ``"type": "float"`` of
``values: [15, 25]``). Studies stored with that type still verify and resume."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from sim.batch.inputs.target import load_target
from sim.batch.planning.factors import Factor
from sim.batch.planning.plan import StudyPlan
from tests.batch.helpers import STONE_WALL, invoke

ARGS = ["--runs", "2", "--seed", "3", "--jobs", "1", "--no-plots"]
SWEEP = ["--sweep", "options.fire_hcv=15,25"]


def _stored(folder: Path) -> tuple[list[object], list[object]]:
    """The study row's factors and its stored plan's, as JSON."""
    with duckdb.connect(str(folder / "study.duckdb"), read_only=True) as db:
        [(factors, plan)] = db.execute("SELECT factors, plan FROM study").fetchall()
    return json.loads(factors), json.loads(plan)["factors"]


def test_a_values_factor_s_plan_has_no_number_type() -> None:
    """Whole-number values are stored as the values they are, without "type": "float"; a
    range keeps the type that makes its levels (int here, float by default)."""
    plan = StudyPlan(
        load_target(STONE_WALL),
        seed=1,
        replications=1,
        factors=(
            Factor(path="options.fire_hcv", values=[15, 25]),
            Factor(path="options.fire_lcv", values=[2.5, 5]),
            Factor(path="options.fire_scale", range=(1, 2)),
            Factor(path="options.rout_contagion", range=(0, 3), type="int"),
        ),
    )
    assert plan.identity()["factors"] == [
        {"path": "options.fire_hcv", "values": [15, 25]},
        {"path": "options.fire_lcv", "values": [2.5, 5]},
        {"path": "options.fire_scale", "range": [1.0, 2.0], "type": "float"},
        {"path": "options.rout_contagion", "range": [0, 3], "type": "int"},
    ]


def test_a_sweep_s_study_stores_its_values_without_a_type(tmp_path: Path) -> None:
    """``batch --sweep options.fire_hcv=15,25``: the study row and its plan store the factor
    as ``{"path", "values"}``, as summary.json repeats it."""
    out = tmp_path / "s"
    result = invoke("batch", STONE_WALL, *ARGS, *SWEEP, "--out", out)
    assert result.exit_code == 0, result.output
    factor = {"path": "options.fire_hcv", "values": [15, 25]}
    assert _stored(out) == ([factor], [factor])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["study"]["factors"] == [factor]


def test_a_study_stored_with_a_values_type_verifies_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study whose plan was stored as battlesim stored it before, "type": "float" beside
    its values, still verifies OK and resumes: the type never changed a values factor's
    points, so ``--resume`` does not call it a different study."""
    out = tmp_path / "old"
    with monkeypatch.context() as before:
        before.setattr(Factor, "stored", lambda f: f.model_dump(exclude_none=True))
        result = invoke("batch", STONE_WALL, *ARGS, *SWEEP, "--out", out)
    assert result.exit_code == 0, result.output
    factor = {"path": "options.fire_hcv", "type": "float", "values": [15, 25]}
    assert _stored(out) == ([factor], [factor])
    verified = invoke("verify", out)
    assert (verified.exit_code, verified.stdout.split(":")[0]) == (0, "OK")
    resumed = invoke("batch", STONE_WALL, *ARGS, *SWEEP, "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert _stored(out) == ([factor], [factor])

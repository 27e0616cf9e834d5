"""``study --runs / --until-ci / --points``: a study file overridden, and the plan says so."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from sim.batch.overrides import OverrideError, Overrides, override, stored_overrides
from sim.batch.planning.spec import load_study
from tests.batch.helpers import STONE_WALL, invoke, tables

GRID = """\
name: wall
scenario: stone_wall.yaml
seed: 5
replications: 200
until_ci: 0.05
chunk_size: 2
factors:
  - {path: options.fire_hcv, values: [15, 35]}
"""

SOBOL = """\
scenario: stone_wall.yaml
replications: 4
design: sobol
points: 4
factors:
  - {path: options.fire_hcv, range: [15, 35]}
"""


def _file(folder: Path, text: str, name: str = "wall.yaml") -> Path:
    shutil.copy(STONE_WALL, folder / "stone_wall.yaml")
    path = folder / name
    path.write_text(text)
    return path


def test_an_override_changes_the_plan_and_records_the_files_value(tmp_path: Path) -> None:
    """--runs 2 --until-ci 0.2: the plan runs 2 with W 0.2 and records both files' values."""
    spec = override(load_study(_file(tmp_path, GRID)), Overrides(replications=2, until_ci=0.2))
    assert (spec.plan.replications, spec.plan.until_ci) == (2, 0.2)
    assert spec.plan.identity()["overrides"] == {
        "replications": {"file": 200, "value": 2},
        "until_ci": {"file": 0.05, "value": 0.2},
    }


def test_a_flag_equal_to_the_file_overrides_nothing(tmp_path: Path) -> None:
    """--runs 200 on a file of 200: the plan is the file's, with no overrides key."""
    spec = load_study(_file(tmp_path, GRID))
    assert override(spec, Overrides(replications=200)) == spec
    assert "overrides" not in spec.plan.identity()


@pytest.mark.parametrize(
    ("text", "flags", "message"),
    [
        (GRID, Overrides(points=4), "--points: the study file's design is grid (every "
         "combination of the factors' levels); --points applies to designs lhs, morris and sobol"),
        (SOBOL, Overrides(points=6), "--points 6: the study file's design is sobol, which "
         "needs a power of two (base samples)"),
    ],
)  # fmt: skip
def test_a_flag_the_files_design_cannot_take_is_refused(
    tmp_path: Path, text: str, flags: Overrides, message: str
) -> None:
    """--points of a grid, a Sobol' base sample that is not a power of two."""
    with pytest.raises(OverrideError) as err:
        override(load_study(_file(tmp_path, text)), flags)
    assert str(err.value) == message


def test_points_override_a_sobol_design(tmp_path: Path) -> None:
    """--points 8 of a Sobol' file of 4: 8 base samples, recorded."""
    spec = override(load_study(_file(tmp_path, SOBOL)), Overrides(points=8))
    assert spec.plan.points == 8
    assert spec.plan.identity()["overrides"] == {"points": {"file": 4, "value": 8}}


def test_the_command_runs_the_cut_study_and_resume_keeps_its_plan(tmp_path: Path) -> None:
    """--runs 4: 8 runs stored, the plan and summary.json record it, the output says it;
    --resume without the flag finishes it as begun; --resume --runs 3 is refused."""
    study = _file(tmp_path, GRID)
    out = tmp_path / "out"
    first = invoke("study", study, "--runs", "4", "--out", out, "--jobs", "1")
    assert first.exit_code == 0, first.output
    assert len(tables(out)["runs"]) == 8
    recorded = {"replications": {"file": 200, "value": 4}}
    plan = stored_overrides(out)
    assert plan is not None and plan["overrides"] == recorded and plan["replications"] == 4
    summary = json.loads((out / "summary.json").read_text())
    assert summary["study"]["overrides"] == recorded
    assert summary["study"]["replications"] == 4
    assert "Overrides of the study file: --runs 4 (the file: 200)" in first.output.splitlines()

    again = invoke("study", study, "--out", out, "--resume", "--jobs", "1")
    assert again.exit_code == 0, again.output
    assert f"Results: {out / 'study.duckdb'} (8 runs, all fought before)" in again.output

    refused = invoke("study", study, "--out", out, "--resume", "--runs", "3")
    assert refused.exit_code == 2
    assert refused.output == (
        "battlesim: error: --runs 3: the study being resumed was begun with --runs 4; a begun "
        "study keeps its plan: resume without the flag, or start it in another --out\n"
    )
    file_value = invoke("study", study, "--out", out, "--resume", "--until-ci", "0.1")
    assert file_value.exit_code == 2
    assert (
        "--until-ci 0.1: the study being resumed was planned with until_ci 0.05 (the study "
        "file's)" in file_value.output
    )


def test_the_command_refuses_points_of_a_grid_with_one_line(tmp_path: Path) -> None:
    """Exit 2, before anything is written."""
    result = invoke("study", _file(tmp_path, GRID), "--points", "4", "--out", tmp_path / "o")
    assert result.exit_code == 2
    assert result.output.startswith("battlesim: error: --points: the study file's design is grid")
    assert not (tmp_path / "o").exists()


def test_overriding_is_a_copy_not_an_edit(tmp_path: Path) -> None:
    """The spec read from the file is unchanged (a frozen plan is replaced, never edited)."""
    spec = load_study(_file(tmp_path, GRID))
    before = dataclasses.asdict(spec.plan)["replications"]
    override(spec, Overrides(replications=9))
    assert spec.plan.replications == before == 200


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        # chunk_size 10: the pilot is ⌈min(z²/32W², R/4)⌉ = 2 runs rounded up to a whole
        # chunk, 10, at most R: all of R = 8 (or 6), none left to confirm; R = 11 is the
        # fewest that leave one (a pilot of 10)
        ((), "{study}:5: until_ci: its pilot takes 8 runs of a point, leaving none of "
            "replications 8 for the confirmatory sample: raise replications (at least 11) or "
            "lower chunk_size"),
        (("--runs", "6"), "{study}:5: until_ci: its pilot takes 6 runs of a point, leaving "
            "none of --runs 6 for the confirmatory sample: raise --runs (at least 11) or lower "
            "chunk_size"),
        (("--runs", "6", "--until-ci", "0.1"), "battlesim: error: --until-ci 0.1: its pilot "
            "takes 6 runs of a point, leaving none of --runs 6 for the confirmatory sample: "
            "raise --runs (at least 11) or lower the study file's chunk_size"),
    ],
)  # fmt: skip
def test_an_until_ci_without_room_for_its_pilot_names_each_value_as_given(
    tmp_path: Path, flags: tuple[str, ...], expected: str
) -> None:
    """until_ci written in the file: the refusal names the file, its line and field, and the
    runs as given (the file's replications, or --runs); --until-ci: the flag, as batch's
    refusal does, and the file's chunk_size (study has no --chunk-size); exit 2, no folder."""
    text = GRID.replace("replications: 200", "replications: 8").replace(
        "chunk_size: 2", "chunk_size: 10"
    )
    study = _file(tmp_path, text)
    result = invoke("study", study, "--out", tmp_path / "out", *flags)
    assert result.exit_code == 2, result.output
    assert result.stderr == expected.format(study=study) + "\n"
    assert not (tmp_path / "out").exists()


def test_a_spec_made_in_code_is_refused_without_a_file_line(tmp_path: Path) -> None:
    """A StudySpec built in code (no file) whose until_ci leaves no room: one line naming
    the field, not ':1:' of no file."""
    from sim.batch.overrides import check_stopping

    spec = load_study(_file(tmp_path, GRID))
    plan = dataclasses.replace(spec.plan, until_ci=0.05, replications=4, chunk_size=10)
    with pytest.raises(OverrideError, match=r"^until_ci 0.05: its pilot takes 4 runs"):
        check_stopping(dataclasses.replace(spec, plan=plan, file=""))

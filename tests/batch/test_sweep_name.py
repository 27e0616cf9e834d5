"""A study refuses to vary a battle's ``name`` or ``ruleset``, as ``run --set`` does.

A replay names its scenario file (its header's ``source``) and ``verify`` holds the
battle's name to that file's: ``battlesim batch scenarios/stone_wall.yaml --sweep
name=a,b --keep-replays 1`` wrote replays that each failed ``verify`` (``MISMATCH at line 1:
header differs from re-simulation in: source (… is the scenario "Stone wall at Marye's
Heights", not this battle's 'a')``), and a campaign battle's ``scenario.name`` the same.
``run --set name=…`` was already refused in one line; a study's ``--sweep`` and a study
file's factors now are, in the same words, before anything is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.batch.inputs.fieldpath import UNSETTABLE
from tests.batch.helpers import SCENARIOS, invoke

NAME = (
    "the battle's name cannot be set: a replay names its scenario file and verify holds the "
    "battle's name to that file's; copy the file to fight it under another name"
)
RULESET = (
    "a scenario's ruleset cannot be set: it decides what every other field of the file is (a "
    "battle of another ruleset is another file: battlesim new RULESET NAME.yaml)"
)


def test_the_reasons_are_run_set_s() -> None:
    """One reason for each field, shared by ``run --set`` and a study."""
    assert UNSETTABLE == {"ruleset": RULESET, "name": NAME}


@pytest.mark.parametrize(
    ("target", "sweep", "reason"),
    [
        ("stone_wall.yaml", "name=a,b", NAME),
        ("stone_wall.yaml", "ruleset=musket,flattop", RULESET),
        ("fredericksburg_campaign.yaml", "battles.fredericksburg.scenario.name=a,b", NAME),
        ("fredericksburg_campaign.yaml", "battles.1.scenario.name=a,b", NAME),
        ("fredericksburg_campaign.yaml", "battles.0.scenario.ruleset=musket,becmi", RULESET),
    ],
)
def test_a_sweep_of_the_name_or_ruleset_is_refused_in_one_line(
    tmp_path: Path, target: str, sweep: str, reason: str
) -> None:
    """Exit 2, one line naming the flag and why, no study folder written."""
    out = tmp_path / "s"
    result = invoke(
        "batch", SCENARIOS / target, "--runs", "1", "--keep-replays", "1", "--sweep", sweep,
        "-o", out,
    )  # fmt: skip
    path = sweep.partition("=")[0]
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {SCENARIOS / target}: --sweep {path}: {reason}\n",
    )
    assert not out.exists()


def test_a_study_file_factor_of_the_name_is_refused_at_its_line(tmp_path: Path) -> None:
    """The study file's factor is named at its line, as any factor's problem is."""
    study = tmp_path / "study.yaml"
    study.write_text(
        f"name: renamed\nscenario: {SCENARIOS / 'stone_wall.yaml'}\nseed: 1\nreplications: 1\n"
        "factors:\n  - {path: options.fire_hcv, values: [15, 25]}\n"
        "  - {path: name, values: [a, b]}\n"
    )
    result = invoke("study", study, "--out", tmp_path / "out")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"{study}:7: factors.1.path: {NAME}\n",
    )
    assert not (tmp_path / "out").exists()


def test_a_side_s_or_unit_s_name_may_still_be_swept(tmp_path: Path) -> None:
    """Only the battle's own name is held to its file: a side's name is a value like any."""
    out = tmp_path / "s"
    result = invoke(
        "batch", SCENARIOS / "stone_wall.yaml", "--runs", "1", "--no-plots", "--jobs", "1",
        "--sweep", "sides.csa.name=Confederate,Rebels", "-o", out, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (out / "study.duckdb").is_file()

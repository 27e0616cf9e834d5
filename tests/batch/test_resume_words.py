"""A refused ``--resume`` names each setting the folder's study was begun with that the
command changes, in the command's words, with both values (an analyst's review, section 9).

It said ``--resume: 'rs3' holds a different study (differs in: replications)``, or
``(differs in: seed, target_digest)`` for another scenario: a key, no values, and a digest
where the user gave a scenario file. ``batch`` names its flags, ``study`` its study file's
fields, a plan made in Python its attributes (tests/batch/test_study.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.batch.helpers import SCENARIOS, invoke

BRAWL = SCENARIOS / "tavern_brawl.yaml"
KEEPS = (
    ": a begun study keeps its plan, so resume it as it was begun, or start this one in "
    "another --out"
)


@pytest.fixture(scope="module")
def brawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished study of the tavern brawl: 10 runs, the scenario's seed (377)."""
    out = tmp_path_factory.mktemp("rs") / "rs3"
    result = invoke("batch", BRAWL, "--runs", "10", "--out", out, "-q", "--no-plots", "-j", "1")
    assert result.exit_code == 0, result.output
    return out


def _refused(*args: str | Path) -> str:
    result = invoke(*args, "-q", "--no-plots", "-j", "1", "--resume")
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.output
    return result.stderr.removesuffix("\n")


def test_other_runs_name_the_flag_and_both_values(brawl: Path) -> None:
    said = _refused("batch", BRAWL, "--runs", "20", "--out", brawl)
    assert said == f"battlesim: error: --resume: {str(brawl)!r} holds a study begun with " + (
        "--runs 10 (now --runs 20)" + KEEPS
    )


def test_another_scenario_is_named_as_its_file_not_a_digest(brawl: Path) -> None:
    """Another scenario and so another seed (the scenario's own, no --seed given)."""
    said = _refused("batch", SCENARIOS / "dungeon_skirmish.yaml", "--runs", "10", "--out", brawl)
    assert said == f"battlesim: error: --resume: {str(brawl)!r} holds a study begun with " + (
        "the scenario file tavern_brawl.yaml (now the scenario file dungeon_skirmish.yaml); "
        "seed 377 (now the scenario's seed 3)" + KEEPS
    )


def test_every_flag_that_differs_is_named_as_typed(brawl: Path) -> None:
    said = _refused(
        "batch", BRAWL, "--runs", "10", "--out", brawl, "--crn", "--seed", "5", "--sweep",
        "options.natural_20_hits=false,true", "--until-ci", "0.1", "--keep-replays", "2",
        "--chunk-size", "5",
    )  # fmt: skip
    assert said == f"battlesim: error: --resume: {str(brawl)!r} holds a study begun with " + (
        "seed 377 (now --seed 5); no --sweep (now --sweep options.natural_20_hits=false,true); "
        "no --crn (now --crn); --chunk-size 20 (now --chunk-size 5); no --until-ci (now "
        "--until-ci 0.1); --keep-replays 0 (now --keep-replays 2)" + KEEPS
    )
    said = _refused(
        "batch", BRAWL, "--runs", "10", "--out", brawl, "--design", "lhs", "--points", "3",
        "--sweep", "sides.thorgrim.characters.thorgrim.hp=5..30",
    )  # fmt: skip
    assert said.endswith(
        "begun with no --sweep (now --sweep sides.thorgrim.characters.thorgrim.hp=5..30); "
        "--design grid (now --design lhs); no --points (now --points 3)" + KEEPS
    )


def test_a_changed_scenario_file_is_said_to_have_changed(brawl: Path, tmp_path: Path) -> None:
    """The same file name, other contents: the file changed since the study was begun."""
    folder = tmp_path / "changed"
    (folder / "scenarios").mkdir(parents=True)
    scenario = folder / "scenarios" / "tavern_brawl.yaml"
    shutil.copyfile(BRAWL, scenario)
    out = folder / "study"
    assert invoke("batch", scenario, "--runs", "3", "--out", out, "-q", "--no-plots").exit_code == 0
    scenario.write_text(BRAWL.read_text().replace("seed: 377", "seed: 378"))
    said = _refused("batch", scenario, "--runs", "3", "--out", out, "--seed", "377")
    assert said == f"battlesim: error: --resume: {str(out)!r} holds a study begun with " + (
        "the scenario file tavern_brawl.yaml as it was then (it has changed since)" + KEEPS
    )


def _study_file(folder: Path, seed: int, keep: int, values: str) -> Path:
    path = folder / f"study-{seed}-{keep}.yaml"
    path.write_text(
        f"name: t\nscenario: {BRAWL}\nseed: {seed}\nreplications: 6\ncrn: true\n"
        f"factors:\n  - {{path: options.natural_20_hits, values: {values}}}\n"
        f"outputs: {{keep_replays: {keep}, plots: false}}\n"
    )
    return path


def test_a_study_file_names_its_fields(tmp_path: Path) -> None:
    """``study`` says the study file's fields, its outputs' keep_replays as the file nests it."""
    out = tmp_path / "st"
    begun = _study_file(tmp_path, 5, 0, "[false, true]")
    assert invoke("study", begun, "--out", out, "-q", "-j", "1").exit_code == 0
    edited = _study_file(tmp_path, 6, 1, "[true, false]")
    result = invoke("study", edited, "--out", out, "-q", "-j", "1", "--resume")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert result.stderr == f"battlesim: error: --resume: {str(out)!r} holds a study " + (
        "begun from a study file with seed: 5 (now 6); factors: "
        "options.natural_20_hits=false,true (now options.natural_20_hits=true,false); "
        "outputs.keep_replays: 0 (now 1)" + KEEPS + "\n"
    )


def test_a_flag_over_a_changed_study_file_names_both(tmp_path: Path) -> None:
    """Begun with --runs 4 over the file's replications 6; the file now says 7. And batch,
    which reads no study file, into that folder."""
    out = tmp_path / "st"
    begun = _study_file(tmp_path, 5, 0, "[false, true]")
    assert invoke("study", begun, "--out", out, "-q", "-j", "1", "--runs", "4").exit_code == 0
    begun.write_text(begun.read_text().replace("replications: 6", "replications: 7"))
    result = invoke("study", begun, "--out", out, "-q", "-j", "1", "--resume")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"battlesim: error: --resume: {str(out)!r} holds a study " + (
        "begun from a study file with --runs 4 over the study file's replications: 6 (now "
        "--runs 4 over the study file's replications: 7)" + KEEPS + "\n"
    )
    said = _refused(
        "batch", BRAWL, "--runs", "4", "--seed", "5", "--crn", "--sweep",
        "options.natural_20_hits=false,true", "--out", out,
    )  # fmt: skip
    assert said == f"battlesim: error: --resume: {str(out)!r} holds a study begun with " + (
        "--runs 4 over the study file's replications: 6 (now no study file)" + KEEPS
    )

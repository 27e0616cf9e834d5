"""A study begun under an older replay format is never completed or rerun with today's dice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from engine.version import FORMAT_VERSION
from tests.batch.helpers import STONE_WALL, invoke, tables

ARGS = ["--runs", "4", "--seed", "3", "--jobs", "1", "--no-plots"]


@pytest.fixture(scope="module")
def today(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 4-run study of today's battlesim."""
    out = tmp_path_factory.mktemp("study") / "s"
    result = invoke("batch", STONE_WALL, *ARGS, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def _as_begun_before_format5(study: Path, into: Path) -> Path:
    """A copy of ``study`` whose stored plan records no format, as studies before format 5."""
    shutil.copytree(study, into)
    with duckdb.connect(str(into / "study.duckdb")) as db:
        [(plan,)] = db.execute("SELECT plan FROM study").fetchall()
        stored = json.loads(plan)
        assert stored.pop("format_version") == FORMAT_VERSION
        db.execute("UPDATE study SET plan = ?", [json.dumps(stored)])
    return into


MESSAGE = (
    "was fought with the dice of replay format 4 (random derivation 1); this battlesim "
    "fights with format 5's (derivation 2), so it cannot complete or rerun it: start it "
    "again in another folder"
)


def test_today_s_study_records_its_format_and_resumes(today: Path) -> None:
    """A study's plan records the format its runs were fought in; --resume of it goes on."""
    with duckdb.connect(str(today / "study.duckdb"), read_only=True) as db:
        [(plan,)] = db.execute("SELECT plan FROM study").fetchall()
    assert json.loads(plan)["format_version"] == FORMAT_VERSION
    assert invoke("batch", STONE_WALL, *ARGS, "--out", today, "--resume").exit_code == 0


def test_resume_of_a_study_begun_with_older_dice_exits_2(today: Path, tmp_path: Path) -> None:
    """--resume of a study begun before format 5 is refused (exit 2), its tables untouched."""
    old = _as_begun_before_format5(today, tmp_path / "old")
    before = tables(old)
    result = invoke("batch", STONE_WALL, *ARGS, "--out", old, "--resume")
    assert result.exit_code == 2
    assert f"--resume: the study in {str(old)!r} {MESSAGE}" in result.output
    assert "Traceback" not in result.output
    assert tables(old) == before


def test_rerun_of_a_study_begun_with_older_dice_exits_2(today: Path, tmp_path: Path) -> None:
    """rerun of a run of a study begun before format 5 is refused (exit 2), writing nothing."""
    old = _as_begun_before_format5(today, tmp_path / "old")
    out = tmp_path / "r.jsonl"
    result = invoke("rerun", old, "1", "--out", out)
    assert result.exit_code == 2
    assert f"the study in {str(old)!r} {MESSAGE}" in result.output
    assert not out.exists()


def _with_format(study: Path, into: Path, value: object) -> Path:
    """A copy of ``study`` whose stored plan records ``value`` as its format."""
    shutil.copytree(study, into)
    with duckdb.connect(str(into / "study.duckdb")) as db:
        [(plan,)] = db.execute("SELECT plan FROM study").fetchall()
        stored = json.loads(plan)
        stored["format_version"] = value
        db.execute("UPDATE study SET plan = ?", [json.dumps(stored)])
    return into


def test_a_study_of_a_newer_battlesim_is_refused_by_name(today: Path, tmp_path: Path) -> None:
    """--resume and rerun of a study whose plan records a format newer than this
    battlesim's say so (exit 2), never a bare KeyError."""
    newer = FORMAT_VERSION + 1
    new = _with_format(today, tmp_path / "new", newer)
    expected = (
        f"the study in {str(new)!r} was fought with the dice of replay format {newer}, "
        f"newer than this battlesim writes ({FORMAT_VERSION}): upgrade battlesim"
    )
    for args in (["batch", STONE_WALL, *ARGS, "--out", new, "--resume"], ["rerun", new, "1"]):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert expected in result.output
        assert "KeyError" not in result.output


@pytest.mark.parametrize("value", [0, None, "5", 4.0, True, [5]])
def test_a_study_recording_no_format_battlesim_wrote_is_damaged(
    today: Path, tmp_path: Path, value: object
) -> None:
    """A plan whose format is not one a battlesim wrote (edited: a float, a bool,
    text, null, 0) is refused as damaged (exit 2), not read as a format it equals."""
    bad = _with_format(today, tmp_path / "bad", value)
    result = invoke("batch", STONE_WALL, *ARGS, "--out", bad, "--resume")
    assert result.exit_code == 2, result.output
    assert (
        f"the study in {str(bad)!r} records replay format {json.dumps(value)}, "
        "which no battlesim writes: its plan is damaged"
    ) in result.output
    assert "Error:" not in result.output

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

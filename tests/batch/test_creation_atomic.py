"""A new study's database is built aside and renamed into place only when whole: a full
disk (or any error) while it is made leaves nothing at ``study.duckdb`` nor beside it, so
the same command run again starts the study afresh (a disk that filled as DuckDB wrote the
new file's first blocks left a damaged ``study.duckdb`` that both a re-run and ``--resume``
refused, until it was found and removed by hand)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from sim.batch.storage import StoreError
from sim.batch.storage import store as store_module
from tests.batch.helpers import STONE_WALL, invoke

ARGS = ("batch", STONE_WALL, "--runs", "4", "--no-plots", "-q")
FULL = "No space left on device"


def _fail_at(step: str, monkeypatch: pytest.MonkeyPatch, made: list[Path]) -> None:
    """Make ``step`` of a new study's creation fail as a full disk does, once the database
    file exists (``made``: where it was)."""
    if step == "connect":  # DuckDB made the file, and could not write its first blocks
        connect = store_module._connect

        def full_connect(path: Path, read_only: bool, files: bool = False) -> Any:
            connect(path, read_only, files).close()
            made.append(path)
            message = f'IO Error: Could not write file "{path}": {FULL}'
            raise StoreError(f"cannot open {str(path)!r}: {message}")

        monkeypatch.setattr(store_module, "_connect", full_connect)
    elif step == "create":  # the file made, its tables half written

        def full_create(self: store_module.Store, *_args: Any) -> Any:
            made.append(self.path)
            self.con.execute("CREATE TABLE study (name VARCHAR)")
            raise OSError(errno.ENOSPC, FULL)

        monkeypatch.setattr(store_module.Store, "_create", full_create)
    else:  # built whole, about to be renamed into place

        def full_place(built: Path, _final: Path) -> None:
            made.append(built)
            raise OSError(errno.ENOSPC, FULL)

        monkeypatch.setattr(store_module, "_place", full_place)


@pytest.mark.parametrize("step", ["connect", "create", "place"])
def test_a_full_disk_as_the_database_is_made_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    out = tmp_path / "b"
    out.mkdir()
    made: list[Path] = []
    with monkeypatch.context() as full:
        _fail_at(step, full, made)
        failed = invoke(*ARGS, "--out", out)
    assert failed.exit_code == 2, failed.output
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    db = out / "study.duckdb"
    assert lines[0].startswith("battlesim: error: cannot ")
    assert f"{str(db)!r}" in lines[0] and FULL in lines[0] and ".tmp" not in lines[0]
    assert made and not made[0].exists()
    assert list(out.iterdir()) == []  # no study.duckdb, no .wal, no temporary name
    resumed = invoke(*ARGS, "--out", out, "--resume")
    assert resumed.exit_code == 2
    assert resumed.stderr.strip().splitlines() == [
        f"battlesim: error: --resume: no study to resume in {str(out)!r}"
    ]
    again = invoke(*ARGS, "--out", out)
    assert again.exit_code == 0, again.output
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]
    assert invoke("verify", out).exit_code == 0


def test_a_new_study_is_its_one_file_in_place_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "b"
    assert invoke(*ARGS, "--out", out).exit_code == 0
    names = {p.name for p in out.iterdir()}
    assert "study.duckdb" in names
    assert not [n for n in names if n.startswith(".")]  # the folder it was built in is gone
    resumed = invoke(*ARGS, "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "all fought before" in resumed.output

"""A study killed with SIGKILL resumes to exactly the tables of an uninterrupted study."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from sim.batch.storage.store import Store
from tests.batch.helpers import REPO, STONE_WALL, invoke, tables

ARGS = ["--runs", "150", "--seed", "5", "--chunk-size", "5", "--quiet", "--no-plots"]
ARGS += ["--sweep", "options.fire_hcv=20,30"]


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, or one gone while we look, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


KILL_AFTER = 8
"""Chunks committed (of 5 runs each) before the study SIGKILLs itself."""


def test_resume_after_sigkill_equals_an_uninterrupted_study(tmp_path: Path) -> None:
    """SIGKILL after exactly 8 committed chunks, then --resume: nothing lost, nothing twice."""
    killed = tmp_path / "killed"
    pids = tmp_path / "workers.txt"
    cmd = [sys.executable, "-m", "tests.batch.kill_after", str(KILL_AFTER), str(pids), "batch"]
    cmd += [str(STONE_WALL), "--out", str(killed), "--jobs", "2", *ARGS]
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:  # a file, not a pipe: orphaned workers would hold a pipe open
        done = subprocess.run(cmd, check=False, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)
    returncode = done.returncode
    assert returncode == -signal.SIGKILL, log.read_text()
    workers = [int(p) for p in pids.read_text().split()]
    assert workers  # the pool was running when the study died
    for _ in range(600):  # the pool's workers notice their parent is gone
        if not any(_alive(p) for p in workers):
            break
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)], "workers outlived the killed study"

    store = Store.open(killed / "study.duckdb", read_only=True)
    before = store.count()
    store.close()
    assert before == KILL_AFTER * 5  # every committed chunk is there, and nothing more

    resumed = invoke("batch", STONE_WALL, "--out", killed, "--resume", "--jobs", "2", *ARGS)
    assert resumed.exit_code == 0, resumed.output
    assert f"(300 runs, {300 - before} fought now)" in resumed.output

    whole = tmp_path / "whole"
    assert invoke("batch", STONE_WALL, "--out", whole, "--jobs", "1", *ARGS).exit_code == 0
    assert tables(killed) == tables(whole)
    assert (killed / "summary.json").read_bytes() == (whole / "summary.json").read_bytes()


def test_resume_of_a_finished_study_runs_nothing(tmp_path: Path) -> None:
    """--resume of a complete study fights no run and leaves its tables as they were."""
    args = ["batch", STONE_WALL, "--out", tmp_path, "--runs", "10", "--jobs", "1", "--no-plots"]
    assert invoke(*args).exit_code == 0
    before = tables(tmp_path)
    again = invoke(*args, "--resume")
    assert again.exit_code == 0
    assert "(10 runs, all fought before)" in again.output
    assert tables(tmp_path) == before


def test_a_resume_from_the_same_battle_under_another_file_name_is_refused(
    tmp_path: Path,
) -> None:
    """The same scenario copied to sw2.yaml: a study begun from it and resumed from
    stone_wall.yaml named one file in its first replays and the other in the rest, and
    `verify` called every later run DIFFERS."""
    copy = tmp_path / "sw2.yaml"
    copy.write_bytes(STONE_WALL.read_bytes())
    out = tmp_path / "s"
    args = ["--runs", "4", "--keep-replays", "4", "-o", str(out), "--no-plots", "--jobs", "1"]
    assert invoke("batch", str(copy), *args).exit_code == 0
    result = invoke("batch", str(STONE_WALL), *args, "--resume")
    assert result.exit_code == 2
    assert result.stderr == (
        f"battlesim: error: --resume: the study in {str(out)!r} was begun from 'sw2.yaml', not "
        "'stone_wall.yaml' (the same battle, but its replays name the file): resume it with "
        "that file\n"
    )
    assert invoke("batch", str(copy), *args, "--resume").exit_code == 0

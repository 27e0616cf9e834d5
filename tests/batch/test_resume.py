"""A study killed with SIGKILL resumes to exactly the tables of an uninterrupted study."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from sim.batch.store import Store
from tests.batch.helpers import STONE_WALL, battlesim_command, invoke, tables

ARGS = ["--runs", "150", "--seed", "5", "--chunk-size", "5", "--quiet", "--no-plots"]
ARGS += ["--sweep", "options.fire_hcv=20,30"]


def _descendants(pid: int) -> set[int]:
    """Processes below ``pid`` (from /proc), so the test can check that none outlives it."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, or one gone while we look, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for_commits(out: Path, proc: subprocess.Popen[bytes], at_least: int) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the study ended before it could be killed"
        try:
            committed = int(json.loads((out / "progress.json").read_text())["committed"])
        except (OSError, ValueError, KeyError):
            committed = 0
        if committed >= at_least:
            return committed
        time.sleep(0.05)
    raise AssertionError("no runs committed within 60 s")


def test_resume_after_sigkill_equals_an_uninterrupted_study(tmp_path: Path) -> None:
    """SIGKILL mid-study, then --resume: nothing committed lost, nothing twice, same tables."""
    killed = tmp_path / "killed"
    cmd = [*battlesim_command(), "batch", str(STONE_WALL), "--out", str(killed), "--jobs", "2"]
    proc = subprocess.Popen([*cmd, *ARGS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        committed = _wait_for_commits(killed, proc, 40)
        workers = _descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        assert proc.stderr is not None
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 10  # the pool's workers notice their parent is gone
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)], "workers outlived the killed study"

    store = Store.open(killed / "study.duckdb", read_only=True)
    before = store.count()
    store.close()
    assert committed <= before < 300  # every reported commit is there; the study was cut short

    resumed = invoke("batch", STONE_WALL, "--out", killed, "--resume", "--jobs", "2", *ARGS)
    assert resumed.exit_code == 0, resumed.output
    assert f"(300 runs ({300 - before} run now))" in resumed.output

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
    assert "(10 runs (0 run now))" in again.output
    assert tables(tmp_path) == before

"""A study killed (SIGKILL) while its database was being made: the database is made in a
folder of its own and moved into place once its tables are committed, so no empty
``study.duckdb`` is ever left, which neither ``--resume`` nor a new study could take
(both said "not a battlesim study: it has no table 'points'")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from sim.batch.inputs.guard import STAGING
from tests.batch.helpers import STONE_WALL, invoke

KILLED = """
import os, signal, sys
import sim.batch.storage.store as store
def killed(self, *args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)  # as a kill -9 between DuckDB's connect and commit
store.Store._create = killed
from sim.cli import main
sys.argv = ["battlesim", "batch", sys.argv[1], "--runs", "4", "--no-plots", "--quiet",
            "--out", sys.argv[2]]
main()
"""


def test_a_study_killed_while_its_database_was_made_starts_again(tmp_path: Path) -> None:
    out = tmp_path / "s"
    done = subprocess.run([sys.executable, "-c", KILLED, str(STONE_WALL), str(out)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert [p.name for p in out.iterdir()] == [STAGING]  # no study.duckdb in its place
    resumed = invoke("batch", STONE_WALL, "--runs", "4", "--no-plots", "-q", "--out", out,
                     "--resume")  # fmt: skip
    assert resumed.exit_code == 2 and "--resume: no study to resume in" in resumed.stderr
    fresh = invoke("batch", STONE_WALL, "--runs", "4", "--no-plots", "-q", "--out", out)
    assert fresh.exit_code == 0, fresh.output
    assert sorted(p.name for p in out.iterdir()) == [
        "manifest.json", "progress.json", "study.duckdb", "summary.json"
    ]  # fmt: skip
    assert invoke("verify", out).exit_code == 0


def test_a_staging_folder_holding_anything_else_is_not_taken_for_a_leftover(
    tmp_path: Path,
) -> None:
    out = tmp_path / "s"
    (out / STAGING).mkdir(parents=True)
    (out / STAGING / "notes.txt").write_text("mine\n")
    refused = invoke("batch", STONE_WALL, "--runs", "4", "--no-plots", "-q", "--out", out)
    assert refused.exit_code == 2 and "holds files that no study made" in refused.stderr
    assert (out / STAGING / "notes.txt").read_text() == "mine\n"
    os.remove(out / STAGING / "notes.txt")

"""A study killed (SIGKILL) while its database was being made leaves nothing at
``study.duckdb`` (it is built aside, and left there): ``--resume`` says there is nothing
to resume, and the command without it starts the study again in the same folder (both
said "not a battlesim study: it has no table 'points'", and the folder could not be used
until the file was removed by hand). A ``study.duckdb`` with no table, what a battlesim
that made it in place left, is taken the same way."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from sim.batch.storage.duck import duckdb
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
    # the database was being built aside: nothing at study.duckdb, only the folder it was in
    left = [p.name for p in out.iterdir()]
    assert len(left) == 1 and left[0].startswith(".study.duckdb.") and left[0].endswith(".tmp")
    resumed = invoke("batch", STONE_WALL, "--runs", "4", "--no-plots", "-q", "--out", out,
                     "--resume")  # fmt: skip
    assert resumed.exit_code == 2
    assert "--resume: no study to resume in" in resumed.stderr
    assert "its database holds nothing (a study killed as it was made)" in resumed.stderr
    fresh = invoke("batch", STONE_WALL, "--runs", "4", "--no-plots", "-q", "--out", out)
    assert fresh.exit_code == 0, fresh.output
    assert invoke("verify", out).exit_code == 0


def test_a_database_holding_a_table_of_the_users_is_never_taken(tmp_path: Path) -> None:
    out = tmp_path / "s"
    out.mkdir()
    con = duckdb.connect(str(out / "study.duckdb"))
    con.execute("CREATE TABLE mine (x INTEGER)")
    con.close()
    before = (out / "study.duckdb").read_bytes()
    refused = invoke("batch", STONE_WALL, "--runs", "4", "--no-plots", "-q", "--out", out)
    assert refused.exit_code == 2 and "is not a battlesim study" in refused.stderr
    assert (out / "study.duckdb").read_bytes() == before

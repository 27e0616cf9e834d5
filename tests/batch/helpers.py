"""Shared helpers of the batch tests: paths, the CLI runner, table snapshots."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

import sim.cli_batch  # noqa: F401  # registers batch, study, rerun, export, campaign
from sim.batch.store import TABLES, Store
from sim.cli import cli

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
STONE_WALL = SCENARIOS / "stone_wall.yaml"
CAMPAIGN = SCENARIOS / "fredericksburg_campaign.yaml"


def invoke(*args: str | Path) -> Result:
    """Run the CLI as the console script would; no exception may escape."""
    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def tables(folder: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the study in ``folder``, each ordered by its key."""
    store = Store.open(folder / "study.duckdb", read_only=True)
    try:
        return {name: store.table(name) for name in TABLES}
    finally:
        store.close()


def battlesim_command() -> list[str]:
    """The console script next to this Python, when it has the batch commands.

    Until ``sim.cli`` imports ``sim.cli_batch`` the script lacks them; the
    same CLI is then ``python -m sim.cli_batch``.
    """
    script = shutil.which("battlesim", path=str(Path(sys.executable).parent))
    if script is not None:
        probe = subprocess.run([script, "batch", "--help"], capture_output=True, check=False)
        if probe.returncode == 0:
            return [script]
    return [sys.executable, "-m", "sim.cli_batch"]

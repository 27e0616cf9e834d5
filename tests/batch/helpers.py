"""Shared helpers of the batch tests: paths, the CLI runner, table snapshots."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from sim.batch.storage.store import TABLES, Store
from sim.cli import cli

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
RULES1 = REPO / "tests" / "data" / "rules1"
"""The musket scenarios and campaign as they were before issue 22 rebuilt them, with
musket rules version 1's options: the battles these tests pin."""
STONE_WALL = RULES1 / "stone_wall.yaml"
CAMPAIGN = RULES1 / "fredericksburg_campaign.yaml"


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
    """The console script next to this Python (as tests/forkserver.py runs it: forked from a
    process that has imported battlesim), else ``python -m sim`` (the same program)."""
    from tests.forkserver import battlesim_script

    script = shutil.which("battlesim", path=str(Path(sys.executable).parent))
    return [str(battlesim_script())] if script is not None else [sys.executable, "-m", "sim"]


def imported_after(code: str) -> set[str]:
    """Every module a fresh interpreter (this one's, from the repository) has imported once
    it has run ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120,
        cwd=REPO,
    )  # fmt: skip
    return set(json.loads(done.stdout.splitlines()[-1]))

"""Start-up: what `battlesim --version`, `--help` and completion import (counted, never timed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ["dask", "distributed", "duckdb", "matplotlib", "numpy", "pandas", "scipy"]

PROBE = """
import json, sys
from click.testing import CliRunner
from sim.cli import cli
result = CliRunner().invoke(cli, {args!r}, prog_name="battlesim")
assert result.exit_code == 0, result.output
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(args: list[str]) -> set[str]:
    """The modules a fresh interpreter holds after running the CLI with ``args``."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(json.loads(proc.stdout))


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["odds", "--help"], ["batch", "--help"]]
)
def test_help_and_version_load_no_heavy_library(args: list[str]) -> None:
    """--version and every listing import none of numpy, scipy, duckdb, matplotlib, dask, pandas."""
    modules = _modules_after(args)
    assert [m for m in HEAVY if m in modules] == []


@pytest.mark.parametrize("args", [["--version"], ["--help"]])
def test_help_and_version_load_no_simulation_code(args: list[str]) -> None:
    """The root --version and --help import only the CLI modules of sim, no engine, no ruleset."""
    modules = _modules_after(args)
    ours = sorted(m for m in modules if m.split(".")[0] in ("sim", "engine"))
    assert all(m in ("sim", "sim._moved") or m.startswith("sim.cli") for m in ours), ours
    assert "simpy" not in modules
    assert "pydantic" not in modules


def test_version_imports_no_command_module() -> None:
    """--version imports no command module at all: the root group loads them lazily."""
    modules = _modules_after(["--version"])
    assert sorted(m for m in modules if m.startswith("sim.")) == [
        "sim._moved",
        "sim.cli",
        "sim.cli.common",
        "sim.cli.main",
    ]


def test_a_command_loads_its_heavy_library_when_run(tmp_path: Path) -> None:
    """The lazy imports are real: `report --png` does load matplotlib when it runs."""
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom sim.cli import cli\n"
        f"r = CliRunner().invoke(cli, ['report', 'replays/stone_wall-s1862.jsonl', "
        f"'-o', {str(tmp_path / 'r.html')!r}, '--png', {str(tmp_path / 'png')!r}])\n"
        "assert r.exit_code == 0, r.output\nprint('matplotlib' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, "True\n")


def test_completion_of_a_command_option_is_light() -> None:
    """Tab completion of `battlesim batch --ru` offers --runs without importing a heavy library,
    the engine, pydantic or simpy (the README: it loads no simulation code; --seed's callback,
    which completion runs with no value, once imported the scenario checks for nothing)."""
    light = (*HEAVY, "engine", "pydantic", "simpy", "sim.scenario")
    code = (
        "import json, sys\nfrom sim.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(json.dumps([m for m in " + repr(light) + " if m in sys.modules]))\n"
    )
    env = {
        **os.environ,
        "_BATTLESIM_COMPLETE": "bash_complete",
        "COMP_WORDS": "battlesim batch --ru",
        "COMP_CWORD": "2",
    }
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = proc.stdout.splitlines()
    assert "plain,--runs" in lines
    assert json.loads(lines[-1]) == []


def test_no_command_module_imports_the_root() -> None:
    """No command module of sim/cli/ imports the root group: it imports them by name, no circle."""
    import ast

    cli = REPO / "sim" / "cli"
    commands = sorted(
        p for p in cli.rglob("*.py") if p not in (cli / "__init__.py", cli / "main.py")
    )
    assert len(commands) >= 10
    for path in commands:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        root = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and (
                node.module == "sim.cli.main"
                or (node.module == "sim.cli" and {a.name for a in node.names} & {"cli", "main"})
            )
        ]
        assert root == [], path.relative_to(cli).as_posix()

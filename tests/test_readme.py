"""Every command example in README.md runs, and its shown output is what it prints.

The scheme is :mod:`tests.readme_examples` (console blocks compared, sh
blocks run), documented in README.md under "How the examples are tested".
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.readme_examples import Example, examples, matches

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = examples(ROOT / "README.md")
ASSIGN = re.compile(r"^([A-Z_][A-Z0-9_]*)=(\S+)$")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with copies of scenarios/, replays/ and docs/ to run the examples in."""
    where = tmp_path_factory.mktemp("readme")
    for name in ("scenarios", "replays", "docs"):
        shutil.copytree(ROOT / name, where / name)
    return where


def test_the_readme_has_examples_of_both_kinds() -> None:
    """The README shows console examples with output and sh examples to run."""
    assert sum(e.expected is not None for e in EXAMPLES) >= 5
    assert sum(e.expected is None for e in EXAMPLES) >= 10


def _run(example: Example, where: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", example.command],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def env() -> dict[str, str]:
    """The examples' environment: battlesim on PATH; shell variables the examples set."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "PATH": path, "PYTHONHASHSEED": "0"}


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_readme_example(example: Example, scratch: Path, env: dict[str, str]) -> None:
    """In README order: console output matches (… for omitted lines); sh and python succeed."""
    assign = ASSIGN.match(example.command)
    if assign:
        env[assign.group(1)] = assign.group(2)
        return
    done = _run(example, scratch, env)
    where = f"README.md:{example.line}: {example.command}"
    if example.expected is None:
        ok = (0, 1) if example.command.startswith("battlesim diff ") else (0,)
        assert done.returncode in ok, f"{where}\n{done.stdout}{done.stderr}"
    else:
        actual = done.stdout.splitlines()
        assert matches(example.expected, actual), f"{where}\n" + "\n".join(actual)

"""docs/rulesets.md's complete example plugin installs as written and does what the page shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.readme_examples import console_examples, fenced_blocks, matches

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "rulesets.md"


def _block(lang: str, starts: str) -> tuple[int, list[str]]:
    for kind, line, body in fenced_blocks(PAGE.read_text(encoding="utf-8")):
        if kind == lang and "\n".join(body).lstrip().startswith(starts):
            return line, body
    raise AssertionError(f"docs/rulesets.md has no {lang} block starting {starts!r}")


def _install(pyproject: dict[str, object], module: str, scenario: str, site: Path) -> None:
    """What ``pip install .`` leaves behind: the package, its scenario and its dist-info."""
    project = pyproject["project"]
    assert isinstance(project, dict)
    (site / "battlesim_duel").mkdir(parents=True)
    (site / "battlesim_duel" / "__init__.py").write_text(module, encoding="utf-8")
    (site / "battlesim_duel" / "duel.yaml").write_text(scenario, encoding="utf-8")
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    groups = project["entry-points"]
    text = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items())
        for group, eps in groups.items()
    )
    (dist / "entry_points.txt").write_text(text)


def test_the_example_pyproject_is_installable_as_written() -> None:
    """The pyproject names a build backend, a name, a version and the entry point."""
    _, body = _block("toml", "[build-system]")
    data = tomllib.loads("\n".join(body))
    assert data["build-system"]["build-backend"] == "setuptools.build_meta"
    assert data["build-system"]["requires"]
    assert (data["project"]["name"], data["project"]["version"]) == ("battlesim-duel", "0.1.0")
    eps = data["project"]["entry-points"]["battlesim.rulesets"]
    assert eps == {"duel": "battlesim_duel:RULESET"}
    assert data["tool"]["setuptools"]["package-data"] == {"battlesim_duel": ["*.yaml"]}


def test_the_example_plugin_runs_as_the_page_shows(tmp_path: Path) -> None:
    """Installed from the page, the duel ruleset runs, verifies and shows what the page prints."""
    _, toml_body = _block("toml", "[build-system]")
    _, module = _block("python", '"""battlesim-duel')
    _, scenario = _block("yaml", "ruleset: duel")
    start, console = _block("console", "$ battlesim run duel.yaml")
    site = tmp_path / "site"
    text = "\n".join(scenario) + "\n"
    _install(tomllib.loads("\n".join(toml_body)), "\n".join(module) + "\n", text, site)
    (tmp_path / "duel.yaml").write_text("\n".join(scenario) + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    runs = console_examples(start, console)
    assert len(runs) == 5
    for example in runs:
        done = subprocess.run(
            ["bash", "-c", example.command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert example.expected is not None
        got = done.stdout.splitlines()
        assert matches(example.expected, got), f"{example.command}\n{done.stdout}{done.stderr}"


def test_the_example_carry_over_leaves_a_fallen_champion_out(tmp_path: Path) -> None:
    """The page's carry_over obeys its own duties: Hector falls in the first bout (seed 3),
    so he is left out of the second, which cannot be fought with one champion, and the
    campaign ends there. It brought him back with max(1, 0 + rest) health and fought on."""
    _, toml_body = _block("toml", "[build-system]")
    _, module = _block("python", '"""battlesim-duel')
    _, scenario = _block("yaml", "ruleset: duel")
    site = tmp_path / "site"
    text = "\n".join(scenario) + "\n"
    _install(tomllib.loads("\n".join(toml_body)), "\n".join(module) + "\n", text, site)
    (tmp_path / "duel.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "bouts.yaml").write_text(
        "campaign: Two bouts\nseed: 3\ncarry_over: {rest: 1}\nbattles:\n"
        "  - {id: first, scenario: duel.yaml}\n  - {id: second, scenario: duel.yaml}\n",
        encoding="utf-8",
    )
    paths = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]  # this checkout's sim
    done = subprocess.run(
        [sys.executable, "-m", "sim", "campaign", "bouts.yaml", "--out", "o", "--json"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    first = [(b["id"], b["winner"], b["reason"]) for b in summary["battles"]]
    assert first == [("first", "achilles", "hector fell")]
    assert summary["reason"] == (
        "most campaign points (1 of 1); battle second cannot be fought after carry-over: "
        "champions: the list has 1 item: at least 2"
    )

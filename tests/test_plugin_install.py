"""The docs' example plugin, pip-installed into a fresh venv beside a built battlesim, works.

Issue 21's proof that the framework is a framework: no source checkout on
the path, battlesim installed from a wheel (not editable), the plugin
installed from the files docs/rulesets.md shows, and every command run on
it. The fresh venv borrows this environment's third-party packages through
a ``.pth`` line (nothing is downloaded but the build backend); battlesim
itself and the plugin are real installs into it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.forkserver import stand_in
from tests.test_docs_rulesets import _block

ROOT = Path(__file__).resolve().parent.parent


def _pip(python: Path, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", *args],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv with battlesim built from a copy of the source, and the docs' plugin."""
    where = tmp_path_factory.mktemp("fresh")
    env = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # third-party packages from this environment, but not its editable battlesim
    (Path(site) / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    source = where / "battlesim-src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("engine", "sim"):
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    _pip(python, str(source))
    plugin = where / "battlesim-duel"
    (plugin / "battlesim_duel").mkdir(parents=True)
    (plugin / "pyproject.toml").write_text("\n".join(_block("toml", "[build-system]")[1]) + "\n")
    (plugin / "battlesim_duel" / "__init__.py").write_text(
        "\n".join(_block("python", '"""battlesim-duel')[1]) + "\n", encoding="utf-8"
    )
    (plugin / "battlesim_duel" / "duel.yaml").write_text(
        "\n".join(_block("yaml", "ruleset: duel")[1]) + "\n", encoding="utf-8"
    )
    _pip(python, str(plugin))
    yield env


def _run(env: Path, cwd: Path, *args: str, real: bool = False) -> subprocess.CompletedProcess[str]:
    """``battlesim ARGS`` of the venv in ``cwd``: its console script itself with ``real`` (or
    ``BATTLESIM_TEST_SUBPROCESS=1``), else forked from a server of the venv's own Python
    that has imported the venv's battlesim (tests/forkserver.py): the same code, without
    half a second of start-up a command."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    script = env / "bin" / "battlesim"
    if not real and os.environ.get("BATTLESIM_TEST_SUBPROCESS") != "1":
        script = stand_in(clean, python=str(env / "bin" / "python"))
    return subprocess.run(
        [str(script), *args],
        cwd=cwd, env=clean, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def _python(env: Path, cwd: Path, code: str, *args: str) -> str:
    """What the venv's python prints running ``code`` (with ``args``) in ``cwd``."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(env / "bin" / "python"), "-c", code, *args], cwd=cwd, capture_output=True,
        text=True, check=True, env=clean,
    )  # fmt: skip
    return done.stdout


def _ok(env: Path, cwd: Path, *args: str, real: bool = False) -> list[str]:
    done = _run(env, cwd, *args, real=real)
    assert done.returncode == 0, f"battlesim {' '.join(args)}\n{done.stdout}{done.stderr}"
    return done.stdout.splitlines()


def test_battlesim_is_installed_from_a_wheel_not_the_checkout(venv: Path, tmp_path: Path) -> None:
    """The venv's sim package is the installed copy, with its templates and viewer assets."""
    code = (
        "import sim, sim.contract, importlib.resources as r; print(sim.__file__); "
        "print(r.files('sim.rulesets.musket').joinpath('template.yaml').is_file(), "
        "r.files('sim.replay.viewer').joinpath('assets/viewer.js').is_file())"
    )
    where, found = _python(venv, tmp_path, code).splitlines()
    assert str(venv) in where and str(ROOT) not in where
    assert found == "True True"


def test_the_plugin_fights_verifies_and_reads_back(venv: Path, tmp_path: Path) -> None:
    """run, verify, show, why, diff, fork and report work on the installed plugin's battle."""
    scenario = "\n".join(_block("yaml", "ruleset: duel")[1]) + "\n"
    (tmp_path / "duel.yaml").write_text(scenario, encoding="utf-8")
    # the venv's console script itself (the other commands are forked: tests/forkserver.py)
    assert _ok(venv, tmp_path, "run", "duel.yaml", "--out", "d.jsonl", real=True)[0] == (
        "duel.yaml (seed 7): Hector wins after 5 turns — achilles fell"
    )
    assert _ok(venv, tmp_path, "verify", "d.jsonl") == [
        "OK: d.jsonl: 16 events, intact, lawful, re-simulates byte for byte"
    ]
    assert "Hector" in "\n".join(_ok(venv, tmp_path, "show", "d.jsonl", "--turn", "3"))
    # the ending cites the blow that felled Achilles; why walks back to it
    assert _ok(venv, tmp_path, "why", "d.jsonl", "14") == [
        "[seq 13] Turn 5: hector rolls 6 and strikes achilles for 1",
        "  → [seq 14] Turn 5: hector wins (achilles fell)",
    ]
    _ok(venv, tmp_path, "run", "duel.yaml", "--seed", "8", "--out", "e.jsonl")
    assert _run(venv, tmp_path, "diff", "d.jsonl", "e.jsonl").returncode == 1  # they differ
    _ok(venv, tmp_path, "fork", "d.jsonl", "--at", "1", "--set", "damage=0", "--out", "f.jsonl")
    assert _ok(venv, tmp_path, "verify", "f.jsonl")[0].startswith("OK: f.jsonl")
    _ok(venv, tmp_path, "report", "d.jsonl", "--out", "d.html")
    assert (tmp_path / "d.html").stat().st_size > 10_000


def test_a_campaign_of_the_plugin_carries_health_over(venv: Path, tmp_path: Path) -> None:
    """Two bouts of two turns each (nobody falls in two): the second starts from the first's
    health left plus the rest setting, never above the file's."""
    scenario = "\n".join(_block("yaml", "ruleset: duel")[1]) + "\n"
    assert "turns: 12\n" in scenario
    short = scenario.replace("turns: 12\n", "turns: 2\n")  # at most 3 of 8 health a turn
    (tmp_path / "duel.yaml").write_text(short, encoding="utf-8")
    (tmp_path / "bouts.yaml").write_text(
        "campaign: Two bouts\nseed: 3\ncarry_over:\n  rest: 1\nbattles:\n"
        "  - {id: first, scenario: duel.yaml}\n  - {id: second, scenario: duel.yaml}\n"
    )
    summary = json.loads("\n".join(_ok(venv, tmp_path, "campaign", "bouts.yaml", "--json")))
    assert [b["id"] for b in summary["battles"]] == ["first", "second"]
    # health left after the first bout, from its replay's own final state, plus rest: 1
    state = _final_health(venv, tmp_path, summary["replays"][0])
    second = json.loads((tmp_path / summary["replays"][1]).read_text().splitlines()[0])
    carried = {c["id"]: c["health"] for c in second["scenario"]["champions"]}
    start = {"achilles": 9, "hector": 8}  # duel.yaml
    assert all(hp > 0 for hp in state.values())  # a champion who fell would be left out
    assert carried == {cid: min(start[cid], hp + 1) for cid, hp in state.items()}


def _final_health(venv: Path, cwd: Path, replay: str) -> dict[str, int]:
    """Each champion's health at the end of a replay, read with the installed API."""
    code = (
        "import json, sys; from sim import api; "
        "s = api.state_at(sys.argv[1]); print(json.dumps(s.health))"
    )
    health: dict[str, int] = json.loads(_python(venv, cwd, code, replay))
    return health


def test_the_plugins_odds_are_a_command(venv: Path, tmp_path: Path) -> None:
    """duel-blow against 2 health: rolls 1, 2-3, 4-6 deal 0, 1, 2 (6 // 2 = 3 capped at 2)."""
    got = json.loads(_ok(venv, tmp_path, "odds", "duel-blow", "--health", "2", "--json")[0])
    assert got["exact"] == {"0": "1/6", "1": "1/3", "2": "1/2"}
    assert got["mean_exact"] == "4/3"  # (0 + 1 + 1 + 2 + 2 + 2) / 6


def test_the_shipped_contract_check_passes_on_the_plugin(venv: Path, tmp_path: Path) -> None:
    """check-ruleset, from the installed battlesim, meets every requirement on the plugin."""
    out = _ok(venv, tmp_path, "check-ruleset", "duel", "--json")
    report = json.loads("\n".join(out))
    failed = [r["id"] for r in report["requirements"] if r["status"] != "met"]
    assert failed == []
    assert len(report["requirements"]) >= 28


def test_scenarios_new_and_a_studys_unit_finals_reach_the_plugin(
    venv: Path, tmp_path: Path
) -> None:
    """scenarios lists the plugin's example; new writes a valid one; a study keeps its rows."""
    listed = json.loads("\n".join(_ok(venv, tmp_path, "scenarios", "--json")))["scenarios"]
    mine = [s for s in listed if s["name"] == "Hector and Achilles"]
    assert len(mine) == 1 and mine[0]["path"].endswith("battlesim_duel/duel.yaml")
    # the built-in rulesets' examples ship in the wheel: no checkout needed
    shipped = {(s["file"], s["source"]) for s in listed if s["source"] != "ruleset duel"}
    assert ("stone_wall.yaml", "ruleset musket") in shipped
    assert ("coral_sea.yaml", "ruleset flattop") in shipped
    assert ("tavern_brawl.yaml", "ruleset becmi") in shipped
    assert not any(source == "scenarios folder" for _, source in shipped)
    _ok(venv, tmp_path, "new", "duel", "mine.yaml")
    _ok(venv, tmp_path, "validate", "mine.yaml")
    assert "duel" in (tmp_path / "scenario.schema.json").read_text()
    _ok(venv, tmp_path, "batch", mine[0]["path"], "--runs", "3", "--out", "study")
    code = (
        "import duckdb; c = duckdb.connect('study/study.duckdb', read_only=True); "
        'print(c.execute("SELECT count(*), count(DISTINCT run_id), min(strength_unit), '
        'max(kind) FROM unit_finals").fetchall())'
    )
    assert (
        _python(venv, tmp_path, code).strip() == "[(6, 3, 'health', 'champion')]"
    )  # 2 champions x 3 runs

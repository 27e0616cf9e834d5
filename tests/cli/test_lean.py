"""A lean install (`make run`: the core dependencies only) fights, reads and reports battles;
a command that needs an extra says which, in one line, exit 2.

The extras' libraries are hidden from a fresh interpreter by ``sys.modules[name] = None``
(``import`` then raises ModuleNotFoundError, as it does when the package is not installed).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sim.cli.errors import EXTRAS

REPO = Path(__file__).resolve().parents[2]

LEAN = """
import sys
for name in {hidden!r}:
    sys.modules[name] = None
sys.argv = ["battlesim", *{args!r}]
from sim.cli.main import main
main()
"""


def _lean(args: list[str], where: Path) -> subprocess.CompletedProcess[str]:
    """``battlesim ARGS`` in ``where`` with every extra's library hidden."""
    return subprocess.run(
        [sys.executable, "-c", LEAN.format(hidden=sorted(EXTRAS), args=args)],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
    )


def test_the_core_dependencies_name_no_extra_library() -> None:
    """pyproject's core dependencies hold none of the libraries the extras bring."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    core = {re.split("[<>=]", d)[0].strip().lower() for d in project["dependencies"]}
    assert core == {"simpy", "pydantic", "structlog", "click", "pyyaml", "orjson", "msgspec"}
    extra = project["optional-dependencies"]["study"]
    study = {re.split("[<>=]", d)[0].strip().lower() for d in extra}
    assert {"numpy", "scipy", "duckdb", "matplotlib", "salib"} <= study


def test_every_dependency_pins_its_major_version() -> None:
    """Each requirement, core and extras, has an upper bound: a new major release (a new
    API) is taken deliberately, never by a fresh install."""
    from packaging.requirements import Requirement

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    every = [*project["dependencies"], *(r for e in project["optional-dependencies"].values()
                                          for r in e)]  # fmt: skip
    unbounded = [
        r for r in every
        if not any(s.operator in ("<", "<=", "==", "~=") for s in Requirement(r).specifier)
    ]  # fmt: skip
    assert unbounded == []
    assert len(every) >= 20


@pytest.mark.parametrize(
    "args",
    [
        ["run", "scenarios/stone_wall.yaml", "--out", "sw.jsonl"],
        ["verify", "replays/coral_sea-s1942.jsonl"],
        ["show", "replays/tavern_brawl-s377.jsonl", "--turn", "2"],
        ["why", "replays/stone_wall-s1862.jsonl", "38"],
        ["fork", "replays/stone_wall-s1862.jsonl", "--at", "8", "--set", "passed=false",
         "--set", "after=routed", "--out", "held.jsonl"],
        ["diff", "replays/stone_wall-s1862.jsonl", "replays/stone_wall-s1862.jsonl"],
        ["report", "replays/stone_wall-s1862.jsonl", "-o", "sw.html"],
        ["odds", "musket-fire", "--value", "1800", "--modifier", "-40"],
        ["validate", "scenarios/coral_sea.yaml"],
        ["campaign", "scenarios/fredericksburg_campaign.yaml", "--out", "fc"],
    ],
    ids=lambda a: a[0],
)  # fmt: skip
def test_a_battle_needs_no_extra(args: list[str], tmp_path: Path) -> None:
    """run, verify, show, why, fork, diff, report, odds, validate, campaign: exit 0 without them."""
    for name in ("scenarios", "replays"):
        (tmp_path / name).symlink_to(REPO / name)
    done = _lean(args, tmp_path)
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr


@pytest.mark.parametrize(
    ("args", "library", "extra"),
    [
        (["batch", "scenarios/stone_wall.yaml", "--runs", "2", "--out", "b"], "numpy", "study"),
        (["study", "scenarios/stone_wall_study.yaml", "--out", "s"], "numpy", "study"),
        (["report", "replays/stone_wall-s1862.jsonl", "-o", "r.html", "--png", "png"],
         "matplotlib", "study"),
        (["history", "--case", "quatre_bras_hedge", "-o", "h"], "numpy", "study"),
        (["calibrate", "scenarios/coral_sea_calibration.yaml", "-o", "c"], "numpy", "study"),
    ],
    ids=["batch", "study", "report-png", "history", "calibrate"],
)  # fmt: skip
def test_a_study_says_which_extra(
    args: list[str], library: str, extra: str, tmp_path: Path
) -> None:
    """Without the study extra, batch, study, report --png, history and calibrate say so in
    one line, exit 2, before writing or printing anything (report --png: no page either,
    issue 33; history: no case's progress line first)."""
    for name in ("scenarios", "replays"):
        (tmp_path / name).symlink_to(REPO / name)
    done = _lean(args, tmp_path)
    assert done.returncode == 2
    assert (done.stdout, done.stderr) == (
        "",
        f"battlesim: error: battlesim {args[0]} needs {library}, which a lean install "
        f"(make run) leaves out: pip install 'battlesim[{extra}]' (or make dev)\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["replays", "scenarios"]  # nothing written


def test_verify_of_a_folder_without_a_study_says_so_not_which_extra(tmp_path: Path) -> None:
    """A folder with no study.duckdb is no study, extra or not: the same line as with it."""
    (tmp_path / "empty").mkdir()
    done = _lean(["verify", "empty"], tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "battlesim: error: 'empty': no study here (no study.duckdb)\n",
    )


def test_load_study_in_a_lean_install_says_which_extras() -> None:
    """sim.api.load_study without the study and notebook extras: a ModuleNotFoundError whose
    message names the call and the extras to install (it was numpy's bare "No module named")."""
    code = (
        "import sys\n"
        f"for name in {sorted(EXTRAS)!r}:\n"
        "    sys.modules[name] = None\n"
        "from sim import api\n"
        "try:\n"
        "    api.load_study('no-such-study')\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc.name, '|', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "pandas | sim.api.load_study needs pandas, which a lean install leaves out: "
        "pip install 'battlesim[study,notebook]' (or make dev)\n"
    )

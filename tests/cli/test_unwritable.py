"""An output path the file system will not take is one line naming the flag, exit 2.

Every command that writes a file or a folder (``run``, ``schema``, ``new``, ``diff --html``,
``fork``, ``report`` and its ``--png``, ``discover``, ``rerun``, ``history`` and its
``--plot``, ``batch``, ``study``, ``calibrate``, ``export``, ``campaign``) is given a place
in ``/proc``, a folder it may not write in, a name too long for the file system and a
folder where a file goes (or a file where a folder goes). Each says
``battlesim: error: --out PATH: <why>`` with the flag as the user typed it (its long name)
and the path as given — never a temporary ``.partial`` name, click's usage error or a
traceback — exits 2 and writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.batch.helpers import SCENARIOS, invoke
from tests.history.test_cli import suite

ROOT = SCENARIOS.parent
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"
STONE_WALL = SCENARIOS / "stone_wall.yaml"
CAMPAIGN = SCENARIOS / "fredericksburg_campaign.yaml"
STUDY = f"""name: tiny
scenario: {STONE_WALL}
seed: 1
replications: 2
factors:
  - {{path: options.fire_hcv, values: [20, 30]}}
outputs: {{plots: false}}
"""

Args = Callable[[str, dict[str, Path]], list[str]]
"""The command line with the output path ``p``, given the inputs (study, files, sandbox)."""

FILE, FOLDER = "file", "folder"
COMMANDS: list[tuple[str, str, str, str, Args]] = [
    ("run", "--out", FILE, ".jsonl", lambda p, i: ["run", str(STONE_WALL), "--out", p]),
    ("schema", "--out", FILE, ".json", lambda p, i: ["schema", "--out", p]),
    ("new", "NAME.yaml", FILE, ".yaml", lambda p, i: ["new", "musket", p]),
    ("diff", "--html", FILE, ".html", lambda p, i: ["diff", str(GOLDEN), str(GOLDEN), "--html", p]),
    ("fork", "--out", FILE, ".jsonl",
     lambda p, i: ["fork", str(GOLDEN), "--at", "8", "--set", "roll=6", "--out", p]),
    ("report", "--out", FILE, ".html", lambda p, i: ["report", str(GOLDEN), "--out", p]),
    ("report", "--png", FOLDER, "",
     lambda p, i: ["report", str(GOLDEN), "--out", str(i["box"] / "r.html"), "--png", p]),
    ("discover", "--out", FILE, ".png",
     lambda p, i: ["discover", str(i["study"]), "-m", "turns > 2", "--out", p]),
    ("rerun", "--out", FILE, ".jsonl", lambda p, i: ["rerun", str(i["study"]), "0", "--out", p]),
    ("history", "--plot", FILE, ".png",
     lambda p, i: ["history", "--suite", str(i["suite"]), "-q", "--plot", p]),
    ("history", "--out", FOLDER, "",
     lambda p, i: ["history", "--suite", str(i["suite"]), "-q", "--out", p]),
    ("batch", "--out", FOLDER, "",
     lambda p, i: ["batch", str(STONE_WALL), "--runs", "2", "--no-plots", "-q", "--out", p]),
    ("study", "--out", FOLDER, "", lambda p, i: ["study", str(i["st"]), "-q", "--out", p]),
    ("calibrate", "--out", FOLDER, "",
     lambda p, i: ["calibrate", str(i["fit"]), "-q", "--jobs", "1", "--out", p]),
    ("export", "--out", FOLDER, "",
     lambda p, i: ["export", str(i["study"]), "--format", "csv", "--out", p]),
    ("campaign", "--out", FOLDER, "", lambda p, i: ["campaign", str(CAMPAIGN), "--out", p]),
]  # fmt: skip

KEPT = {
    ("export", "proc"): "cannot write the export there: No such file or directory",
    ("export", "proc-self"): "cannot write the export there: No such file or directory",
    ("export", "read-only"): "cannot write the export there: Permission denied",
}
"""export's own good words for a folder it cannot make (tests/batch/test_cli_errors.py)."""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A study (12 runs over three levels: discover finds a box for ``turns > 2``), a study
    file, a small calibration and a one-case history suite."""
    base = tmp_path_factory.mktemp("inputs")
    study = base / "study"
    made = invoke(
        "batch", STONE_WALL, "--runs", "4", "--sweep", "options.fire_hcv=20,30,40",
        "--out", study, "-q", "--no-plots", "--jobs", "1",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    st = base / "st.yaml"
    st.write_text(STUDY, encoding="utf-8")
    fit = yaml.safe_load((SCENARIOS / "coral_sea_calibration.yaml").read_text(encoding="utf-8"))
    fit.update(scenario=str(SCENARIOS / fit["scenario"]), replications=2, trials=2)
    fit.update(startup_trials=1)
    (base / "fit.yaml").write_text(yaml.safe_dump(fit, allow_unicode=True), encoding="utf-8")
    return {"study": study, "st": st, "fit": base / "fit.yaml", "suite": suite(base)}


def _writable_anyway(folder: Path) -> bool:
    """Whether this user writes in a folder without write permission (root does)."""
    try:
        fd = os.open(folder / ".probe", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except PermissionError:
        return False
    os.close(fd)
    os.unlink(folder / ".probe")
    return True


def _place(case: str, kind: str, ext: str, box: Path) -> tuple[str, str]:
    """The output path of ``case`` and the reason the line gives for it."""
    name = "x" + ext
    if case == "proc":
        return f"/proc/{name}", "cannot write in '/proc': No such file or directory"
    if case == "proc-self":
        return f"/proc/self/{name}", "cannot write in '/proc/self': No such file or directory"
    if case == "read-only":
        return str(box / "ro" / name), f"cannot write in '{box / 'ro'}': Permission denied"
    if case == "too-long":
        return str(box / ("a" * 300 + ext)), "File name too long"
    if kind == FILE:
        return str(box / "adir"), f"'{box / 'adir'}' is a folder, not a file"
    return str(box / "afile"), f"'{box / 'afile'}' is a file, not a folder"


def _tree(box: Path) -> dict[str, bytes | None]:
    """Every entry under ``box``: a file's bytes, None for a folder."""
    return {
        str(p.relative_to(box)): None if p.is_dir() else p.read_bytes()
        for p in sorted(box.rglob("*"))
    }


CASES = ["proc", "proc-self", "read-only", "too-long", "wrong-kind"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    ("command", "option", "kind", "ext", "args"),
    COMMANDS,
    ids=[f"{c}{o}" for c, o, *_ in COMMANDS],
)
def test_an_output_the_file_system_refuses_is_one_line_naming_the_flag(
    inputs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    option: str,
    kind: str,
    ext: str,
    args: Args,
    case: str,
) -> None:
    """``battlesim: error: OPTION PATH: <why>``, exit 2, nothing on stdout, nothing written
    (in the sandbox, nor by default in the current folder)."""
    if case.startswith("proc") and not Path("/proc/self").is_dir():
        pytest.skip("Linux's /proc, where no file can be made")
    if case == "wrong-kind" and command == "rerun":
        pytest.skip("rerun --out takes a folder as well as a file")
    box = tmp_path / "box"
    (box / "adir").mkdir(parents=True)
    (box / "afile").write_text("precious\n")
    (box / "ro").mkdir()
    (box / "here").mkdir()
    (box / "ro").chmod(0o555)
    if case == "read-only" and _writable_anyway(box / "ro"):
        pytest.skip("this user writes in a folder without write permission (root)")
    monkeypatch.chdir(box / "here")
    path, why = _place(case, kind, ext, box)
    why = KEPT.get((command, case), why)
    before = _tree(box)
    result = invoke(*args(path, {**inputs, "box": box}))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {option} {path}: {why}\n",
    )
    assert _tree(box) == before


@pytest.mark.parametrize(
    ("command", "option", "kind", "ext", "args"),
    COMMANDS,
    ids=[f"{c}{o}" for c, o, *_ in COMMANDS],
)
def test_an_empty_output_name_is_refused_by_every_command_alike(
    inputs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    option: str,
    kind: str,
    ext: str,
    args: Args,
) -> None:
    """An empty name (``-o ''``, a shell variable left unset) is no name: one line naming the
    flag and what it takes, exit 2, nothing written. ``report`` alone said so; ``export``,
    ``campaign`` and ``history`` wrote into the current folder, ``fork`` took its default
    name, and the rest said ``--out : '.' is a folder, not a file``."""
    del ext
    box = tmp_path / "box"
    (box / "here").mkdir(parents=True)
    monkeypatch.chdir(box / "here")
    before = _tree(box)
    result = invoke(*args("", {**inputs, "box": box}))
    takes = "a file or folder" if command == "rerun" else f"a {kind}"
    said = f"{option}: an empty name; give {takes}"
    said += "" if option == "NAME.yaml" else ", or leave it out"
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {said}\n",
    )
    assert _tree(box) == before

"""Every failure is one line and exit 2 (issue 12, items 3, 4, 8, 9 and 10)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path

import pytest

import sim.cli.outcomes.batch  # noqa: F401  # registers batch, study, rerun, export, campaign
from sim.batch.execution.executors import max_jobs
from tests.forge import GOLDEN, invoke

CHECK = next(
    str(json.loads(line)["seq"])
    for line in GOLDEN.read_text(encoding="utf-8").splitlines()
    if '"type":"musket.morale_tested"' in line
)
"""The golden's first morale check (a d6 roll)."""

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "stone_wall.yaml"
STUDY = """name: tiny
scenario: stone_wall.yaml
seed: 1
replications: 2
factors:
  - {path: options.fire_hcv, values: [20, 30]}
outputs: {dir: %s, plots: false}
"""


def _one_line_exit_2(args: list[str], fragment: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.count("\n") == 1, result.stderr
    assert fragment in result.stderr, result.stderr
    return result.stderr


def _study(tmp_path: Path, out_dir: str) -> Path:
    shutil.copy(SCENARIO, tmp_path / "stone_wall.yaml")
    path = tmp_path / "s.yaml"
    path.write_text(STUDY % out_dir, encoding="utf-8")
    return path


# item 3: study outputs stay contained


@pytest.mark.parametrize(
    ("out_dir", "fragment"),
    [("/tmp/elsewhere", "is absolute"), ("../../..", "leaves the study file's folder")],
)
def test_study_outputs_dir_may_not_leave_the_study_folder(
    tmp_path: Path, out_dir: str, fragment: str
) -> None:
    """outputs.dir absolute or climbing out is a located error in the study file."""
    path = _study(tmp_path, out_dir)
    err = _one_line_exit_2(["study", str(path)], fragment)
    assert err.startswith(f"{path}:7: outputs.dir: ")


def test_a_study_never_overwrites_files_it_did_not_make(tmp_path: Path) -> None:
    """A folder holding a summary.json of someone else's is refused; the file is untouched."""
    path = _study(tmp_path, "results")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "summary.json").write_text("mine\n")
    _one_line_exit_2(["study", str(path)], "holds files that no study made")
    assert (tmp_path / "results" / "summary.json").read_text() == "mine\n"
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["summary.json"]


def test_a_study_whose_outputs_dir_is_a_file_exits_2(tmp_path: Path) -> None:
    """outputs.dir naming a file: one line, exit 2, the file untouched."""
    path = _study(tmp_path, "taken")
    (tmp_path / "taken").write_text("x")
    _one_line_exit_2(["study", str(path)], "is a file, not a folder")
    assert (tmp_path / "taken").read_text() == "x"


# item 8: one study per folder


def test_a_folder_in_use_by_another_study_is_refused(tmp_path: Path) -> None:
    """While a study holds the folder's lock, a second batch there is refused at once."""
    out = tmp_path / "busy"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        args = ["batch", str(SCENARIO), "--runs", "2", "--out", str(out), "--no-plots"]
        _one_line_exit_2(args, "another battlesim study is running in")
    finally:
        os.close(fd)
    assert list(out.iterdir()) == []


# item 4: bounds


@pytest.mark.parametrize("jobs", ["4096", "100000"])
def test_jobs_beyond_a_few_per_cpu_are_refused(tmp_path: Path, jobs: str) -> None:
    """--jobs 4096 (or any larger count) is refused in one line naming the bound (4 per CPU)."""
    args = ["batch", str(SCENARIO), "--runs", "2", "--out", str(tmp_path / "o"), "-j", jobs]
    _one_line_exit_2(args, f"--jobs {jobs}: at most {max_jobs()}")


def test_a_grid_of_a_billion_points_is_refused_before_any_work(tmp_path: Path) -> None:
    """3 factors x 1,000 levels: refused by counting the product, nothing built or written."""
    values = ",".join(str(v) for v in range(1000))
    sweeps = [f"--sweep=options.{k}={values}" for k in ("infantry_move", "cavalry_move")]
    sweeps.append("--sweep=options.fire_hcv=" + ",".join(str(v + 5) for v in range(1000)))
    out = tmp_path / "o"
    _one_line_exit_2(
        ["batch", str(SCENARIO), "--runs", "1", "--out", str(out), *sweeps],
        "1,000,000,000 design points × 1 replication = 1,000,000,000 runs",
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["odds", "musket-fire", "--value", "1e308"],
        ["odds", "musket-fire", "--value", "100", "--lcv", "1e308", "--hcv", "1e308"],
        ["odds", "musket-fire", "--value", "1e9", "--hcv", "1000"],
    ],
)
def test_odds_magnitudes_are_bounded(args: list[str]) -> None:
    """odds with 1e308 (minutes of work, or an overflow) exits 2 with the bound named."""
    result = invoke(*args)
    assert result.exit_code == 2
    assert "out of range" in result.stderr or "outcomes to enumerate" in result.stderr


def test_why_on_a_cause_cycle_ends(tmp_path: Path) -> None:
    """A forged cause pointing at itself (or forward) is refused: why never loops."""
    from tests.forge import forge

    def cycle(texts: list[str]) -> list[str]:
        return [texts[0], texts[1].replace('"cause":null', '"cause":0', 1), *texts[2:]]

    path = forge(tmp_path, cycle)
    _one_line_exit_2(["why", str(path), "0"], "(seq 0): bad event: cause 0 is not an earlier seq")


# item 9: exit 2, one line, for unwritable places


@pytest.mark.parametrize(
    "args",
    [
        ["fork", str(GOLDEN), "--at", "3", "--set", "state.units.1ri.strength=5", "--out"],
        ["report", str(GOLDEN), "-o"],
        ["run", str(SCENARIO), "--out"],
    ],
)
@pytest.mark.parametrize("target", ["/dev/full", "/proc/nowhere.jsonl"])
def test_writing_into_an_unwritable_place_exits_2(args: list[str], target: str) -> None:
    """fork/report/run --out /dev/full or into /proc: one line naming the file, exit 2."""
    result = invoke(*args, target)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and target.rsplit("/", 1)[0] in result.stderr


def test_export_into_a_file_exits_2(tmp_path: Path) -> None:
    """export --out naming a file (or an unwritable place) is one line, exit 2."""
    study = tmp_path / "st"
    assert (
        invoke("batch", str(SCENARIO), "--runs", "2", "--out", str(study), "--no-plots").exit_code
        == 0
    )
    (tmp_path / "f").write_text("x")
    result = invoke("export", str(study), "--format", "csv", "--out", str(tmp_path / "f"))
    assert (result.exit_code, result.stderr) == (  # not click's usage error: the flag's line
        2,
        f"battlesim: error: --out {tmp_path / 'f'}: '{tmp_path / 'f'}' is a file, not a folder\n",
    )


def test_a_tampered_study_database_exits_2(tmp_path: Path) -> None:
    """rerun, export and --resume of a study.duckdb that is not a database: exit 2, one line."""
    study = tmp_path / "st"
    study.mkdir()
    (study / "study.duckdb").write_bytes(b"not a database" * 100)
    for args in (
        ["rerun", str(study), "0", "--out", str(tmp_path / "r.jsonl")],
        ["export", str(study), "--format", "csv"],
        ["batch", str(SCENARIO), "--runs", "2", "--out", str(study), "--resume", "--no-plots"],
    ):
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.count("\n") == 1, result.stderr


# item 10: fork values are checked before anything is written


@pytest.mark.parametrize(
    ("at", "assignment", "fragment"),
    [
        ("3", "state.units.1ri.strength=-5", "cannot be negative"),
        ("3", "state.units.nope.strength=5", "no unit 'nope' in this battle; units: 116pa, "),
        ("3", "state.units.1ri.strength=.inf", ".inf is not an integer"),
        (CHECK, "roll=0", "roll: 0 is less than 1, the least it may be"),
        (CHECK, "roll=7", "roll: 7 is more than 6, the most it may be"),
    ],
)
def test_fork_values_are_checked_before_anything_is_written(
    tmp_path: Path, at: str, assignment: str, fragment: str
) -> None:
    """Strength -5, an unknown unit, infinity, a d6 showing 0 or 7: exit 2, nothing written."""
    out = tmp_path / "f.jsonl"
    _one_line_exit_2(
        ["fork", str(GOLDEN), "--at", at, "--set", assignment, "--out", str(out)], fragment
    )
    assert list(tmp_path.iterdir()) == []


def test_a_unit_named_like_an_engine_event_is_harmless(tmp_path: Path) -> None:
    """A unit named 'engine.turn_ended' runs and its replay verifies (no KeyError in verify)."""
    text = SCENARIO.read_text(encoding="utf-8").replace(
        "name: 69th New York", "name: engine.turn_ended"
    )
    scenario = tmp_path / "s.yaml"
    scenario.write_text(text, encoding="utf-8")
    out = tmp_path / "r.jsonl"
    assert invoke("run", str(scenario), "--out", str(out)).exit_code == 0
    result = invoke("verify", str(out))
    assert result.exit_code == 0, result.output


# item 5: control characters


def test_escape_sequences_in_names_are_refused_at_validation(tmp_path: Path) -> None:
    r"""A name holding ESC (written "\e" in YAML) is refused, located at its line."""
    text = SCENARIO.read_text(encoding="utf-8").replace(
        "name: 69th New York", 'name: "69th \\e[2J New York"'
    )
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    result = invoke("validate", str(path))
    assert result.exit_code == 2
    assert "control characters are not allowed" in result.stderr
    assert "\x1b" not in result.stderr


def test_control_characters_in_printed_paths_are_escaped(tmp_path: Path) -> None:
    """A file name holding ESC is printed escaped, never raw."""
    path = tmp_path / "evil\x07\x9b2J.jsonl"
    path.write_text("hello\n")
    result = invoke("verify", str(path))
    assert result.exit_code == 2
    assert "\x07" not in result.stderr and "\x9b" not in result.stderr
    assert "evil\\x07\\x9b2J.jsonl:1: not a battlesim replay" in result.stderr


def test_reader_gone_is_quiet(tmp_path: Path) -> None:
    """`battlesim show ... | head` whose reader has gone: no error line, exit 141 like SIGPIPE."""
    import subprocess
    import sys

    script = Path(sys.executable).parent / "battlesim"
    replay = ROOT / "replays" / "stone_wall-s1862.jsonl"
    proc = subprocess.Popen(
        [str(script), "show", str(replay), "--events"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader leaves before the first line is written
    err = proc.stderr.read()
    assert (proc.wait(timeout=60), err) == (141, b"")


def test_another_broken_pipe_is_an_error_line_not_a_reader_gone(tmp_path: Path) -> None:
    """A pipe of the command's own breaking (a worker pool's) while stdout is read still:
    one error line, exit 2 (it was taken for `| head` gone: exit 141, nothing said)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import sim.batch.study\n"
        "def broken(*a, **k): raise BrokenPipeError(32, 'Broken pipe')\n"
        "sim.batch.study.run_study = broken\n"
        "from sim.cli.main import main\n"
        "sys.argv = ['battlesim', 'batch', sys.argv[1], '--runs', '2', '--out', 's']\n"
        "main()\n"
    )
    scenario = ROOT / "scenarios" / "stone_wall.yaml"
    done = subprocess.run(
        [sys.executable, "-c", code, str(scenario)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "battlesim: error: Broken pipe\n",
    )


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["run", "--help"]])
def test_help_and_version_to_a_closed_pipe_or_a_full_disk(args: list[str]) -> None:
    """battlesim's own --help and --version, not only a command's: a reader gone is 141 and
    quiet (click said exit 1); a full disk is one line naming standard output, exit 2 (it
    was a traceback, exit 1)."""
    import subprocess
    import sys

    script = Path(sys.executable).parent / "battlesim"
    read, write = os.pipe()
    os.close(read)
    try:
        gone = subprocess.run([str(script), *args], stdout=write, capture_output=False,
                              stderr=subprocess.PIPE, timeout=60, check=False)  # fmt: skip
    finally:
        os.close(write)
    assert (gone.returncode, gone.stderr) == (141, b"")
    with open("/dev/full", "w") as full:
        done = subprocess.run([str(script), *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.endswith("standard output: No space left on device\n"), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_closed_stdout_is_named_as_such() -> None:
    """``battlesim rulesets --json >&-``: one line saying standard output is closed (it was
    ``AttributeError: 'NoneType' object has no attribute 'write'``)."""
    import subprocess
    import sys

    script = Path(sys.executable).parent / "battlesim"
    for args in ("rulesets --json", "--help", "--version"):  # a command's, and battlesim's own
        done = subprocess.run(
            f"{script} {args} >&-", shell=True, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        assert (done.returncode, done.stderr) == (
            2, "battlesim: error: standard output: it is closed\n"
        ), args  # fmt: skip


def test_a_missing_option_with_choices_is_one_line() -> None:
    """click lists a missing option's choices one to a line; the command says it in one.

    A usage error, which the console script's ``main`` words (an in-process ``invoke`` would
    not reach it): the script runs forked from a process that has imported battlesim
    (tests/forkserver.py: the console script's own code, its stderr and exit code;
    tests/cli/test_forkserver.py holds the stand-in's usage errors byte for byte to the real
    script's), not as a fresh Python (about 0.8 CPU s of start-up)."""
    import subprocess

    from tests.forkserver import battlesim_script

    script = battlesim_script()
    done = subprocess.run([str(script), "export", "somewhere"], capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert (done.returncode, done.stderr) == (
        2,
        "battlesim export: error: Missing option '--format'. Choose from: parquet, csv "
        "(see 'battlesim export --help')\n",
    )


def test_two_seeds_for_one_sample_are_refused(tmp_path: Path) -> None:
    _one_line_exit_2(  # refused before the folder is read: any folder shows it
        ["verify", str(tmp_path), "--seed", "5", "--sample-seed", "6"],
        "--seed 5 and --sample-seed 6: the same option under two names, given two values",
    )

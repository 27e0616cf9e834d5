"""The forking stand-in for ``battlesim`` (tests/forkserver.py) prints and exits as the real
console script does, so the tests that run commands through it test the real thing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import forkserver
from tests.batch.helpers import tables
from tests.forkserver import REAL, stand_in

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"
BAD = ROOT / "tests" / "data" / "bad_scenarios" / "python_tag.yaml"
STONE_WALL = str(ROOT / "scenarios" / "stone_wall.yaml")


def _both(tmp_path: Path, *args: str, umask: int | None = None) -> tuple[tuple[int, str, str], ...]:
    """(exit code, stdout, stderr) of the stand-in, then of the real script, each run in its
    own folder (``<cwd>`` stands for it) with ``args``; the stand-in must have forked."""
    out = []
    for name, script in (("forked", stand_in()), ("real", REAL)):
        where = tmp_path / name
        where.mkdir()
        before = len(forkserver.stats())
        old = os.umask(umask) if umask is not None else None
        try:
            done = subprocess.run(
                [str(script), *args], cwd=where, capture_output=True, text=True, check=False
            )
        finally:
            if old is not None:
                os.umask(old)
        ran = [r["argv"] for r in forkserver.stats()[before:]]
        assert ran == ([list(args)] if name == "forked" else [])
        out.append(
            (done.returncode, *(s.replace(str(where), "<cwd>") for s in (done.stdout, done.stderr)))
        )
    return tuple(out)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--version"], 0),
        (["run", STONE_WALL, "--seed", "7", "--out", "a.jsonl"], 0),
        (["run", str(BAD)], 2),
        (["run", "--seed", "x", "nope.yaml"], 2),
        (["fight"], 2),
        (["verify", str(GOLDEN)], 0),
        (["diff", str(GOLDEN), str(ROOT / "replays" / "chancellorsville-s1863.jsonl")], 1),
    ],
)
def test_the_stand_in_prints_and_exits_as_the_real_script(
    args: list[str], code: int, tmp_path: Path
) -> None:
    """Success, bad input (exit 2), a usage error (2) and a difference (exit 1): the same exit
    code, stdout and stderr, byte for byte, and the same files."""
    forked, real = _both(tmp_path, *args)
    assert forked == real
    assert forked[0] == code
    made = [sorted(p.name for p in (tmp_path / n).iterdir()) for n in ("forked", "real")]
    assert made[0] == made[1]
    for name in made[0]:
        assert (tmp_path / "forked" / name).read_bytes() == (tmp_path / "real" / name).read_bytes()


def test_the_command_gets_the_callers_umask_and_folder(tmp_path: Path) -> None:
    """A file the command writes has the mode the caller's umask gives, in the caller's folder."""
    forked, real = _both(tmp_path, "new", "musket", "mine.yaml", umask=0o077)
    assert forked == real
    modes = {(tmp_path / n / "mine.yaml").stat().st_mode & 0o777 for n in ("forked", "real")}
    assert modes == {0o600}


def test_stdout_and_stderr_together_keep_their_order(tmp_path: Path) -> None:
    """Through one pipe (2>&1, as the docs' console examples run), the lines interleave as
    the real script's do."""
    command = f"battlesim run {BAD}; battlesim run nope.yaml --seed x; battlesim --version"
    runs = []
    for folder in (stand_in().parent, REAL.parent):
        env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
        done = subprocess.run(
            ["bash", "-c", command], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, check=False, cwd=tmp_path,
        )  # fmt: skip
        runs.append((done.returncode, done.stdout))
    assert runs[0] == runs[1]
    assert runs[0][1].count("\n") >= 3


def test_a_start_up_variable_the_server_did_not_start_with_runs_the_real_script(
    tmp_path: Path,
) -> None:
    """PYTHONHASHSEED is read only as Python starts: with another value than its server's,
    the stand-in runs the real script (no command reaches the server), with the same output."""
    env = {**os.environ, "PYTHONHASHSEED": "4321"}
    script = stand_in()
    before = len(forkserver.stats())
    done = subprocess.run(
        [str(script), "--version"], env=env, capture_output=True, text=True, check=False
    )
    real = subprocess.run([str(REAL), "--version"], capture_output=True, text=True, check=False)
    assert len(forkserver.stats()) == before
    assert (done.returncode, done.stdout, done.stderr) == (real.returncode, real.stdout, "")
    assert forkserver.startup_key(env) != forkserver.startup_key(dict(os.environ))


def test_the_escape_hatch_runs_every_command_as_a_real_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BATTLESIM_TEST_SUBPROCESS=1: the tests are handed the installed script itself."""
    monkeypatch.setenv("BATTLESIM_TEST_SUBPROCESS", "1")
    assert forkserver.battlesim_script() == REAL
    monkeypatch.delenv("BATTLESIM_TEST_SUBPROCESS")
    assert forkserver.battlesim_script() == stand_in() != REAL


def test_stats_name_the_newest_command_last_across_servers(tmp_path: Path) -> None:
    """With two servers (two start-up environments), a command on the first server after
    one on the second is still the last row: rows come in the order the commands ended."""
    other = {**os.environ, "BATTLESIM_TEST_SECOND_SERVER": "1"}
    first, second = stand_in(), stand_in(other)
    assert first != second
    for script, env, args in ((second, other, ["--version"]), (first, None, ["--help"])):
        before = len(forkserver.stats())
        done = subprocess.run(
            [str(script), *args], cwd=tmp_path, env=env, capture_output=True, check=False
        )
        assert done.returncode == 0
        assert [r["argv"] for r in forkserver.stats()[before:]] == [args]


def _pool_servers(parent: int) -> list[int]:
    """The multiprocessing forkservers (worker-pool servers) that are children of ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text(encoding="ascii")
            command = (entry / "cmdline").read_bytes()
        except (OSError, UnicodeDecodeError):
            continue  # not a process, or gone
        if (
            int(stat.rsplit(")", 1)[1].split()[1]) == parent
            and b"multiprocessing.forkserver" in command
        ):
            found.append(int(entry.name))
    return found


def test_pool_commands_share_the_servers_worker_server_and_write_what_the_real_script_writes(
    tmp_path: Path,
) -> None:
    """`--jobs 2` through the stand-in: the same output and study, row for row, as the real
    script; the workers come from the one worker-pool server its fork server started (not
    one a command); a command whose umask is not the server's starts its own, as a real one
    does (its workers get its umask), and writes the same study."""
    args = ["batch", STONE_WALL, "--runs", "12", "--jobs", "2", "--quiet", "--no-plots", "-o", "s"]
    forked, real = _both(tmp_path, *args)
    assert forked == real
    assert forked[0] == 0
    assert tables(tmp_path / "forked" / "s") == tables(tmp_path / "real" / "s")
    server = forkserver._servers[sys.executable, forkserver.startup_key(os.environ)].process.pid
    shared = _pool_servers(server)
    assert len(shared) == 1
    for umask, name in ((None, "again"), (0o077, "own")):
        (tmp_path / name).mkdir()
        old = os.umask(umask) if umask is not None else None
        try:
            done = subprocess.run(
                [str(stand_in()), *args], cwd=tmp_path / name, capture_output=True, check=False
            )
        finally:
            if old is not None:
                os.umask(old)
        assert (done.returncode, done.stderr) == (0, b"")
        assert tables(tmp_path / name / "s") == tables(tmp_path / "real" / "s")
        assert _pool_servers(server) == shared


_BLAS_INFO = (
    "sorted([i['filepath'], i['num_threads']] "
    "for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas')"
)


def test_the_preloaded_blas_leaves_no_thread_and_a_command_gets_a_fresh_ones() -> None:
    """After the server's preload (and its throwaway fork) only the main thread runs; a
    process forked from it has the BLAS libraries' thread counts of a fresh interpreter,
    and starts their threads when it first multiplies matrices."""
    fresh = subprocess.run(
        [
            forkserver.sys.executable,
            "-c",
            f"import json, numpy, scipy.special, threadpoolctl; print(json.dumps({_BLAS_INFO}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    script = (
        "import json, os, numpy, threadpoolctl\n"
        "from tests import forkserver as fs\n"
        "fs._preload_heavy()\n"
        "tasks = lambda: len(os.listdir('/proc/self/task'))\n"
        "assert tasks() == 1, 'a thread is left running'\n"
        "read, write = os.pipe()\n"
        "if os.fork() == 0:\n"
        "    before = tasks()\n"
        "    a = numpy.ones((400, 400)); a @ a\n"
        f"    os.write(write, json.dumps([before, tasks(), {_BLAS_INFO}]).encode())\n"
        "    os._exit(0)\n"
        "os.close(write); print(os.read(read, 65536).decode())\n"
    )
    root = Path(forkserver.__file__).resolve().parent.parent
    before, after, counts = json.loads(
        subprocess.run(
            [forkserver.sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        ).stdout
    )
    assert json.dumps(counts) == fresh
    assert len(counts) == 2  # NumPy's and SciPy's libraries
    assert before == 1
    assert after == 1 + max(n for _, n in counts) - 1  # the main thread and n - 1 workers

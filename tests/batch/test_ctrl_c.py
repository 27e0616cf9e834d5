"""Ctrl-C and SIGTERM on commands with a local process pool: one line, never a traceback,
and an interrupt that a library turned into an error of its own still read as the interrupt.

A terminal's Ctrl-C reaches the whole process group: the command, its pool's forkserver and
every worker. Each used to print a ``KeyboardInterrupt`` traceback when it came between
tasks or while the forkserver imported the worker module; and DuckDB, interrupted inside a
commit, raised its own error, which ended the study with exit 2 and a line about the
database. (:mod:`sim.cli.interrupts`, :mod:`sim.batch.execution.executors`.)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import CancelledError
from pathlib import Path
from types import SimpleNamespace

import pytest

from sim.batch.execution import executors
from sim.batch.execution.signals import interrupts_deferred
from sim.batch.storage.store import Store
from sim.cli.interrupts import Terminated, errors_as_interrupts, pending, signals_as_interrupts

REPO = Path(__file__).resolve().parents[2]
STONE_WALL = REPO / "scenarios" / "stone_wall.yaml"
SIGINT_BIT = 1 << (signal.SIGINT - 1)

linux = pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc")


def _mask(status: str, field: str) -> int:
    """A signal mask (``SigBlk``, ``SigCgt``, ``SigIgn``) from a /proc status text."""
    line = next(x for x in status.splitlines() if x.startswith(field + ":"))
    return int(line.split()[1], 16)


_BOOTED = """
import signal, sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import forkserver, get_context
from concurrent.futures import CancelledError
from pathlib import Path
from sim.batch.execution import executors
if sys.argv[1] == "ignored":  # as a shell's `cmd &` starts a command
    signal.signal(signal.SIGINT, signal.SIG_IGN)
else:  # as at a terminal, whatever the test run inherited (`make test &` ignores it)
    signal.signal(signal.SIGINT, signal.default_int_handler)
status = Path("/proc/self/status")
with executors.open_executor("local", 2) as pool:
    ours = pool.submit(Path.read_text, status).result()
    server = Path(f"/proc/{forkserver._forkserver._forkserver_pid}/status").read_text()
with ProcessPoolExecutor(1, mp_context=get_context("forkserver")) as plain:  # the same server
    theirs = plain.submit(Path.read_text, status).result()
for text in (server, ours, theirs):
    print(text.replace("\\n", "|"))
"""


def _booted(how: str) -> tuple[str, str, str]:
    """The /proc status of a pool's forkserver, a worker of ours and a worker of a plain
    forkserver pool started after ours (the same server), SIGINT ``handled`` or ``ignored``."""
    done = subprocess.run(
        [sys.executable, "-c", _BOOTED, how], capture_output=True, text=True, check=True, cwd=REPO
    )
    server, ours, theirs = (line.replace("|", "\n") for line in done.stdout.splitlines())
    return server, ours, theirs


@linux
def test_the_forkserver_ignores_sigint_and_passes_no_block_on() -> None:
    """The forkserver is started with SIGINT blocked while it imports the worker module
    (half a second in which a Ctrl-C ended it with a traceback), and ignores it once up; the
    last module it imports unblocks it, so no process it forks inherits a block — a plain
    pool's worker from the same server (a notebook's own) handles Ctrl-C as Python does.
    A worker of ours handles it with its own handler."""
    server, ours, theirs = _booted("handled")
    assert _mask(server, "SigIgn") & SIGINT_BIT
    assert not _mask(server, "SigBlk") & SIGINT_BIT
    for worker in (ours, theirs):
        assert not _mask(worker, "SigBlk") & SIGINT_BIT
        assert _mask(worker, "SigCgt") & SIGINT_BIT  # ours: executors._worker_interrupted
        assert not _mask(worker, "SigIgn") & SIGINT_BIT


@linux
def test_a_command_that_ignores_ctrl_c_has_workers_that_ignore_it() -> None:
    """A command started with Ctrl-C ignored (a shell's ``cmd &``, nohup) keeps its study
    whole at a Ctrl-C to its terminal's process group: its workers ignore it too."""
    _, ours, _ = _booted("ignored")
    assert _mask(ours, "SigIgn") & SIGINT_BIT
    assert not _mask(ours, "SigCgt") & SIGINT_BIT


_UNBLOCKING = """
import os, signal, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a server started at a terminal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C while the server imports: it waits
assert signal.SIGINT in signal.sigpending()
import sim.batch.execution.unblock
time.sleep(0.2)  # nothing is raised: the waiting Ctrl-C was dropped
assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
print("unblocked")
"""


def test_the_servers_last_import_drops_a_waiting_ctrl_c_and_unblocks_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _UNBLOCKING], capture_output=True, text=True, check=False, cwd=REPO
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "unblocked\n", "")


@pytest.mark.usefixtures("python_handlers")
def test_leaving_the_pool_on_an_error_stops_running_and_queued_tasks() -> None:
    """An error (here a ValueError; Ctrl-C or SIGTERM to the command alone alike) leaves
    the pool: the workers are sent a SIGINT, so the two 30-second tasks running stop at
    once and the one queued behind them never starts. Each ends in KeyboardInterrupt, or is
    cancelled; none finishes."""
    with executors.open_executor("local", 2) as warm:  # the workers up, their handlers set
        assert list(warm.map(abs, [-1, -2])) == [1, 2]
    futures = []
    with pytest.raises(ValueError), executors.open_executor("local", 2) as pool:
        assert list(pool.map(abs, [-1, -2])) == [1, 2]  # both workers started
        futures = [pool.submit(time.sleep, 30) for _ in range(3)]
        time.sleep(0.5)
        raise ValueError("the command failed")
    for future in futures:
        assert future.done()
        if not future.cancelled():
            assert isinstance(future.exception(), KeyboardInterrupt)
    with pytest.raises((KeyboardInterrupt, CancelledError)):
        futures[0].result()


def _study(tmp_path: Path, how: str, jobs: int, runs: int) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "tests.batch.kill_after", how, "-", "batch", str(STONE_WALL)]
    cmd += ["--out", str(tmp_path / "s"), "--jobs", str(jobs), "--runs", str(runs)]
    cmd += ["--seed", "5", "--chunk-size", "5", "--quiet", "--no-plots"]
    return subprocess.run(
        cmd, check=False, cwd=REPO, capture_output=True, text=True, start_new_session=True
    )


def test_ctrl_c_at_a_terminal_on_a_local_pool_says_one_line(tmp_path: Path) -> None:
    """Eight chunks of five runs on two workers, Ctrl-C to the whole process group after the
    seventh commit: every chunk has been handed out, so at least one worker waits on the
    pool's queue when the signal comes. No traceback from it, nor from the forkserver; the
    study's one line, exit 1."""
    done = _study(tmp_path, "interrupt-group:7", 2, 40)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    kept = done.stderr.strip()
    assert kept.startswith("battlesim: interrupted; the committed chunks are kept ("), kept
    assert kept.endswith(" runs) — run the same command with --resume to complete the study")
    assert len(kept.splitlines()) == 1


@pytest.mark.parametrize("kind", ["interrupt", "runtime", "transaction"])
def test_a_ctrl_c_duckdb_reported_as_its_own_error_ends_the_study_as_a_ctrl_c(
    tmp_path: Path, kind: str
) -> None:
    """The third commit is interrupted inside DuckDB, which raises its own error for it:
    the study ends as at any Ctrl-C (exit 1, what it kept), not with exit 2 and the error.
    The interrupted commit keeps nothing (its rows are fought again on --resume), so the
    two chunks committed before it are what is kept: 10 runs, as the database says."""
    done = _study(tmp_path, f"interrupt-in-duckdb:2:{kind}", 1, 40)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == (
        "battlesim: interrupted; the committed chunks are kept (10 runs) — "
        "run the same command with --resume to complete the study"
    )
    store = Store.open(tmp_path / "s" / "study.duckdb", read_only=True)
    try:
        assert store.count() == 10
    finally:
        store.close()


_GUARDED = """
import os, signal, sys, time
import sim.history
signal.signal(signal.SIGINT, signal.default_int_handler)  # a terminal's Ctrl-C
SENT = getattr(signal, sys.argv[1])
def load_suite(*args, **kwargs):
    try:
        os.kill(os.getpid(), SENT)
        time.sleep(10)
    except KeyboardInterrupt:  # as a library does that takes the interrupt itself
        raise RuntimeError("Query interrupted") from None
sim.history.load_suite = load_suite
how = sys.argv[2]
sys.argv = ["battlesim", "history"]
if how == "module":  # python -m sim
    import runpy
    runpy.run_module("sim", run_name="__main__")
else:
    from sim.cli import main
    main()
"""


@pytest.mark.parametrize("how", ["battlesim", "module"])
@pytest.mark.parametrize(
    ("name", "code", "said"), [("SIGINT", 130, "Aborted!"), ("SIGTERM", 143, "")]
)
def test_any_command_ends_as_the_signal_a_library_error_stands_for(
    name: str, code: int, said: str, how: str
) -> None:
    """A command with nothing of its own to say: exit 130 (143), as at any Ctrl-C
    (SIGTERM), where the error would have been exit 2 and its line; ``python -m sim`` alike
    (it gave 1)."""
    done = subprocess.run(
        [sys.executable, "-c", _GUARDED, name, how],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert (done.returncode, done.stderr.strip()) == (code, said)


@pytest.fixture
def python_handlers() -> object:
    """SIGINT as at a terminal (Python's own handler), SIGTERM as the system leaves it."""
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGINT, saved[0])
    signal.signal(signal.SIGTERM, saved[1])


@pytest.mark.usefixtures("python_handlers")
@pytest.mark.parametrize(
    ("signum", "raised"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)]
)
def test_an_error_after_a_signal_is_that_signals_interrupt(
    signum: int, raised: type[BaseException]
) -> None:
    with signals_as_interrupts():
        assert pending() is None
        with pytest.raises(ValueError), errors_as_interrupts():  # no signal yet: an error
            raise ValueError("no signal yet")
        try:
            os.kill(os.getpid(), signum)
            time.sleep(10)
        except KeyboardInterrupt as taken:  # what a library does that takes it itself
            assert type(taken) is raised
        with pytest.raises(raised) as caught, errors_as_interrupts():
            raise RuntimeError("Query interrupted")
        assert type(caught.value) is raised
        assert isinstance(caught.value.__cause__, RuntimeError)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


@pytest.mark.usefixtures("python_handlers")
def test_a_ctrl_c_while_a_task_is_handed_to_the_pool_is_taken_after() -> None:
    """``submit`` starts a worker and updates the pool's books: a Ctrl-C meanwhile waits
    until it has returned, then is raised as if it came then, once."""
    reached = []
    with signals_as_interrupts():
        with pytest.raises(KeyboardInterrupt), interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # no interrupt here: the handler only notes it
            reached.append("the end of the block")
        assert type(pending()) is KeyboardInterrupt
    assert reached == ["the end of the block"]


@pytest.mark.parametrize(
    ("stopping", "error", "reported"),
    [
        (True, KeyboardInterrupt(), False),
        (True, ValueError("a finalizer's own error"), True),
        (False, KeyboardInterrupt(), True),
    ],
)
def test_a_worker_drops_an_interrupt_python_could_not_raise_after_a_ctrl_c(
    monkeypatch: pytest.MonkeyPatch, stopping: bool, error: BaseException, reported: bool
) -> None:
    """In a worker, a Ctrl-C's KeyboardInterrupt raised inside a finalizer or a C callback
    is unraisable: Python printed it ("Exception ignored in …", with a traceback). After
    the worker's Ctrl-C it is dropped; anything else, or before one, is reported as before."""
    seen: list[object] = []
    monkeypatch.setattr(executors, "_stopping", stopping)
    hook = executors._QuietInterrupt(seen.append)
    unraisable = SimpleNamespace(exc_type=type(error), exc_value=error, exc_traceback=None)
    hook(unraisable)
    assert (seen == [unraisable]) is reported


def test_duckdb_is_imported_with_a_ctrl_c_held_back() -> None:
    """A Ctrl-C inside DuckDB's C++ initialisation aborts the process (SIGABRT): every module
    of battlesim imports it from sim/batch/storage/duck.py, which holds a Ctrl-C back while
    it does (the holding itself: the test above)."""
    importing = re.compile(r"^\s*(import duckdb\b|from duckdb\b)", re.MULTILINE)
    found = sorted(
        str(path.relative_to(REPO))
        for folder in ("sim", "engine")
        for path in (REPO / folder).rglob("*.py")
        if importing.search(path.read_text(encoding="utf-8"))
    )
    assert found == ["sim/batch/storage/duck.py"]
    duck = (REPO / "sim/batch/storage/duck.py").read_text(encoding="utf-8")
    assert "with interrupts_deferred():\n    import duckdb\n" in duck


@pytest.mark.usefixtures("python_handlers")
def test_a_second_ctrl_c_while_one_is_held_is_taken_at_once() -> None:
    """A held block that stalls (a forkserver that does not answer) still ends at a second
    Ctrl-C, which raises where the block is."""
    reached = []
    with signals_as_interrupts(), pytest.raises(KeyboardInterrupt), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        reached.append("held")
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(10)  # interrupted here
        reached.append("not reached")
    assert reached == ["held"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.usefixtures("python_handlers")
def test_a_signal_is_the_running_commands_alone() -> None:
    """After the command that took it, or on another thread, no signal is pending: a genuine
    error there stays an error."""
    with signals_as_interrupts():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(10)
        except KeyboardInterrupt:
            pass
        assert type(pending()) is KeyboardInterrupt
        seen: list[object] = []
        other = threading.Thread(target=lambda: seen.append(pending()))
        other.start()
        other.join()
        assert seen == [None]
    assert pending() is None
    with pytest.raises(RuntimeError), errors_as_interrupts():
        raise RuntimeError("a genuine bug")


class _CutShort:
    """An object whose finalizer is where a Ctrl-C finds the program."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # the handler runs here: its KeyboardInterrupt cannot leave __del__


@pytest.mark.usefixtures("python_handlers")
def test_a_ctrl_c_python_could_not_raise_is_sent_again(capsys: pytest.CaptureFixture[str]) -> None:
    """Raised in a finalizer, the interrupt is "unraisable": Python printed it with its
    traceback and went on as if no Ctrl-C had come. While a command runs it is sent again,
    and raised where the program is next; nothing is printed."""
    reached = []
    with signals_as_interrupts(), pytest.raises(KeyboardInterrupt):
        doomed = _CutShort()
        del doomed
        reached.append("after the finalizer")
        for _ in range(100):
            time.sleep(0.05)  # interrupted here, 10 ms after the finalizer
        reached.append("not reached")
    assert reached == ["after the finalizer"]
    assert capsys.readouterr().err == ""

"""A Dask scheduler that is lost mid-study, or that is not a Dask scheduler at all, ends the
study in one line (docs/batch.md, *Exit codes*): exit 1 and --resume for a lost one, exit 2
for a wrong address. A study waited for ever on a lost scheduler's futures, and a web server
at the address held it for ever too."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sim.batch import study as study_module
from sim.batch.execution import executors
from sim.batch.inputs.target import load_target
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, StudyIncomplete, run_study
from tests.batch.helpers import STONE_WALL, invoke


class _Lost:
    """A Dask executor whose scheduler goes after ``after`` chunks were sent: the futures of
    the rest never end, and its client says it is closed (as distributed's does once it has
    failed to reconnect)."""

    def __init__(self, after: int) -> None:
        self._client = SimpleNamespace(status="running")
        self.after = after
        self.sent = 0

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.sent += 1
        if self.sent <= self.after:
            future.set_result(fn(*args))
        else:
            self._client.status = "closed"
        return future


def _lost_study(
    out: Path, monkeypatch: pytest.MonkeyPatch, after: int, replications: int, chunk_size: int
) -> str:
    """The stone wall study on a Dask executor whose scheduler goes after ``after`` chunks:
    the message of the StudyIncomplete it stops with."""
    lost = _Lost(after=after)

    @contextlib.contextmanager
    def dask(*_args: Any, **_kw: Any) -> Iterator[Any]:
        yield lost

    monkeypatch.setattr(study_module, "open_executor", dask)
    monkeypatch.setattr(study_module, "POLL_SECONDS", 0.05)
    plan = StudyPlan(
        load_target(STONE_WALL), seed=3, replications=replications, chunk_size=chunk_size
    )
    with pytest.raises(StudyIncomplete) as stopped:
        run_study(plan, out, RunOptions(jobs=1, plots=False))
    return str(stopped.value)


def test_a_study_whose_scheduler_is_lost_ends_incomplete_keeping_what_was_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The futures of a lost scheduler never end: the study asks the client every poll,
    stops with StudyIncomplete (exit 1, --resume) and keeps the chunks committed."""
    said = _lost_study(tmp_path / "s", monkeypatch, after=2, replications=8, chunk_size=2)
    assert said.startswith("the Dask scheduler was lost (the client is closed); the ")
    assert said.endswith("runs committed are kept: run the same command with --resume")


def test_a_scheduler_lost_before_any_commit_says_no_run_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scheduler lost before any chunk was committed said "the 0 runs committed are kept",
    where a Ctrl-C at the same moment says "no run is kept": it is worded as the Ctrl-C's."""
    out = tmp_path / "s"
    assert _lost_study(out, monkeypatch, after=0, replications=8, chunk_size=2) == (
        "the Dask scheduler was lost (the client is closed) before any chunk was committed: "
        "no run is kept — run the same command with --resume to start the study"
    )
    assert json.loads((out / "progress.json").read_text()) == {"committed": 0, "planned": 8}


def test_a_scheduler_lost_after_one_run_says_the_run_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One run committed is "the run committed is kept", not "the 1 runs"."""
    out = tmp_path / "s"
    assert _lost_study(out, monkeypatch, after=1, replications=4, chunk_size=1) == (
        "the Dask scheduler was lost (the client is closed); the run committed is kept: "
        "run the same command with --resume"
    )
    assert json.loads((out / "progress.json").read_text()) == {"committed": 1, "planned": 4}


class _Cancelling(_Lost):
    """As a real Dask client the moment it loses its scheduler: it cancels every future it
    has not finished (distributed's executor passes the cancellation on) and tries to
    reconnect, its status ``connecting``: not yet closed, so not yet :func:`lost`."""

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        future = super().submit(fn, *args)
        if not future.done():
            self._client.status = "connecting"
            future.cancel()
            future.set_running_or_notify_cancel()  # as distributed's does: wait() sees it
        return future


def test_chunks_a_lost_client_cancelled_are_not_a_complete_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The study took a cancelled future for one of its own (a stopped point's) and dropped
    its chunk: with a real scheduler killed as the last chunks were out, ``batch`` printed
    "Point 0 (base): 0 runs", wrote progress.json ``finished`` with 0 of 4 committed and
    exited 0. A chunk cancelled by the executor ends the study incomplete (exit 1)."""
    lost = _Cancelling(after=2)

    @contextlib.contextmanager
    def dask(*_args: Any, **_kw: Any) -> Iterator[Any]:
        yield lost

    monkeypatch.setattr(study_module, "open_executor", dask)
    out = tmp_path / "s"
    plan = StudyPlan(load_target(STONE_WALL), seed=3, replications=8, chunk_size=2)
    with pytest.raises(StudyIncomplete) as stopped:
        run_study(plan, out, RunOptions(jobs=2, plots=False))
    assert str(stopped.value) == (
        "the connection to the Dask scheduler was lost (the chunks in flight were cancelled); "
        "the 4 runs committed are kept: run the same command with --resume"
    )
    assert json.loads((out / "progress.json").read_text()) == {"committed": 4, "planned": 8}
    assert not (out / "summary.json").exists()


@contextlib.contextmanager
def _server(greeting: bytes) -> Iterator[int]:
    """A TCP server on a free local port that accepts and says ``greeting`` (or nothing),
    then holds the connection: no Dask scheduler."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = listener.accept()
                held.append(conn)
                if greeting:
                    conn.sendall(greeting)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        for conn in held:
            conn.close()


@pytest.mark.parametrize(
    ("greeting", "said"),
    [
        (b"", "no Dask scheduler answered in 1 s (is it a Dask scheduler's address, not its "
              "dashboard's?)"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "what answered is not a Dask scheduler (MemoryError)"),
    ],
)  # fmt: skip
def test_an_address_where_no_dask_scheduler_answers_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, greeting: bytes, said: str
) -> None:
    """A server that never answers (a web server, the dashboard's port) held the study for
    ever; one that speaks first (SSH) was read as a message 3 EiB long and said "input too
    large for memory". Both are one line naming the address, exit 2, no study made."""
    monkeypatch.setattr(executors, "CONNECT_SECONDS", 1.0)
    out = tmp_path / "s"
    with _server(greeting) as port:
        address = f"tcp://127.0.0.1:{port}"
        result = invoke("batch", STONE_WALL, "--runs", "2", "--out", out, "--executor", "dask",
                        "--scheduler", address, "-q", "--no-plots")  # fmt: skip
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr == (
        f"battlesim: error: --scheduler {address}: cannot reach the Dask scheduler: {said}\n"
    )
    assert not (out / "study.duckdb").exists()


@contextlib.contextmanager
def _dask_scheduler(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A real Dask scheduler, no worker: its address and its process."""
    file = tmp_path / "scheduler.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--scheduler-file", str(file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not file.exists() or not file.read_text().strip():
            assert process.poll() is None and time.monotonic() < deadline, "no scheduler"
            time.sleep(0.1)
        yield json.loads(file.read_text())["address"], process
    finally:
        process.kill()
        process.wait()


def test_a_real_scheduler_lost_mid_study_is_the_study_s_one_line_and_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A real scheduler killed while the study waits on its futures (the power fails on the
    cluster): the client's lost connection logged tornado's ``CommClosedError`` traceback,
    "Failed to reconnect to scheduler" and ``concurrent.futures``' ``ClosedClientError``
    traceback, some eighty lines on stderr before the study's one line. Now stderr holds
    that line alone."""
    pytest.importorskip("distributed")
    monkeypatch.setattr(executors, "CLIENT_TIMEOUT", "1s")
    monkeypatch.setattr(study_module, "POLL_SECONDS", 0.2)
    with _dask_scheduler(tmp_path) as (address, process):
        wait = study_module._Runner._wait

        def power_cut_then_wait(self: Any, *args: Any) -> Any:
            process.kill()  # the study's first wait: its futures are out by then
            return wait(self, *args)

        monkeypatch.setattr(study_module._Runner, "_wait", power_cut_then_wait)
        result = invoke("batch", STONE_WALL, "--runs", "4", "--chunk-size", "1", "--out",
                        tmp_path / "s", "--executor", "dask", "--scheduler", address, "-q",
                        "--no-plots")  # fmt: skip
        process.wait()
    assert result.exit_code == 1, result.output
    assert result.stderr in {
        f"battlesim: error: {why} before any chunk was committed: no run is kept — run the same "
        "command with --resume to start the study\n"
        for why in (
            # as the client cancels its futures, or once it has closed
            "the connection to the Dask scheduler was lost (the chunks in flight were cancelled)",
            "the Dask scheduler was lost (the client is closed)",
        )
    }
    captured = capfd.readouterr()
    assert captured.err == "", captured.err


def test_what_dask_logs_of_a_lost_scheduler_is_not_printed_while_a_study_runs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A real scheduler killed under a ``batch --scheduler`` study with workers: besides the
    study's one line, stderr held tornado's ``CommClosedError`` traceback, the client's
    failed reconnection (a ``CancelledError`` raised while handling a ``CommClosedError``),
    "Failed to reconnect to scheduler" and ``concurrent.futures``' ``ClosedClientError``
    traceback: 36 to 80 lines. While the study's client is open, none of them is printed."""
    distributed = pytest.importorskip("distributed")
    closed = distributed.comm.core.CommClosedError
    with _dask_scheduler(tmp_path) as (address, _process):
        caplog.clear()
        with executors.open_executor("dask", 1, address):
            for name, exc in [
                ("tornado.application", closed("in <TCP (closed)>: Stream is closed")),
                ("concurrent.futures", distributed.client.ClosedClientError("closed")),
            ]:
                try:
                    raise exc
                except Exception:
                    logging.getLogger(name).exception("Exception in callback")
            try:
                try:
                    raise closed("Connection refused")
                except OSError:
                    raise asyncio.CancelledError from None
            except asyncio.CancelledError:
                logging.getLogger("distributed.client").exception("")
            logging.getLogger("distributed.client").error(
                "Failed to reconnect to scheduler after %.2f seconds, closing client", 10.0
            )
            logging.getLogger("distributed.client").error("another error")
            logged = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= 40]
    assert logged == [("distributed.client", "another error")]

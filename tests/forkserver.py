"""``battlesim`` for the tests: a process forked from one that has already imported battlesim.

A real ``battlesim`` spends about 0.5 s of CPU starting (Python, pydantic,
the rulesets) before a 0.02 s battle.  The tests run hundreds of commands
(every README and docs example), so :func:`battlesim_script` hands them a
stand-in: a small ``battlesim`` script that starts without ``site``
(``python -I -S``, a few ms) and asks a *fork server* to run the command.
The server is a fresh Python, one per test process, started with that
process's environment; it imports battlesim's lean modules (no thread is
started: fork after threads is unsafe) — and, with the first command that
needs them (a study's), NumPy, SciPy, DuckDB and matplotlib's figure and Agg
canvas, whose BLAS libraries' threads a throwaway fork shuts down (each
command's process starts them again, as many, when it first needs them, as a
real command does) — and then, for each command, forks:

* a keeper, which forks the command's process and reports its exit status
  (a number, or the signal that ended it) back to the stand-in, which exits
  the same way;
* the command's process, which takes the stand-in's stdin, stdout and stderr
  (passed over a Unix socket), its argv, working directory, environment,
  umask and resource limits, builds ``sys.stdin``/``stdout``/``stderr`` as
  Python's start-up would, and runs the console script's own code as ``__main__``; at the end
  it waits for threads, runs ``atexit`` handlers and flushes, as an exiting
  interpreter does.

A command that may start a local worker pool (``batch``, ``study``,
``calibrate``, or any ``--jobs``) first makes the server start
multiprocessing's forkserver, once, with the worker module and the same
modules preloaded; every later command's pool forks its workers from that
one instead of booting its own (about 0.35 CPU s a command). A command whose
umask or resource limits are not the server's boots its own, as a real one
does, since its workers would otherwise get the server's.

What a command prints and its exit code are therefore the real script's.
What Python reads only when it starts (``PYTHON*`` variables such as
``PYTHONHASHSEED``, the locale, ``BATTLESIM_CHECK_LINES``, the temp folder)
cannot change after the fork, so the stand-in runs the real script
(``exec``) whenever those differ from the server's; it does so too when
the server is gone.  Tests of start-up itself (imports, a lean install),
signals and the console script keep calling the real script.

``BATTLESIM_TEST_SUBPROCESS=1`` turns the stand-in off: every command is a
real process (``tests/cli/test_forkserver.py`` checks both give the same).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.machinery
import io
import json
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["REAL", "battlesim_script", "bin_dir", "stand_in", "startup_key", "stats"]

REAL = Path(sys.executable).parent / "battlesim"
"""The installed console script."""
ROOT = Path(__file__).resolve().parent.parent

_LIMITS = tuple(n for n in dir(resource) if n.startswith("RLIMIT_"))
"""The resource limits a caller's stand-in hands on (``preexec_fn=setrlimit`` in a test)."""
_STARTUP_NAMES = ("LANG", "LANGUAGE", "TMPDIR", "TEMP", "TMP", "HOME", "XDG_CACHE_HOME")
_STARTUP_PREFIXES = (
    "PYTHON",
    "BATTLESIM_",
    "LC_",
    # read when the preloaded NumPy, its BLAS libraries and matplotlib are imported
    "OPENBLAS_",
    "OMP_",
    "GOTO",
    "MKL_",
    "NPY_",
    "NUMPY_",
    "MPL",
)


def startup_key(env: dict[str, str] | os._Environ[str]) -> str:
    """The environment Python and battlesim read as they start or import (one string)."""
    picked = {
        k: v
        for k, v in env.items()
        if (k in _STARTUP_NAMES or k.startswith(_STARTUP_PREFIXES)) and k != "BATTLESIM_TEST_FORKED"
    }
    return json.dumps(sorted(picked.items()))


# --- the test process's side -----------------------------------------------------------


class _Server:
    """A running fork server and its stand-in script."""

    def __init__(self, env: dict[str, str], python: str) -> None:
        self.owner = os.getpid()
        self.folder = Path(tempfile.mkdtemp(prefix="battlesim-fork-"))
        self.socket = self.folder / "s"
        self.stats = self.folder / "stats.jsonl"
        self.key = startup_key(env)
        ready = self.folder / "ready"
        self.process = subprocess.Popen(
            [python, str(Path(__file__).resolve()), str(self.socket), str(ready)],
            stdin=subprocess.PIPE,  # the server ends when this closes (the test process ended)
            cwd=ROOT,
            env=env,
        )
        (self.folder / "bin").mkdir()
        self.script = self.folder / "bin" / "battlesim"
        self.script.write_text(
            _STAND_IN.format(
                python=python,
                socket=str(self.socket),
                key=self.key,
                real=str(Path(python).parent / "battlesim"),
                prefixes=_STARTUP_PREFIXES,
                limits=_LIMITS,
                names=_STARTUP_NAMES,
            ),
            encoding="utf-8",
        )
        self.script.chmod(0o755)
        atexit.register(self.stop)
        while not ready.exists() and self.process.poll() is None:
            time.sleep(0.01)  # the stand-in runs the real script until the server listens

    def stop(self) -> None:
        """End the server (its stdin closes) and remove its folder (not from a forked child)."""
        if os.getpid() != self.owner:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


_servers: dict[tuple[str, str], _Server] = {}
"""The running servers, by the Python they run and :func:`startup_key`."""


def battlesim_script(env: dict[str, str] | None = None) -> Path:
    """The ``battlesim`` the tests run with ``env`` (default: this process's environment):
    the forking stand-in of a server started with that environment, or the real script
    when ``BATTLESIM_TEST_SUBPROCESS=1``."""
    if os.environ.get("BATTLESIM_TEST_SUBPROCESS") == "1" or not REAL.exists():
        return REAL
    return stand_in(env)


def stand_in(env: dict[str, str] | None = None, python: str | None = None) -> Path:
    """The forking stand-in for ``env`` (default: this process's), whatever
    ``BATTLESIM_TEST_SUBPROCESS`` says: its server is started on first use.

    ``python`` (default: this one) is the interpreter of another environment with
    battlesim installed (a fresh venv's ``bin/python``): its server imports that
    environment's battlesim, and the stand-in runs that environment's console script
    (``battlesim`` beside it) when it cannot ask the server."""
    env = dict(os.environ if env is None else env)
    python = sys.executable if python is None else python
    key = (python, startup_key(env))
    server = _servers.get(key)
    if server is None or server.process.poll() is not None:
        server = _servers[key] = _Server(env, python)
    return server.script


def bin_dir(env: dict[str, str] | None = None) -> Path:
    """A folder whose ``battlesim`` is :func:`battlesim_script` (put it first on ``PATH``)."""
    return battlesim_script(env).parent


def stats() -> list[dict[str, Any]]:
    """What the servers ran so far: one row per command (argv, exit status, CPU seconds), in
    the order the commands ended (``at``), so a caller's newest rows are the last even when
    it has more than one server (an earlier server's row would otherwise come before a
    later server's older ones, and ``stats()[before:]`` would name another command)."""
    rows: list[dict[str, Any]] = []
    for server in _servers.values():
        if server.stats.exists():
            text = server.stats.read_text(encoding="utf-8")
            rows += [json.loads(line) for line in text.splitlines() if line.endswith("}")]
    rows.sort(key=lambda row: row.get("at", 0))  # stable: one server's rows keep their order
    return rows


_STAND_IN = """#!{python} -IS
# battlesim for the tests: runs the command in the fork server (tests/forkserver.py)
import json, os, resource, signal, socket, sys

REAL = {real!r}


def real():
    os.execv(REAL, [REAL, *sys.argv[1:]])


env = dict(os.environ)
picked = {{k: v for k, v in env.items()
          if (k in {names!r} or k.startswith({prefixes!r})) and k != "BATTLESIM_TEST_FORKED"}}
if json.dumps(sorted(picked.items())) != {key!r}:
    real()
try:
    umask = os.umask(0o022)
    os.umask(umask)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.connect({socket!r})
    limits = {{n: resource.getrlimit(getattr(resource, n)) for n in {limits!r}}}
    body = json.dumps(
        {{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": env, "umask": umask,
          "limits": limits}}
    ).encode()
    socket.send_fds(server, [len(body).to_bytes(8, "big")], [0, 1, 2])
    server.sendall(body)
except OSError:
    real()


def read(n):
    got = b""
    while len(got) < n:
        part = server.recv(n - len(got))
        if not part:
            return None
        got += part
    return int.from_bytes(got, "big")


pid = read(4)
if pid is None:
    real()  # the server could not start it: nothing ran yet
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
            signal.SIGUSR2):
    signal.signal(sig, lambda n, _f: os.kill(pid, n))
status = read(4)
if status is None:
    sys.stderr.write("battlesim (tests/forkserver.py): the fork server lost the command\\n")
    os._exit(70)
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
os._exit(os.waitstatus_to_exitcode(status))
"""


# --- the server's side ------------------------------------------------------------------

_HEAVY = frozenset(
    [
        "numpy",
        "scipy",
        "duckdb",
        "pandas",
        "pyarrow",
        "matplotlib",
        "dask",
        "distributed",
        "sklearn",
        "optuna",
        "statsmodels",
        "SALib",
        "playwright",
    ]
)


_PRELOADED_HEAVY = (
    "numpy",
    "scipy.special",
    "scipy.stats",
    "duckdb",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
    "matplotlib.ticker",
)
"""Heavy modules a study's plots, tables and statistics import that leave no thread running
after a fork (:func:`_preload_heavy`). pyarrow, pandas and SALib keep one (pyarrow's
jemalloc background thread), so each command imports them itself, as a real one does."""


def _preload_heavy() -> None:
    """Import :data:`_PRELOADED_HEAVY`, then fork once and let the child exit at once.

    NumPy's and SciPy's BLAS libraries (OpenBLAS) start their worker threads as they are
    loaded, and shut them down before any fork (their ``pthread_atfork`` handler); a process
    forked later starts them again, as many as before, when it first needs them. So after
    the throwaway fork this server holds no thread but its own (the server checks), and
    each command's process has the BLAS threads a real command's has, started as late.
    """
    from importlib import import_module

    for name in _PRELOADED_HEAVY:
        import_module(name)
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def _preload() -> list[str]:
    """Import what most commands need: the CLI, its command modules, the API, replay tools
    and the built-in rulesets; nothing heavy, and no thread may start.  The names imported
    (a worker pool's server preloads them too).  The heavy modules come later, with the
    first command that needs them (:data:`_HEAVY_COMMANDS`, :func:`_preload_heavy`)."""
    from importlib import import_module

    from sim.cli.main import COMMANDS
    from sim.contract.registry import BUILTIN

    names = [v.split(":")[0] for v in COMMANDS.values()]
    names += ["sim.api", "sim.replay.verify", "sim.replay.diff", "sim.replay.fork"]
    names += [v.split(":")[0] for v in BUILTIN.values()]
    names += ["logging", "structlog"]  # every command that runs configures its logging
    for name in names:
        import_module(name)
    _check_preloaded(allowed=set())
    return names


def _check_preloaded(allowed: set[str]) -> None:
    """Exit unless only ``allowed`` heavy packages are imported and one thread runs."""
    heavy = sorted((_HEAVY - allowed) & {m.split(".")[0] for m in sys.modules})
    threads = os.listdir("/proc/self/task") if os.path.isdir("/proc/self/task") else ["1"]
    if heavy or threading.active_count() != 1 or len(threads) != 1:
        raise SystemExit(f"forkserver: preloading imported {heavy} or started threads")


_HEAVY_COMMANDS = frozenset(
    {"batch", "study", "calibrate", "discover", "history", "report", "export", "rerun"}
)
"""Commands that import what :func:`_preload_heavy` preloads (a study's plots, statistics
and store): the first of them makes the server preload it, once. The others never need it,
and a server that runs none of them stays lean (a fork of a larger process costs more)."""


# --- one worker-pool server for the commands ----------------------------------------------

_POOLED = frozenset({"batch", "study", "calibrate"})
"""Commands that start a pool of worker processes unless told ``--jobs 1`` (``history``
fights on one worker unless told ``--jobs``)."""


def _wants_pool(argv: list[str]) -> bool:
    """Whether a command may start a local worker pool (its first word, or a --jobs)."""
    return bool(argv) and (argv[0] in _POOLED or any(a.startswith(("--jobs", "-j")) for a in argv))


def _boot_pool_server(names: list[str]) -> int | None:
    """Start multiprocessing's forkserver here, in the fork server, once, with the worker
    module and ``names`` preloaded; its pid (None where there is no forkserver).

    A command's local pool (``--jobs 2``, sim.batch.execution.executors) forks its workers
    from multiprocessing's forkserver, a fresh interpreter (with its resource tracker) that
    imports the worker module, and each worker then the rulesets, before it fights: about
    0.35 s of CPU a command saved here (8 stand-in ``batch --runs 20 --jobs 2``: 9.3 -> 6.5 s
    with this server's start). Started here it is started once per fork server, and every command
    forked after shares it (:func:`_share_pool_server`): its workers are forked from it as
    they would be from the command's own, run the same code on the same chunks (a study's
    bytes are the same for any ``--jobs``, and tests prove that with real pools), and leave
    when the command's process is gone (the executor's own parent watch). No thread starts.
    """
    from multiprocessing import forkserver

    from sim.batch.execution.executors import mp_context, preloaded, start_forkserver

    ctx = mp_context()
    if ctx.get_start_method() != "forkserver":
        return None
    ctx.set_forkserver_preload(preloaded(*names))
    start_forkserver()  # as boot_workers starts it: not on this folder's path, SIGINT held
    pid: int | None = forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]
    return pid


def _share_pool_server(request: dict[str, Any], umask: int, limits: dict[str, Any]) -> None:
    """In a command's process: use the fork server's multiprocessing forkserver, when the
    command's umask and resource limits are the server's (a worker has its server's, not
    the command's); else forget it, so that the command starts its own, as a real one does.
    Either way the inherited one is never waited for here (it is not this process's child:
    multiprocessing's own check, ``os.waitpid``, would raise)."""
    from multiprocessing import forkserver, resource_tracker

    server: Any = forkserver._forkserver
    shared = server._forkserver_pid
    if shared is None:
        return
    same = request["umask"] == umask and all(
        tuple(limit) == limits[name] for name, limit in request["limits"].items()
    )
    original = type(server).ensure_running.__get__(server)

    def ensure_running() -> None:
        with server._lock:
            if server._forkserver_pid == shared:
                alive = same
                if alive:
                    try:
                        os.kill(shared, 0)
                    except OSError:
                        alive = False
                if alive:
                    resource_tracker.ensure_running()
                    return
                server._forkserver_pid = None  # start our own, as a real command would
                server._forkserver_address = None
                server._forkserver_alive_fd = None
        original()

    server.ensure_running = ensure_running
    forkserver.ensure_running = ensure_running


def _serve(path: str, ready: str) -> None:
    """Accept commands until stdin closes; fork a keeper for each; then remove the folder."""
    try:
        _accept(path, ready)
    finally:
        shutil.rmtree(Path(path).parent, ignore_errors=True)  # its test process may not


def _accept(path: str, ready: str) -> None:
    sys.path[0] = str(REAL.parent)  # as the console script's own sys.path
    names = _preload()
    heavy_loaded = False
    pool: list[int | None] = []
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    usage = os.times()
    row = {"argv": ["(the server's start-up)"], "status": 0}
    row["cpu"] = round(usage.user + usage.system, 4)
    with open(Path(path).parent / "stats.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
    Path(ready).touch()
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in readable and not os.read(sys.stdin.fileno(), 1024):
            return
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass  # keepers that ended
        if listener in readable:
            conn, _ = listener.accept()
            try:
                request, fds = _receive(conn)
            except (OSError, EOFError, ValueError):
                conn.close()  # the stand-in gave up: it runs the real script
                continue
            argv = request["argv"]
            if not heavy_loaded and argv and argv[0] in _HEAVY_COMMANDS:
                _preload_heavy()
                _check_preloaded(allowed={n.split(".")[0] for n in _PRELOADED_HEAVY})
                heavy_loaded = True
            if not pool and _wants_pool(request["argv"]):
                try:
                    pool.append(_boot_pool_server(names))
                except Exception:  # the commands start their own, as real ones do
                    traceback.print_exc()
                    pool.append(None)
            if os.fork() == 0:
                _keep(listener, conn, request, fds, Path(path).parent / "stats.jsonl")
            for fd in fds:
                os.close(fd)
            conn.close()


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    head, fds, _, _ = socket.recv_fds(conn, 8, 3)
    while len(head) < 8:
        head += conn.recv(8 - len(head))
    size = int.from_bytes(head, "big")
    body = b""
    while len(body) < size:
        part = conn.recv(size - len(body))
        if not part:
            raise EOFError
        body += part
    request: dict[str, Any] = json.loads(body)
    return request, fds


def _keep(
    listener: socket.socket,
    conn: socket.socket,
    request: dict[str, Any],
    fds: list[int],
    stats: Path,
) -> NoReturn:
    """The keeper: fork the command, tell the stand-in its pid, then how it ended."""
    try:
        listener.close()
        pid = os.fork()
        if pid == 0:
            conn_fd = conn.detach()
            _command(request, fds, [conn_fd, sys.stdin.fileno()])
        for fd in fds:
            os.close(fd)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the command has it; report its end
        conn.sendall(pid.to_bytes(4, "big"))
        ended = os.pidfd_open(pid)
        while True:
            readable = select.select([ended, conn.fileno()], [], [])[0]
            if ended in readable:
                break
            if not conn.recv(1):
                os.kill(pid, signal.SIGKILL)  # the stand-in is gone: so is the command
                break
        _, status, usage = os.wait4(pid, 0)
        row = {"argv": request["argv"], "status": status}
        row["cpu"] = round(usage.ru_utime + usage.ru_stime, 4)
        row["at"] = time.monotonic_ns()  # one clock for every process of the machine (Linux)
        with open(stats, "a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")  # before the stand-in ends: counted in its test
        with contextlib.suppress(OSError):
            conn.sendall(status.to_bytes(4, "big"))
    finally:
        os._exit(0)


def _stream(fd: int, like: Any, mode: str) -> io.TextIOWrapper:
    """A text stream on ``fd`` made as Python's start-up makes ``like`` (sys.std*)."""
    raw = io.FileIO(fd, mode, closefd=False)
    raw.name = like.buffer.name if isinstance(like.buffer, io.FileIO) else like.buffer.raw.name
    buffered = not isinstance(like.buffer, io.FileIO)
    buffer: Any = raw
    if buffered:
        buffer = io.BufferedReader(raw) if mode == "rb" else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        buffer,
        encoding=like.encoding,
        errors=like.errors,
        newline="\n",  # POSIX start-up: no newline translation, stdin too
        line_buffering=buffered and (fd == 2 or raw.isatty()),
        write_through=like.write_through,
    )


def _command(request: dict[str, Any], fds: list[int], close: list[int]) -> NoReturn:
    """The command's process: take the stand-in's place, run the console script, exit."""
    status = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in {*fds, *close}:
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        umask = os.umask(request["umask"])
        limits = {n: resource.getrlimit(getattr(resource, n)) for n in request["limits"]}
        _share_pool_server(request, umask, limits)
        for name, limit in request["limits"].items():
            if resource.getrlimit(getattr(resource, name)) != tuple(limit):
                resource.setrlimit(getattr(resource, name), tuple(limit))
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, name, mode in ((0, "stdin", "rb"), (1, "stdout", "wb"), (2, "stderr", "wb")):
            stream = _stream(fd, getattr(sys, f"__{name}__"), mode)
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)  # as start-up leaves them: the same object
        script = str(REAL)
        sys.argv = [script, *request["argv"]]
        sys.orig_argv = [sys.executable, script, *request["argv"]]
        main = types.ModuleType("__main__")
        main.__file__ = script
        main.__dict__["__cached__"] = None
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
        main.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = main
        code = compile(Path(script).read_text(encoding="utf-8"), script, "exec")
        try:
            exec(code, main.__dict__)
            status = 0
        except SystemExit as exc:
            status = _exit_code(exc)
        except KeyboardInterrupt as exc:
            _print_uncaught(exc)
            _finish()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException as exc:
            _print_uncaught(exc)
            status = 1
        status = _finish(status)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(status)


def _exit_code(exc: SystemExit) -> int:
    """The exit status an interpreter gives ``SystemExit(code)``."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def _print_uncaught(exc: BaseException) -> None:
    """Print as the interpreter would: the traceback from the script's frame down."""
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    sys.excepthook(type(exc), exc, tb)


def _finish(status: int = 0) -> int:
    """What an interpreter does on its way out: join threads, atexit, flush stdout/stderr."""
    threading._shutdown()  # type: ignore[attr-defined]  # the interpreter's own step
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception as exc:  # as Py_Finalize reports it
            if stream is sys.stdout:
                status = 120
                with contextlib.suppress(Exception):
                    sys.stderr.write(f"Exception ignored in: {stream!r}\n")
                    sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
                    sys.stderr.flush()
    return status


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2])

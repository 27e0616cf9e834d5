"""Executors that run chunks: in this process, local processes, or Dask.

Every executor is a :class:`concurrent.futures.Executor`, so the study loop
does not know which it has:

* ``local`` with one job: :class:`InlineExecutor`, in this process;
* ``local`` with more: a ``ProcessPoolExecutor`` whose multiprocessing
  context is chosen here, when the pool is made — ``forkserver`` where the
  platform has it (safe after threads have started, e.g. DuckDB's), else
  ``spawn``; the start method is never set globally or at import;
* ``dask``: ``Client(...).get_executor()`` on a ``LocalCluster`` of
  ``jobs`` single-threaded worker processes, or on the cluster at
  ``scheduler`` (workers need battlesim installed).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from importlib import import_module
from multiprocessing import forkserver, resource_tracker
from typing import Any, Literal, ParamSpec, TypeVar

from sim.batch.execution.signals import interrupts_deferred

__all__ = [
    "CONNECT_SECONDS",
    "POLL_SECONDS",
    "ExecutorError",
    "InlineExecutor",
    "boot_workers",
    "default_jobs",
    "forget_safe_path",
    "lost",
    "may_be_lost",
    "mp_context",
    "open_executor",
    "preloaded",
    "safe_path",
    "start_forkserver",
]

P = ParamSpec("P")
T = TypeVar("T")


class ExecutorError(RuntimeError):
    """An executor that cannot be started (Dask missing, scheduler unreachable)."""


class InlineExecutor(Executor):
    """Runs each task at once, in this process (``--jobs 1``: no pickling, no pool)."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # the future carries it, as a pool's would
            future.set_exception(exc)
        return future


def default_jobs() -> int:
    """The CPUs this process may use (all cores by default)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


JOBS_PER_CPU = 4


def max_jobs() -> int:
    """Most worker processes a study may ask for: a few per CPU (more only thrash)."""
    return JOBS_PER_CPU * max(default_jobs(), 2)


def mp_context() -> multiprocessing.context.BaseContext:
    """``forkserver`` (with the worker module preloaded) where available, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(preloaded())
        return ctx
    return multiprocessing.get_context("spawn")


def preloaded(*names: str) -> list[str]:
    """What a pool's forkserver imports as it starts: the worker module, ``names``, and last
    :mod:`sim.batch.execution.unblock`, which unblocks SIGINT (:func:`start_forkserver`)."""
    return ["sim.batch.execution.worker", *names, "sim.batch.execution.unblock"]


def start_forkserver() -> None:
    """Start this process's multiprocessing forkserver if it is not running: without the
    working directory on its path (:func:`safe_path`), and with SIGINT blocked while it
    imports :func:`preloaded` (:func:`_sigint_blocked`), which unblocks it at the end."""
    with safe_path(), _start_method_kept():
        # first, as the server needs it: starting it unblocks SIGINT (Python 3.11)
        resource_tracker.ensure_running()
        with _sigint_blocked():
            forkserver.ensure_running()


@contextlib.contextmanager
def _start_method_kept() -> Iterator[None]:
    """Leave multiprocessing's default start method as unset as it was: starting the
    forkserver asks ``get_start_method()``, which fixes the default for the process (a
    notebook's later ``set_start_method`` would fail: docs/batch.md, *Executors*)."""
    default = getattr(multiprocessing.context, "_default_context", None)
    before = getattr(default, "_actual_context", None)
    try:
        yield
    finally:
        if default is not None and before is None:
            default._actual_context = None


SAFE_PATH = "PYTHONSAFEPATH"
"""Python's variable (3.11+) that keeps the working directory off a new interpreter's
``sys.path``; :func:`safe_path` sets it while battlesim starts worker processes."""

SET_BY = "BATTLESIM_SAFE_PATH_BY"
"""The pid of the process whose :func:`safe_path` set :data:`SAFE_PATH` (a worker drops
both: :func:`forget_safe_path`)."""

_SAFE_LOCK = threading.Lock()
_safe_users = 0
"""How many :func:`safe_path` blocks are open in this process (studies on threads overlap)."""
_safe_before: str | None = None
"""What :data:`SAFE_PATH` was before this process set it."""


def _forked_child() -> None:
    """A forked child has none of its parent's blocks open (nor its lock held)."""
    global _SAFE_LOCK, _safe_users  # noqa: PLW0603 - the process's own, reset in the child
    _SAFE_LOCK = threading.Lock()
    _safe_users = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked_child)


def _ours() -> bool:
    return os.environ.get(SET_BY) == str(os.getpid())


def _put_back() -> None:
    """:data:`SAFE_PATH` as it was before this process set it (if it did), then
    :data:`SET_BY` gone — in that order, so an interrupted call leaves it to the next."""
    if not _ours():
        return
    if os.environ.get(SAFE_PATH) == "1":
        if _safe_before is None:
            del os.environ[SAFE_PATH]
        else:
            os.environ[SAFE_PATH] = _safe_before
    del os.environ[SET_BY]


@contextmanager
def safe_path() -> Iterator[None]:
    """While this lasts, an interpreter started from this process does not look for modules
    in its working directory (``PYTHONSAFEPATH=1``, the ``-P`` flag); after the last open
    block ends the variable is as it was, unless something else has changed it since.

    multiprocessing starts its forkserver, and ``spawn`` its workers, as ``python -c ...``,
    which puts the working directory first on ``sys.path`` — and the forkserver imports
    the worker module (``sim``, NumPy, ...) before anything else, ignoring the path it is
    handed (Python 3.11). So a study run in a folder holding a ``sim`` package, a
    ``numpy.py`` or a ``multiprocessing`` folder ran that code in its pool's server: a
    folder a user received is data, never code. Dask's local workers are spawned the same
    way. Blocks may overlap (two studies on threads): the variable is set by the first and
    put back by the last. A user's own non-empty value is left alone. What this process
    set is marked (:data:`SET_BY`, its pid, written first and removed last), so a block
    interrupted half-way (Ctrl-C) is finished by the next one. Under ``python -E`` (no
    ``PYTHON*`` variable is read, and multiprocessing passes ``-E`` on) the variable does
    nothing: run battlesim's Python with ``-P`` or ``-I`` instead.
    """
    global _safe_users, _safe_before  # noqa: PLW0603 - one environment a process
    counted = False
    try:
        with _SAFE_LOCK:
            if _safe_users == 0:
                if _ours():  # left by an interrupted block: still ours
                    os.environ[SAFE_PATH] = "1"
                elif not os.environ.get(SAFE_PATH):
                    _safe_before = os.environ.get(SAFE_PATH)
                    os.environ[SET_BY] = str(os.getpid())
                    os.environ[SAFE_PATH] = "1"
            _safe_users += 1
            counted = True
        yield
    finally:
        with _SAFE_LOCK:
            if counted:
                _safe_users -= 1
            if _safe_users == 0:
                _put_back()


def forget_safe_path() -> None:
    """In a process started under another process's :func:`safe_path` (a pool's forkserver
    or worker, a Dask worker): drop the variable, once this interpreter has started with
    it. The forkserver outlives the study, and a notebook's own pool forks its workers from
    the same one: they should find modules beside their scripts as usual. Called when the
    worker module is imported; nothing happens in the process that set it, nor while a
    block of this process's own is open."""
    by = os.environ.get(SET_BY)
    if by is None or by == str(os.getpid()) or _safe_users:
        return
    del os.environ[SET_BY]
    if os.environ.get(SAFE_PATH) == "1":
        del os.environ[SAFE_PATH]


def boot_workers(kind: Literal["local", "dask"], jobs: int) -> None:
    """Start booting a local pool's forkserver now, if a study will need one.

    The server is a fresh interpreter that imports the worker module (about
    half a second of CPU) before it forks a worker. Booted early — by the
    CLI as soon as its flags are checked, and again (a no-op then) when the
    pool is made — it boots while the study's own process imports DuckDB and
    creates its database, instead of after the first chunk is submitted. It
    is started without the working directory on its path (:func:`safe_path`).
    """
    if kind != "local" or jobs < 2:
        return
    if mp_context().get_start_method() == "forkserver":
        start_forkserver()


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Meanwhile, SIGINT is blocked in this thread: the forkserver started inside boots with
    it blocked, as multiprocessing starts its resource tracker.

    The server ignores Ctrl-C once it is up, but only after it has imported the worker
    module (half a second): a Ctrl-C in that time ended it with a ``KeyboardInterrupt``
    traceback after the study's own line. Blocked, the signal waits, and the last module
    the server imports drops it and unblocks SIGINT (:mod:`sim.batch.execution.unblock`),
    so that no process it forks inherits the block. This process loses nothing: a Ctrl-C
    meanwhile is taken by another of its threads, or waits until the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


_stopping = False
"""In a pool's worker: a Ctrl-C has come, so no further task is started."""

_busy = False
"""In a pool's worker: a task is running."""


def _worker_interrupted(signum: int, frame: object) -> None:
    """A pool worker's SIGINT: it stops the task running, if any, and every later one.

    A terminal's Ctrl-C reaches the whole process group, the workers too. Raised while a
    task runs, the interrupt ends it as any error does (a kept replay's temporary file is
    removed) and its future carries it; between tasks, waiting on the pool's queue, it
    is ignored, where it printed a ``KeyboardInterrupt`` traceback from every idle worker
    after the study's own line (and could leave the queue's lock held). The tasks already
    queued for the worker then end at once (:class:`_Task`), so the command's process,
    closing the pool, does not wait for them.
    """
    del signum, frame
    global _stopping, _busy  # noqa: PLW0603 - this worker process's own
    _stopping = True
    if _busy:
        _busy = False  # now, in case the task's own clearing is what this cuts short
        raise KeyboardInterrupt


class _Task:
    """A task as a pool's worker runs it: marked as running (:func:`_worker_interrupted`),
    and not started at all once the worker has been interrupted."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        global _busy  # noqa: PLW0603 - this worker process's own
        if _stopping:
            raise KeyboardInterrupt
        _busy = True
        try:
            return self.fn(*args, **kwargs)
        finally:
            _busy = False


class _Pool(ProcessPoolExecutor):
    """A process pool whose workers stop at Ctrl-C without a word (:func:`_worker_interrupted`),
    and whose ``submit`` is never cut in half by one (:func:`interrupts_deferred`)."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        with interrupts_deferred():
            return super().submit(_Task(fn), *args, **kwargs)


def _interrupt_workers(pool: ProcessPoolExecutor) -> None:
    """Send each live worker of ``pool`` a SIGINT, as a terminal's Ctrl-C does: the command
    is ending (an interrupt, SIGTERM to its process alone, an error), so the tasks its
    workers are running and those queued for them stop instead of running to their end.
    The pool keeps its processes in a private attribute; without it nothing is sent."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive() and process.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGINT)


class _QuietInterrupt:
    """A pool worker's ``sys.unraisablehook``: after a Ctrl-C, the interrupt raised where
    Python cannot raise one (a finalizer, a callback from C, such as a regular expression
    compiled for a model's field) is dropped, where Python printed it as "Exception ignored
    in …" with its traceback. The task then runs on; the command's process, ending, sends
    the worker another SIGINT (:func:`_interrupt_workers`), and the tasks queued after it
    end at once. Anything else goes to the hook that was there."""

    def __init__(self, hook: Callable[[Any], object]) -> None:
        self.hook = hook

    def __call__(self, unraisable: Any) -> None:
        global _busy  # noqa: PLW0603 - this worker process's own
        if _stopping and isinstance(unraisable.exc_value, KeyboardInterrupt):
            _busy = True  # raised inside the task, which did not stop: it still runs
            return
        self.hook(unraisable)


def _exit_with(parent: int, ignore_sigint: bool = False) -> None:
    """Worker initializer: leave when the study's process is gone; a Ctrl-C stops the
    worker's tasks without a traceback (:func:`_worker_interrupted`), unless the command's
    process ignores Ctrl-C (``ignore_sigint``: a shell's ``cmd &`` starts it so), when its
    workers ignore it too.

    A pool's workers wait on its queue forever; if the study's process is
    killed (SIGKILL, power cut of a login node) nothing would end them.
    """
    sys.unraisablehook = _QuietInterrupt(sys.unraisablehook)
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_sigint else _worker_interrupted)
    if hasattr(signal, "pthread_sigmask"):  # a server started by another's code may block it
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)

    threading.Thread(target=watch, name="battlesim-parent-watch", daemon=True).start()


class _CancelledQuiet(logging.Filter):
    """Drops tornado's log of a Dask future the study cancelled (a chunk of a point that
    stopped, or every chunk in flight at Ctrl-C): ``distributed``'s executor passes the
    cancellation on in a callback, which tornado logs with its traceback ("Exception in
    callback … FutureCancelledError") after the study's own one line. Any other record
    passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, CancelledError)  # distributed's FutureCancelledError is one


class _ForgottenQuiet(logging.Filter):
    """Drops the scheduler's ``Couldn't gather keys: {…: 'forgotten'}``: a result asked for
    of a chunk the study had just cancelled (Ctrl-C, a point that stopped), which the
    scheduler has forgotten, as it should. A key in any other state still logs."""

    _STATE = re.compile(r": '(\w+)'")

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if not text.startswith("Couldn't gather keys"):
            return True
        states = self._STATE.findall(text)
        return not states or any(state != "forgotten" for state in states)


class _HeartbeatQuiet(logging.Filter):
    """Drops a local cluster's worker's ``Failed to communicate with scheduler during
    heartbeat.`` and its traceback: the scheduler is this study's own, in this process, and
    closes as the study ends (Ctrl-C, a finished study), so a heartbeat the worker sent just
    then finds it gone. Seen after the study's one line on a loaded machine. Any other record
    of the worker passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to communicate with scheduler")


class _LostQuiet(logging.Filter):
    """Drops what ``distributed`` logs as the connection to a ``--scheduler`` it lost goes:
    tornado's "Exception in callback" with a ``CommClosedError`` traceback, the client's
    failed reconnection (its ``CancelledError`` raised while handling a ``CommClosedError``,
    then "Failed to reconnect to scheduler"), and ``concurrent.futures``' "exception calling
    callback" with a ``ClosedClientError`` traceback as the closed client cancels its
    futures. Eighty lines of them came before the study's own one line (*the Dask scheduler
    was lost …*, exit 1), which says all of it. Any other record passes."""

    _CLOSED = ("CommClosedError", "StreamClosedError", "ClosedClientError")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        seen = 0
        while exc is not None and seen < 20:  # the exception and what it was raised from
            if type(exc).__name__ in self._CLOSED:
                return False
            exc = exc.__cause__ or exc.__context__
            seen += 1
        return not record.getMessage().startswith("Failed to reconnect to scheduler")


_LOST_LOGS = ("tornado.application", "distributed.client", "concurrent.futures")
"""The loggers :class:`_LostQuiet` is on while a study's Dask client is open."""


def _close(client: Any, cluster: Any, tornado_log: logging.Logger) -> None:
    """Close a study's Dask client, and its local cluster if any."""
    level = tornado_log.level
    tornado_log.setLevel(logging.CRITICAL)  # closing: a connection's end is no error
    try:
        client.close()
        if cluster is not None:
            cluster.close()
    finally:
        tornado_log.setLevel(level)


@contextmanager
def _lost_quiet() -> Iterator[None]:
    """:class:`_LostQuiet` on :data:`_LOST_LOGS` inside."""
    gone = _LostQuiet()
    for name in _LOST_LOGS:
        logging.getLogger(name).addFilter(gone)
    try:
        yield
    finally:
        for name in _LOST_LOGS:
            logging.getLogger(name).removeFilter(gone)


def _quiet_heartbeats() -> int:
    """Run in each worker of a local cluster (``Client.run``): its log drops what
    :class:`_HeartbeatQuiet` drops. Returns the worker's pid (the caller checks every worker
    ran it)."""
    worker_log = logging.getLogger("distributed.worker")
    if not any(isinstance(f, _HeartbeatQuiet) for f in worker_log.filters):
        worker_log.addFilter(_HeartbeatQuiet())
    return os.getpid()


@contextmanager
def _children_ignore_sigint() -> Iterator[None]:
    """Processes started inside ignore Ctrl-C: this process handles it and closes them.

    A local Dask cluster's Nannies and workers are in the terminal's process group, so
    Ctrl-C reached each of them too and each printed its own ``KeyboardInterrupt``
    traceback before the study's one line. An ignored SIGINT is inherited across
    ``exec`` and Python then installs no handler for it, so the Nannies (spawned) and
    the workers they start (and restart) ignore it; this process's handler is put back
    as soon as they are up. Only the main thread may change a handler: elsewhere (a
    notebook's thread) nothing is changed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _dask(jobs: int, scheduler: str | None) -> Iterator[Executor]:
    with _private_scratch(scheduler is None) as scratch, _dask_in(jobs, scheduler, scratch) as ex:
        yield ex


@contextmanager
def _private_scratch(local: bool) -> Iterator[str | None]:
    """A local cluster's scratch space (its workspaces' lock files, spilled data) in a fresh
    folder of this process's own, removed at the end; None for a remote scheduler.

    By default every Dask server (the scheduler, each Nanny and worker) works in the fixed,
    shared ``/tmp/dask-scratch-space``, and opens its lock files there following links: a
    link another user planted at ``global.lock`` had a study empty the file it named.
    """
    if not local:
        yield None
        return
    scratch = tempfile.mkdtemp(prefix="battlesim-dask-")  # 0700, a name nobody chose
    try:
        try:
            import dask.config  # noqa: PLC0415  # an optional extra, as distributed is
        except ImportError:  # _dask_in says what to install
            yield scratch
            return
        with dask.config.set({"temporary-directory": scratch}):  # the workers inherit it
            yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextmanager
def _dask_in(jobs: int, scheduler: str | None, scratch: str | None) -> Iterator[Executor]:
    try:
        # Dask is an optional extra, and untyped: reach it through Any.
        distributed: Any = import_module("distributed")
    except ImportError:
        raise ExecutorError("--executor dask needs Dask: pip install 'battlesim[dask]'") from None
    cluster: Any = None
    before = dict(os.environ)
    set_by_cluster: dict[str, str] | None = None
    try:
        try:
            if scheduler is None:
                # a scheduler's HTTP server takes port 8787 when it can, and says so on stderr
                # when another has it (a notebook's cluster): a study's own needs no fixed port
                with _children_ignore_sigint(), warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message=r"Port \d+ is already in use")
                    cluster = distributed.LocalCluster(
                        n_workers=jobs,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.ERROR,
                        local_directory=scratch,
                    )
                # each Nanny sets its workers' variables in this process's environment
                set_by_cluster = _set_since(before)
                client = distributed.Client(cluster)
                client.run(_quiet_heartbeats)  # the study's own workers: not a --scheduler's
            else:
                client = _client_of(distributed, scheduler)
        except (OSError, TimeoutError, ValueError) as exc:  # ValueError: not an address
            if cluster is not None:
                cluster.close()
            if scheduler is None:
                raise ExecutorError(f"cannot start a local Dask cluster: {exc}") from None
            raise ExecutorError(
                f"--scheduler {scheduler}: cannot reach the Dask scheduler: {exc}"
            ) from None
        quiet = _CancelledQuiet()
        tornado_log = logging.getLogger("tornado.application")
        tornado_log.addFilter(quiet)
        forgotten = _ForgottenQuiet()
        scheduler_log = logging.getLogger("distributed.scheduler")
        scheduler_log.addFilter(forgotten)
        try:
            with _lost_quiet():  # as the client closes too: it ends a lost one's reconnecting
                try:
                    yield client.get_executor(pure=False)
                finally:
                    _close(client, cluster, tornado_log)
        finally:
            tornado_log.removeFilter(quiet)
            scheduler_log.removeFilter(forgotten)
    finally:
        if scheduler is None:  # also when the cluster or its client failed to start
            _restore(before, _set_since(before) if set_by_cluster is None else set_by_cluster)


CONNECT_SECONDS = 15.0
"""How long a ``--scheduler`` may take to answer as a Dask scheduler (Dask's own 10 s covers
the connection, not the handshake after it: an HTTP server there held a study for ever)."""


CLIENT_TIMEOUT = "10s"
"""Dask's timeout for the client's connection: to make it, and to make it again once lost
(after which the client closes, and the study says the scheduler was lost)."""


def _client_of(distributed: Any, scheduler: str) -> Any:
    """A Dask client of the scheduler at ``scheduler``, made within :data:`CONNECT_SECONDS`.

    Raises:
        TimeoutError: nothing answered as a Dask scheduler in time (a web server, say).
        OSError: the connection failed, or what answered is no Dask scheduler (an SSH
            server's banner read as a message's length: Dask's ``MemoryError``).
        ValueError: ``scheduler`` is not an address.
    """
    made: list[Any] = []
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            made.append(distributed.Client(scheduler, timeout=CLIENT_TIMEOUT))
        except BaseException as exc:  # re-raised in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=connect, name="battlesim-dask-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS)
    if thread.is_alive():
        raise TimeoutError(
            f"no Dask scheduler answered in {CONNECT_SECONDS:g} s (is it a Dask scheduler's "
            "address, not its dashboard's?)"
        )
    if failed:
        exc = failed[0]
        if isinstance(exc, OSError | TimeoutError | ValueError):
            raise exc
        raise OSError(f"what answered is not a Dask scheduler ({type(exc).__name__})") from exc
    return made[0]


def may_be_lost(executor: Executor) -> bool:
    """Whether ``executor`` can lose what runs its work without a future saying so (a Dask
    client: :func:`lost` is to be asked while its futures are awaited)."""
    return hasattr(executor, "_client")  # distributed's ClientExecutor


def lost(executor: Executor) -> str | None:
    """Why ``executor`` can run nothing more, or None: a Dask client whose scheduler has
    gone (it closes itself once it fails to reconnect, and its futures never end)."""
    client = getattr(executor, "_client", None)  # distributed's ClientExecutor
    status = getattr(client, "status", None)
    if status in ("closing", "closed", "failed"):
        return f"the Dask scheduler was lost (the client is {status})"
    return None


POLL_SECONDS = 2.0
"""How often a study on Dask asks whether its scheduler is still there, while it waits."""


def _set_since(before: dict[str, str]) -> dict[str, str]:
    """The environment variables set or changed since ``before``, with their values now."""
    return {k: v for k, v in os.environ.items() if before.get(k) != v}


def _restore(before: dict[str, str], set_by_cluster: dict[str, str]) -> None:
    """Undo what a local cluster's Nannies set in this process's environment.

    A ``LocalCluster`` of worker processes sets ``OMP_NUM_THREADS=1`` (and MKL's and
    OpenBLAS's), ``MALLOC_TRIM_THRESHOLD_`` and ``PYTHONHASHSEED`` in the *calling*
    process's ``os.environ`` before it starts each worker, and leaves them there: a
    notebook that ran a Dask study would start every later process with one BLAS
    thread.  Each variable it set goes back to what it was, unless something else has
    changed it since.
    """
    for name, value in set_by_cluster.items():
        if os.environ.get(name) != value:
            continue
        if name in before:
            os.environ[name] = before[name]
        else:
            del os.environ[name]


@contextmanager
def open_executor(
    kind: Literal["local", "dask"] = "local", jobs: int = 1, scheduler: str | None = None
) -> Iterator[Executor]:
    """An executor for ``jobs`` workers, shut down (pending work cancelled) on exit.

    Raises:
        ExecutorError: Dask is not installed or its scheduler cannot be reached.
    """
    with _start_method_kept():  # each worker a pool starts asks for the default start method
        yield from _executor(kind, jobs, scheduler)


def _executor(
    kind: Literal["local", "dask"], jobs: int, scheduler: str | None
) -> Iterator[Executor]:
    """:func:`open_executor`'s body."""
    if kind == "dask":
        # distributed's in-process scheduler draws from the random module: the caller's
        # stream (a notebook's random.seed) is left where it was
        state = random.getstate()
        try:
            with safe_path(), _dask(jobs, scheduler) as ex:  # a local cluster spawns workers
                yield ex
        finally:
            random.setstate(state)
        return
    if jobs == 1:
        yield InlineExecutor()
        return
    ctx = mp_context()
    boot_workers("local", jobs)
    # a pool starts its workers as chunks are submitted (spawn: fresh interpreters)
    with safe_path():
        if os.name == "posix":
            pool: ProcessPoolExecutor = _Pool(
                max_workers=jobs,
                mp_context=ctx,
                initializer=_exit_with,
                initargs=(os.getpid(), signal.getsignal(signal.SIGINT) is signal.SIG_IGN),
            )
        else:  # os.kill(pid, 0) probes a process on POSIX; on Windows it would end it
            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
        try:
            yield pool
        except BaseException:
            if os.name == "posix":
                _interrupt_workers(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

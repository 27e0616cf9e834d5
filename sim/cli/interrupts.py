"""Ctrl-C and SIGTERM while a command runs, remembered so that an error a library made of one
still ends the command as that signal does.

While a command runs, SIGINT raises :class:`KeyboardInterrupt` (Python's own behaviour) and
SIGTERM raises :class:`Terminated`, and each is noted. A library that checks for signals
inside its own code may turn the interrupt into an error of its own: DuckDB, interrupted in
the middle of a statement, raises ``duckdb.InterruptException`` or a ``RuntimeError`` ("Query
interrupted"), and the next statement of a transaction it aborted fails with "Current
transaction is aborted". Read as errors, those would end a study interrupted at a commit with
exit 2 and a line about the database; :func:`pending` gives the interrupt that came instead,
and the command ends as it does for any other Ctrl-C (exit 130, 143, or a study's one line
of what it kept).

Light on purpose: the root group imports it before every command.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

__all__ = ["Terminated", "errors_as_interrupts", "pending", "signals_as_interrupts"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, so that it ends as Ctrl-C does.

    Every writer removes what it had not finished (a replay's ``.partial``,
    a report's temporary file) on any exception, this one included.
    """


_received: list[int] = []
"""The signals that came while a command ran, in order (this process's own)."""

_active: list[bool] = [False]
"""Whether a command's :func:`signals_as_interrupts` is open (on the main thread)."""


def _interrupted(signum: int, frame: FrameType | None) -> None:
    del frame
    _received.append(signum)
    raise KeyboardInterrupt


def _terminated(signum: int, frame: FrameType | None) -> None:
    del frame
    _received.append(signum)
    raise Terminated


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Meanwhile, SIGINT raises :class:`KeyboardInterrupt` and SIGTERM :class:`Terminated`,
    and each is noted for :func:`pending`.

    A handler someone else installed stays (a host program's own, or SIGINT ignored, as a
    shell's ``cmd &`` starts it); only the main thread may change one, so on another thread
    (a notebook's) nothing changes and nothing is noted.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    _active[0] = True
    installed: list[tuple[signal.Signals, Any]] = []
    chosen: tuple[tuple[signal.Signals, Any, Callable[[int, FrameType | None], None]], ...] = (
        (signal.SIGINT, signal.default_int_handler, _interrupted),
        (signal.SIGTERM, signal.SIG_DFL, _terminated),
    )
    for signum, default, handler in chosen:
        previous = signal.getsignal(signum)
        if previous is default:
            signal.signal(signum, handler)
            installed.append((signum, previous))
    hook = sys.unraisablehook
    sys.unraisablehook = _Redeliver(hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for signum, previous in installed:
            signal.signal(signum, previous)
        _active[0] = False
        _received.clear()  # no later command (another thread's, the same process's) reads it


class _Redeliver:
    """``sys.unraisablehook`` while a command runs: an interrupt of ours that Python could
    not raise where the signal found the program (a finalizer, a callback from C code) is
    sent again a moment later, instead of being printed as "Exception ignored in …" with
    its traceback and lost, the command running on as if no Ctrl-C had come. Anything
    else goes to the hook that was there."""

    def __init__(self, hook: Callable[[Any], object]) -> None:
        self.hook = hook

    def __call__(self, unraisable: Any) -> None:
        if _active[0] and _received and isinstance(unraisable.exc_value, KeyboardInterrupt):
            again = threading.Timer(0.01, os.kill, (os.getpid(), _received[-1]))
            again.daemon = True
            again.start()
            return
        self.hook(unraisable)


def pending() -> KeyboardInterrupt | None:
    """The interrupt a signal that came while the command ran stands for, or None: a
    :class:`Terminated` for SIGTERM, a :class:`KeyboardInterrupt` for Ctrl-C (the first to
    come decides)."""
    if not _active[0] or threading.current_thread() is not threading.main_thread():
        return None  # a signal is this process's main thread's, while a command runs there
    if not _received:
        return None
    return Terminated() if _received[0] == signal.SIGTERM else KeyboardInterrupt()


@contextlib.contextmanager
def errors_as_interrupts() -> Iterator[None]:
    """Meanwhile, an error raised once a signal has come is raised as that signal's
    interrupt (:func:`pending`), for a command that says something of its own when
    interrupted (a study: what it kept). Any other error passes as it is."""
    try:
        yield
    except Exception as exc:
        interrupt = pending()
        if interrupt is None:
            raise
        raise interrupt from exc

"""Imported last by a pool's forkserver as it starts (its preload): SIGINT, blocked while
the server imported the worker module, is unblocked again.

The command's process starts the server with SIGINT blocked, so that a Ctrl-C during its
half-second of imports cannot end it with a ``KeyboardInterrupt`` traceback
(:func:`sim.batch.execution.executors.boot_workers`); the server ignores SIGINT once it is
up. A process inherits its parent's blocked signals, also across ``exec``: left blocked,
every worker of every pool the server forks — a notebook's own pool too, since a process
has one forkserver — and every program those workers run would never see a Ctrl-C.
Here the signal is first ignored, which drops one that came meanwhile (POSIX discards a
pending signal whose action is set to ignore), then unblocked, then given back to Python's
handler, which the server records and restores in each child it forks.
"""

from __future__ import annotations

import signal

__all__: list[str] = []

if hasattr(signal, "pthread_sigmask") and signal.SIGINT in signal.pthread_sigmask(
    signal.SIG_BLOCK, set()
):
    handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if handler is not None:
        signal.signal(signal.SIGINT, handler)

"""A Ctrl-C held back while something must not be cut in half, then taken as if it came then.

Python raises ``KeyboardInterrupt`` at whatever bytecode runs when SIGINT comes. Two places
cannot take it: ``ProcessPoolExecutor.submit`` while it starts a worker
(:mod:`sim.batch.execution.executors`), and DuckDB's import, whose C++ initialisation turns
a Python exception raised in code it calls into one nothing catches, so the process aborts
(SIGABRT) after printing the traceback (:mod:`sim.batch.storage.duck`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["sigint_deferred"]


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Meanwhile, a Ctrl-C waits, and is taken at the end as if it came then (once).

    ``ProcessPoolExecutor.submit`` starts a worker (forkserver: hands it the pool's queues,
    whose semaphores it opens by name) and updates the pool's books under a lock; an
    interrupt half-way left a worker the pool did not know of, which failed with a
    ``FileNotFoundError`` traceback once this process had gone and its semaphores with it.
    Only the main thread may change a handler: elsewhere, and where SIGINT is not handled
    by a Python function (ignored, or left to the system), nothing is deferred.
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    came: list[tuple[int, Any]] = []
    signal.signal(signal.SIGINT, lambda signum, frame: came.append((signum, frame)))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if came:
            previous(*came[0])

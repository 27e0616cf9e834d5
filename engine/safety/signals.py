"""A Ctrl-C (or SIGTERM) held back while something must not be cut in half, then taken as if
it came then.

Python raises ``KeyboardInterrupt`` at whatever bytecode runs when SIGINT comes. Places
that cannot take it: ``ProcessPoolExecutor.submit`` while it starts a worker
(:mod:`sim.batch.execution.executors`); DuckDB's import, whose C++ initialisation turns
a Python exception raised in code it calls into one nothing catches, so the process aborts
(SIGABRT) after printing the traceback (:mod:`sim.batch.storage.duck`); and the renames
that put a set of files in place (:func:`engine.safety.atomic.exporting_together`: a
campaign's replays and its ``campaign.json``, an export's tables), cut after the first.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["interrupts_deferred"]

_HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Meanwhile, a Ctrl-C or SIGTERM waits, and is taken at the end as if it came then
    (the first to come, once); a second one meanwhile is taken at once, so a block that
    stalls (a forkserver that does not answer) still ends at a second Ctrl-C.

    ``ProcessPoolExecutor.submit`` starts a worker (forkserver: hands it the pool's queues,
    whose semaphores it opens by name) and updates the pool's books under a lock; an
    interrupt half-way left a worker the pool did not know of, which failed with a
    ``FileNotFoundError`` traceback once this process had gone and its semaphores with it.
    Only the main thread may change a handler: elsewhere nothing is deferred, nor a signal
    not handled by a Python function (ignored, or left to the system).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[tuple[int, Any]] = []
    previous: dict[int, Callable[[int, Any], Any]] = {}

    def hold(signum: int, frame: Any) -> None:
        came.append((signum, frame))
        if len(came) > 1:  # insisted on: now, by the first one's handler, and only now
            first = came[0]
            came.clear()
            _put_back(previous)
            previous[first[0]](*first)

    for signum in _HELD:
        handler = signal.getsignal(signum)
        if callable(handler):
            previous[signum] = handler
            signal.signal(signum, hold)
    try:
        yield
    finally:
        _put_back(previous)
        if came:
            previous[came[0][0]](*came[0])


def _put_back(previous: dict[int, Callable[[int, Any], Any]]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)

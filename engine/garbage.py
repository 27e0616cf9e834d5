"""A process's cyclic garbage, collected at a bounded share of its CPU.

The kernel keeps a run's setup out of the cyclic GC while the run lasts
(:func:`engine.kernel.frozen_heap`) and hands it back at the end. What it
hands back goes straight to the oldest generation without counting towards
CPython's trigger for a full collection, so in a process that runs
simulation after simulation (a batch worker, a notebook, a loop over
``api.run``) no full collection comes and each run's setup cycles
(processes, generators) stay: a study's process grew by about 12 KiB a run
of a two-regiment battle (from 107 to 359 MiB over 16,000 runs).

A full collection walks the whole heap (tens of milliseconds), so it is not
run after every run: :data:`PACED`, checked by ``frozen_heap`` at the end of
every run (and by a batch worker after every chunk), collects once the CPU
the process has spent since the last collection reaches :data:`RATIO` times
what the cheapest collection so far cost, or :data:`FIRST_COST` if less (the
cheapest: a walk of the live heap without the freeing of much garbage,
which would otherwise stretch the interval the more garbage there is).
Collecting then costs at most about 1/RATIO of the process's CPU, and the
garbage held is what a few seconds of running leave (the first collection
comes after 5 s of CPU, before its cost is known). The CPU clock decides
only when memory is freed, never a result or an order.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PACED", "RATIO", "Collector"]

RATIO = 100.0
"""CPU spent between full collections, as a multiple of the cheapest one's cost."""

FIRST_COST = 0.05
"""The cost assumed before a collection has been measured, and the most assumed after
(a study's process with DuckDB and matplotlib loaded takes about that): collections
come at least every 5 s of CPU."""


@dataclass
class Collector:
    """Runs a full collection once ``ratio`` × the cheapest one's CPU has passed.

    Attributes:
        ratio: CPU between collections over the cheapest collection's CPU.
        clock: this process's CPU clock.
        collections: full collections run so far.
    """

    ratio: float = RATIO
    clock: Callable[[], float] = time.process_time
    collections: int = 0
    _since: float | None = None
    _cost: float = FIRST_COST

    def check(self) -> None:
        """Collect if enough CPU has passed since the last collection (or the first check)."""
        now = self.clock()
        if self._since is None:
            self._since = now
            return
        if now - self._since < self.ratio * self._cost:
            return
        gc.collect()
        self.collections += 1
        self._since = self.clock()
        self._cost = min(self._cost, self._since - now)


PACED = Collector()
"""The process's collector: ``frozen_heap`` checks it at the end of every run."""

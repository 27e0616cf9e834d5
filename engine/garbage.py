"""A process's cyclic garbage, collected at a bounded share of its CPU.

The kernel keeps a run's setup out of the cyclic GC while the run lasts
(:func:`engine.kernel.frozen_heap`) and hands it back at the end. What it
hands back goes straight to the oldest generation without counting towards
CPython's trigger for a full collection, so in a process that runs
simulation after simulation (a batch worker, a notebook, a loop over
``api.run``) no full collection comes and each run's setup cycles
(processes, generators) stay: a study's process grew by about 12 KiB a run
of a two-regiment battle (from 107 to 359 MiB over 16,000 runs).

A full collection walks the whole heap, so it is not run after every run:
:data:`PACED`, checked by ``frozen_heap`` at the end of every run, collects
once the CPU the process has spent since the last collection reaches
:data:`RATIO` times the cheapest walk so far.  A collection's cost is the
walk of what stays plus the freeing of what it finds; freeing is paid
whenever it comes, so only the walk is the price of collecting more often,
and it is estimated as the collection's cost (with the count of what stayed)
times the share of the objects it visited that stayed (what it found
unreachable, against the tracked objects left).  The first collection comes
after :data:`FIRST_COST` × RATIO (5 s) of CPU, before any cost is known.
Walking then costs at most about 1/RATIO of the process's CPU: a pytest
process or a notebook with a large heap collects every few tens of seconds,
a study's worker with a small one every second or so, and the garbage held
is what that much running leaves.  The CPU clock decides only when memory is
freed, never a result or an order.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PACED", "RATIO", "Collector"]

RATIO = 100.0
"""CPU spent between full collections, as a multiple of the cheapest walk's cost."""

FIRST_COST = 0.05
"""The walk's cost assumed before a collection has been measured: the first comes after
5 s of CPU."""


@dataclass
class Collector:
    """Runs a full collection once ``ratio`` × the cheapest walk's CPU has passed.

    Attributes:
        ratio: CPU between collections over the cheapest walk's CPU.
        clock: this process's CPU clock.
        collections: full collections run so far.
    """

    ratio: float = RATIO
    clock: Callable[[], float] = time.process_time
    collections: int = 0
    _since: float | None = None
    _walk: float | None = None

    def check(self) -> None:
        """Collect if enough CPU has passed since the last collection (or the first check)."""
        now = self.clock()
        if self._since is None:
            self._since = now
            return
        walk = FIRST_COST if self._walk is None else self._walk
        if now - self._since < self.ratio * walk:
            return
        found = gc.collect()
        stayed = len(gc.get_objects())  # its count is part of what collecting costs
        self.collections += 1
        self._since = self.clock()
        cost = (self._since - now) * stayed / max(stayed + found, 1)
        self._walk = cost if self._walk is None else min(self._walk, cost)


PACED = Collector()
"""The process's collector: ``frozen_heap`` checks it at the end of every run."""

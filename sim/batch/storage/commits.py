"""Commit points: the chunks a study has committed, written to DuckDB together.

The study commits a point's chunks in order as they arrive; their rows wait
here until a commit point, and then go to the database in one transaction
(:meth:`sim.batch.storage.store.Store.commit`: one INSERT a table however many chunks).
Chunks are always written whole, so a killed study keeps every chunk of
every commit point it passed and nothing else.

A commit point comes:

* as soon as :attr:`CommitPoints.runs` runs wait (bounding the rows held);
* once rows have waited :attr:`CommitPoints.seconds` (monotonic clock) *and*
  the runs waiting cost their workers at least :attr:`CommitPoints.ratio`
  times the CPU of the cheapest commit point so far (:data:`FIRST_COST`
  before one is measured) — so a commit point's fixed cost (three INSERT
  statements and a transaction: about 5–10 ms of DuckDB, whatever the rows)
  is at most about 1/ratio of the work it writes, with one worker or many,
  on an idle or a loaded machine (where a wall-clock second holds less work);
* when the study ends or stops.

Clocks decide only when rows reach the database, never what they hold or
how they are read back (always ordered by their keys).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sim.batch.execution.digests import RunDigests
from sim.batch.execution.rows import ChunkRows
from sim.batch.storage.store import Store

__all__ = ["FIRST_COST", "RATIO", "CommitPoints"]

RATIO = 500.0
"""Work written at a commit point (the workers' CPU for its runs) over the cheapest
commit point's CPU: the fixed cost of committing stays under about 0.2 % of the work.

A typical commit point costs two to five times the cheapest (DuckDB's checkpoints,
the rows' own share), so commit points cost about 0.5–1 % of the work in all; at
200 they cost a --jobs 2 study's coordinator more than the rest of its work per run
together (benchmarks/study_cost.py)."""

FIRST_COST = 0.01
"""CPU seconds assumed for a commit point before one is measured (and the most assumed)."""


@dataclass
class CommitPoints:
    """Rows of committed chunks waiting for the next commit point.

    Attributes:
        store: the study's database.
        seconds: fewest seconds (monotonic clock) between commit points while work is
            light; 0 writes each chunk at once.
        runs: this many runs waiting make a commit point however soon.
        ratio: work waiting (CPU seconds) over the cheapest commit point's CPU that
            makes a commit point once ``seconds`` have passed.
        cpu: this process's CPU clock (what a commit point costs).
        clock: the monotonic clock.
        written: commit points written so far.
    """

    store: Store
    seconds: float
    runs: int
    ratio: float = RATIO
    cpu: Callable[[], float] = time.process_time
    clock: Callable[[], float] = time.monotonic
    written: int = 0
    _waiting: ChunkRows | None = None
    _count: int = 0
    """Runs waiting (kept as chunks come: counting a merged batch's runs walks its chunks)."""
    _digests: list[RunDigests] = field(default_factory=list)
    _since: float | None = None
    _cost: float = FIRST_COST

    def __post_init__(self) -> None:
        self._since = self.clock()

    @property
    def waiting(self) -> int:
        """Runs waiting for the next commit point."""
        return self._count

    @property
    def work(self) -> float:
        """CPU seconds the waiting runs cost their workers."""
        return 0.0 if self._waiting is None else self._waiting.cpu

    def add(self, rows: ChunkRows) -> None:
        """Keep a committed chunk's rows (and their digests) for the next commit point."""
        self._digests += self.store.digests(rows)
        self._count += len(rows)
        if self._waiting is None:
            runs, units = [list(c) for c in rows.runs], [list(c) for c in rows.units]
            self._waiting = ChunkRows(runs, units, cpu=rows.cpu, packed=list(rows.packed))
        else:
            self._waiting.extend(rows)

    def _elapsed(self) -> float:
        assert self._since is not None
        return self.clock() - self._since

    def due(self) -> bool:
        """Whether a commit point is due (see the module's docstring)."""
        if self._waiting is None:
            return False
        if self.waiting >= self.runs or self.seconds <= 0:
            return True
        return self._elapsed() >= self.seconds and self.work >= self.ratio * self._cost

    def left(self) -> float | None:
        """Seconds until the waiting rows are due if no other chunk comes; None: only a
        chunk can make them due (nothing waits, too little work, or no clock bound)."""
        if self._waiting is None or self.work < self.ratio * self._cost:
            return None
        if not math.isfinite(self.seconds):
            return None
        return max(0.0, self.seconds - self._elapsed())

    def write(self) -> int:
        """Write the waiting rows in one transaction; the number of runs written."""
        rows, self._waiting = self._waiting, None
        digests, self._digests = self._digests, []
        self._count = 0
        self._since = self.clock()
        if rows is None:
            return 0
        start = self.cpu()
        self.store.commit(rows, digests)
        self._cost = min(self._cost, self.cpu() - start)
        self.written += 1
        return len(rows)

"""Commit points: the chunks a study has committed, written to DuckDB together.

The study commits a point's chunks in order as they arrive; their rows wait
here until a commit point — :attr:`seconds` after the last one, or as soon
as :attr:`runs` runs wait, or when the study ends or stops — and then go to
the database in one transaction (:meth:`sim.batch.store.Store.commit`: two
INSERTs however many chunks). Chunks are always written whole, so a killed
study keeps every chunk of every commit point it passed and nothing else.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from sim.batch.rows import ChunkRows
from sim.batch.store import Store

__all__ = ["CommitPoints"]


@dataclass
class CommitPoints:
    """Rows of committed chunks waiting for the next commit point.

    Attributes:
        store: the study's database.
        seconds: most seconds (monotonic clock) a chunk's rows wait; 0 writes each chunk at once.
        runs: this many runs waiting make a commit point however soon.
    """

    store: Store
    seconds: float
    runs: int
    _waiting: ChunkRows | None = None
    _since: float = field(default_factory=time.monotonic)

    @property
    def waiting(self) -> int:
        """Runs waiting for the next commit point."""
        return 0 if self._waiting is None else len(self._waiting)

    def add(self, rows: ChunkRows) -> None:
        """Keep a committed chunk's rows for the next commit point."""
        if self._waiting is None:
            self._waiting = ChunkRows([list(c) for c in rows.runs], [list(c) for c in rows.units])
        else:
            self._waiting.extend(rows)

    def due(self) -> bool:
        """Whether a commit point is due: enough runs wait, or long enough since the last."""
        if self._waiting is None:
            return False
        return self.waiting >= self.runs or time.monotonic() - self._since >= self.seconds

    def left(self) -> float | None:
        """Seconds until the waiting rows are due (None: nothing waits, or no clock bound)."""
        if self._waiting is None or not math.isfinite(self.seconds):
            return None
        return max(0.0, self.seconds - (time.monotonic() - self._since))

    def write(self) -> int:
        """Write the waiting rows in one transaction; the number of runs written."""
        rows, self._waiting = self._waiting, None
        self._since = time.monotonic()
        if rows is None:
            return 0
        self.store.commit(rows)
        return len(rows)

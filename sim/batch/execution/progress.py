"""A one-line progress bar on a terminal: runs done, runs per second, time left.

Shown only when the stream is a terminal (and not ``--quiet``); redrawn at
most ten times a second. Wall-clock time is used for display only and never
reaches the results.
"""

from __future__ import annotations

import time
from typing import TextIO

__all__ = ["ProgressBar"]

_WIDTH = 28


def _clock(seconds: float) -> str:
    s = int(seconds)
    return (
        f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class ProgressBar:
    """Draws ``[#####-----] 1,234/5,000 runs  312.5 runs/s  ETA 0:12`` on ``stream``."""

    def __init__(self, stream: TextIO, label: str = "runs") -> None:
        self.stream = stream
        self.label = label
        self._start: tuple[float, int] | None = None
        self._base: tuple[float, int] | None = None
        self._done = 0
        self._last_draw = 0.0
        self._drawn = False
        self._finished = False

    def __call__(self, done: int, total: int) -> None:
        """Update to ``done`` of ``total`` runs.

        Two counts may feed it (a study's runs fought, chunk by chunk, and its
        runs committed, which lag them): the bar never goes back. The rate is
        measured from the first chunk done onwards, so the workers' start-up
        and the runs a resumed study already had do not count; until a second
        update comes after that, from the first update. Once every run is done the bar is
        drawn once more and then left: the counts that lag it, and the study's end, add no
        runs, and would only draw the same line again at a falling rate.
        """
        now = time.monotonic()
        done = max(done, self._done)
        self._done = done
        if self._start is None:
            self._start = (now, done)
        elif self._base is None and done > self._start[1]:
            self._base = (now, done)  # the first chunk in: the workers are up
        if (now - self._last_draw < 0.1 and done < total) or self._finished:
            return  # a finished bar stays as it finished: later updates add no runs
        self._finished = done >= total
        self._last_draw = now
        self.stream.write("\r" + self.line(done, total, now))
        self.stream.flush()
        self._drawn = True

    def line(self, done: int, total: int, now: float) -> str:
        """The bar's text for ``done`` of ``total`` at monotonic time ``now``."""
        fraction = done / total if total else 1.0
        filled = round(_WIDTH * fraction)
        start, first = self._base or self._start or (now, done)
        if done <= first and self._start is not None:  # nothing since the first chunk yet
            start, first = self._start
        elapsed = now - start
        rate = (done - first) / elapsed if elapsed > 0 and done > first else 0.0
        eta = f"ETA {_clock((total - done) / rate)}" if rate > 0 and done < total else ""
        return (
            f"[{'#' * filled}{'-' * (_WIDTH - filled)}] {done:,}/{total:,} {self.label}"
            f"  {rate:,.1f} {self.label}/s  {eta}".rstrip()
            + "   "
        )

    def close(self) -> None:
        """End the bar's line."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()

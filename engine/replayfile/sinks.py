"""Where the event log's lines go: a file, a list, or nowhere.

:class:`engine.log.EventLog` hands each sink its lines in order, one call a
line, without the newline: as text, or as UTF-8 bytes to a sink whose
``takes_bytes`` is true (and, to one whose ``takes_events`` is true too,
each event line with its event: ``write_event(line, event)``, which
``verify``'s comparing sink uses).  :class:`FileSink` writes a replay file,
:class:`MemorySink` keeps the lines, :class:`DiscardSink` is told of each
line the log did not build (a discarding sink whose ``takes_events`` is true
is handed each event instead, with ``b""`` for its line).
"""

from __future__ import annotations

import contextlib
import gzip
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, ClassVar, Protocol

from engine.safety.atomic import (
    check_target,
    claim_partial,
    commit,
    named_as_given,
    partial_path,
)

__all__ = ["DiscardSink", "FileSink", "MemorySink", "Sink"]


class Sink(Protocol):
    """Where log lines go."""

    def write(self, line: str) -> None:
        """Store one line (no trailing newline)."""

    def flush(self) -> None:
        """Make what was written durable enough to survive a crash of this process."""

    def close(self) -> None:
        """Release the sink."""


class DiscardSink:
    """A sink whose lines nobody reads: the log skips serialising and hashing them.

    For runs whose outcome is wanted and whose replay is not (a batch study
    that keeps no replays).  Events are still stamped and applied exactly
    as they are for a file, so the outcome is the same; the recorder also
    skips the state digests and snapshots only a reader would look at.
    """

    discards = True
    """Read by :class:`EventLog`: no line is built for this sink."""

    def __init__(self) -> None:
        self.count = 0
        """Events the log passed on (lines it did not build)."""

    def write(self, line: str) -> None:
        self.count += 1

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class MemorySink:
    """Keeps lines in a list; for tests, batch workers and re-simulation."""

    takes_bytes = True
    """Read by :class:`EventLog`: lines may come as UTF-8 bytes (kept as text)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    @property
    def count(self) -> int:
        """Lines written so far."""
        return len(self.lines)

    def write(self, line: str | bytes) -> None:
        self.lines.append(line.decode() if isinstance(line, bytes) else line)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class FileSink:
    """Writes lines to ``<path>.partial``; :meth:`close` renames it to ``path``.

    The final name is untouched until the replay is complete (an old
    replay there survives any failure).  Lines are kept in memory until
    :meth:`flush` (the log's, once a turn) or until they pass
    :data:`BUFFER` bytes, then written in one call; :meth:`flush` pushes
    them to the OS, so a run killed mid-battle leaves a readable prefix under
    ``<path>.partial``, which the reader reports as incomplete.  The
    partial file is created afresh (:func:`engine.safety.atomic.claim_partial`: a
    killed run's leftover is removed first, a planted link or hard link is
    refused, never written through) and locked while written: a second
    writer of the same path is refused.

    Args:
        path: the final replay path.
        compress: gzip the file (default: when ``path`` ends in ``.gz``).

    Raises:
        OSError: the folder is not writable, or another process is
            writing the same replay (``BlockingIOError``).
    """

    BUFFER: ClassVar[int] = 1 << 20
    """Bytes of lines held before they are written without waiting for a flush."""
    takes_bytes = True
    """Read by :class:`EventLog`: lines may come as UTF-8 bytes."""

    def __init__(self, path: str | os.PathLike[str], *, compress: bool | None = None) -> None:
        self.path = Path(path)
        self.partial = partial_path(self.path)
        check_target(self.path)
        fd = claim_partial(self.path)
        self._file: IO[bytes] = os.fdopen(fd, "wb")
        self._fh: IO[bytes] | gzip.GzipFile = self._file
        if compress if compress is not None else self.path.suffix == ".gz":
            # No file name and mtime 0 in the gzip header: the bytes are a
            # function of the content alone.
            self._fh = gzip.GzipFile(filename="", mode="wb", fileobj=self._file, mtime=0)
        self._lines: list[bytes] = []
        self._held = 0
        self._done = False
        self.count = 0
        """Lines written so far."""

    def __enter__(self) -> FileSink:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        """On any exception (Ctrl-C, SIGTERM as :class:`KeyboardInterrupt`) abandon the file."""
        if kind is not None:
            self.abandon()

    def write(self, line: str | bytes) -> None:
        """Store one line (no trailing newline): text, or its UTF-8 bytes."""
        data = line if isinstance(line, bytes) else line.encode()
        self.count += 1
        self._lines.append(data)
        self._held += len(data)
        if self._held > self.BUFFER:
            self._spill()

    def _spill(self) -> None:
        """Write the held lines, each with its newline, in one call."""
        lines = self._lines
        lines.append(b"")
        self._lines, self._held = [], 0
        with self._naming():
            self._fh.write(b"\n".join(lines))

    @contextlib.contextmanager
    def _naming(self) -> Iterator[None]:
        """A write's error (a full disk) names no file itself, a rename's names
        ``<path>.partial``, battlesim's own name: each names the replay's path instead
        (:func:`engine.safety.atomic.named_as_given`)."""
        try:
            yield
        except OSError as exc:
            named_as_given(exc, self.path)
            raise

    def flush(self) -> None:
        if self._lines:
            self._spill()
        with self._naming():
            self._fh.flush()

    def close(self) -> None:
        """Finish the file and rename it to its final name."""
        self.finish()
        with self._naming():
            commit(self.partial, self.path)
        self._done = True

    def finish(self) -> None:
        """Write out and close ``<path>.partial`` (a gzip stream ended) without renaming it,
        for a caller that reads it back first: :meth:`close` then renames it, or
        :meth:`abandon` removes it. Nothing is done the second time."""
        if self._fh.closed:
            return
        if self._lines:
            self._spill()
        with self._naming():
            self._fh.close()
            self._file.close()

    def abandon(self) -> None:
        """Stop writing and remove the partial file (the final name is untouched).

        Nothing is done once the file is complete (:meth:`close`).
        """
        if self._done:
            return
        self._done = True
        self._lines = []
        with contextlib.suppress(OSError, ValueError):
            self._fh.close()
        with contextlib.suppress(OSError, ValueError):
            self._file.close()
        self.partial.unlink(missing_ok=True)

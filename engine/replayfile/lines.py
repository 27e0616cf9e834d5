"""A replay file's lines, one at a time, with bounds: plain text or one gzip member.

The streaming counterpart of :func:`engine.safety.files.read_bounded` and
:func:`engine.safety.files.gunzip_bounded`: the same checks (a regular file, at
most ``limit`` bytes on disk and once decompressed, one gzip member and
nothing after it, a stream cut short yields its readable prefix), but only
one line is in memory at a time, so a reader's memory does not grow with
the file.  A plain file can be re-opened at a byte offset (a reader that
starts from a snapshot); a gzip one is decompressed again and skipped to
the line.
"""

from __future__ import annotations

import io
import os
import zlib
from collections.abc import Iterator
from typing import IO

from engine.safety.files import GZIP_MAGIC, FileProblem, open_regular

__all__ = ["LineSource"]

_CHUNK = 1 << 16


class _Gunzip(io.RawIOBase):
    """One gzip member decompressed on demand, at most ``limit`` bytes; refuses trailing data."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        super().__init__()
        self._raw, self._limit = raw, limit
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._pending = b""
        self._out = 0
        self._done = False

    def readable(self) -> bool:
        return True

    @property
    def complete(self) -> bool:
        """The member's end was reached and its CRC-32 and length checked (not cut short)."""
        return bool(self._z.eof)

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._done:
            if not self._pending:
                self._pending = self._raw.read(_CHUNK)
                if not self._pending:  # cut short: the readable prefix is all there is
                    self._done = True
                    break
            chunk = self._inflate(len(buffer))
            if chunk:
                buffer[: len(chunk)] = chunk
                return len(chunk)
        return 0

    def _inflate(self, size: int) -> bytes:
        try:
            chunk = self._z.decompress(self._pending, size)
        except zlib.error as exc:
            raise FileProblem(f"damaged gzip data: {exc}") from None
        self._pending = self._z.unconsumed_tail
        self._out += len(chunk)
        if self._out > self._limit:
            raise FileProblem(f"decompresses to more than {self._limit} bytes")
        if self._z.eof:
            self._done = True
            tail = self._z.unused_data + self._raw.read(2)
            if tail:
                what = "a second gzip member" if tail[:2] == GZIP_MAGIC else "trailing data"
                raise FileProblem(f"{what} after the compressed replay (one member only)")
        return chunk


def _open_regular(path: str | os.PathLike[str], limit: int) -> IO[bytes]:
    fh = open_regular(path, buffering=_CHUNK)
    if os.fstat(fh.fileno()).st_size > limit:
        fh.close()
        raise FileProblem(f"file too large (limit {limit} bytes)")
    return fh


def _readline(fh: IO[bytes], size: int) -> bytes:
    """One line, at most ``size`` bytes; a read the system refuses is a :class:`FileProblem`."""
    try:
        return fh.readline(size)
    except OSError as exc:
        raise FileProblem(f"cannot be read: {exc.strerror or exc}") from None


class LineSource:
    """The lines of one replay file as bytes, each with its line number and byte offset.

    Args:
        path: the file.
        limit: the most bytes accepted, on disk and once decompressed.
        max_line: a longer line is returned cut to ``max_line + 1`` bytes
            (the caller refuses it); memory never holds more.

    Raises:
        FileProblem: (on open or while reading) missing, not a regular file,
            too large, damaged gzip, a second member or trailing data.
    """

    def __init__(self, path: str | os.PathLike[str], *, limit: int, max_line: int) -> None:
        self.path, self.limit, self.max_line = path, limit, max_line
        with _open_regular(path, limit) as fh:
            self._identity = _identity(fh)
            try:
                self.gzipped = fh.read(2) == GZIP_MAGIC
            except OSError as exc:  # /proc/self/mem: a regular file no read returns
                raise FileProblem(f"cannot be read: {exc.strerror or exc}") from None
        self.cut_short = False
        """Set by :meth:`lines` read to the end: a gzip stream ended before its
        member's end (its trailer, CRC-32 and length, missing or cut)."""

    def lines(self, start: tuple[int, int] = (1, 0)) -> Iterator[tuple[int, int, bytes]]:
        """Yield ``(line number, byte offset, bytes)`` from ``start`` = (line number, offset).

        Each line keeps its ``\\n``; only the last may lack it (a file cut
        short).  Offsets count decompressed bytes.
        """
        n, offset = start
        with _open_regular(self.path, self.limit) as raw:
            if _identity(raw) != self._identity:  # rewritten or replaced since it was opened
                raise FileProblem("changed since it was opened: open it again to read it")
            fh: IO[bytes] = raw
            gunzip = None
            if self.gzipped:
                gunzip = _Gunzip(raw, self.limit)
                fh = io.BufferedReader(gunzip, _CHUNK)
                _skip(fh, offset)
            else:
                raw.seek(offset)
            while line := _readline(fh, self.max_line + 2):
                if len(line) > self.max_line + 1:
                    line = line[: self.max_line + 1]  # refused by the caller as too long
                    _skip_rest_of_line(fh)
                yield n, offset, line
                n, offset = n + 1, offset + len(line)
            self.cut_short = gunzip is not None and not gunzip.complete


def _identity(fh: IO[bytes]) -> tuple[int, int, int, int]:
    """Which file ``fh`` is, and as what: device, inode, size, modification time."""
    st = os.fstat(fh.fileno())
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _skip(fh: IO[bytes], size: int) -> None:
    while size > 0:
        got = fh.read(min(size, _CHUNK))
        if not got:
            return
        size -= len(got)


def _skip_rest_of_line(fh: IO[bytes]) -> None:
    while (rest := fh.readline(_CHUNK)) and not rest.endswith(b"\n"):
        pass

"""A JSON list kept as compressed text while it is built: the viewer's large lists.

A battle's page embeds one record per event, the JSON of every event and
the unit rows at every turn's end: as Python objects that is a few KB an
event.  A :class:`Spool` turns each item into its compact JSON as it is
added and writes it zlib-compressed to an anonymous temporary file, so
building a page holds the state and not the data; the page's JSON is then
streamed out of the spools (:meth:`Spool.chunks`), byte for byte what
``json.dumps`` of the whole list gives.
"""

from __future__ import annotations

import codecs
import json
import tempfile
import zlib
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["Spool", "dumps"]

_LEVEL = 1
"""zlib level of the spool: fast; the page's own gzip (level 9) comes after."""
_READ = 1 << 16
"""Bytes of compressed text read, and of text inflated, at a time."""


_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode
_BATCH = 1 << 16
"""Characters of items held before they are compressed together."""


def dumps(value: Any) -> str:
    """Compact JSON as the page embeds it (UTF-8 kept, no NaN): ``json.dumps``'s text."""
    return _ENCODE(value)


class Spool:
    """Items of one JSON list, stored compressed; read back as items or as JSON text.

    Items are kept one per line of the compressed text (compact JSON never
    holds a raw newline: ``json.dumps`` escapes it inside strings).
    """

    def __init__(self) -> None:
        self._z = zlib.compressobj(_LEVEL)
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="battlesim-spool-")  # noqa: SIM115 - lives as long as the spool
        self._closed = False
        self.count = 0
        self.size = 0
        """Bytes of compressed text written."""
        self._held: list[str] = []
        self._held_size = 0

    def add(self, item: Any) -> None:
        """Append one item (plain JSON data)."""
        if self._closed:
            raise ValueError("the spool is closed")
        text = _ENCODE(item)
        self._held.append(text)
        self._held_size += len(text)
        self.count += 1
        if self._held_size >= _BATCH:
            self._pack()

    def _pack(self) -> None:
        """Compress the items held (one per line)."""
        if self._held:
            self._held.append("")
            self._write(self._z.compress("\n".join(self._held).encode("utf-8")))
            self._held, self._held_size = [], 0

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self.size += len(data)

    def close(self) -> None:
        """No more items; the compressed text is complete."""
        if not self._closed:
            self._pack()
            self._write(self._z.flush())
            self._file.flush()
            self._closed = True

    def __len__(self) -> int:
        return self.count

    def _text(self) -> Iterator[str]:
        self.close()
        z = zlib.decompressobj()
        utf8 = codecs.getincrementaldecoder("utf-8")()
        self._file.seek(0)
        part = b""
        while part or (part := self._file.read(_READ)):
            # bounded: a long battle's keyframes repeat, and 64 KiB of them inflate to many MiB
            yield utf8.decode(z.decompress(part, _READ))
            part = z.unconsumed_tail
        yield utf8.decode(z.flush(), final=True)

    def lines(self) -> Iterator[str]:
        """Each item's JSON, in order."""
        rest = ""
        for text in self._text():
            *done, rest = (rest + text).split("\n")
            yield from done

    def items(self) -> Iterator[Any]:
        """Each item, decoded again."""
        for line in self.lines():
            yield json.loads(line)

    def chunks(self) -> Iterator[str]:
        """The JSON text of the whole list, ``[...]``, in pieces."""
        yield "["
        first = True
        for line in self.lines():
            yield line if first else "," + line
            first = False
        yield "]"

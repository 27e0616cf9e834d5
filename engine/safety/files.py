"""Reading input files with bounds: regular files only, a size cap, one gzip member.

A path named by a user may be a FIFO (``open`` would block forever), a
device (``/dev/zero`` never ends) or a gzip bomb; every reader of battlesim
input goes through :func:`read_bounded` so none of them can hang or
exhaust memory.
"""

from __future__ import annotations

import errno
import os
import stat
import zlib
from typing import IO

__all__ = [
    "GZIP_MAGIC",
    "MAX_INPUT",
    "FileProblem",
    "gunzip_bounded",
    "is_regular",
    "missing",
    "open_regular",
    "read_bounded",
]

MAX_INPUT = 512 * 1024 * 1024
"""Largest input (after decompression) any reader accepts: 512 MiB."""
GZIP_MAGIC = b"\x1f\x8b"


class FileProblem(Exception):
    """An input file that cannot be read as asked; the message is for the user."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def missing(path: str | os.PathLike[str]) -> str:
    """Why a path that does not exist is missing, for a message: ``no such file``; for a
    symbolic link, where it leads (``a link to 'old.yaml', which does not exist``) or that
    it loops (``a symbolic link that loops back on itself``)."""
    if not os.path.islink(path):
        return "no such file"
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops back on itself"
    return f"a link to {os.readlink(path)!r}, which does not exist"


def open_regular(path: str | os.PathLike[str], buffering: int = -1) -> IO[bytes]:
    """Open a regular file for reading in binary, never blocking on a FIFO.

    Raises:
        FileProblem: missing, unreadable, or not a regular file (also when it
            was swapped for something else between the check and the open).
    """
    try:
        # stat first: opening a FIFO for reading blocks until a writer comes.
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise FileProblem(f"{_kind(mode)}, not a regular file")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FileProblem(f"cannot read: {exc.strerror}") from None
    fh = os.fdopen(fd, "rb", buffering=buffering)
    mode = os.fstat(fh.fileno()).st_mode
    if not stat.S_ISREG(mode):  # swapped between stat and open
        fh.close()
        raise FileProblem(f"{_kind(mode)}, not a regular file")
    return fh


def read_bounded(path: str | os.PathLike[str], limit: int = MAX_INPUT) -> bytes:
    """Return the bytes of a regular file of at most ``limit`` bytes.

    Raises:
        FileProblem: missing, unreadable, not a regular file, or too large.
    """
    with open_regular(path) as fh:
        try:
            raw = fh.read(limit + 1)
        except OSError as exc:
            raise FileProblem(f"cannot read: {exc.strerror}") from None
    if len(raw) > limit:
        raise FileProblem(f"file too large (limit {limit} bytes)")
    return raw


def gunzip_bounded(raw: bytes, limit: int = MAX_INPUT) -> tuple[bytes, bool]:
    """Decompress one gzip member, never producing more than ``limit`` bytes.

    Returns:
        (data, complete): ``complete`` is False when the stream was cut short
        (the readable prefix is returned, as a crash mid-write leaves it).

    Raises:
        FileProblem: damaged data, a second member or trailing bytes after
            the member, or more than ``limit`` bytes once decompressed.
    """
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = bytearray()
    data = raw
    try:
        while True:
            chunk = inflater.decompress(data, limit + 1 - len(out))
            out += chunk
            if len(out) > limit:
                raise FileProblem(f"decompresses to more than {limit} bytes")
            data = inflater.unconsumed_tail
            if inflater.eof or (not chunk and not data):
                break
    except zlib.error as exc:
        raise FileProblem(f"damaged gzip data: {exc}") from None
    if inflater.eof and inflater.unused_data:
        what = "a second gzip member" if inflater.unused_data[:2] == GZIP_MAGIC else "trailing data"
        raise FileProblem(f"{what} after the compressed replay (one member only)")
    return bytes(out), inflater.eof


def is_regular(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` exists and is a regular file (symlinks followed)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False

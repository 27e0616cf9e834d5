"""Writing files so that nothing is lost: a temporary name, then one rename.

Opening the final path for writing destroys what was there the moment it
is opened; a failure (disk full, Ctrl-C, SIGKILL) then leaves neither the
old file nor a whole new one.  Every battlesim writer instead writes
beside the final path and renames over it only once the content is
complete and flushed to disk, so the final name holds either the old file
or the whole new one.

Two kinds of temporary name:

- :func:`replacing` uses a hidden, unique ``.<name>.<pid>.tmp``, removed on
  any failure: for reports, exports and study files, whose prefix is useless.
- :func:`partial_path` is ``<name>.partial``: a replay being written.  A run
  killed before it ends leaves its readable prefix there, under a name that
  says it is incomplete (``battlesim verify`` calls it so).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "PARTIAL",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_target",
    "commit",
    "open_exclusive",
    "partial_path",
    "replacing",
]

PARTIAL = ".partial"
_counter = itertools.count()


def check_target(final: str | os.PathLike[str]) -> None:
    """Refuse to write over anything but a regular file (``/dev/full``, a FIFO, a folder).

    Raises:
        OSError: ``final`` exists and is not a regular file.
    """
    try:
        mode = os.stat(final).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(final)) from None
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file; battlesim writes only files", str(final))


def partial_path(final: str | os.PathLike[str]) -> Path:
    """``<final>.partial``: where a replay is written until it is complete."""
    path = Path(final)
    return path.with_name(path.name + PARTIAL)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system can sync a directory
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def commit(temp: str | os.PathLike[str], final: str | os.PathLike[str]) -> None:
    """Flush ``temp`` to disk and rename it over ``final`` (atomic on POSIX)."""
    fd = os.open(temp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, final)
    _fsync_dir(Path(final).parent)


def open_exclusive(path: str | os.PathLike[str]) -> int:
    """Create ``path`` for writing, failing if anything is already there.

    Raises:
        FileExistsError: the name is taken (another writer, or a leftover).
        OSError: the folder is not writable.
    """
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)


@contextlib.contextmanager
def replacing(final: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``final``; rename it over ``final`` on success.

    On any exception the temporary file is removed and ``final`` is left
    as it was.
    """
    path = Path(final)
    check_target(path)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{next(_counter)}.tmp")
    os.close(open_exclusive(temp))
    try:
        yield temp
        commit(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(final: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``final`` through a temporary name and a rename."""
    with replacing(final) as temp, open(temp, "wb") as fh:
        fh.write(data)


def atomic_write_text(final: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 ``text`` (``\\n`` line ends) to ``final`` through a rename."""
    atomic_write_bytes(final, text.encode("utf-8"))

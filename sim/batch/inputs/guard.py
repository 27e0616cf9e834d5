"""A study's output folder: contained, claimed, locked for the whole study.

- **Contained**: a study file's ``outputs.dir`` resolves inside the study
  file's folder (no absolute path, no ``..`` out of it); ``--out`` on the
  command line is the user's own choice.
- **Claimed**: a new study writes only into a folder that is new, empty or
  already holds a study (``study.duckdb``), so it never overwrites a
  ``summary.json``, ``plots/`` or ``replays/`` it did not make.
- **Locked**: one study at a time per folder (an exclusive ``flock`` held on
  the folder until the study ends); a second gets a clear refusal instead
  of racing the first into the database.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from collections.abc import Iterator
from pathlib import Path

__all__ = ["BUILDING", "DB_NAME", "FolderError", "building", "claim_folder", "contained"]

DB_NAME = "study.duckdb"
"""A study's database in its folder: the file that makes a folder a study's."""

BUILDING = ".tmp"
"""The suffix of the private folder a new study's database is built in, beside its final
name (``.study.duckdb.XXXXXXXX.tmp``, :meth:`~sim.batch.storage.store.Store.create`)."""


class FolderError(ValueError):
    """An output folder that cannot be used; the message says why."""


def contained(base: Path, relative: str, what: str = "study file") -> Path:
    """``base / relative``, refusing a path that leaves ``base``, the folder of the ``what``
    (``study file``, ``calibration file``) the path is read from.

    Raises:
        FolderError: ``relative`` is absolute or climbs out of ``base``.
    """
    if Path(relative).is_absolute():
        raise FolderError(f"{relative!r} is absolute: name a folder relative to the {what}")
    path = base / relative
    root = base.resolve()
    if not path.resolve().is_relative_to(root):
        raise FolderError(f"{relative!r} leaves the {what}'s folder {str(base)!r}")
    return path


def building(out: Path, db_name: str) -> list[Path]:
    """The folders in ``out`` a new study's database ``db_name`` was being built in
    (``.<db_name>.XXXXXXXX.tmp``, made by ``mkdtemp``): what a study killed (SIGKILL) as
    its database was made leaves. Folders only, never a link; nothing in one is a study,
    and the next study in ``out`` removes them."""
    name = re.compile(rf"\.{re.escape(db_name)}\.[a-z0-9_]{{8}}{re.escape(BUILDING)}")
    try:
        found = sorted(out.iterdir())
    except OSError:
        return []
    return [p for p in found if name.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]


def _check_fresh(out: Path, db_name: str) -> None:
    if (out / db_name).exists():
        return
    leftovers = set(building(out, db_name))
    if any(p not in leftovers for p in out.iterdir()):
        raise FolderError(
            f"{str(out)!r} holds files that no study made: name a new or empty folder "
            "(a study never writes over files it did not create)"
        )


@contextlib.contextmanager
def claim_folder(out: Path, db_name: str, resume: bool, ours: bool = False) -> Iterator[None]:
    """Create or check ``out`` and hold an exclusive lock on it meanwhile.

    A folder made here and still empty at the end (the study stopped before
    writing anything) is removed again. ``ours``: a folder the tool names inside the
    one it was given (a calibration's ``leave-out-<case>``), refused if it is a symbolic
    link, so that a planted link cannot send its files elsewhere (the folder a user
    names may be a link of theirs).

    Raises:
        FolderError: ``out`` is a file, holds files no study made (new
            studies only), cannot be created, or another study holds it.
    """
    try:
        str(out).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(out).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise FolderError(
            f"'{shown}': a study folder's name must be UTF-8 text (its database, DuckDB, "
            "cannot open any other): choose another name"
        ) from None
    if ours and out.is_symlink():
        raise FolderError(
            f"{str(out)!r} is a symbolic link; battlesim writes only into folders it made: "
            "remove it"
        )
    if out.exists() and not out.is_dir():
        raise FolderError(f"{str(out)!r} is a file, not a folder")
    made = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        nofollow = getattr(os, "O_NOFOLLOW", 0) if ours else 0
        fd = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow)
    except OSError as exc:
        raise FolderError(f"cannot use folder {str(out)!r}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise FolderError(
                f"another battlesim study is running in {str(out)!r}; wait for it to end"
            ) from None
        if not resume:
            _check_fresh(out, db_name)
        yield
    finally:
        os.close(fd)
        if made:
            with contextlib.suppress(OSError):
                out.rmdir()  # only if empty

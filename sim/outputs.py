"""Checks on an output path before anything is written to it.

Every command that writes a file asks :func:`check_output` first, so a bad
``--out`` is one plain sentence (exit 2) and an existing file is never lost
by accident.  Writing over what battlesim itself wrote is routine — a
scenario edited and run again, a report or a diff page regenerated — so a
file the command recognises as its own kind (``ours``: :func:`is_replay`,
:func:`is_page`, a schema) is replaced without a word.  ``--force`` is for
anything else: a file battlesim did not write, or one of another kind (a
page where a replay would go).
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from engine.safety.atomic import atomic_write_text

__all__ = [
    "CHART_SOFTWARE",
    "PAGE_GENERATOR",
    "PNG_LEVEL",
    "OutputError",
    "check_output",
    "is_chart",
    "is_page",
    "is_replay",
    "probe_writable",
    "replay_scenario_digest",
    "replay_stem",
    "write_text",
]


def replay_stem(replay: str | os.PathLike[str]) -> str:
    """A replay's name without ``.gz`` and ``.jsonl``, for the names of what is made from it
    (``fork``'s ``<stem>-fork<seq>.jsonl``, ``report``'s ``<stem>.html``): ``.hidden.jsonl``
    gives ``.hidden`` (its first dot's split gave "", so ``-fork19.jsonl``, which the diff
    command suggested beside it took for an option)."""
    name = Path(replay).name
    for suffix in (".gz", ".jsonl"):
        name = name.removesuffix(suffix)
    return name or "replay"


PNG_LEVEL = 1
"""The zlib level every PNG battlesim draws is written at (Pillow's default is 6: files a
tenth smaller, plots a tenth slower to write, for plots of a few dozen KiB; the same
pixels either way)."""

CHART_SOFTWARE = "battlesim report"
"""The PNG ``Software`` text every chart of ``report --png`` carries, so that the command
knows its own charts again (it replaces them without ``--force``, as it does its page)."""

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

_HEADER_LIMIT = 4 * 1024 * 1024
"""Read at most this much of an existing file looking for a replay header."""
_PAGE_LIMIT = 256 * 1024
"""Read at most this much of an existing file looking for a page's marks."""

PAGE_GENERATOR = '<meta name="generator" content="battlesim">'
"""The mark in the ``<head>`` of every page battlesim writes (report, diff --html)."""
_PAGE_START = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
_OLD_PAGE_MARK = '<svg id="ns-probe" width="0" height="0" aria-hidden="true"></svg>'
"""A page written before the generator mark: its first line and the probe the viewer measures."""
_HEAD_END = re.compile(r"</head>", re.IGNORECASE)


class OutputError(Exception):
    """An output path that cannot or must not be written; the message says why."""


def _blocking_file(path: Path) -> Path | None:
    """The nearest ancestor of ``path`` that exists as a file, if any."""
    for parent in path.parents:
        if parent.is_file():
            return parent
        if parent.is_dir():
            return None
    return None


def _replay_header(path: Path) -> dict[str, object] | None:
    """The header of a battlesim replay (plain or gzip), or None if the file is not one."""
    try:
        with path.open("rb") as raw:
            magic = raw.read(2)
        opener = gzip.open if magic == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            first = fh.readline(_HEADER_LIMIT)
        header = json.loads(first)
    except (OSError, EOFError, ValueError, RecursionError):  # a first line nested 100,000 deep
        return None
    if not isinstance(header, dict) or header.get("format") != "battlesim-replay":
        return None
    return header


def replay_scenario_digest(path: Path) -> str | None:
    """The ``scenario_digest`` in the header of a replay file, or None if it is not one."""
    header = _replay_header(path)
    found = header.get("scenario_digest") if header is not None else None
    return found if isinstance(found, str) else None


def is_replay(path: Path) -> bool:
    """Whether ``path`` holds a battlesim replay: its first line a ``battlesim-replay`` header."""
    return _replay_header(path) is not None


def is_page(path: Path) -> bool:
    """Whether ``path`` holds a page battlesim wrote (``report``, ``diff --html``).

    Such a page carries :data:`PAGE_GENERATOR` in its ``<head>``; a page
    written before that mark starts with battlesim's exact first line and
    has the viewer's probe right after its head.
    """
    try:
        with path.open("rb") as fh:
            text = fh.read(_PAGE_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return False
    end = _HEAD_END.search(text)
    if end is None:
        return False
    if PAGE_GENERATOR in text[: end.start()]:
        return True
    rest = text[end.end() :].lstrip()
    return text.startswith(_PAGE_START) and rest.startswith("<body>") and _OLD_PAGE_MARK in rest


def is_chart(path: Path) -> bool:
    """Whether ``path`` holds a chart ``report --png`` wrote: a PNG whose text chunks, before
    its image data, say :data:`CHART_SOFTWARE`."""
    mark = b"Software\x00" + CHART_SOFTWARE.encode()
    try:
        with path.open("rb") as fh:
            if fh.read(8) != _PNG_SIGNATURE:
                return False
            for _ in range(64):  # chunks before the image data: a few, each small
                head = fh.read(8)
                if len(head) < 8:
                    return False
                size, kind = int.from_bytes(head[:4], "big"), head[4:]
                if kind == b"IDAT" or size > 64 * 1024:
                    return False
                body = fh.read(size + 4)  # and its CRC
                if kind == b"tEXt" and body[:size] == mark:
                    return True
    except OSError:
        return False
    return False


def check_output(
    path: str | Path,
    *,
    option: str = "--out",
    force: bool = False,
    ours: Callable[[Path], bool] | None = None,
    what: str = "a file",
    folder: bool = False,
    reads: tuple[str | Path, ...] = (),
    probe: bool = True,
) -> Path:
    """Refuse an output path that cannot be written or would destroy another file.

    Args:
        path: where the command will write.
        option: the option's name, for the message.
        force: overwrite an existing file whatever it holds.
        ours: recognises a file this command writes (:func:`is_replay`,
            :func:`is_page`); such a file is overwritten without ``force``.
            None: every existing file needs ``force``.
        what: what the command writes, for the message ("a replay", "a page").
        folder: the output is a folder (created if missing; an existing one is reused).
        reads: the files the command reads: the output is never one of them, ``force``
            or not (a report written over the replay it reads would lose it).
        probe: ask the file system too (:func:`probe_writable`), so that a place it
            refuses (``/proc``, a folder without write permission, a read-only file
            system) is told now, naming ``option`` and the path as given, not after the
            work under a temporary name. False for a command that tells that itself.

    Raises:
        OutputError: a parent is a file or missing, the path is of the wrong
            kind, the file system refuses it (a name too long, no file can be made
            there), or an existing file would be overwritten without ``force``.
    """
    try:
        return _checked(Path(path), str(path), option, force, ours, what, folder, reads, probe)
    except OSError as exc:  # a name too long, a folder on the way that cannot be searched
        raise OutputError(f"{option} {path}: {exc.strerror or exc}") from None


def _checked(
    p: Path,
    path: str,
    option: str,
    force: bool,
    ours: Callable[[Path], bool] | None,
    what: str,
    folder: bool,
    reads: tuple[str | Path, ...],
    probe: bool,
) -> Path:
    """:func:`check_output`'s checks; an OSError from asking the file system escapes."""
    blocking = _blocking_file(p)
    if blocking is not None:
        raise OutputError(f"{option} {path}: {str(blocking)!r} is a file, not a folder")
    if folder:
        return _checked_folder(p, path, option, probe)
    if not p.parent.is_dir():
        raise OutputError(f"{option} {path}: folder {str(p.parent)!r} does not exist")
    if p.is_dir():
        raise OutputError(f"{option} {path}: {str(p)!r} is a folder, not a file")
    for given in reads:
        if p.exists() and Path(given).exists() and os.path.samefile(p, given):
            raise OutputError(
                f"{option} {path}: that is {str(given)!r}, which this command reads: "
                "choose another name"
            )
    if p.exists() and not p.is_file():  # /dev/null, a FIFO: the writer refuses them after the work
        raise OutputError(
            f"{option} {path}: {str(p)!r} is not a regular file; battlesim writes only files"
        )
    if probe:  # before an existing file's checks: --force would not help
        probe_writable(path, option=option)
    if p.is_symlink() and not p.exists() and not force:  # a link to nothing: the user's own
        raise OutputError(
            f"{option} {path}: a link to {os.readlink(p)!r}, which does not exist; add --force "
            "to replace the link (its target is never written), or choose another name"
        )
    if p.is_file() and not force:
        if ours is not None and ours(p):
            return p
        kind = f"is not {what} battlesim wrote" if ours is not None else "already exists"
        raise OutputError(
            f"{option} {path}: the file {kind}; add --force to overwrite it, or choose another name"
        )
    return p


def _checked_folder(p: Path, path: str, option: str, probe: bool) -> Path:
    """:func:`check_output`'s checks of a folder output (made if missing, reused if there)."""
    if p.exists() and not p.is_dir():
        raise OutputError(f"{option} {path}: {str(p)!r} is a file, not a folder")
    if not p.exists() and p.is_symlink():  # no folder can be made where a link stands
        from engine.safety.files import missing  # noqa: PLC0415 - only when it is so

        raise OutputError(f"{option} {path}: {missing(p)}: no folder can be made there")
    if probe:
        probe_writable(path, option=option, folder=True)
    return p


def probe_writable(path: str | Path, *, option: str = "--out", folder: bool = False) -> None:
    """Refuse an output that the file system will not let battlesim write, before the work.

    :func:`check_output` asks it for every output: a file is created, exclusively and
    without following a link, in the folder the output goes to (for a folder output not
    made yet, the nearest existing folder above it) and removed again, so a read-only
    file system, a folder without write permission, or a place such as ``/proc`` is
    refused at once, in the words every command uses, not after the fighting (``history``)
    nor under the temporary name the writer would have used (``x.jsonl.partial``).

    Raises:
        OutputError: the file cannot be created there; the message names ``option``.
    """
    target = Path(path)
    where = target if folder else target.parent
    while not where.is_dir() and where != where.parent:
        where = where.parent
    import tempfile  # noqa: PLC0415

    try:  # a new name, O_EXCL and O_NOFOLLOW (tempfile's own flags)
        fd, name = tempfile.mkstemp(prefix=".battlesim-probe-", dir=where)
    except OSError as exc:
        raise OutputError(
            f"{option} {path}: cannot write in {str(where)!r}: {exc.strerror or exc}"
        ) from None
    os.close(fd)
    os.unlink(name)


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` under a temporary name, renamed when complete.

    The temporary name is new and created exclusively (:mod:`engine.safety.atomic`),
    so a link planted beside ``path`` is never followed.

    Raises:
        OSError: the file cannot be written (nothing is left behind).
    """
    atomic_write_text(path, text)

"""Checks on an output path before anything is written to it.

Every command that writes a file asks :func:`check_output` first, so a bad
``--out`` is one plain sentence (exit 2) and an existing file is never lost
by accident: only a replay of the same scenario is overwritten without
``--force`` (running or forking a battle again to the same name is routine).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

from engine.atomic import atomic_write_text

__all__ = ["OutputError", "check_output", "replay_scenario_digest", "write_text"]

_HEADER_LIMIT = 4 * 1024 * 1024
"""Read at most this much of an existing file looking for a replay header."""


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


def replay_scenario_digest(path: Path) -> str | None:
    """The ``scenario_digest`` in the header of a replay file, or None if it is not one."""
    try:
        with path.open("rb") as raw:
            magic = raw.read(2)
        opener = gzip.open if magic == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            first = fh.readline(_HEADER_LIMIT)
        header = json.loads(first)
    except (OSError, EOFError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("format") != "battlesim-replay":
        return None
    found = header.get("scenario_digest")
    return found if isinstance(found, str) else None


def check_output(
    path: str | Path,
    *,
    option: str = "--out",
    force: bool = False,
    scenario_digest: str | None = None,
    folder: bool = False,
) -> Path:
    """Refuse an output path that cannot be written or would destroy another file.

    Args:
        path: where the command will write.
        option: the option's name, for the message.
        force: overwrite an existing file whatever it holds.
        scenario_digest: the scenario of the replay to be written; an existing
            replay of the same scenario is overwritten without ``force``.
        folder: the output is a folder (created if missing; an existing one is reused).

    Raises:
        OutputError: a parent is a file or missing, the path is of the wrong
            kind, or an existing file would be overwritten without ``force``.
    """
    p = Path(path)
    blocking = _blocking_file(p)
    if blocking is not None:
        raise OutputError(f"{option} {path}: {str(blocking)!r} is a file, not a folder")
    if not folder and not p.parent.is_dir():
        raise OutputError(f"{option} {path}: folder {str(p.parent)!r} does not exist")
    if folder:
        if p.exists() and not p.is_dir():
            raise OutputError(f"{option} {path}: {str(p)!r} is a file, not a folder")
        return p
    if p.is_dir():
        raise OutputError(f"{option} {path}: {str(p)!r} is a folder, not a file")
    if p.is_file() and not force and p.resolve() != Path(os.devnull).resolve():
        if scenario_digest is not None and replay_scenario_digest(p) == scenario_digest:
            return p
        what = "is not a replay of this scenario" if scenario_digest else "already exists"
        raise OutputError(
            f"{option} {path}: the file {what}; add --force to overwrite it, or choose another name"
        )
    return p


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` under a temporary name, renamed when complete.

    The temporary name is new and created exclusively (:mod:`engine.atomic`),
    so a link planted beside ``path`` is never followed.

    Raises:
        OSError: the file cannot be written (nothing is left behind).
    """
    atomic_write_text(path, text)

"""``manifest.json``: what a finished study wrote, each with its digest.

Written (through a temporary name and a rename) when the study ends, after
``summary.json`` and the plots, and again after ``export`` writes into the
study's own ``export/``::

    {"format": 1,
     "study": "sha256:…",            # the study row and the design points
     "runs": 24, "runs_root": "sha256:…",
     "files": {"plots/outcomes.png": "sha256:…", "summary.json": "sha256:…", …}}

``runs_root`` chains every run's digest (:mod:`sim.batch.execution.digests`) in
run-id order: ``sha256`` of the lines ``<run id> <digest>\\n``. So a run
deleted, added or moved changes it, and a file edited after the study
changes its digest here. ``verify`` recomputes all of it from the database
and the files, and names what differs.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.canonical import digest
from engine.safety.atomic import atomic_write_text
from engine.safety.files import FileProblem, read_bounded
from sim.batch.storage.schema import DIGEST_TABLE
from sim.batch.storage.store import Store

__all__ = [
    "FOLDERS",
    "NAME",
    "file_digest",
    "list_files",
    "listed_files",
    "read_manifest",
    "runs_root",
    "study_digest",
    "write_manifest",
]

NAME = "manifest.json"
FOLDERS = ("plots", "export")
"""The study's folders whose files the manifest lists (besides its top-level files)."""
TOP = ("summary.json", "progress.json")
BLOCK = 10_000


def runs_root(store: Store) -> tuple[int, str]:
    """(runs with a digest, the chain of their digests in run-id order)."""
    chain = hashlib.sha256()
    count = 0
    cur = store.con.cursor()
    try:
        cur.execute(f"SELECT run_id, digest FROM {DIGEST_TABLE} ORDER BY run_id")
        while rows := cur.fetchmany(BLOCK):
            for run_id, value in rows:
                chain.update(f"{run_id} {value}\n".encode())
            count += len(rows)
    finally:
        cur.close()
    return count, "sha256:" + chain.hexdigest()


def study_digest(store: Store) -> str:
    """The digest of the study row (its JSON columns decoded) and the design points."""
    return digest({"study": store.meta(), "points": store.points()})


def file_digest(path: Path, within: Path | None = None) -> str:
    """The digest of a file's bytes, read without following a link, never blocking.

    ``within``: the study's folder, of which ``path`` is a file; a link among the folders
    between them is refused too (a received study's ``plots`` linked to ``/etc`` had
    ``verify`` hash ``/etc/hostname``).

    Raises:
        OSError: missing, a link, or not a regular file (a FIFO, which blocked ``verify``
            for ever, a device, a folder).
    """
    if within is not None:
        for folder in reversed(path.relative_to(within).parents):
            if folder != Path(".") and (within / folder).is_symlink():
                raise OSError(errno.ELOOP, "a link inside the study", str(within / folder))
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    chain = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        while block := fh.read(1 << 20):
            chain.update(block)
    return "sha256:" + chain.hexdigest()


def listed_files(out: Path) -> list[str]:
    """The files a manifest lists: ``summary.json``, ``progress.json``, plots and exports
    (relative names, sorted); links are not followed."""
    found = [name for name in TOP if (out / name).is_file() and not (out / name).is_symlink()]
    for folder in FOLDERS:
        where = out / folder
        if where.is_dir() and not where.is_symlink():
            found += [
                f"{folder}/{p.name}"
                for p in where.iterdir()
                if p.is_file() and not p.is_symlink() and not p.name.startswith(".")
            ]
    return sorted(found)


AFTER = ("export/", "plots/discover.png")
"""What is made after the study, by ``export`` and ``discover`` (:func:`list_files`)."""


def write_manifest(out: Path, store: Store, drawn: Iterable[str]) -> None:
    """Write ``out/manifest.json`` for the study in ``store``: the files the study writes
    itself (``summary.json``, ``progress.json``, its plots) as they are now, and the files
    made after it (:data:`AFTER`) only as the manifest before listed them. A study
    completed (or resumed) never vouches for an export or a plot it did not make: one
    edited since keeps its old digest, and so still differs; one no manifest listed is
    left for ``verify`` to note. ``drawn`` names the plots this invocation drew
    (``plots/losses.png``): any other file in ``plots/`` (one a user put there) is not
    listed, however many resumes follow."""
    runs, root = runs_root(store) if store.has_digests else (None, None)
    try:
        before = (read_manifest(out) or {}).get("files", {})
    except ValueError:
        before = {}
    ours = {*TOP, *drawn}
    files = {
        name: before[name] if name.startswith(AFTER) else file_digest(out / name)
        for name in listed_files(out)
        if (name in before if name.startswith(AFTER) else name in ours)
    }
    data: dict[str, Any] = {
        "format": 1,
        "study": study_digest(store),
        "runs": runs,
        "runs_root": root,
        "files": files,
    }
    atomic_write_text(out / NAME, json.dumps(data, indent=2, sort_keys=True) + "\n")


def list_files(out: Path, names: Sequence[str]) -> bool:
    """Record files made after the study (``plots/discover.png``, ``export/runs.csv``) in
    ``out``'s manifest.

    Only those files' digests are added or replaced; every other entry stays as
    written, so a file altered or removed since is still caught (rewriting the whole
    manifest would vouch for it). False when the study has no manifest (stopped
    before its end, or made before manifests) or one battlesim did not write: then
    nothing is written.
    """
    try:
        data = read_manifest(out)
    except ValueError:
        return False
    if data is None:
        return False
    for name in names:
        data["files"][name] = file_digest(out / name)
    atomic_write_text(out / NAME, json.dumps(data, indent=2, sort_keys=True) + "\n")
    return True


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The manifest in ``out`` (None when the study has none).

    Raises:
        ValueError: a manifest that is not one (unreadable, not JSON, wrong shape).
    """
    path = out / NAME
    if not path.exists() and not path.is_symlink():
        return None
    try:  # a regular file of at most 64 MiB: never a FIFO that blocks or an endless file
        data = json.loads(read_bounded(path, 64 << 20).decode("utf-8"))
    except RecursionError:  # nested 100,000 deep
        raise ValueError(f"{NAME}: unreadable: nested too deeply") from None
    except (FileProblem, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{NAME}: unreadable: {exc}") from None
    files = data.get("files") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("format") != 1
        or not isinstance(files, dict)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
    ):
        raise ValueError(f"{NAME}: not a manifest battlesim writes")
    return data

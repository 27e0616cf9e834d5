"""Writing files so that nothing is lost and no planted link is followed.

Opening the final path for writing destroys what was there the moment it
is opened; a failure (disk full, Ctrl-C, SIGKILL) then leaves neither the
old file nor a whole new one.  Every battlesim writer instead writes
beside the final path and renames over it only once the content is
complete and flushed to disk, so the final name holds either the old file
or the whole new one.

Every file is *created*, never opened as found: the temporary name is new
and made with ``O_CREAT | O_EXCL | O_NOFOLLOW``, so a symbolic link (even a
dangling one), a hard link or any file planted under it is never written
through; the rename then replaces whatever entry holds the final name (a
link there is replaced, its target untouched).

Two kinds of temporary name:

- :func:`replacing` uses a fresh hidden ``.<name>.<pid>.<random>.tmp``,
  removed on any failure: for reports, plots and study files, whose
  prefix is useless.  It yields the open file battlesim created, never its
  name: a writer that reopened the name (matplotlib's ``savefig(path)``)
  would follow a link another user swapped in after the check.  Before the
  rename the name must still be the file written (else the write is refused).
- :func:`exporting` is for a writer that takes only a name (DuckDB's
  ``COPY … TO``): it writes inside a private folder made by ``mkdtemp`` in
  the system's temporary folder (mode 0700, where no other user can plant or
  rename anything), and the result, opened without following links, is
  renamed (or, on another file system, copied by descriptor) into place.
- :func:`claim_partial` takes ``<name>.partial``: a replay being written.
  A run killed before it ends leaves its readable prefix there, under a
  name that says it is incomplete (``battlesim verify`` calls it so); the
  next run removes such a leftover and creates the name afresh.  Anything
  else under that name (a link, a file with other hard links, a file another
  process is writing) is refused.

:func:`own_folder` makes the folders a tool creates inside one it was given
(a study's ``plots/``, ``export/``, ``replays/``) and refuses one that is a
symbolic link, so no output leaves the folder the user named.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Protocol

from engine.safety.signals import interrupts_deferred

__all__ = [
    "PARTIAL",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_target",
    "claim_partial",
    "commit",
    "exporting",
    "exporting_together",
    "named_as_given",
    "open_exclusive",
    "own_folder",
    "partial_path",
    "replacing",
]

PARTIAL = ".partial"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
_TRIES = 100


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


_ITS_OWN_NAME = frozenset({errno.EEXIST, errno.EAGAIN, errno.ELOOP})
"""Errors about the temporary name itself — something else holds it (a planted link, a file
of the user's, another writer) or took it meanwhile: they keep naming it, the name the
user must look at."""
_TEMP_NAME = re.compile(r"\.(.+)\.[0-9]+\.[0-9a-f]{8}\.tmp")
"""What :func:`_temp_name` makes of a file name (cut to fit): ``.<name>.<pid>.<random>.tmp``."""


def _stands_for(named: str | os.PathLike[str], final: Path) -> bool:
    """Whether ``named`` is ``final`` itself or one of the temporary names battlesim writes
    it under (``<final>.partial``, ``.<final>.<pid>.<random>.tmp``), beside it."""
    path = Path(named)
    if path == final:
        return True
    if path.parent != final.parent:
        return False
    if path.name == final.name + PARTIAL:
        return True
    cut = _TEMP_NAME.fullmatch(path.name)
    return cut is not None and os.fsencode(final.name).startswith(os.fsencode(cut.group(1)))


def named_as_given(exc: OSError, final: str | os.PathLike[str], *, fill: bool = True) -> OSError:
    """``exc`` naming ``final`` — the path as the user gave it — where it named no file (a
    write's ENOSPC or EIO names none), the file's temporary name (a failed rename names
    ``x.jsonl.partial``: battlesim's detail, not the user's file) or ``final`` spelled
    otherwise (``x.jsonl`` for ``./x.jsonl``).  An error about the temporary name itself
    (:data:`_ITS_OWN_NAME`: a planted link there, another writer) keeps naming it.
    ``fill``: name ``final`` where the error named no file.  Returns ``exc``, changed in
    place."""
    given = os.fspath(final)
    if exc.errno not in _ITS_OWN_NAME:
        for attr in ("filename", "filename2"):
            named = getattr(exc, attr, None)
            if isinstance(named, str | os.PathLike) and _stands_for(named, Path(given)):
                setattr(exc, attr, given)
    if fill and not exc.filename:
        exc.filename = given
    return exc


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system can sync a directory
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def commit(temp: str | os.PathLike[str], final: str | os.PathLike[str]) -> None:
    """Flush ``temp`` to disk and rename it over ``final`` (atomic on POSIX)."""
    _flush(temp)
    os.replace(temp, final)
    _fsync_dir(Path(final).parent)


def _flush(path: str | os.PathLike[str]) -> None:
    """``path``'s data on disk (its descriptor opened without following a link)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def open_exclusive(path: str | os.PathLike[str]) -> int:
    """Create ``path`` for writing, failing if anything is already there (a link included).

    Raises:
        FileExistsError: the name is taken (another writer, a leftover, a link).
        OSError: the folder is not writable.
    """
    return os.open(path, _CREATE, 0o666)


def _planted(path: Path, what: str) -> OSError:
    return OSError(
        errno.EEXIST,
        f"{what}, not a leftover battlesim made (it never writes through one): remove it",
        str(path),
    )


def claim_partial(final: str | os.PathLike[str]) -> int:
    """Create ``<final>.partial`` afresh and hold an exclusive lock on it; return its descriptor.

    A leftover of a killed run (a regular file with no other link that no
    process holds) is removed first.

    Raises:
        BlockingIOError: another process is writing the same replay.
        OSError: something battlesim did not make holds the name (a symbolic
            link, a file with other hard links, a folder), or the folder is
            not writable.
    """
    partial = partial_path(final)
    for _ in range(2):
        try:
            fd = open_exclusive(partial)
        except FileExistsError:
            _remove_leftover(partial)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            break
        return fd
    raise BlockingIOError(
        errno.EAGAIN, "another battlesim process is writing this replay", str(partial)
    )


_LEFTOVER_JSON = b'{"engine_version":'
"""How every replay's header line begins (its keys sorted): a killed run's leftover begins
so, or with gzip's magic, or is empty; anything else at ``<name>.partial`` is the user's
(a file of notes there was removed without a word)."""
_LEFTOVER_GZIP = b"\x1f\x8b"


def _remove_leftover(partial: Path) -> None:
    """Remove a killed run's ``.partial``; refuse anything else there."""
    try:
        fd = os.open(partial, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return  # gone meanwhile: create it again
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _planted(partial, "is a symbolic link") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _planted(partial, "is not a regular file")
        if info.st_nlink != 1:
            raise _planted(partial, f"has {info.st_nlink} hard links")
        head = os.pread(fd, len(_LEFTOVER_JSON), 0)
        if (
            head
            and not head.startswith(_LEFTOVER_GZIP)
            and not _LEFTOVER_JSON.startswith(head[: len(_LEFTOVER_JSON)])
        ):
            raise OSError(
                errno.EEXIST,
                "is no replay battlesim began (a file of yours?), so it is not removed as a "
                "killed run's leftover: move it, or write the replay elsewhere",
                str(partial),
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise BlockingIOError(
                errno.EAGAIN, "another battlesim process is writing this replay", str(partial)
            ) from None
        partial.unlink(missing_ok=True)  # while locked: no writer holds it
    finally:
        os.close(fd)


def own_folder(folder: str | os.PathLike[str]) -> Path:
    """Create ``folder`` (and its parents) if needed; refuse it if it is a symbolic link.

    For the folders a tool makes inside the one it was given (a study's
    ``plots/``), so that a planted link cannot send its files elsewhere.

    Raises:
        OSError: ``folder`` is a symbolic link or not a folder, or cannot be made.
    """
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        raise OSError(
            errno.ELOOP,
            "is a symbolic link; battlesim writes only into folders it made: remove it",
            str(path),
        )
    if not stat.S_ISDIR(mode):
        raise OSError(errno.ENOTDIR, "not a folder", str(path))
    return path


NAME_MAX = 255
"""The longest file name, in bytes, of the file systems battlesim writes to (ext4, XFS, APFS)."""


def _temp_name(name: str) -> str:
    """``.<name>.<pid>.<random>.tmp``, ``name`` cut so the whole fits in :data:`NAME_MAX`
    bytes: a legal name of 250 bytes still gets a temporary name beside it."""
    tail = f".{os.getpid()}.{os.urandom(4).hex()}.tmp"
    room = NAME_MAX - 1 - len(tail)
    raw = os.fsencode(name)
    return "." + os.fsdecode(raw[:room]) + tail


def _create_temp(final: Path) -> tuple[int, Path]:
    """Create a new hidden name beside ``final``; a name already taken is passed over.

    The name is random (not only the process id) so that no one can plant a
    file under every name it might take.
    """
    for _ in range(_TRIES):
        temp = final.with_name(_temp_name(final.name))
        try:
            return open_exclusive(temp), temp
        except FileExistsError:
            continue
        except OSError as exc:  # a place no file can be made: named as the user gave it
            raise OSError(exc.errno, exc.strerror, str(final)) from None
    raise FileExistsError(errno.EEXIST, "no free temporary name beside it", str(final))


def _still_ours(fd: int, temp: Path) -> None:
    """Refuse to rename ``temp`` unless the name still holds the file open as ``fd``.

    Raises:
        OSError: the temporary name was removed or replaced (a link swapped in).
    """
    mine = os.fstat(fd)
    try:
        there = os.lstat(temp)
    except FileNotFoundError:
        there = None
    if there is None or (there.st_dev, there.st_ino) != (mine.st_dev, mine.st_ino):
        raise OSError(
            errno.EEXIST,
            "its temporary name was replaced while battlesim wrote it (by another "
            "process?); nothing was written through it",
            str(temp),
        )


@contextlib.contextmanager
def _fresh(final: str | os.PathLike[str]) -> Iterator[tuple[int, Path]]:
    """A new, exclusively created temporary file beside ``final``: (descriptor, path).

    Written through the descriptor only; flushed, checked to be still under its
    name, and renamed over ``final`` when the block ends; removed on any exception
    (only if the name is still the file battlesim made).
    """
    path = Path(final)
    check_target(path)
    fd, temp = _create_temp(path)
    try:
        try:
            yield fd, temp
            _still_ours(fd, temp)
            commit(temp, path)  # opens the name without following a link; the rename
        except BaseException as exc:
            with contextlib.suppress(OSError):
                _still_ours(fd, temp)
                temp.unlink()
            if isinstance(exc, OSError):  # a full disk's names no file, a rename the temporary
                named_as_given(exc, final)
            raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def replacing(final: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Yield the new temporary file beside ``final``, open for binary writing; rename it
    over ``final`` on success.

    The file object is the descriptor battlesim created (``O_EXCL | O_NOFOLLOW``),
    never reopened by name: hand it to a writer that takes a file object
    (matplotlib's ``savefig``).  On any exception the temporary file is removed
    and ``final`` is left as it was.
    """
    with _fresh(final) as (fd, _):
        fh = os.fdopen(os.dup(fd), "wb")
        with fh:
            yield fh
            fh.flush()


def _private_folder() -> tuple[str, int]:
    """A new folder of our own (``mkdtemp``: mode 0700) in the system's temporary folder,
    and a descriptor open on it."""
    private = tempfile.mkdtemp(prefix="battlesim-")
    return private, os.open(private, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW)


def _copy(source: int, target: int) -> None:
    while True:
        block = os.read(source, 1 << 20)
        if not block:
            return
        view = memoryview(block)
        while view:
            view = view[os.write(target, view) :]


@contextlib.contextmanager
def exporting(final: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a name inside a private folder for a writer that takes only a name (DuckDB's
    ``COPY … TO``); put what it wrote at ``final`` when the block ends.

    The folder is made by :func:`tempfile.mkdtemp` in the system's temporary folder:
    mode 0700, in a folder where no other user can rename it (a sticky ``/tmp``), so
    no one can swap a link under the name the writer is given.  The result is opened
    without following links, must be a regular file with one link, and is renamed
    over ``final`` — or, from another file system, copied by descriptor into a
    temporary file beside ``final`` made as :func:`replacing` makes one.  The private
    folder is removed whatever happens; on any exception ``final`` is left as it was.
    On Linux the writer is given the folder as ``/proc/self/fd/<descriptor>``, the
    folder battlesim opened even if its name were swapped.

    Raises:
        OSError: the writer left no regular file, or ``final`` cannot be written.
    """
    path = Path(final)
    check_target(path)
    private, folder = _private_folder()
    try:
        by_fd = Path(f"/proc/self/fd/{folder}")  # Linux: the folder opened, whatever its name
        yield (by_fd if by_fd.is_dir() else Path(private)) / path.name
        try:
            _put_export(folder, path)
        except OSError as exc:  # named as the user named it, not by a name of ours
            _named_as_final(exc, {path.name: path})
            named_as_given(exc, final)
            raise
    finally:
        os.close(folder)
        shutil.rmtree(private, ignore_errors=True)


def _put_export(folder: int, path: Path) -> None:
    """The file a writer left at ``path.name`` in the private ``folder``, put at ``path``
    (:func:`exporting`)."""
    fd = os.open(path.name, os.O_RDONLY | _NOFOLLOW, dir_fd=folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise OSError(errno.EINVAL, "the writer left no plain file", str(path))
        try:
            os.fsync(fd)
            os.replace(path.name, path, src_dir_fd=folder)  # from a folder only we write
            _fsync_dir(path.parent)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            with _fresh(path) as (out, _):
                _copy(fd, out)
    finally:
        os.close(fd)


class Placing(Protocol):
    """A file held complete that puts itself in place (a campaign's held replay: its
    ``commit`` renames ``<path>.partial`` over ``path``)."""

    path: Path

    def commit(self) -> None: ...


@contextlib.contextmanager
def exporting_together(
    finals: Sequence[str | os.PathLike[str]], also: Sequence[Placing] = ()
) -> Iterator[list[Path]]:
    """:func:`exporting` for several files that are put in place together, or none of them.

    Each writer is given a name in one private folder.  When the block ends every file
    is first held beside its final name under a fresh temporary name (renamed there on
    one file system, copied by descriptor from another, where a full disk fails midway),
    and only once all are held are they put in place, with ``also``: files held by their
    writers that put themselves in place (a campaign's replays).  Meanwhile a Ctrl-C or
    SIGTERM waits (:func:`~engine.safety.signals.interrupts_deferred`: a second one is
    taken at once), and each file the set replaces is kept under a hard link beside it
    (``.<name>.<pid>.<token>.old``) until all are in place: a rename that fails puts back
    every file replaced before it, and removes the new ones where there was none, so the
    folder holds the old set; a SIGKILL among the renames leaves the old files' links.
    So a failed export leaves every old file as it was: one that failed at its third
    table's copy had put the first two in place beside the old others, a Ctrl-C among the
    renames left a new table beside two old ones, and a campaign whose ``campaign.json``
    could not be renamed left its new replays beside it.  On any exception the held files
    are removed (each only while its name is still the file battlesim made).

    Raises:
        OSError: a writer left no regular file, or a final file cannot be written.
    """
    paths = [Path(f) for f in finals]
    for path in paths:
        check_target(path)
    private, folder = _private_folder()
    names = [f"{k}-{path.name}" for k, path in enumerate(paths)]
    held: list[tuple[int, Path, Path]] = []  # (descriptor of the held file, its name, final)
    placed: list[Path] = []  # the held files renamed over their final names
    try:
        by_fd = Path(f"/proc/self/fd/{folder}")  # Linux: the folder opened, whatever its name
        base = by_fd if by_fd.is_dir() else Path(private)
        try:
            yield [base / name for name in names]
        except OSError as exc:  # a writer's error names the file it was writing: the final
            _named_as_final(exc, dict(zip(names, paths, strict=True)))
            raise
        for name, path in zip(names, paths, strict=True):
            try:
                held.append(_hold(folder, name, path))
            except OSError as exc:  # a full disk's names no file, a rename a name of ours
                _named_as_final(exc, {name: path})
                named_as_given(exc, path)
                raise
        try:
            with interrupts_deferred():  # every file held: all put in place, or none
                _all_or_none(also, held, placed, [p for _, _, p in held])
        except OSError as exc:  # a rename names the temporary name it renamed
            for path in [*paths, *(step.path for step in also)]:  # a held replay's .partial
                named_as_given(exc, path, fill=False)
            raise
    except BaseException:
        for fd, temp, _ in held[len(placed) :]:
            with contextlib.suppress(OSError):
                _still_ours(fd, temp)
                temp.unlink()
        raise
    finally:
        for fd, _, _ in held:
            os.close(fd)
        os.close(folder)
        shutil.rmtree(private, ignore_errors=True)


def _all_or_none(
    also: Sequence[Placing],
    held: list[tuple[int, Path, Path]],
    placed: list[Path],
    finals: list[Path],
) -> None:
    """``also`` and the held files put in place, each old file they replace kept under a
    link until all are; on an error every old one that was replaced is put back and each
    new one where none was removed, so none of the set is in place (:func:`exporting_together`)."""
    replaced = [*(a.path for a in also), *finals]
    absent = {p for p in replaced if not os.path.lexists(p)}
    kept = _keep_old(replaced)
    try:
        for step in also:
            step.commit()
        _put_in_place(held, placed)
    except BaseException:
        for path in replaced:
            with contextlib.suppress(OSError):
                link = kept.get(path)
                if link is not None and not os.path.samefile(link, path):
                    os.replace(link, path)  # replaced by the new set: the old file back
                elif path in absent:
                    path.unlink(missing_ok=True)  # a new file where there was none
        placed.clear()
        raise
    finally:
        for link in kept.values():
            with contextlib.suppress(OSError):
                link.unlink(missing_ok=True)


def _keep_old(paths: list[Path]) -> dict[Path, Path]:
    """A hard link beside each regular file at ``paths`` (a link there is not followed):
    the old set, to put back if the new one cannot all be put in place.  A file system
    without hard links keeps none (its rename failures leave a mix)."""
    kept: dict[Path, Path] = {}
    for path in paths:
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            link = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.old")
            os.link(path, link, follow_symlinks=False)
        except OSError:
            continue
        kept[path] = link
    return kept


def _put_in_place(held: list[tuple[int, Path, Path]], placed: list[Path]) -> None:
    """Each held file flushed, then renamed over its final name, then the folders flushed
    once: the renames follow one another, the only stretch in which a SIGKILL leaves a mix.
    Each final name is appended to ``placed`` as its file is renamed (on an error, the held
    files past ``len(placed)`` are still held)."""
    for fd, temp, _path in held:
        _still_ours(fd, temp)
        _flush(temp)
    for _fd, temp, path in held:
        os.replace(temp, path)
        placed.append(path)
    for parent in dict.fromkeys(path.parent for _, _, path in held):
        _fsync_dir(parent)


def _named_as_final(exc: OSError, finals: dict[str, Path]) -> None:
    """``exc`` naming the final file where it named a writer's private one (a full disk as
    the plot was drawn: ``/proc/self/fd/3/2-history.png``, not ``H/history.png``)."""
    for attr in ("filename", "filename2"):
        named = getattr(exc, attr, None)
        if isinstance(named, str | os.PathLike):
            base = Path(named).name  # the private name, or a writer's own temporary beside it
            final = next(
                (f for k, f in finals.items() if base == k or base.startswith(f".{k}.")), None
            )
            if final is not None:
                setattr(exc, attr, str(final))


def _hold(folder: int, name: str, final: Path) -> tuple[int, Path, Path]:
    """The file a writer left at ``name`` in the private ``folder``, held beside ``final``
    under a fresh temporary name: (a descriptor of it, the temporary name, ``final``)."""
    fd = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise OSError(errno.EINVAL, "the writer left no plain file", str(final))
        os.fsync(fd)
        out, temp = _create_temp(final)  # a name of ours beside final, made exclusively
        try:
            os.replace(name, temp, src_dir_fd=folder)  # one file system: ours takes the name
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                os.close(out)
                with contextlib.suppress(OSError):
                    temp.unlink()
                raise
            try:
                _copy(fd, out)  # another file system: copied into the name made for it
                os.fsync(out)
            except BaseException:
                with contextlib.suppress(OSError):
                    _still_ours(out, temp)
                    temp.unlink()
                os.close(out)
                raise
            os.close(fd)
            return out, temp, final
        os.close(out)  # the placeholder, replaced: the held file is the writer's, as fd
        return fd, temp, final
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise


def atomic_write_bytes(final: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``final`` through a new temporary file and a rename."""
    with _fresh(final) as (fd, _):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]


def atomic_write_text(final: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 ``text`` (``\\n`` line ends) to ``final`` through a rename."""
    atomic_write_bytes(final, text.encode("utf-8"))

"""A fork whose file cannot be read back says so, naming the output as the user gave it.

``fork`` reads its finished ``<out>.partial`` back as every tool reads a replay before
giving it its name (tests/cli/test_fork_readback.py). A read the system refused there (EIO
on a dying disk) was reported as the change's fault: ``--set passed=true, after="good":
the battle it makes writes an event no reader takes (line  cannot read: Input/output
error)`` — the reader words a file it cannot open as a replay it cannot trust, at "line
0". Now it is one line naming the path given, exit 2, the fork not kept and an older file
at that path kept byte for byte; a line no reader takes is refused as before.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sim.replay import fork
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
IO_ERROR = os.strerror(errno.EIO)
CHANGE = ("--at", "19", "--set", "passed=true", "--set", "after=good")
"""Pat's fork (docs/replay-tools.md): it is written and verifies when the disk reads."""


def _reading_the_partial_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a ``.partial`` for reading fails as a dying disk fails; writing it works."""
    real = os.open

    def failing(path: str | os.PathLike[str], flags: int, *args: object, **kw: object) -> int:
        if os.fspath(path).endswith(".partial") and not flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EIO, IO_ERROR, os.fspath(path))
        return real(path, flags, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", failing)


@pytest.mark.parametrize("given", ["./r.jsonl", "r.jsonl.gz", "abs"])
def test_a_partial_the_system_will_not_read_back_is_named_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    monkeypatch.chdir(tmp_path)
    out = str(tmp_path / "r.jsonl") if given == "abs" else given
    Path(out).write_bytes(STONE_WALL.read_bytes())  # an older replay there, kept
    _reading_the_partial_fails(monkeypatch)
    result = invoke("fork", str(STONE_WALL), *CHANGE, "-o", out, "--force")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"battlesim: error: cannot read {out} back after writing it: {IO_ERROR}; the fork "
        "was not kept\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == [Path(out).name]
    assert Path(out).read_bytes() == STONE_WALL.read_bytes()


def test_an_os_error_while_reading_it_back_is_named_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OSError from the read-back itself (not worded by the reader) was said to be a
    file its ruleset's tools cannot read (``[Errno 5] …``)."""
    out = tmp_path / "r.jsonl"

    def failing(readback: object) -> None:
        raise OSError(errno.EIO, IO_ERROR, f"{out}.partial")

    monkeypatch.setattr(fork, "_every_tool_reads", failing)
    result = invoke("fork", str(STONE_WALL), *CHANGE, "-o", str(out))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"battlesim: error: cannot read {out} back after writing it: {IO_ERROR}; the fork "
        "was not kept\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_same_fork_is_written_when_the_disk_reads(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    result = invoke("fork", str(STONE_WALL), *CHANGE, "-o", str(out))
    assert (result.exit_code, result.stderr) == (0, "")
    assert invoke("verify", str(out)).exit_code == 0

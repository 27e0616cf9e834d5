"""A write that fails midway (a full disk, an I/O error) names the path the user gave.

The OS's error names whatever battlesim handed it: a write's ENOSPC names no file, a
rename's names the temporary name the file was written under (``r.jsonl.partial``,
``.r.html.<pid>.<random>.tmp``), battlesim's detail. Every command says instead
``cannot write … PATH: <why>`` with ``PATH`` as the user typed it, exits 2 (bad input:
a path the user must change), leaves no temporary file behind and the file already at
``PATH`` byte for byte. A link planted at the ``.partial`` is still named there
(tests/security/test_planted_links.py): that name is the one to remove.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.replayfile.sinks import FileSink
from tests.batch.helpers import SCENARIOS, invoke

ROOT = SCENARIOS.parent
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"
STONE_WALL = SCENARIOS / "stone_wall.yaml"
NO_SPACE = os.strerror(errno.ENOSPC)
IO_ERROR = os.strerror(errno.EIO)

COMMANDS: dict[str, tuple[Callable[[str], list[str]], str]] = {
    "run": (lambda out: ["run", str(STONE_WALL), "--out", out], "cannot write replay: "),
    "fork": (
        lambda out: [
            "fork", str(GOLDEN), "--at", "19", "--set", "passed=true", "--set", "after=good",
            "--out", out,
        ],
        "cannot write ",
    ),
}  # fmt: skip


def _rename_fails(monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    """``os.replace`` of a file ending in ``suffix`` fails as a dying disk fails (EIO),
    naming both names as the OS does."""
    real = os.replace

    def failing(src: str | os.PathLike[str], dst: str | os.PathLike[str], **kw: object) -> None:
        if os.fspath(src).endswith(suffix):
            raise OSError(errno.EIO, IO_ERROR, os.fspath(src), None, os.fspath(dst))
        real(src, dst, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", failing)


def _disk_fills(monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay's 21st line meets a full disk, the error naming the file written to."""
    real = FileSink.write

    def full(self: FileSink, line: str | bytes) -> None:
        if self.count == 20:
            raise OSError(errno.ENOSPC, NO_SPACE, str(self.partial))
        real(self, line)

    monkeypatch.setattr(FileSink, "write", full)


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("given", ["abs", "./r.jsonl", "r.jsonl"])
def test_a_full_disk_names_the_replay_as_given_not_its_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, given: str
) -> None:
    monkeypatch.chdir(tmp_path)
    out = str(tmp_path / "r.jsonl") if given == "abs" else given
    shutil.copy(GOLDEN, tmp_path / "r.jsonl")
    _disk_fills(monkeypatch)
    args, said = COMMANDS[command]
    result = invoke(*args(out))
    assert result.exit_code == 2, result.output
    assert result.stderr == f"battlesim: error: {said}{out}: {NO_SPACE}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]
    assert (tmp_path / "r.jsonl").read_bytes() == GOLDEN.read_bytes()


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_a_failed_rename_names_the_replay_not_its_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, name: str
) -> None:
    out = tmp_path / name
    out.write_bytes(b"the old replay\n")
    old = out.read_bytes()
    _rename_fails(monkeypatch, ".partial")
    args, said = COMMANDS[command]
    result = invoke(*args(str(out)), "--force")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"battlesim: error: {said}{out}: {IO_ERROR}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert out.read_bytes() == old


def test_a_report_whose_rename_fails_names_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """report writes through the writer every study file shares (``.<name>.….tmp``)."""
    out = tmp_path / "r.html"
    _rename_fails(monkeypatch, ".tmp")
    result = invoke("report", GOLDEN, "--out", out)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"battlesim: error: cannot write {out}: {IO_ERROR}\n"
    assert list(tmp_path.iterdir()) == []


def test_a_study_file_whose_rename_fails_is_named_in_the_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """batch's progress.json, written as summary.json and the manifest are."""
    out = tmp_path / "b"
    _rename_fails(monkeypatch, ".tmp")
    result = invoke("batch", STONE_WALL, "--runs", "2", "--jobs", "1", "--no-plots", "-q",
                    "--out", out)  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.stderr == f"battlesim: error: {out / 'progress.json'}: {IO_ERROR}\n"
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]


def test_an_export_whose_rename_fails_names_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """export holds its tables beside their names and renames them together: a failed
    rename names the table, and the old export is kept whole."""
    study = tmp_path / "s"
    args = ["--runs", "2", "--jobs", "1", "--no-plots", "-q", "--out", study]
    assert invoke("batch", STONE_WALL, *args).exit_code == 0
    assert invoke("export", study, "--format", "csv").exit_code == 0
    export = study / "export"
    before = {p.name: p.read_bytes() for p in export.iterdir()}
    _rename_fails(monkeypatch, ".tmp")
    result = invoke("export", study, "--format", "csv")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"battlesim: error: {export / 'study.csv'}: {IO_ERROR}\n"
    assert {p.name: p.read_bytes() for p in export.iterdir()} == before


@pytest.mark.parametrize(
    ("named", "errno_", "expected"),
    [
        ("d/r.jsonl.partial", errno.ENOSPC, "./d/r.jsonl"),
        ("d/.r.jsonl.123.0a1b2c3d.tmp", errno.EIO, "./d/r.jsonl"),
        ("d/r.jsonl", errno.EIO, "./d/r.jsonl"),
        (None, errno.ENOSPC, "./d/r.jsonl"),
        ("d/r.jsonl.partial", errno.EEXIST, "d/r.jsonl.partial"),  # a link planted there
        ("d/r.jsonl.partial", errno.EAGAIN, "d/r.jsonl.partial"),  # another writer
        ("e/r.jsonl.partial", errno.EIO, "e/r.jsonl.partial"),  # another folder's
        ("d/.q.jsonl.123.0a1b2c3d.tmp", errno.EIO, "d/.q.jsonl.123.0a1b2c3d.tmp"),
    ],
)
def test_named_as_given(named: str | None, errno_: int, expected: str) -> None:
    from engine.safety.atomic import named_as_given

    exc = OSError(errno_, os.strerror(errno_), named)
    assert named_as_given(exc, "./d/r.jsonl").filename == expected


def test_a_campaign_replay_whose_rename_fails_is_named_not_its_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A campaign holds each battle's replay at its ``.partial`` and puts them all in place
    with campaign.json: a failed rename names the replay, and nothing is left."""
    out = tmp_path / "c"
    _rename_fails(monkeypatch, ".partial")
    result = invoke("campaign", SCENARIOS / "fredericksburg_campaign.yaml", "--out", out)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"battlesim: error: cannot write replays: {out / '1-fredericksburg.jsonl'}: {IO_ERROR}\n"
    )
    assert list(out.iterdir()) == []

"""A replay's last line: cut short, or whole without the newline the format ends it with.

docs/replay-format.md: every line ends with ``\\n``, the last too. A file whose footer is
whole (its chain link holds) but lacks that newline is not the file battlesim wrote, so it
never verifies — but it is not cut short either: it is DAMAGED, and says so ("the file does
not end with a newline"). A line really cut short is INCOMPLETE, as before; a whole event
line with no newline and nothing after it is INCOMPLETE for the footer it lacks. Exit codes
as ever: ``verify`` 1, every other tool 2.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.batch.helpers import SCENARIOS, invoke

GOLDEN = SCENARIOS.parent / "replays" / "stone_wall-s1862.jsonl"
RAW = GOLDEN.read_bytes()
LINES = RAW.split(b"\n")[:-1]  # 50: header, 48 events, footer
NO_NEWLINE = (
    "the file does not end with a newline: its last line, the footer, is whole, but every "
    "line of a replay ends with one, the last too (was it saved by an editor?)"
)
CUT = "incomplete: the last line was cut short (a run stopped while writing?)"
WHOLE_EVENT = (
    "incomplete: the last line is whole but does not end with a newline, and no footer "
    "follows (a run stopped while writing?)"
)
WHOLE_HEADER = (
    "incomplete: the file ends after its header, which is whole but does not end with a "
    "newline: no event and no footer (a run stopped while writing?)"
)


def _write(tmp_path: Path, data: bytes, name: str = "r.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(gzip.compress(data, mtime=0) if name.endswith(".gz") else data)
    return path


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_a_whole_replay_without_its_last_newline_is_damaged_and_says_so(
    tmp_path: Path, name: str
) -> None:
    assert len(LINES) == 50 and RAW.endswith(b"}\n")
    path = _write(tmp_path, RAW[:-1], name)
    result = invoke("verify", path)
    assert result.exit_code == 1
    assert result.stdout == f"DAMAGED at seq 48: {path}:50 (seq 48): {NO_NEWLINE}\n"
    data = json.loads(invoke("verify", path, "--json").stdout)
    assert (data["status"], data["line"], data["message"]) == ("damaged", 50, NO_NEWLINE)
    shown = invoke("show", path, "--turn", "1")
    assert shown.exit_code == 2
    assert shown.stderr == f"battlesim: error: {path}:50 (seq 48): {NO_NEWLINE}\n"
    assert invoke("verify", _write(tmp_path, RAW, "whole-" + name)).exit_code == 0


@pytest.mark.parametrize("keep", [1, 20, len(LINES[-1]) - 1])
def test_a_last_line_really_cut_short_is_incomplete(tmp_path: Path, keep: int) -> None:
    path = _write(tmp_path, b"\n".join(LINES[:-1]) + b"\n" + LINES[-1][:keep])
    result = invoke("verify", path)
    assert result.exit_code == 1
    assert result.stdout == f"INCOMPLETE at seq 48: {path}:50 (seq 48): {CUT}\n"
    shown = invoke("show", path)
    assert (shown.exit_code, shown.stderr) == (2, f"battlesim: error: {path}:50 (seq 48): {CUT}\n")


def test_a_whole_event_line_without_newline_or_footer_is_incomplete(tmp_path: Path) -> None:
    path = _write(tmp_path, b"\n".join(LINES[:30]))
    result = invoke("verify", path)
    assert result.exit_code == 1
    assert result.stdout == f"INCOMPLETE at seq 28: {path}:30 (seq 28): {WHOLE_EVENT}\n"


def test_a_whole_header_alone_without_newline_is_incomplete(tmp_path: Path) -> None:
    path = _write(tmp_path, LINES[0])
    result = invoke("verify", path)
    assert result.exit_code == 1
    assert result.stdout == f"INCOMPLETE at line 1: {path}:1: {WHOLE_HEADER}\n"
    cut = _write(tmp_path, LINES[0][:-3], "cut.jsonl")
    assert invoke("verify", cut).stdout == (
        f"INCOMPLETE at line 1: {cut}:1: incomplete: the header was cut short\n"
    )


def test_an_edited_footer_without_newline_is_a_broken_chain(tmp_path: Path) -> None:
    """A last line whose link is whole but wrong was edited, not cut: damaged as such."""
    footer = LINES[-1].replace(b'"events":48', b'"events":47')
    path = _write(tmp_path, b"\n".join([*LINES[:-1], footer]))
    result = invoke("verify", path)
    assert result.exit_code == 1
    assert result.stdout == (
        f"DAMAGED at seq 48: {path}:50 (seq 48): hash chain broken: this line, or one before "
        "it, was edited, dropped or reordered\n"
    )


def _checker() -> str:
    """The stand-alone checker of docs/replay-format.md, as printed there."""
    page = (SCENARIOS.parent / "docs" / "replay-format.md").read_text(encoding="utf-8")
    found = re.search(r"A stand-alone checker.*?```python\n(.*?)```", page, re.DOTALL)
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (RAW, "chain intact, 48 events"),
        (RAW[:-1], "the file does not end with a newline"),
        (RAW[:-20], "truncated (the last line was cut short)"),
        (b"\n".join(LINES[:30]), "truncated (no newline, no footer)"),
    ],
    ids=["whole", "no-newline", "cut", "no-footer"],
)
def test_the_documented_checker_says_the_same(tmp_path: Path, data: bytes, said: str) -> None:
    path = _write(tmp_path, data)
    done = subprocess.run(
        [sys.executable, "-c", _checker(), str(path)], capture_output=True, text=True, check=False
    )
    assert (done.stdout + done.stderr).strip().endswith(said), done

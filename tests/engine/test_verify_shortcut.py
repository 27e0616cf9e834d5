"""verify reads a recorded line its re-simulation wrote byte for byte without checking it again.

The shortcut (``ReplayStream.expect``, ``Recorded.next(same=...)``) holds only
while every earlier line, from the header on, was the re-simulation's own:
then the line is the writer's exact serialisation, its chain link the
writer's.  These tests pin that it is taken on an intact replay, and that
nothing it skips lets a damaged, edited, truncated or re-chained file verify.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.replayfile.reader import ReplayStream
from sim.replay.verify import verify_replay
from tests.forge import bodies, reseal

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"


def _events(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines()) - 2


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the lines read through the shortcut (by seq)."""
    seen: list[int] = []
    inner = ReplayStream._written

    def counting(self: ReplayStream, mark: Any, raw: bytes) -> Any:
        seen.append(mark.seq)
        return inner(self, mark, raw)

    monkeypatch.setattr(ReplayStream, "_written", counting)
    return seen


def test_every_event_line_of_an_intact_replay_takes_the_shortcut(written: list[int]) -> None:
    result = verify_replay(GOLDEN)
    assert result.ok
    assert written == list(range(_events(GOLDEN)))
    assert result.events == _events(GOLDEN)


def _edited(tmp_path: Path, seq: int, *, rechain: bool) -> Path:
    """The golden with event ``seq``'s ``turn`` written as a float (``3.0`` for ``3``)."""
    texts = GOLDEN.read_text(encoding="utf-8").splitlines()
    n = seq + 1  # the line's index: the header is line 0
    data = json.loads(texts[n])
    assert type(data["turn"]) is int
    old = f'"turn":{data["turn"]},'
    assert old in texts[n]
    if rechain:
        body = bodies(GOLDEN)
        body[n] = body[n].replace(old, f'"turn":{data["turn"]}.0,', 1)
        text = reseal(body)
    else:
        texts[n] = texts[n].replace(old, f'"turn":{data["turn"]}.0,', 1)
        text = "\n".join(texts) + "\n"
    out = tmp_path / "edited.jsonl"
    out.write_text(text, encoding="utf-8")
    return out


def test_an_edit_with_its_chain_left_is_damage_and_no_later_line_is_trusted(
    tmp_path: Path, written: list[int]
) -> None:
    """The edited line is not the re-simulation's: from there every line is checked in full,
    and the broken chain outranks the difference."""
    path = _edited(tmp_path, 40, rechain=False)
    result = verify_replay(path)
    assert not result.ok
    assert result.damage is not None
    assert (result.damage.line, result.damage.seq) == (42, 40)
    assert "hash chain broken" in result.damage.message
    assert written == list(range(40))


def test_a_rechained_edit_is_refused_by_the_strict_reader(
    tmp_path: Path, written: list[int]
) -> None:
    """Re-chained, ``3.0`` for an int is still damage: the line is read in full."""
    path = _edited(tmp_path, 40, rechain=True)
    result = verify_replay(path)
    assert not result.ok
    assert result.damage is not None and result.damage.seq == 40
    assert written == list(range(40))


def test_a_rechained_lawful_edit_differs_and_names_the_line(tmp_path: Path) -> None:
    """A lawful re-chained change (the last event's time) is a mismatch at that line."""
    texts = bodies(GOLDEN)
    data = json.loads(texts[-2])
    old = f'"time":{data["time"]!r},'
    assert old in texts[-2]
    texts[-2] = texts[-2].replace(old, f'"time":{data["time"] + 1.0!r},', 1)
    path = tmp_path / "moved.jsonl"
    path.write_text(reseal(texts), encoding="utf-8")
    result = verify_replay(path)
    assert not result.ok and result.damage is None
    assert result.mismatch is not None and result.mismatch.line == len(texts) - 1


@pytest.mark.parametrize("cut", [1, 2, 30])
def test_a_truncated_replay_never_verifies(tmp_path: Path, cut: int) -> None:
    """Lines cut from the end (the footer with them): incomplete, though every line left is
    the re-simulation's own."""
    texts = GOLDEN.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(texts[:-cut]), encoding="utf-8")
    result = verify_replay(path)
    assert result.damage is not None and result.damage.kind == "incomplete"


def test_a_line_appended_after_the_footer_is_damage(tmp_path: Path) -> None:
    texts = GOLDEN.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "more.jsonl"
    path.write_text("".join([*texts, texts[-2]]), encoding="utf-8")
    result = verify_replay(path)
    assert result.damage is not None and "after the footer" in result.damage.message
